"""Autocast reaches into a custom Function's forward but not its backward:
a matmul in backward then meets tensors of two dtypes. custom_bwd fixes it."""
import torch
from torch import autograd

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
# Autocast's lower precision: float16 on a GPU; the CPU autocasts to bfloat16.
low = torch.float16 if device.type == "cuda" else torch.bfloat16


# --8<-- [start:matmul]
class MatMul(autograd.Function):
    """a @ b with a hand-written backward."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)  # saved as they came in: float32
        return a @ b                 # under autocast: computed in `low`

    @staticmethod
    def backward(ctx, grad_output):  # grad_output has the output's dtype, `low`
        a, b = ctx.saved_tensors
        return grad_output @ b.T, a.T @ grad_output
# --8<-- [end:matmul]


# --8<-- [start:crash]
torch.manual_seed(0)
a = torch.randn(4, 3, device=device, requires_grad=True)
b = torch.randn(3, 2, device=device, requires_grad=True)
with torch.autocast(device_type=device.type, dtype=low):
    out = MatMul.apply(a, b)
print(f"output (and so grad_output): {out.dtype}, saved b: {b.dtype}")
try:
    out.sum().backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:crash]


# --8<-- [start:custom_bwd]
class MatMulAMP(MatMul):
    """MatMul whose backward runs under the autocast state of its forward."""

    @staticmethod
    @torch.amp.custom_fwd(device_type=device.type)
    def forward(ctx, a, b):
        return MatMul.forward(ctx, a, b)

    @staticmethod
    @torch.amp.custom_bwd(device_type=device.type)
    def backward(ctx, grad_output):
        return MatMul.backward(ctx, grad_output)


with torch.autocast(device_type=device.type, dtype=low):
    out = MatMulAMP.apply(a, b)
out.sum().backward()
print(f"gradients: a {a.grad.dtype}, b {b.grad.dtype}")
# --8<-- [end:custom_bwd]
