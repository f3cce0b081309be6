"""The ELU with a jvp: dual numbers, gradcheck(check_forward_ad=True), and
a wrong jvp that the check catches."""
import torch
import torch.autograd.forward_ad as fwAD
from elu_with_jvp import ELUWithJvp, elu_forward
from torch.autograd import gradcheck
from torch.func import jacfwd, jacrev

# --8<-- [start:dual]
z = torch.tensor([-1.0, 0.5, 2.0])
v = torch.tensor([1.0, 2.0, 3.0])
with fwAD.dual_level():
    out, tangent = fwAD.unpack_dual(ELUWithJvp.apply(fwAD.make_dual(z, v), 0.5))
    _, composite_tangent = fwAD.unpack_dual(elu_forward(fwAD.make_dual(z, v), 0.5))
print("tangent:", tangent)
print("same as the composite:", torch.equal(tangent, composite_tangent))
# --8<-- [end:dual]


# --8<-- [start:gradcheck]
def elu(z):
    return ELUWithJvp.apply(z, 0.5)


torch.manual_seed(0)
z64 = torch.randn(20, dtype=torch.float64, requires_grad=True)
passed = gradcheck(elu, (z64,), check_forward_ad=True)
print("gradcheck, backward and forward:", passed)
print("jacfwd equals jacrev:", torch.allclose(jacfwd(elu)(z64), jacrev(elu)(z64)))
# --8<-- [end:gradcheck]


# --8<-- [start:wrong_jvp]
class ELUWrongJvp(ELUWithJvp):
    @staticmethod
    def jvp(ctx, z_tangent, alpha_tangent):
        (z,) = ctx.saved_tensors
        return torch.where(z > 0, 1.0, torch.exp(z)) * z_tangent  # alpha forgotten


def wrong(z):
    return ELUWrongJvp.apply(z, 0.5)


print("backward only:", gradcheck(wrong, (z64,)))
try:
    gradcheck(wrong, (z64,), check_forward_ad=True)
except RuntimeError as err:
    print(f"{type(err).__name__}: {str(err).splitlines()[0].rstrip(',')}")
# --8<-- [end:wrong_jvp]
