"""The ELU written twice: from PyTorch operations (the composite) and as
one autograd.Function."""
import torch
from torch import Tensor, autograd, nn


# --8<-- [start:forward]
def elu_forward(z: Tensor, alpha: float) -> Tensor:
    """ELU(z) = z where z > 0, alpha * (exp(z) - 1) elsewhere."""
    return torch.where(z > 0, z, alpha * (torch.exp(z) - 1))
# --8<-- [end:forward]


# --8<-- [start:composite_module]
class ELU(nn.Module):
    """ELU layer; autograd derives its backward pass from elu_forward."""

    def __init__(self, alpha: float = 1.0):
        super().__init__()
        self.alpha = alpha

    def forward(self, z: Tensor) -> Tensor:
        return elu_forward(z, self.alpha)
# --8<-- [end:composite_module]


# --8<-- [start:function]
class ELUFunction(autograd.Function):
    """ELU as a single node of the graph, with a hand-written backward."""

    @staticmethod
    def forward(ctx, z: Tensor, alpha: float) -> Tensor:
        ctx.save_for_backward(z)  # tensors go through save_for_backward
        ctx.alpha = alpha         # anything else: a plain attribute
        return elu_forward(z, alpha)

    @staticmethod
    def backward(ctx, grad_output: Tensor):
        (z,) = ctx.saved_tensors
        # The diagonal of the Jacobian d ELU(z) / dz: ELU'(z), elementwise.
        ones = torch.ones_like(z)
        local_grad = torch.where(z > 0, ones, ctx.alpha * torch.exp(z))
        # A diagonal Jacobian makes the vector-Jacobian product elementwise.
        # One gradient per input of forward: z's, and None for alpha.
        return grad_output * local_grad, None
# --8<-- [end:function]


# --8<-- [start:function_module]
class ELUCustom(nn.Module):
    """ELU layer that calls ELUFunction: one graph node, our backward."""

    def __init__(self, alpha: float = 1.0):
        super().__init__()
        self.alpha = alpha

    def forward(self, z: Tensor) -> Tensor:
        return ELUFunction.apply(z, self.alpha)
# --8<-- [end:function_module]
