"""What a tensor made under torch.inference_mode() refuses
once inference mode is over."""
import torch

w = torch.ones(3, requires_grad=True)
with torch.inference_mode():
    b = torch.arange(3.0)

# --8<-- [start:saved]
print((w + b).grad_fn.name())
try:
    w * b
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:saved]

# --8<-- [start:inplace]
try:
    b.add_(1)
except RuntimeError as err:
    print(f"RuntimeError: {err}")
print(b)
with torch.inference_mode():
    b.add_(1)
print(b)
# --8<-- [end:inplace]

# --8<-- [start:clone]
normal = b.clone()
print(normal.is_inference())
(w * normal).sum().backward()
print(w.grad)
# --8<-- [end:clone]
