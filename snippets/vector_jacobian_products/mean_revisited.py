"""The scalar case: out.backward() is the vector-Jacobian product with v = 1."""
import torch
from torch.autograd.functional import jacobian


def mean_of_3_y_squared(x):
    return (3 * (x + 2) ** 2).mean()


x = torch.ones(2, 2, requires_grad=True)

# --8<-- [start:implicit]
out = mean_of_3_y_squared(x)
out.backward()
implicit = x.grad.clone()

x.grad = None
out = mean_of_3_y_squared(x)
out.backward(torch.tensor(1.0))
print(torch.equal(x.grad, implicit))
# --8<-- [end:implicit]

# --8<-- [start:jacobian]
J = jacobian(mean_of_3_y_squared, x)
print(J)
# --8<-- [end:jacobian]

# --8<-- [start:chain]
x.grad = None
y = x + 2
out = (3 * y**2).mean()
(dout_dy,) = torch.autograd.grad(out, y, retain_graph=True)
print(dout_dy)
y.backward(dout_dy)
print(x.grad)
# --8<-- [end:chain]
