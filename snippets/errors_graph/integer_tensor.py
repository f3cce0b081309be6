"""Asking an integer tensor to require a gradient."""
import numpy as np
import torch

# --8<-- [start:error]
try:
    weights = torch.tensor([1, 2, 3], requires_grad=True)  # integers: int64
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:numpy]
pixels = np.array([[0, 128, 255], [64, 32, 16]], dtype=np.uint8)  # e.g. an image
x = torch.from_numpy(pixels)
print(x.dtype)
try:
    x.requires_grad_()  # to get the gradient with respect to the input image
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:numpy]

# --8<-- [start:fix]
weights = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)  # or dtype=torch.float32
(weights**2).sum().backward()
print(weights.grad)

x = torch.from_numpy(pixels).float().div(255).requires_grad_()
(x * 2).sum().backward()
print(x.dtype, x.grad)
# --8<-- [end:fix]
