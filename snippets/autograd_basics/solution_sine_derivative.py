"""Exercise: the derivative of sin, checked against cos."""
import math

import torch

x = torch.linspace(0, math.pi, 5, requires_grad=True)
(dsin,) = torch.autograd.grad(torch.sin(x).sum(), x)
print(dsin)
print(torch.allclose(dsin, torch.cos(x)))
print(x.grad)
