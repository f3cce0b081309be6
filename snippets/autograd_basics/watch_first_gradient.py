"""The first gradient again: the page shows the engine running its backward pass."""
import torch

x = torch.ones(2, 2, requires_grad=True)
y = x + 2
z = 3 * y**2
out = z.mean()
out.backward()
print(x.grad)
