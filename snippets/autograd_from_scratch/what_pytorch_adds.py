"""What PyTorch's autograd does that the tiny engine does not,
one feature per section."""
import torch

import tiny_autograd as tiny

# --8<-- [start:order]
x = torch.tensor([0.5, -1.0], requires_grad=True)
a = x.exp()   # created first: the lower sequence number
b = x.tanh()  # created second
loss = (a * b).sum()
first = a.grad_fn._sequence_nr()  # each thread counts the nodes it made: count from a's
ran = []
for node in (loss.grad_fn, loss.grad_fn.next_functions[0][0], a.grad_fn, b.grad_fn):
    node.register_prehook(lambda grads, node=node: ran.append(
        f"{node.name()} (#{node._sequence_nr() - first})"))
loss.backward()
print("PyTorch ran:", ", ".join(ran))
print("the engine:", type(torch.autograd.Variable._execution_engine))
print("a node:", type(a.grad_fn), "defined in", type(a.grad_fn).__module__)

X = tiny.Value(x.detach())
tiny_loss = (X.exp() * X.tanh()).sum()
print("tiny engine:",
      ", ".join(v.op for v in reversed(tiny.topological_order(tiny_loss)) if v.parents))
# --8<-- [end:order]

# --8<-- [start:saved]
y = x.exp()
print("ExpBackward0 saves its output:", torch.equal(y.grad_fn._saved_result, y))
y.sum().backward()
try:
    y.sum().backward()
except RuntimeError as error:
    print("second backward:", str(error).split(". ")[0])

Y = X.exp()
tiny.backward(Y.sum())
tiny.backward(Y.sum())  # works: the closures keep every saved tensor while Y lives
print("tiny engine, twice:", X.grad)
# --8<-- [end:saved]

# --8<-- [start:version]
y = x.exp()
print("version before:", y._version)
y.add_(1)  # in place: the tensor that ExpBackward0 saved is not e^x any more
print("version after: ", y._version)
try:
    y.sum().backward()
except RuntimeError as error:
    print("PyTorch:", str(error).split(";")[0])

X.grad = None
Y = X.exp()
Y.data.add_(1)  # the same change: the tiny engine uses the changed tensor
tiny.backward(Y.sum())
print("tiny engine:", X.grad, "but e^x is", x.detach().exp())
# --8<-- [end:version]

# --8<-- [start:hooks]
x.grad = None
h = x * 3
h.register_hook(lambda grad: print("gradient reaching h:", grad) or grad.clamp(max=1.0))
(h**2).sum().backward()
print("x.grad, from the clamped gradient:", x.grad)
# --8<-- [end:hooks]

# --8<-- [start:higher]
t = torch.tensor([0.5, -1.0], requires_grad=True)
# create_graph=True: a graph of the backward
(first,) = torch.autograd.grad(t.tanh().sum(), t, create_graph=True)
print("the first derivative has a graph:", first.grad_fn.name())
(second,) = torch.autograd.grad(first.sum(), t)
print("d2/dt2 tanh:", second)
print("-2 tanh (1 - tanh^2):", (-2 * t.tanh() * (1 - t.tanh() ** 2)).detach())

T = tiny.Value(t.detach())
tiny.backward(T.tanh().sum())
print("tiny engine's gradient is a", type(T.grad).__name__,
      "- not a Value, so no graph to go on")
# --8<-- [end:higher]
