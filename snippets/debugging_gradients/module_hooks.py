"""Backward hooks on a module: what grad_input and grad_output are for nn.Linear."""
import torch
from torch import nn

torch.manual_seed(0)
layer = nn.Linear(3, 2)

# --8<-- [start:hook]
def show(module, grad_input, grad_output):
    # grad_output: gradients of the loss with respect to the module's outputs;
    # grad_input: with respect to its tensor inputs (not its parameters).
    print(f"{type(module).__name__}:"
          f" grad_output {[tuple(g.shape) for g in grad_output]},"
          f" grad_input {[None if g is None else tuple(g.shape) for g in grad_input]}")


handle = layer.register_full_backward_hook(show)
x = torch.randn(4, 3, requires_grad=True)
out = layer(x)
out.sum().backward()
# --8<-- [end:hook]

# --8<-- [start:values]
captured = {}
handle.remove()
handle = layer.register_full_backward_hook(
    lambda module, grad_input, grad_output:
        captured.update(inputs=grad_input, outputs=grad_output))
weights = torch.tensor([[1.0, -1.0]])  # d loss / d out, the same for every row
(layer(x) * weights).sum().backward()
(grad_out,), (grad_in,) = captured["outputs"], captured["inputs"]
print("grad_output[0]:", grad_out[0])
print("grad_input[0] is grad_output[0] @ weight:",
      torch.allclose(grad_in, grad_out @ layer.weight))
# --8<-- [end:values]

# --8<-- [start:data]
data = torch.randn(4, 3)  # plain data: no gradient wanted
layer(data).sum().backward()
print("input without requires_grad:", captured["inputs"])
handle.remove()
# --8<-- [end:data]
