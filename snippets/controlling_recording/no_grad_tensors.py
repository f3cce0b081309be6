"""What no_grad allows: updating a parameter in place;
and the version counter that guards saved tensors."""
import torch

# --8<-- [start:update]
w = torch.tensor([1.0, 2.0], requires_grad=True)
(w**2).sum().backward()
try:
    w -= 0.1 * w.grad
except RuntimeError as err:
    print(f"RuntimeError: {err}")
with torch.no_grad():
    w -= 0.1 * w.grad
print(w, w.is_leaf, w._version)
# --8<-- [end:update]

# --8<-- [start:guard]
w = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.no_grad():
    s = torch.tensor([3.0, 4.0]) * 2
y = (w * s).sum()   # MulBackward0 saves s: d y / d w = s
with torch.no_grad():
    s.add_(1)
try:
    y.backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:guard]
