"""The custom ELU under autocast, without and with custom_fwd/custom_bwd."""
import torch
from elu import ELUFunction
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
# Autocast's lower precision: float16 on a GPU; the CPU autocasts to bfloat16.
low = torch.float16 if device.type == "cuda" else torch.bfloat16

# --8<-- [start:setup]
torch.manual_seed(0)
linear = nn.Linear(256, 256).to(device)
x = torch.randn(64, 256, device=device)


def report(z, y):
    """Dtypes, and how far y is from the ELU of the same z computed in float32."""
    exact = ELUFunction.apply(z.detach().float(), 1.0)
    error = (y.float() - exact).abs().max().item()
    return f"z: {z.dtype}, ELU(z): {y.dtype}, largest error: {error:.0e}"
# --8<-- [end:setup]


# --8<-- [start:plain]
with torch.autocast(device_type=device.type, dtype=low):
    z = linear(x)  # autocast runs the layer in `low`
    y = ELUFunction.apply(z, 1.0)
print(report(z, y))
# --8<-- [end:plain]


# --8<-- [start:amp]
class ELUFunctionAMP(ELUFunction):
    """ELUFunction that always computes in float32, autocast or not."""

    @staticmethod
    @torch.amp.custom_fwd(device_type=device.type, cast_inputs=torch.float32)
    def forward(ctx, z, alpha):
        return ELUFunction.forward(ctx, z, alpha)

    @staticmethod
    @torch.amp.custom_bwd(device_type=device.type)
    def backward(ctx, grad_output):
        return ELUFunction.backward(ctx, grad_output)
# --8<-- [end:amp]


# --8<-- [start:amp_run]
with torch.autocast(device_type=device.type, dtype=low):
    z = linear(x)
    y = ELUFunctionAMP.apply(z, 1.0)
print(report(z, y))
z.retain_grad()
y.sum().backward()
print(f"gradient of z: {z.grad.dtype}")
# --8<-- [end:amp_run]
