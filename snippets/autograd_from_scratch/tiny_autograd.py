"""A reverse-mode autograd engine over torch tensors,
small enough to read in one sitting.

Each operation computes its output with ordinary torch code (nothing here asks PyTorch's
autograd for anything) and records its parents and a vector-Jacobian product (VJP): a
function from the adjoint of its output to one adjoint per parent.
"""
import torch


# --8<-- [start:value]
class Value:
    """A tensor that remembers how it was computed."""

    def __init__(self, data, parents=(), vjp=None, op="leaf"):
        self.data = torch.as_tensor(data)
        self.parents = parents  # the Values this one was computed from
        self.vjp = vjp          # adjoint of this Value -> one adjoint per parent
        self.op = op            # a name, for printing
        self.grad = None        # filled in by backward(), for leaves

    @property
    def shape(self):
        return self.data.shape

    def __repr__(self):
        return f"Value({self.op}, shape={tuple(self.shape)})"


def lift(x, like):
    """Numbers and tensors become constants (leaves with no parents),
    in the dtype of `like`."""
    if isinstance(x, Value):
        return x
    return Value(torch.as_tensor(x, dtype=like.data.dtype), op="constant")
# --8<-- [end:value]


# --8<-- [start:unbroadcast]
def unbroadcast(grad, shape):
    """Sum `grad` back down to `shape`, undoing broadcasting: sum over the leading
    dimensions that broadcasting added, and over the dimensions it stretched from 1."""
    while grad.dim() > len(shape):
        grad = grad.sum(dim=0)
    for dim, size in enumerate(shape):
        if size == 1 and grad.shape[dim] != 1:
            grad = grad.sum(dim=dim, keepdim=True)
    return grad
# --8<-- [end:unbroadcast]


# --8<-- [start:binary]
def add(a, b):
    a, b = lift(a, b), lift(b, a)
    return Value(a.data + b.data, (a, b), op="add",
                 vjp=lambda g: (unbroadcast(g, a.shape), unbroadcast(g, b.shape)))


def mul(a, b):
    a, b = lift(a, b), lift(b, a)
    return Value(a.data * b.data, (a, b), op="mul",
                 vjp=lambda g: (unbroadcast(g * b.data, a.shape),
                                unbroadcast(g * a.data, b.shape)))


def matmul(a, b):
    """Matrix product of two 2-D values."""
    a, b = lift(a, b), lift(b, a)
    return Value(a.data @ b.data, (a, b), op="matmul",
                 vjp=lambda g: (g @ b.data.T, a.data.T @ g))
# --8<-- [end:binary]


# --8<-- [start:reductions]
def sum(a, dim=None, keepdim=False):  # named after Tensor.sum; hides the builtin here
    def vjp(g):
        if dim is not None and not keepdim:
            g = g.unsqueeze(dim)        # put back the dimension that was summed away
        return (g.expand(a.shape),)     # every entry contributed with weight 1
    return Value(a.data.sum(dim=dim, keepdim=keepdim), (a,), vjp, op="sum")


def mean(a, dim=None, keepdim=False):
    count = a.data.numel() if dim is None else a.shape[dim]
    return mul(sum(a, dim, keepdim), 1.0 / count)
# --8<-- [end:reductions]


# --8<-- [start:elementwise]
def pow(a, p):  # named after Tensor.pow; hides the builtin here
    """a ** p for a Python number p."""
    return Value(a.data**p, (a,), op=f"pow {p}",
                 vjp=lambda g: (g * p * a.data ** (p - 1),))


def tanh(a):
    out = torch.tanh(a.data)
    return Value(out, (a,), op="tanh", vjp=lambda g: (g * (1 - out**2),))


def exp(a):
    out = torch.exp(a.data)
    return Value(out, (a,), op="exp", vjp=lambda g: (g * out,))


def elu(a, alpha=1.0):
    """ELU(a) = a where a > 0, alpha * (exp(a) - 1) elsewhere;
    at 0 the slope is alpha."""
    e = torch.exp(a.data)
    out = torch.where(a.data > 0, a.data, alpha * (e - 1))
    return Value(out, (a,), op="elu",
                 vjp=lambda g: (g * torch.where(a.data > 0, 1.0, alpha * e),))
# --8<-- [end:elementwise]


# --8<-- [start:operators]
Value.__add__ = Value.__radd__ = add
Value.__mul__ = Value.__rmul__ = mul
Value.__matmul__ = matmul
Value.__rmatmul__ = lambda b, a: matmul(a, b)
Value.__pow__ = pow
Value.__neg__ = lambda a: a * -1.0                     # the rest are composites:
Value.__sub__ = lambda a, b: a + (-lift(b, a))         # their VJPs come for free
Value.__rsub__ = lambda b, a: lift(a, b) + (-b)
Value.__truediv__ = lambda a, b: a * lift(b, a) ** -1
Value.sum, Value.mean, Value.tanh, Value.exp = sum, mean, tanh, exp
# --8<-- [end:operators]


# --8<-- [start:backward]
def topological_order(root):
    """Every Value that `root` depends on, each after all of its parents. A loop with
    a stack rather than recursion, so that a long chain does not hit Python's limit."""
    order, seen, stack = [], set(), [(root, False)]
    while stack:
        value, parents_done = stack.pop()
        if parents_done:
            order.append(value)
        elif id(value) not in seen:
            seen.add(id(value))
            stack.append((value, True))  # comes off the stack after all its parents
            stack.extend((parent, False) for parent in value.parents)
    return order


def backward(root):
    """Fill in .grad, d root / d leaf, of every leaf that `root` depends on."""
    adjoints = {id(root): torch.ones_like(root.data)}  # d root / d root = 1
    for value in reversed(topological_order(root)):    # consumers before their inputs
        # complete: every consumer has run
        g = adjoints.pop(id(value))
        if not value.parents:                           # a leaf: accumulate, like .grad
            value.grad = g if value.grad is None else value.grad + g
            continue
        for parent, g_parent in zip(value.parents, value.vjp(g)):
            if id(parent) in adjoints:                  # used more than once: add up
                adjoints[id(parent)] = adjoints[id(parent)] + g_parent
            else:
                adjoints[id(parent)] = g_parent
# --8<-- [end:backward]
