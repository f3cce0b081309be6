"""The fix when backward needs an intermediate of forward: return it as an
output too, save it, and add its gradient in backward."""
import torch
from elu_with_jvp import elu_forward
from torch.autograd import gradgradcheck

# --8<-- [start:function]
class ELUReturnsExp(torch.autograd.Function):
    @staticmethod
    def forward(z, alpha):
        exp_z = torch.exp(z)
        out = torch.where(z > 0, z, alpha * (exp_z - 1))
        return out, exp_z  # the intermediate is an output: part of the graph

    @staticmethod
    def setup_context(ctx, inputs, outputs):
        z, alpha = inputs
        out, exp_z = outputs
        ctx.save_for_backward(z, exp_z)
        ctx.alpha = alpha

    @staticmethod
    def backward(ctx, grad_out, grad_exp_z):
        z, exp_z = ctx.saved_tensors
        local_grad = torch.where(z > 0, torch.ones_like(z), ctx.alpha * exp_z)
        # exp_z is an output: its own gradient flows back to z as well.
        return grad_out * local_grad + grad_exp_z * exp_z, None


def elu(z):
    out, _ = ELUReturnsExp.apply(z, 0.5)
    return out
# --8<-- [end:function]


# --8<-- [start:check]
torch.manual_seed(0)
z64 = torch.randn(20, dtype=torch.float64, requires_grad=True)
print("gradgradcheck:", gradgradcheck(elu, (z64,)))

z = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
for name, f in {"returns exp(z)": elu,
                "composite": lambda z: elu_forward(z, 0.5)}.items():
    (first,) = torch.autograd.grad((f(z) ** 2).sum() / 2, z, create_graph=True)
    (second,) = torch.autograd.grad(first.sum(), z)
    print(f"{name:14}: {second}")
# --8<-- [end:check]
