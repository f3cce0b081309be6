"""Exercise: a Jacobian-vector product through ELUFunction, which has no jvp,
by the double backward trick."""
import torch
from elu_with_jvp import ELUFunction, ELUWithJvp
from torch.autograd import functional
from torch.func import jvp

torch.manual_seed(0)
z = torch.randn(5, requires_grad=True)
v = torch.randn(5)

y = ELUFunction.apply(z, 0.5)
# A dummy cotangent u: u^T J is linear in u, and its derivative along v is J v.
u = torch.zeros_like(y, requires_grad=True)
(uJ,) = torch.autograd.grad(y, z, u, create_graph=True)
(Jv,) = torch.autograd.grad(uJ, u, v)
print(Jv)

_, Jv_functional = functional.jvp(lambda z: ELUFunction.apply(z, 0.5), z.detach(), v)
_, Jv_forward = jvp(lambda z: ELUWithJvp.apply(z, 0.5), (z.detach(),), (v,))
print("torch.autograd.functional.jvp:", torch.allclose(Jv, Jv_functional))
print("torch.func.jvp with ELUWithJvp:", torch.allclose(Jv, Jv_forward))
