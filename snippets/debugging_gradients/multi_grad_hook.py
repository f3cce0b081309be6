"""One hook for several tensors, and the hook behind retain_grad()."""
import torch
from torch.autograd.graph import register_multi_grad_hook

# --8<-- [start:all]
x = torch.tensor([1.0, 2.0], requires_grad=True)
a, b = 2 * x, x.exp()


def both(grads):
    print("all:", grads)


handle = register_multi_grad_hook((a, b), both)
(a + b).sum().backward(retain_graph=True)  # a and b both get a gradient
a.sum().backward(retain_graph=True)        # only a does
handle.remove()
# --8<-- [end:all]

# --8<-- [start:any]
calls = []


def first(grad):
    calls.append(grad)
    print("any:", grad)


handle = register_multi_grad_hook((a, b), first, mode="any")
(3 * a + b).sum().backward()
handle.remove()
# --8<-- [end:any]

# --8<-- [start:retain_grad]
h = 3 * x
h.retain_grad()                   # a hook that stores h's gradient in h.grad
h.register_hook(lambda g: 2 * g)  # registered after it, and still run before it
x.grad = None
(h * h).sum().backward()
print(h.retains_grad, h.grad)     # 2 * (2 h) = 4 h, with h = (3, 6)
# --8<-- [end:retain_grad]
