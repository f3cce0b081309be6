"""save_for_backward takes tensors; other values go on ctx as attributes."""
import torch
from torch import nn


class SoftClip(torch.autograd.Function):
    """limit * tanh(x / limit), saving the float limit with save_for_backward."""

    @staticmethod
    def forward(ctx, x, limit):
        out = limit * torch.tanh(x / limit)
        ctx.save_for_backward(out, limit)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        out, limit = ctx.saved_tensors
        return grad_out * (1 - (out / limit) ** 2), None


torch.manual_seed(0)
model = nn.Linear(4, 2)
inputs = torch.randn(8, 4)

# --8<-- [start:error]
try:
    loss = SoftClip.apply(model(inputs), 3.0).pow(2).mean()
except TypeError as err:
    print(f"TypeError: {err}")
# --8<-- [end:error]


# --8<-- [start:fix]
class FixedSoftClip(torch.autograd.Function):
    """Tensors through save_for_backward, the float as an attribute of ctx."""

    @staticmethod
    def forward(ctx, x, limit):
        out = limit * torch.tanh(x / limit)
        ctx.save_for_backward(out)
        ctx.limit = limit
        return out

    @staticmethod
    def backward(ctx, grad_out):
        (out,) = ctx.saved_tensors
        return grad_out * (1 - (out / ctx.limit) ** 2), None


loss = FixedSoftClip.apply(model(inputs), 3.0).pow(2).mean()
loss.backward()
print("weight gradient norm:", round(model.weight.grad.norm().item(), 4))
# --8<-- [end:fix]
