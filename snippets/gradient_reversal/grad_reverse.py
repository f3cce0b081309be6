"""Gradient reversal: identity forward, -lambda * gradient backward."""
from torch import Tensor, autograd, nn


# --8<-- [start:function]
class GradReverse(autograd.Function):
    generate_vmap_rule = True  # torch.vmap may run the methods below batched

    @staticmethod
    def forward(x: Tensor, lambd: float) -> Tensor:
        return x.view_as(x)  # the same values, in a new tensor this node owns

    @staticmethod
    def setup_context(ctx, inputs, output):
        _, ctx.lambd = inputs  # backward needs lambda only, not x

    @staticmethod
    def backward(ctx, grad_output: Tensor):
        return -ctx.lambd * grad_output, None  # None: lambd is not a tensor
# --8<-- [end:function]


# --8<-- [start:module]
class GradientReversal(nn.Module):
    def __init__(self, lambd: float = 1.0):
        super().__init__()
        self.lambd = lambd

    def forward(self, x: Tensor) -> Tensor:
        return GradReverse.apply(x, self.lambd)
# --8<-- [end:module]
