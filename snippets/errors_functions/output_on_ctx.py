"""A tensor kept on ctx as an attribute: only the garbage collector frees it."""
import gc
import weakref

import torch


class SquareOnCtx(torch.autograd.Function):
    """x ** 2, keeping its output on ctx as an attribute."""

    @staticmethod
    def forward(ctx, x):
        out = x * x
        ctx.out = out  # the output holds ctx (its grad_fn), and ctx holds the output
        ctx.x = x
        return out

    @staticmethod
    def backward(ctx, grad_out):
        return grad_out * 2 * ctx.x


class Square(torch.autograd.Function):
    """x ** 2, saving what backward needs with save_for_backward."""

    @staticmethod
    def forward(ctx, x):
        out = x * x
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        x, _ = ctx.saved_tensors
        return grad_out * 2 * x


x = torch.randn(1000, requires_grad=True)

# --8<-- [start:leak]
out = SquareOnCtx.apply(x)
alive = weakref.ref(out)
del out  # the last name of the output goes, at the end of a step
print("on ctx, after del:            ", "alive" if alive() is not None else "freed")
gc.collect()
print("on ctx, after gc.collect():   ", "alive" if alive() is not None else "freed")

out = Square.apply(x)
alive = weakref.ref(out)
del out
print("save_for_backward, after del: ", "alive" if alive() is not None else "freed")
# --8<-- [end:leak]
