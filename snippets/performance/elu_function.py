"""The composite ELU and ELUFunction of the custom-Function chapter, and a
layer that applies either."""
import torch
from torch import Tensor, autograd, nn


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


class ELU(nn.Module):
    """An ELU layer: ELUFunction, or the composite with composite=True."""

    def __init__(self, alpha: float = 1.0, composite: bool = False):
        super().__init__()
        self.alpha, self.composite = alpha, composite

    def forward(self, z: Tensor) -> Tensor:
        if self.composite:
            return elu_forward(z, self.alpha)
        return ELUFunction.apply(z, self.alpha)
