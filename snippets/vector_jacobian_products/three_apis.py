"""One vector-Jacobian product computed three ways:
backward(), autograd.grad, torch.func.vjp."""
import torch

# --8<-- [start:setup]
x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
v = torch.tensor([[3.0, 2.0, 0.0], [4.0, 0.0, 1.0]])
# --8<-- [end:setup]

# --8<-- [start:backward]
y = torch.log(x)
y.backward(v)
by_backward = x.grad
print(by_backward)
# --8<-- [end:backward]

# --8<-- [start:grad]
y = torch.log(x)
(by_grad,) = torch.autograd.grad(y, x, grad_outputs=v)
print(by_grad)
# --8<-- [end:grad]

# --8<-- [start:func]
y, vjp_fn = torch.func.vjp(torch.log, x.detach())
(by_func,) = vjp_fn(v)
print(by_func)
# --8<-- [end:func]

# --8<-- [start:same]
print(torch.equal(by_backward, by_grad))
print(torch.equal(by_grad, by_func))
# --8<-- [end:same]
