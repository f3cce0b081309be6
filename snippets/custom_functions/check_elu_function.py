"""ELUFunction checked: gradcheck and gradgradcheck in float64, then
against the composite ELU and F.elu."""
import torch
import torch.nn.functional as F
from elu import ELUFunction, elu_forward
from torch.autograd import gradcheck, gradgradcheck

# --8<-- [start:gradcheck]
torch.manual_seed(0)
z64 = torch.randn(20, dtype=torch.float64)
z64 = (z64 + 0.1 * z64.sign()).requires_grad_()  # |z| >= 0.1: off the kink


def elu(z):
    return ELUFunction.apply(z, 0.5)


print("smallest |z|:", f"{z64.abs().min().item():.3f}")
print("gradcheck:", gradcheck(elu, (z64,)))
print("gradgradcheck:", gradgradcheck(elu, (z64,)))
# --8<-- [end:gradcheck]

# --8<-- [start:agreement]
torch.manual_seed(0)
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

# --8<-- [start:other_alpha]
for alpha in [0.5, 0.3, 0.01]:
    ours = ELUFunction.apply(z, alpha)
    composite = elu_forward(z, alpha)
    (our_grad,) = torch.autograd.grad(ours, z, grad_output)
    (composite_grad,) = torch.autograd.grad(composite, z, grad_output)
    out_diff = (composite - ours).abs().max().item()
    grad_diff = (composite_grad - our_grad).abs().max().item()
    print(f"alpha = {alpha:4}: outputs differ by {out_diff:.1e},"
          f" gradients by {grad_diff:.1e}")
# --8<-- [end:other_alpha]
