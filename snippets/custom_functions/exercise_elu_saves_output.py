"""Exercise: an ELU Function that saves its output, so that its backward
needs no exp."""
import torch
from elu import ELUFunction, elu_forward
from torch.autograd import gradcheck


class ELUFromOutput(torch.autograd.Function):
    @staticmethod
    def forward(ctx, z, alpha):
        out = elu_forward(z, alpha)
        ctx.save_for_backward(out)
        ctx.alpha = alpha
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        # Where z <= 0: alpha * exp(z) = alpha * (exp(z) - 1) + alpha
        #                              = out + alpha
        ones = torch.ones_like(out)
        local_grad = torch.where(out > 0, ones, out + ctx.alpha)
        return grad_output * local_grad, None


torch.manual_seed(0)
z = torch.randn(20, dtype=torch.float64, requires_grad=True)
print("gradcheck:", gradcheck(lambda z: ELUFromOutput.apply(z, 0.5), (z,)))

z = torch.randn(10_000, requires_grad=True)
grad_output = torch.randn(10_000)
(ours,) = torch.autograd.grad(ELUFromOutput.apply(z, 0.5), z, grad_output)
(reference,) = torch.autograd.grad(ELUFunction.apply(z, 0.5), z, grad_output)
largest = (ours - reference).abs().max().item()
print(f"largest difference from ELUFunction: {largest:.1e}")
