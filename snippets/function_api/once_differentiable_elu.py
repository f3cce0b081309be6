"""@once_differentiable: first derivatives as before, a clear error for a
second one."""
import torch
from modern_elu import ELUFunction
from torch.autograd.function import once_differentiable


class ELUOnce(ELUFunction):
    @staticmethod
    @once_differentiable  # backward runs without recording a graph
    def backward(ctx, grad_output):
        return ELUFunction.backward(ctx, grad_output)


z = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
out = ELUOnce.apply(z, 0.5)
loss = (out**2).sum() / 2
(grad_z,) = torch.autograd.grad(loss, z, create_graph=True)
print("first derivative:", grad_z.detach())
try:
    grad_z.sum().backward()  # differentiate the gradient once more
except RuntimeError as err:
    print(f"RuntimeError: {err}")
