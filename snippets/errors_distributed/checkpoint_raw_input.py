"""The reentrant checkpoint around the first layers, fed a batch of data."""
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
mlp = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 2))
batch, targets = torch.randn(16, 8), torch.randint(0, 2, (16,))

# --8<-- [start:error]
h = checkpoint(mlp[:2], batch, use_reentrant=True)  # batch does not require grad
loss = nn.functional.cross_entropy(mlp[2](h), targets)
loss.backward()
print("mlp[0].weight.grad:", mlp[0].weight.grad)
print("mlp[2].weight.grad is None:", mlp[2].weight.grad is None)
# --8<-- [end:error]
