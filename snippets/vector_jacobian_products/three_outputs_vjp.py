"""The VJP of f(x) = (x1^2, x1^2 + 5 x2^2, 3 x2) at x = (1, 2) with v = (1, 1, 1)."""
import torch
from torch.autograd.functional import jacobian

from three_outputs import f

# --8<-- [start:vjp]
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = f(x)
print(y)
v = torch.tensor([1.0, 1.0, 1.0])
y.backward(v)
print(x.grad)
# --8<-- [end:vjp]

# --8<-- [start:jacobian]
J = jacobian(f, x)
print(J)
print(v @ J)
# --8<-- [end:jacobian]
