"""An old-style autograd Function, instantiated and called, and the same Function with
static methods and .apply."""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(4, 3)
inputs = torch.randn(8, 4)


# --8<-- [start:error]
class ShiftedReLU(torch.autograd.Function):
    """max(x, 0) - 0.5, written the way code from before PyTorch 1.3 did."""

    def forward(self, x):
        self.save_for_backward(x)
        return x.clamp(min=0) - 0.5

    def backward(self, grad_out):
        (x,) = self.saved_tensors
        return grad_out * (x > 0).to(grad_out.dtype)


try:
    out = ShiftedReLU()(model(inputs))
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]


# --8<-- [start:fix]
class FixedShiftedReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0) - 0.5

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * (x > 0).to(grad_out.dtype)


out = FixedShiftedReLU.apply(model(inputs))  # the class's apply, no instance
out.pow(2).mean().backward()
print("weight gradient norm:", round(model.weight.grad.norm().item(), 4))
# --8<-- [end:fix]

# --8<-- [start:gradcheck]
x = torch.randn(6, dtype=torch.float64, requires_grad=True)
print("gradcheck:", torch.autograd.gradcheck(FixedShiftedReLU.apply, (x,)))
# --8<-- [end:gradcheck]
