"""The ELU operator: how it is called, opcheck, gradcheck, agreement with F.elu."""
import torch
import torch.nn.functional as F
from elu_op import elu
from torch.autograd import gradcheck

# --8<-- [start:call]
print(torch.ops.autograd_inside_out.elu.default._schema)
z = torch.tensor([-2.0, -0.5, 0.0, 1.5], requires_grad=True)
y = elu(z, 1.0)
print(y)
print(torch.ops.autograd_inside_out.elu(z, 1.0))  # the same operator
print(type(y.grad_fn).__name__)
y.sum().backward()
print(z.grad)
# --8<-- [end:call]

# --8<-- [start:opcheck]
torch.manual_seed(0)
samples = [torch.randn(5, requires_grad=True),
           torch.randn(3, 4, dtype=torch.float64, requires_grad=True),
           torch.randn(2, 3)]  # no gradient needed
for sample in samples:
    report = torch.library.opcheck(elu, (sample, 0.5))
    print(tuple(sample.shape), report)
# --8<-- [end:opcheck]

# --8<-- [start:gradcheck]
torch.manual_seed(0)
z64 = torch.randn(20, dtype=torch.float64)
z64 = (z64 + 0.1 * z64.sign()).requires_grad_()  # away from the kink at 0
print("gradcheck:", gradcheck(lambda z: elu(z, 0.5), (z64,)))
print("gradgradcheck:", torch.autograd.gradgradcheck(lambda z: elu(z, 0.5), (z64,)))

z = torch.randn(100_000, requires_grad=True)
grad = torch.randn_like(z)
ours = elu(z, 0.5)
(our_grad,) = torch.autograd.grad(ours, z, grad)
theirs = F.elu(z, alpha=0.5)
(their_grad,) = torch.autograd.grad(theirs, z, grad)
print("largest difference from F.elu:",
      f"{(ours - theirs).abs().max():.1e} (forward),",
      f"{(our_grad - their_grad).abs().max():.1e} (backward)")
# --8<-- [end:gradcheck]
