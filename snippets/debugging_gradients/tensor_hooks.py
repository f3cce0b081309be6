"""Tensor hooks print the gradient that reaches each intermediate tensor."""
import torch

points = torch.tensor([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]], requires_grad=True)

# --8<-- [start:hooks]
diff = points[:, None, :] - points[None, :, :]
squared = (diff**2).sum(dim=-1)
dist = squared.sqrt()

def printer(name):
    return lambda grad: print(f"grad of {name}:\n{grad}")


tensors = {"dist": dist, "squared": squared, "diff": diff}
handles = [t.register_hook(printer(name)) for name, t in tensors.items()]
dist.sum().backward()
for handle in handles:
    handle.remove()
# --8<-- [end:hooks]
