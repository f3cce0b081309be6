"""The ELU as a custom operator, autograd_inside_out::elu."""
import torch
from torch import Tensor


# --8<-- [start:op]
@torch.library.custom_op("autograd_inside_out::elu", mutates_args=())
def elu(z: Tensor, alpha: float) -> Tensor:
    """The real kernel: runs on real tensors, compiled or not."""
    return torch.where(z > 0, z, alpha * (torch.exp(z) - 1))
# --8<-- [end:op]


# --8<-- [start:fake]
@elu.register_fake
def _(z: Tensor, alpha: float) -> Tensor:
    """What tracing runs instead: the output's shape, dtype and device."""
    return torch.empty_like(z)
# --8<-- [end:fake]


# --8<-- [start:autograd]
def setup_context(ctx, inputs, output):
    z, alpha = inputs
    ctx.save_for_backward(z)
    ctx.alpha = alpha


def backward(ctx, grad_output: Tensor):
    (z,) = ctx.saved_tensors
    grad_z = torch.where(z > 0, grad_output,
                         grad_output * ctx.alpha * torch.exp(z))
    return grad_z, None  # one per input: z, alpha


elu.register_autograd(backward, setup_context=setup_context)
# --8<-- [end:autograd]
