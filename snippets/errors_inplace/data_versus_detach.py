"""Capping an activation in place through .data: backward uses the changed
value without a word. Through .detach(), autograd notices."""
import torch

# --8<-- [start:data]
x = torch.tensor([0.0, 1.0, 2.0, 3.0], requires_grad=True)
y = x.exp()             # ExpBackward0 saves its output y: exp' = exp
y.data.clamp_(max=5.0)  # cap the activations, out of autograd's sight
y.sum().backward()
print("y:     ", y.detach())
print("x.grad:", x.grad)
# --8<-- [end:data]

# --8<-- [start:detach]
x = torch.tensor([0.0, 1.0, 2.0, 3.0], requires_grad=True)
y = x.exp()
y.detach().clamp_(max=5.0)  # same storage, but the version counter is shared
try:
    y.sum().backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:detach]

# --8<-- [start:fix]
x = torch.tensor([0.0, 1.0, 2.0, 3.0], requires_grad=True)
y = x.exp().clamp(max=5.0)  # the cap is part of the graph
y.sum().backward()
print("y:     ", y.detach())
print("x.grad:", x.grad)
# --8<-- [end:fix]
