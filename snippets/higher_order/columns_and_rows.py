"""A JVP gives one column of the Jacobian, a VJP one row."""
import torch
from elu_with_jvp import ELUWithJvp
from torch.func import jacfwd, jvp, vjp

torch.manual_seed(0)
W = torch.randn(5, 3)


def f(x):
    """R^3 -> R^5: n = 3 inputs, m = 5 outputs."""
    return ELUWithJvp.apply(W @ x, 0.5)


x = torch.randn(3)
J = jacfwd(f)(x)
print("Jacobian:", tuple(J.shape))

e_0 = torch.tensor([1.0, 0.0, 0.0])  # a direction in the input space
_, column = jvp(f, (x,), (e_0,))
print("jvp with e_0 is column 0:", torch.allclose(column, J[:, 0]))

u_0 = torch.tensor([1.0, 0.0, 0.0, 0.0, 0.0])  # a weighting of the outputs
(row,) = vjp(f, x)[1](u_0)
print("vjp with u_0 is row 0:   ", torch.allclose(row, J[0]))
