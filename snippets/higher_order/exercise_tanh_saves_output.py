"""Exercise: a tanh Function that saves its output. Is its second
derivative right?"""
import torch
from torch.autograd import gradcheck, gradgradcheck


class Tanh(torch.autograd.Function):
    @staticmethod
    def forward(z):
        return torch.tanh(z)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)  # an output, not a hidden intermediate

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return grad_output * (1 - out**2)


torch.manual_seed(0)
z = torch.randn(10, dtype=torch.float64, requires_grad=True)
print("gradcheck:", gradcheck(Tanh.apply, (z,)))
print("gradgradcheck:", gradgradcheck(Tanh.apply, (z,)))

(first,) = torch.autograd.grad(Tanh.apply(z).sum(), z, create_graph=True)
(second,) = torch.autograd.grad(first.sum(), z)
t = torch.tanh(z)
expected = -2 * t * (1 - t**2)
print("equals -2 tanh(z) (1 - tanh(z)^2):", torch.allclose(second, expected))
