"""y = log(x) for a 2x3 matrix x: a 6x6 diagonal Jacobian, and x.grad = v * (1/x)."""
import torch
from torch.autograd.functional import jacobian

# --8<-- [start:vjp]
x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
y = torch.log(x)
v = torch.tensor([[3.0, 2.0, 0.0], [4.0, 0.0, 1.0]])
y.backward(v)
print(x.grad)
# --8<-- [end:vjp]

# --8<-- [start:jacobian]
J = jacobian(torch.log, x)
print(J.shape)
J = J.reshape(6, 6)
print(J)
print(torch.equal(J, torch.diag(J.diagonal())))
# --8<-- [end:jacobian]

# --8<-- [start:product]
print((v.reshape(6) @ J).reshape(2, 3))
print(v * (1 / x.detach()))
# --8<-- [end:product]

# --8<-- [start:not_this]
print(v * (1 / v))
# --8<-- [end:not_this]
