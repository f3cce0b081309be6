"""Leaf and non-leaf tensors: is_leaf, requires_grad, grad_fn,
and .grad before and after backward."""
import torch

# --8<-- [start:kinds]
x = torch.ones(2, 2, requires_grad=True)  # made by you, tracked
c = torch.full((2, 2), 2.0)               # made by you, not tracked
y = x + c                                 # made by an operation
print(x.is_leaf, x.requires_grad, x.grad_fn)
print(c.is_leaf, c.requires_grad, c.grad_fn)
print(y.is_leaf, y.requires_grad, y.grad_fn.name())
# --8<-- [end:kinds]

# --8<-- [start:grad]
print(x.grad)
y.sum().backward()
print(x.grad)
print(c.grad)
# --8<-- [end:grad]
