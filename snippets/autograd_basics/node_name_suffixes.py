"""The number at the end of a node's name: which overload of the operation made it."""
import torch

# --8<-- [start:sum_and_pow]
a = torch.ones(2, 3, requires_grad=True)
p = torch.tensor(2.0, requires_grad=True)
nodes = {
    "a.sum()": a.sum(),      # sum(Tensor self)
    "a.sum(0)": a.sum(0),    # sum.dim_IntList(Tensor self, int[1]? dim)
    "a ** 2": a**2,          # pow.Tensor_Scalar(Tensor self, Scalar exponent)
    "a ** p": a**p,          # pow.Tensor_Tensor(Tensor self, Tensor exponent)
    "2 ** a": 2**a,          # pow.Scalar(Scalar self, Tensor exponent)
}
for code, result in nodes.items():
    print(f"{code:9} {result.grad_fn.name()}")
# --8<-- [end:sum_and_pow]

# --8<-- [start:squeeze]
row = torch.ones(1, 10, requires_grad=True) * 1  # a non-leaf: in place is allowed
M = torch.ones(8, 10, requires_grad=True)
nodes = {
    "row.squeeze()": row.squeeze(),             # squeeze(Tensor self)
    "row.squeeze(0)": row.squeeze(0),           # squeeze.dim(Tensor self, int dim)
    "row.clone().squeeze_(0)": row.clone().squeeze_(0),  # squeeze_.dim, in place
    "torch.ones(8) @ M": torch.ones(8) @ M,     # a vector times a matrix
}
for code, result in nodes.items():
    print(f"{code:23} {result.grad_fn.name()}")
# --8<-- [end:squeeze]
