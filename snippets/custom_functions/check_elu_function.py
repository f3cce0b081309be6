"""ELUFunction checked: gradcheck and gradgradcheck in float64, then
against the composite ELU and F.elu."""
import torch
import torch.nn.functional as F
from elu import ELUFunction, elu_forward
from torch.autograd import gradcheck, gradgradcheck

# --8<-- [start:gradcheck]
torch.manual_seed(0)
z = torch.randn(20, dtype=torch.float64, requires_grad=True)


def elu(z):
    return ELUFunction.apply(z, 0.5)


print("gradcheck:", gradcheck(elu, (z,)))
print("gradgradcheck:", gradgradcheck(elu, (z,)))
# --8<-- [end:gradcheck]

# --8<-- [start:agreement]
z = torch.randn(10_000, requires_grad=True)
grad_output = torch.randn(10_000)
results = {
    "ELUFunction": ELUFunction.apply(z, 0.5),
    "composite": elu_forward(z, 0.5),
    "F.elu": F.elu(z, alpha=0.5),
}
grads = {
    name: torch.autograd.grad(out, z, grad_output)[0]
    for name, out in results.items()
}
for name in ["composite", "F.elu"]:
    out_diff = (results[name] - results["ELUFunction"]).abs().max().item()
    grad_diff = (grads[name] - grads["ELUFunction"]).abs().max().item()
    print(f"ELUFunction vs {name:9}: outputs differ by {out_diff:.1e},"
          f" gradients by {grad_diff:.1e}")
# --8<-- [end:agreement]
