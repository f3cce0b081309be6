"""A custom Function with a non-tensor argument: backward must return None for it."""
import torch
from torch import nn


class SoftClip(torch.autograd.Function):
    """limit * tanh(x / limit): squashes x smoothly into (-limit, limit)."""

    @staticmethod
    def forward(ctx, x, limit):
        out = limit * torch.tanh(x / limit)
        ctx.save_for_backward(out)
        ctx.limit = limit
        return out

    @staticmethod
    def backward(ctx, grad_out):
        (out,) = ctx.saved_tensors
        return grad_out * (1 - (out / ctx.limit) ** 2)  # one gradient, for x only


torch.manual_seed(0)
model = nn.Linear(4, 2)
inputs = torch.randn(8, 4)

# --8<-- [start:error]
loss = SoftClip.apply(model(inputs), 3.0).pow(2).mean()
try:
    loss.backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]


# --8<-- [start:fix]
class FixedSoftClip(torch.autograd.Function):
    """The same Function; backward returns one value per input of forward."""

    @staticmethod
    def forward(ctx, x, limit):
        out = limit * torch.tanh(x / limit)
        ctx.save_for_backward(out)
        ctx.limit = limit
        return out

    @staticmethod
    def backward(ctx, grad_out):
        (out,) = ctx.saved_tensors
        return grad_out * (1 - (out / ctx.limit) ** 2), None  # None for `limit`


loss = FixedSoftClip.apply(model(inputs), 3.0).pow(2).mean()
loss.backward()
print("weight gradient norm:", round(model.weight.grad.norm().item(), 4))
# --8<-- [end:fix]

# --8<-- [start:gradcheck]
x = torch.linspace(-6.0, 6.0, 7, dtype=torch.float64, requires_grad=True)
print("gradcheck:", torch.autograd.gradcheck(FixedSoftClip.apply, (x, 3.0)))
# --8<-- [end:gradcheck]
