"""Double backward: the first derivative is a graph too, and backward runs it."""
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x**3
(dy_dx,) = torch.autograd.grad(y, x, create_graph=True)  # 3 x**2 = 12
print(dy_dx)
dy_dx.backward()  # the derivative of 3 x**2: 6 x = 12
print(x.grad)
