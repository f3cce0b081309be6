"""An in-place ELU: ctx.mark_dirty tells autograd that forward modified
its input."""
import torch
from modern_elu import ELUFunction

# --8<-- [start:function]
class InPlaceELU(torch.autograd.Function):
    @staticmethod
    def forward(z, alpha):
        negative = z <= 0
        z[negative] = alpha * (torch.exp(z[negative]) - 1)  # overwrites z
        return z

    @staticmethod
    def setup_context(ctx, inputs, output):
        z, alpha = inputs
        ctx.mark_dirty(z)  # z now holds the output
        ctx.save_for_backward(output)  # the input is gone: save the output
        ctx.alpha = alpha

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        # Where z <= 0: alpha * exp(z) = out + alpha
        ones = torch.ones_like(out)
        return grad_output * torch.where(out > 0, ones, out + ctx.alpha), None
# --8<-- [end:function]


# --8<-- [start:use]
x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
h = x * 2  # some earlier layer
print("h.grad_fn before:", h.grad_fn.name())
out = InPlaceELU.apply(h, 0.5)
print("h.grad_fn after: ", h.grad_fn.name(), " out is h:", out is h)
h.sum().backward()
print("x.grad:", x.grad)

x_copy = x.detach().requires_grad_()
ELUFunction.apply(x_copy * 2, 0.5).sum().backward()
print("same as the out-of-place ELU:", torch.allclose(x.grad, x_copy.grad))
# --8<-- [end:use]

# --8<-- [start:leaf]
try:
    InPlaceELU.apply(x, 0.5)  # x is a leaf that requires grad
except RuntimeError as err:
    print(f"RuntimeError: {err}")
print("x after the error:", x.detach())
# --8<-- [end:leaf]

# --8<-- [start:not_dirty]
class InPlaceELUNotMarked(InPlaceELU):
    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)
        ctx.alpha = inputs[1]


try:
    InPlaceELUNotMarked.apply(x * 2, 0.5)
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:not_dirty]
