"""The .grad of a non-leaf warns; retain_grad() keeps it."""
import torch

x = torch.ones(2, 2, requires_grad=True)
y = x + 2
z = 3 * y**2
z.retain_grad()  # keep the gradient of z, not the one of y
out = z.mean()
out.backward()

print(y.grad)
print(z.grad)
