"""Exercise: three backward() calls without zeroing in between."""
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
for _ in range(3):
    (x**2).sum().backward()
print(x.grad)
