"""Double backward: the first derivative is a graph too, and backward runs it."""
import torch
from autograd_steps import step_through

x = torch.tensor(2.0, requires_grad=True)
with torch.autograd.set_detect_anomaly(True, check_nan=False):
    y = x**3
    (dy_dx,) = torch.autograd.grad(y, x, create_graph=True)  # 3 x**2 = 12
print(dy_dx)
step_through(dy_dx)  # the derivative of 3 x**2: 6 x = 12
print(x.grad)
