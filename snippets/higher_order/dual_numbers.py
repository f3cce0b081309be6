"""Forward mode with dual numbers: the tangent that comes out is J v. A
Function without a jvp cannot take part."""
import torch
import torch.autograd.forward_ad as fwAD
from elu_with_jvp import ELUFunction, elu_derivative, elu_forward

# --8<-- [start:composite]
z = torch.tensor([-1.0, 0.5, 2.0])
v = torch.tensor([1.0, 2.0, 3.0])  # the direction: the tangent of z
with fwAD.dual_level():
    dual_z = fwAD.make_dual(z, v)  # z + v·ε
    out, tangent = fwAD.unpack_dual(elu_forward(dual_z, 0.5))
print("out:        ", out)
print("tangent:    ", tangent)
print("ELU'(z) * v:", elu_derivative(z, 0.5) * v)
# --8<-- [end:composite]

# --8<-- [start:no_jvp]
with fwAD.dual_level():
    try:
        ELUFunction.apply(fwAD.make_dual(z, v), 0.5)
    except NotImplementedError as err:
        print(f"NotImplementedError: {err}")
# --8<-- [end:no_jvp]
