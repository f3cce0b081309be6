"""torch.func.hessian, checked against a Hessian derived by hand; with the
custom ELU it needs forward mode, which the Function does not have."""
import torch
from modern_elu import ELUFunction, elu_forward
from torch.func import hessian, jacrev

# --8<-- [start:composite]
torch.manual_seed(0)
A = torch.randn(5, 3, dtype=torch.float64)
w = torch.randn(3, dtype=torch.float64)


def f(w):
    """f(w) = sum of ELU(A w), with the composite ELU."""
    return elu_forward(A @ w, 0.5).sum()


H = hessian(f)(w)
print(H)

# By hand: the Hessian is A^T diag(ELU''(A w)) A,
# with ELU'' = 0.5 e^z for z <= 0, 0 above
z = A @ w
by_hand = A.T @ torch.diag(torch.where(z > 0, 0.0, 0.5 * torch.exp(z))) @ A
print("same as by hand:", torch.allclose(H, by_hand))
# --8<-- [end:composite]

# --8<-- [start:custom]
def f_custom(w):
    return ELUFunction.apply(A @ w, 0.5).sum()


try:
    hessian(f_custom)(w)
except NotImplementedError as err:
    print(f"NotImplementedError: {err}")
H_rev = jacrev(jacrev(f_custom))(w)
print("jacrev(jacrev(...)):", torch.allclose(H_rev, by_hand))
# --8<-- [end:custom]
