"""torch.no_grad() records nothing;
detach() gives an untracked view of the same data."""
import torch

x = torch.ones(2, 2, requires_grad=True)

# --8<-- [start:no_grad]
with torch.no_grad():
    y = x + 2
print(y.requires_grad, y.grad_fn)
# --8<-- [end:no_grad]

# --8<-- [start:detach]
d = x.detach()
print(d.requires_grad, d.is_leaf)
d[0, 0] = 5.0
print(x)
# --8<-- [end:detach]
