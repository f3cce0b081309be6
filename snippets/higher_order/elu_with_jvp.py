"""The ELU Function of the PyTorch 2 API, and a subclass that adds a jvp
for forward-mode differentiation."""
import torch
from torch import Tensor, autograd


def elu_forward(z: Tensor, alpha: float) -> Tensor:
    return torch.where(z > 0, z, alpha * (torch.exp(z) - 1))


# --8<-- [start:function]
def elu_derivative(z: Tensor, alpha: float) -> Tensor:
    """ELU'(z), elementwise: the diagonal of the Jacobian."""
    return torch.where(z > 0, torch.ones_like(z), alpha * torch.exp(z))


class ELUFunction(autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(z: Tensor, alpha: float) -> Tensor:
        return elu_forward(z, alpha)

    @staticmethod
    def setup_context(ctx, inputs, output):
        z, alpha = inputs
        ctx.save_for_backward(z)
        ctx.alpha = alpha

    @staticmethod
    def backward(ctx, grad_output: Tensor):
        (z,) = ctx.saved_tensors
        # Differentiable operations on the saved input: autograd can
        # record this backward pass and differentiate it again.
        return grad_output * elu_derivative(z, ctx.alpha), None
# --8<-- [end:function]


# --8<-- [start:jvp]
class ELUWithJvp(ELUFunction):
    @staticmethod
    def setup_context(ctx, inputs, output):
        ELUFunction.setup_context(ctx, inputs, output)
        ctx.save_for_forward(inputs[0])  # what jvp will need: z

    @staticmethod
    def jvp(ctx, z_tangent: Tensor, alpha_tangent) -> Tensor:
        (z,) = ctx.saved_tensors
        # One tangent per input in, one per output out: J v, with J diagonal.
        return elu_derivative(z, ctx.alpha) * z_tangent
# --8<-- [end:jvp]
