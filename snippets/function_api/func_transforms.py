"""torch.func.grad, vjp and jacrev through the custom ELU give what they
give for the composite ELU."""
import torch
from modern_elu import ELUFunction, elu_forward
from torch.func import grad, jacrev, vjp


def custom(z):
    return ELUFunction.apply(z, 0.5)


def composite(z):
    return elu_forward(z, 0.5)


# --8<-- [start:grad]
torch.manual_seed(0)
z = torch.randn(4)
grad_custom = grad(lambda z: custom(z).sum())(z)
grad_composite = grad(lambda z: composite(z).sum())(z)
print("grad:  ", grad_custom)
print("same as the composite:", torch.equal(grad_custom, grad_composite))
# --8<-- [end:grad]

# --8<-- [start:vjp]
v = torch.tensor([1.0, 2.0, 3.0, 4.0])
out, vjp_custom = vjp(custom, z)  # vjp returns the output and a function
(vjp_custom_v,) = vjp_custom(v)
(vjp_composite_v,) = vjp(composite, z)[1](v)
print("vjp(v):", vjp_custom_v)
print("same as the composite:", torch.equal(vjp_custom_v, vjp_composite_v))
# --8<-- [end:vjp]

# --8<-- [start:jacrev]
jacobian = jacrev(custom)(z)
print(jacobian)
print("same as the composite:", torch.equal(jacobian, jacrev(composite)(z)))
# --8<-- [end:jacrev]

# --8<-- [start:overflow]
big = torch.tensor([100.0])
print("at z = 100: custom", grad(lambda z: custom(z).sum())(big),
      " composite", grad(lambda z: composite(z).sum())(big))
# --8<-- [end:overflow]
