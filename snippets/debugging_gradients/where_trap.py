"""torch.where does not stop a NaN gradient; masking the input does."""
import torch
from distances import safe_pairwise_distances

points = torch.tensor([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]], requires_grad=True)

# --8<-- [start:trap]
diff = points[:, None, :] - points[None, :, :]
squared = (diff**2).sum(dim=-1)
dist = torch.where(squared > 0, squared.sqrt(), 0.0)
dist.sum().backward()
print(points.grad)
# --8<-- [end:trap]

# --8<-- [start:why]
square_root = squared.detach().requires_grad_()
zero_upstream = torch.zeros(3, 3)  # what WhereBackward0 sends to sqrt (i == j)
(grad,) = torch.autograd.grad(square_root.sqrt(), square_root, zero_upstream)
print(grad)
# --8<-- [end:why]

# --8<-- [start:fix]
points.grad = None
safe_pairwise_distances(points).sum().backward()
print(points.grad)
# --8<-- [end:fix]
