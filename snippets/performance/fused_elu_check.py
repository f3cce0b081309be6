"""FusedELUFunction: gradcheck, agreement with F.elu, bytes saved."""
import torch
import torch.nn.functional as F
from fused_elu import FusedELUFunction
from torch.autograd import gradcheck

# --8<-- [start:gradcheck]
torch.manual_seed(0)
z64 = torch.randn(20, dtype=torch.float64)
z64 = (z64 + 0.1 * z64.sign()).requires_grad_()  # away from the kink at 0
print("gradcheck:", gradcheck(FusedELUFunction.apply, (z64, 0.5)))

z = torch.randn(100_000, requires_grad=True)
grad = torch.randn_like(z)
ours = FusedELUFunction.apply(z, 0.5)
(our_grad,) = torch.autograd.grad(ours, z, grad)
theirs = F.elu(z, alpha=0.5)
(their_grad,) = torch.autograd.grad(theirs, z, grad)
print("largest difference from F.elu:",
      f"{(ours - theirs).abs().max():.1e} (forward),",
      f"{(our_grad - their_grad).abs().max():.1e} (backward)")
# --8<-- [end:gradcheck]

# --8<-- [start:saved]
for name, elu in {"FusedELUFunction": lambda z: FusedELUFunction.apply(z, 0.5),
                  "F.elu": lambda z: F.elu(z, alpha=0.5)}.items():
    saved = []
    pack = lambda t: saved.append(t) or t  # note each saved tensor
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        elu(z)
    nbytes = sum(t.nbytes for t in saved)
    print(f"{name:16} saves {nbytes:,} bytes"
          f" = {nbytes / z.nbytes:.2f} x the input")
# --8<-- [end:saved]
