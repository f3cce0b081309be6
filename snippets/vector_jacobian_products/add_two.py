"""y = x + 2 for a vector x: backward() needs a v,
and x.grad is v^T J with J the identity."""
import torch
from torch.autograd.functional import jacobian


def add_two(x):
    return x + 2


# --8<-- [start:fails]
torch.manual_seed(0)
x = torch.rand(3, requires_grad=True)
y = add_two(x)
try:
    y.backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:fails]

# --8<-- [start:vjp]
v = torch.rand(3)
y.backward(v)
print(v)
print(x.grad)
# --8<-- [end:vjp]

# --8<-- [start:jacobian]
J = jacobian(add_two, x)
print(J)
print(v @ J)
# --8<-- [end:jacobian]
