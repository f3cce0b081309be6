"""The ELU Function in the PyTorch 2 style: forward without ctx,
setup_context, and a vmap rule that PyTorch generates."""
import torch
from torch import Tensor, autograd


def elu_forward(z: Tensor, alpha: float) -> Tensor:
    """ELU(z) = z where z > 0, alpha * (exp(z) - 1) elsewhere."""
    return torch.where(z > 0, z, alpha * (torch.exp(z) - 1))


# --8<-- [start:function]
class ELUFunction(autograd.Function):
    generate_vmap_rule = True  # torch.vmap may run the methods below batched

    @staticmethod
    def forward(z: Tensor, alpha: float) -> Tensor:
        return elu_forward(z, alpha)  # no ctx: only the computation

    @staticmethod
    def setup_context(ctx, inputs, output):
        z, alpha = inputs  # the arguments of forward, as a tuple
        ctx.save_for_backward(z)
        ctx.alpha = alpha

    @staticmethod
    def backward(ctx, grad_output: Tensor):
        (z,) = ctx.saved_tensors
        ones = torch.ones_like(z)
        local_grad = torch.where(z > 0, ones, ctx.alpha * torch.exp(z))
        return grad_output * local_grad, None
# --8<-- [end:function]
