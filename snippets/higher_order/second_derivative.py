"""The second derivative of the ELU, through its custom backward: autograd
records backward and differentiates it again."""
import torch
from elu_with_jvp import ELUFunction
from torch.autograd import gradcheck, gradgradcheck

# --8<-- [start:twice]
z = torch.tensor([-2.0, -1.0, -0.5, 0.5, 1.0], requires_grad=True)
out = ELUFunction.apply(z, 0.5)
(first,) = torch.autograd.grad(out.sum(), z, create_graph=True)
print("first: ", first)  # has a grad_fn: the recorded backward pass
(second,) = torch.autograd.grad(first.sum(), z)
print("second:", second)
print("formula:", torch.where(z > 0, 0.0, 0.5 * torch.exp(z)).detach())
# --8<-- [end:twice]

# --8<-- [start:check]
torch.manual_seed(0)
z64 = torch.randn(20, dtype=torch.float64, requires_grad=True)


def elu(z):
    return ELUFunction.apply(z, 0.5)


print("gradcheck:", gradcheck(elu, (z64,)))
print("gradgradcheck:", gradgradcheck(elu, (z64,)))
# --8<-- [end:check]
