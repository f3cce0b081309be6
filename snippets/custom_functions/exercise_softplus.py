"""Exercise: softplus as an autograd.Function, checked with gradcheck and
against F.softplus."""
import torch
import torch.nn.functional as F
from torch.autograd import gradcheck


class SoftplusFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, z):
        ctx.save_for_backward(z)
        # log(1 + exp(z)), rewritten so that exp never gets a large input
        return z.clamp(min=0) + torch.log1p(torch.exp(-z.abs()))

    @staticmethod
    def backward(ctx, grad_output):
        (z,) = ctx.saved_tensors
        return grad_output * torch.sigmoid(z)


torch.manual_seed(0)
z = torch.randn(20, dtype=torch.float64, requires_grad=True)
print("gradcheck:", gradcheck(SoftplusFunction.apply, (z,)))

z = torch.tensor([-100.0, -1.0, 0.0, 1.0, 100.0], requires_grad=True)
out = SoftplusFunction.apply(z)
out.sum().backward()
print(out.detach(), z.grad, sep="\n")
print("same as F.softplus:", torch.allclose(out, F.softplus(z)))
