"""An ELU with a learnable alpha: backward computes only the gradients that
ctx.needs_input_grad asks for."""
import torch
from torch import autograd
from torch.autograd import gradcheck

# --8<-- [start:function]
class ParametricELU(autograd.Function):
    """ELU whose alpha is a tensor (a scalar here) that can be learned."""

    @staticmethod
    def forward(z, alpha):
        return torch.where(z > 0, z, alpha * (torch.exp(z) - 1))

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)  # z and alpha

    @staticmethod
    def backward(ctx, grad_output):
        z, alpha = ctx.saved_tensors
        grad_z = grad_alpha = None
        if ctx.needs_input_grad[0]:
            local_grad = torch.where(z > 0, 1.0, alpha * torch.exp(z))
            grad_z = grad_output * local_grad
        if ctx.needs_input_grad[1]:
            # d/d alpha of alpha * (exp(z) - 1); alpha is one number, so
            # its gradient is the sum over all elements.
            d_alpha = torch.where(z > 0, 0.0, torch.exp(z) - 1)
            grad_alpha = (grad_output * d_alpha).sum()
        return grad_z, grad_alpha
# --8<-- [end:function]


# --8<-- [start:calls]
z = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
alpha = torch.tensor(0.5, requires_grad=True)

for inputs in [(z, alpha.detach()), (z.detach(), alpha), (z, alpha)]:
    z.grad = alpha.grad = None
    out = ParametricELU.apply(*inputs)
    out.sum().backward()
    flags = out.grad_fn.needs_input_grad  # the node is the ctx of backward
    print(flags, "-> z.grad:", z.grad, " alpha.grad:", alpha.grad)
# --8<-- [end:calls]

# --8<-- [start:gradcheck]
z64 = torch.tensor([-1.0, 0.5, 2.0], dtype=torch.float64, requires_grad=True)
alpha64 = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
print("gradcheck:", gradcheck(ParametricELU.apply, (z64, alpha64)))
# --8<-- [end:gradcheck]
