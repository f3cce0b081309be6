"""Leaf and non-leaf tensors: is_leaf, requires_grad, grad_fn, and .grad before and after backward."""
import torch

# --8<-- [start:kinds]
x = torch.ones(2, 2, requires_grad=True)  # made by you, tracked
c = torch.full((2, 2), 2.0)               # made by you, not tracked
y = x + c                                 # made by an operation
for name, t in {"x": x, "c": c, "y": y}.items():
    op = t.grad_fn.name() if t.grad_fn else None
    print(f"{name}: is_leaf={t.is_leaf}, requires_grad={t.requires_grad}, grad_fn={op}")
# --8<-- [end:kinds]

# --8<-- [start:grad]
print(x.grad)
y.sum().backward()
print(x.grad)
print(c.grad)
# --8<-- [end:grad]
