"""Exercise: one hook that logs a layer's gradient norm once per backward pass."""
import torch
from torch import nn
from torch.autograd.graph import register_multi_grad_hook

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
first = model[0]


def log_norm(grads):
    norm = torch.cat([g.flatten() for g in grads if g is not None]).norm()
    print(f"first layer's gradient norm: {norm:.4f}")


register_multi_grad_hook(list(first.parameters()), log_norm)
x, y = torch.randn(16, 4), torch.randn(16, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
for step in range(2):
    optimizer.zero_grad()
    ((model(x) - y) ** 2).mean().backward()
    total = torch.cat([p.grad.flatten() for p in first.parameters()]).norm()
    print(f"from .grad after backward:   {total:.4f}")
    optimizer.step()
