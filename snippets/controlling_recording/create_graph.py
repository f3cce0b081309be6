"""create_graph=True: a gradient that is itself recorded,
for a gradient penalty or a second derivative."""
import torch
from torch import nn

# --8<-- [start:second]
x = torch.tensor(3.0, requires_grad=True)
y = x**3
(dy_dx,) = torch.autograd.grad(y, x, create_graph=True)
print(dy_dx, dy_dx.grad_fn.name())
(d2y_dx2,) = torch.autograd.grad(dy_dx, x)
print(d2y_dx2)
# --8<-- [end:second]

# --8<-- [start:without]
torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
points = torch.randn(8, 2, requires_grad=True)

scores = critic(points)
(slopes,) = torch.autograd.grad(scores.sum(), points)
print(slopes.requires_grad, slopes.grad_fn)
penalty = ((slopes.norm(dim=1) - 1) ** 2).mean()
try:
    penalty.backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:without]

# --8<-- [start:with]
scores = critic(points)
(slopes,) = torch.autograd.grad(scores.sum(), points, create_graph=True)
print(slopes.requires_grad, slopes.grad_fn.name())
penalty = ((slopes.norm(dim=1) - 1) ** 2).mean()
penalty.backward()
print(penalty)
for name, p in critic.named_parameters():
    print(f"{name:8} grad={None if p.grad is None else tuple(p.grad.shape)}")
# --8<-- [end:with]
