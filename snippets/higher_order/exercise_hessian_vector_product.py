"""Exercise: a Hessian-vector product through the custom ELU, reverse over
reverse and forward over reverse."""
import torch
from elu_with_jvp import ELUWithJvp
from torch.func import grad, jvp


def loss(z):
    return (ELUWithJvp.apply(z, 0.5) ** 2).sum() / 2


torch.manual_seed(0)
z = torch.randn(6, requires_grad=True)
v = torch.randn(6)

# Reverse over reverse: differentiate the gradient's dot product with v.
(g,) = torch.autograd.grad(loss(z), z, create_graph=True)
(hvp_reverse,) = torch.autograd.grad(g, z, v)

# Forward over reverse: push the tangent v through the gradient function.
_, hvp_forward = jvp(grad(loss), (z.detach(),), (v,))

print(hvp_reverse)
print("same:", torch.allclose(hvp_reverse, hvp_forward))
