"""A value used twice: the engine adds up the gradients of both uses."""
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * x  # x goes into MulBackward0 twice, once for each factor
out = y.sum()
out.backward()
print(x.grad)  # d(x * x)/dx = x + x
