"""An ELU Function whose forward and backward are each one compiled kernel."""
import torch
from torch import Tensor, autograd


# --8<-- [start:kernels]
@torch.compile(dynamic=False)
def elu_kernel(z: Tensor, alpha: float) -> Tensor:
    return torch.where(z > 0, z, alpha * (torch.exp(z) - 1))


@torch.compile(dynamic=False)
def elu_backward_kernel(grad: Tensor, z: Tensor, alpha: float) -> Tensor:
    return torch.where(z > 0, grad, grad * alpha * torch.exp(z))
# --8<-- [end:kernels]


# --8<-- [start:function]
class FusedELUFunction(autograd.Function):
    """ELUFunction with its two halves compiled; still saves only z."""

    @staticmethod
    def forward(z: Tensor, alpha: float) -> Tensor:
        return elu_kernel(z, alpha)

    @staticmethod
    def setup_context(ctx, inputs, output):
        z, alpha = inputs
        ctx.save_for_backward(z)
        ctx.alpha = alpha

    @staticmethod
    def backward(ctx, grad_output: Tensor):
        (z,) = ctx.saved_tensors
        return elu_backward_kernel(grad_output, z, ctx.alpha), None
# --8<-- [end:function]
