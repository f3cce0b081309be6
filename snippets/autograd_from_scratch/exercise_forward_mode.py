"""Exercise: forward mode with dual numbers, checked against torch.func.jvp."""
import torch
import torch.nn.functional as F
from torch.func import jvp

import tiny_autograd as tiny


class Dual:
    """A value and its tangent: the derivative along one direction, carried forward."""

    def __init__(self, primal, tangent):
        self.primal, self.tangent = primal, tangent


def lift(x, like):
    """A constant has a tangent of 0."""
    if isinstance(x, Dual):
        return x
    return Dual(torch.as_tensor(x, dtype=like.primal.dtype),
                torch.zeros((), dtype=like.primal.dtype))


# Each rule is a Jacobian-vector product.
# No unbroadcasting: tangents broadcast like values.
def add(a, b):
    a, b = lift(a, b), lift(b, a)
    return Dual(a.primal + b.primal, a.tangent + b.tangent)


def mul(a, b):
    a, b = lift(a, b), lift(b, a)
    return Dual(a.primal * b.primal, a.tangent * b.primal + a.primal * b.tangent)


def matmul(a, b):
    return Dual(a.primal @ b.primal, a.tangent @ b.primal + a.primal @ b.tangent)


def sum_(a, dim=None, keepdim=False):
    return Dual(a.primal.sum(dim, keepdim), a.tangent.sum(dim, keepdim))


def mean(a, dim=None, keepdim=False):
    return Dual(a.primal.mean(dim, keepdim), a.tangent.mean(dim, keepdim))


def pow_(a, p):
    return Dual(a.primal**p, p * a.primal ** (p - 1) * a.tangent)


def tanh(a):
    out = torch.tanh(a.primal)
    return Dual(out, (1 - out**2) * a.tangent)


def exp(a):
    out = torch.exp(a.primal)
    return Dual(out, out * a.tangent)


def elu(a, alpha=1.0):
    e = torch.exp(a.primal)
    positive = a.primal > 0
    return Dual(torch.where(positive, a.primal, alpha * (e - 1)),
                torch.where(positive, a.tangent, alpha * e * a.tangent))


Dual.__add__ = Dual.__radd__ = add
Dual.__mul__ = Dual.__rmul__ = mul
Dual.__matmul__, Dual.__pow__ = matmul, pow_
Dual.sum, Dual.mean, Dual.tanh, Dual.exp = sum_, mean, tanh, exp


def forward_jvp(f, primals, tangents):
    """(f(primals), J_f(primals) @ tangents), in one forward pass."""
    out = f(*(Dual(p, t) for p, t in zip(primals, tangents)))
    return out.primal, out.tangent


# One function, three engines: it only uses operators and methods that all of them have.
def layer_loss(x, w, b, elu):
    return ((elu(x @ w + b, 0.5).tanh() ** 2).mean()
            + (x.exp().sum(dim=1, keepdim=True) * b).sum())


torch.manual_seed(0)
primals = (torch.randn(5, 3, dtype=torch.float64),
           torch.randn(3, 4, dtype=torch.float64),
           torch.randn(4, dtype=torch.float64))  # b broadcasts over the 5 rows
tangents = tuple(torch.randn_like(p) for p in primals)

value, tangent = forward_jvp(lambda *a: layer_loss(*a, elu), primals, tangents)
torch_value, torch_tangent = jvp(lambda *a: layer_loss(*a, F.elu), primals, tangents)
print(f"forward mode: {tangent.item():.15f}")
print(f"torch.func.jvp: {torch_tangent.item():.15f}")

# Reverse mode gives the same number as a dot product: gradient . tangent.
leaves = [tiny.Value(p) for p in primals]
tiny.backward(layer_loss(*leaves, tiny.elu))
dot = torch.stack([(leaf.grad * t).sum() for leaf, t in zip(leaves, tangents)]).sum()
print(f"tiny reverse mode, gradient . tangent: {dot.item():.15f}")
