"""Exercise: clamp forward, identity backward (straight-through)."""
import torch
from torch.autograd import gradcheck


class ClampStraightThrough(torch.autograd.Function):
    @staticmethod
    def forward(ctx, z):
        return z.clamp(-1.0, 1.0)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output  # deliberately not the derivative of clamp


z = torch.tensor([-3.0, -0.5, 0.5, 3.0], requires_grad=True)
torch.clamp(z, -1.0, 1.0).sum().backward()
print("torch.clamp gradient:     ", z.grad)
z.grad = None
ClampStraightThrough.apply(z).sum().backward()
print("straight-through gradient:", z.grad)

z64 = z.detach().double().requires_grad_()
passed = gradcheck(ClampStraightThrough.apply, (z64,), raise_exception=False)
print("gradcheck:", passed)
