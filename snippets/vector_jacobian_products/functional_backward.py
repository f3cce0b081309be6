"""torch.autograd.backward: the function behind y.backward(v),
for one output or several."""
import torch

x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
v = torch.tensor([[3.0, 2.0, 0.0], [4.0, 0.0, 1.0]])

# --8<-- [start:one]
torch.autograd.backward(torch.log(x), grad_tensors=v)
print(x.grad)
# --8<-- [end:one]

# --8<-- [start:two]
x.grad = None
w = torch.ones(2, 3)
torch.autograd.backward([torch.log(x), x**2], grad_tensors=[v, w])
print(x.grad)
print(torch.allclose(x.grad, v / x.detach() + w * 2 * x.detach()))
# --8<-- [end:two]
