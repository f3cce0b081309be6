"""torch.autograd.functional beside torch.func: the same Jacobians, Hessian
and products of the same small functions, with the chapter's ELU."""
import torch
from elu_with_jvp import ELUWithJvp
from torch.autograd import functional
from torch.func import hessian, jacfwd, jacrev, jvp, vjp

# --8<-- [start:functions]
torch.manual_seed(0)
w1, w2 = torch.randn(3, 4), torch.randn(2, 3)


def layer(x):
    """R^4 -> R^2: W2 ELU(W1 x)."""
    return w2 @ ELUWithJvp.apply(w1 @ x, 0.5)


def loss(x):
    """R^4 -> R: half the squared norm of ELU(W1 x)."""
    return 0.5 * ELUWithJvp.apply(w1 @ x, 0.5).pow(2).sum()


x = torch.randn(4)
u = torch.randn(2)  # a cotangent: one value per output
v = torch.randn(4)  # a tangent: one value per input
# --8<-- [end:functions]

# --8<-- [start:jacobian]
J = functional.jacobian(layer, x)
print(J)
print("jacrev:", torch.allclose(J, jacrev(layer)(x)))
print("jacfwd:", torch.allclose(J, jacfwd(layer)(x)))
J_vectorized = functional.jacobian(layer, x, vectorize=True)
print("vectorize=True:", torch.allclose(J, J_vectorized))
# --8<-- [end:jacobian]

# --8<-- [start:hessian]
H = functional.hessian(loss, x)
print(H)
print("torch.func.hessian:", torch.allclose(H, hessian(loss)(x)))
print("symmetric:", torch.allclose(H, H.T))
# --8<-- [end:hessian]

# --8<-- [start:products]
# torch.autograd.functional takes the vector and returns (output, product).
out, uJ = functional.vjp(layer, x, u)
_, Jv = functional.jvp(layer, x, v)
_, Hv = functional.hvp(loss, x, v)
_, vH = functional.vhp(loss, x, v)
# torch.func.vjp returns the output and a function of the vector.
out_func, vjp_fn = vjp(layer, x)
(uJ_func,) = vjp_fn(u)
_, Jv_func = jvp(layer, (x,), (v,))
print("vjp:", torch.allclose(uJ, uJ_func), torch.allclose(uJ, u @ J))
print("jvp:", torch.allclose(Jv, Jv_func), torch.allclose(Jv, J @ v))
print("hvp:", torch.allclose(Hv, H @ v), " vhp:", torch.allclose(vH, v @ H))
# --8<-- [end:products]
