"""The two ELUs of the custom-Function chapter: the composite and ELUFunction."""
import torch
from torch import Tensor, autograd


def elu_forward(z: Tensor, alpha: float) -> Tensor:
    """ELU(z) = z where z > 0, alpha * (exp(z) - 1) elsewhere."""
    return torch.where(z > 0, z, alpha * (torch.exp(z) - 1))


class ELUFunction(autograd.Function):
    """ELU as a single node of the graph, with a hand-written backward."""

    @staticmethod
    def forward(ctx, z: Tensor, alpha: float) -> Tensor:
        ctx.save_for_backward(z)
        ctx.alpha = alpha
        return elu_forward(z, alpha)

    @staticmethod
    def backward(ctx, grad_output: Tensor):
        (z,) = ctx.saved_tensors
        ones = torch.ones_like(z)
        local_grad = torch.where(z > 0, ones, ctx.alpha * torch.exp(z))
        return grad_output * local_grad, None
