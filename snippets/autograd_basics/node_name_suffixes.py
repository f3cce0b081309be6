"""The number at the end of a node's name: which overload of the operation made it."""
import torch

# --8<-- [start:sum_and_pow]
x = torch.ones(2, 3, requires_grad=True)
e = torch.tensor(2.0, requires_grad=True)
nodes = {
    "x.sum()": x.sum(),      # sum(Tensor self)
    "x.sum(0)": x.sum(0),    # sum.dim_IntList(Tensor self, int[1]? dim)
    "x ** 2": x**2,          # pow.Tensor_Scalar(Tensor self, Scalar exponent)
    "x ** e": x**e,          # pow.Tensor_Tensor(Tensor self, Tensor exponent)
    "2 ** x": 2**x,          # pow.Scalar(Scalar self, Tensor exponent)
}
for code, result in nodes.items():
    print(f"{code:9} {result.grad_fn.name()}")
# --8<-- [end:sum_and_pow]

# --8<-- [start:squeeze]
row = torch.ones(1, 10, requires_grad=True) * 1  # a non-leaf: in place is allowed
W = torch.ones(8, 10, requires_grad=True)
nodes = {
    "row.squeeze()": row.squeeze(),             # squeeze(Tensor self)
    "row.squeeze(0)": row.squeeze(0),           # squeeze.dim(Tensor self, int dim)
    "row.clone().squeeze_(0)": row.clone().squeeze_(0),  # squeeze_.dim, in place
    "torch.ones(8) @ W": torch.ones(8) @ W,     # a vector times a matrix
}
for code, result in nodes.items():
    print(f"{code:23} {result.grad_fn.name()}")
# --8<-- [end:squeeze]
