"""At z = 100 in float32, exp(z) overflows: the composite ELU's gradient
is NaN, the custom one's is 1."""
import torch
from elu import ELU, ELUCustom

# --8<-- [start:composite]
z = torch.tensor([100.0], requires_grad=True)
print("exp(z) =", torch.exp(z.detach()))
out = ELU(alpha=0.5)(z)
out.backward()
print("ELU(z) =", out.detach(), " gradient:", z.grad)
# --8<-- [end:composite]

# --8<-- [start:custom]
z_custom = torch.tensor([100.0], requires_grad=True)
out_custom = ELUCustom(alpha=0.5)(z_custom)
out_custom.backward()
print("ELU(z) =", out_custom.detach(), " gradient:", z_custom.grad)
# --8<-- [end:custom]
