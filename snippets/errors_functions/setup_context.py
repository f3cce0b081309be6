"""An old-style Function (forward takes ctx) under torch.func, and the fix."""
import torch


class SoftClip(torch.autograd.Function):
    """limit * tanh(x / limit), written the old way: forward(ctx, ...)."""

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


def loss_fn(x):
    return SoftClip.apply(x, 3.0).pow(2).sum()


x = torch.tensor([1.0, -2.0, 4.0])

# --8<-- [start:error]
try:
    print(torch.func.grad(loss_fn)(x))
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]


# --8<-- [start:fix]
class FuncSoftClip(torch.autograd.Function):
    """The same Function: forward without ctx, and setup_context fills ctx."""

    @staticmethod
    def forward(x, limit):
        return limit * torch.tanh(x / limit)

    @staticmethod
    def setup_context(ctx, inputs, output):
        _, limit = inputs
        ctx.save_for_backward(output)
        ctx.limit = limit

    @staticmethod
    def backward(ctx, grad_out):
        (out,) = ctx.saved_tensors
        return grad_out * (1 - (out / ctx.limit) ** 2), None


def fixed_loss_fn(x):
    return FuncSoftClip.apply(x, 3.0).pow(2).sum()


print("torch.func.grad:", torch.func.grad(fixed_loss_fn)(x))
x_leaf = x.clone().requires_grad_()
fixed_loss_fn(x_leaf).backward()
print("loss.backward():", x_leaf.grad)
# --8<-- [end:fix]
