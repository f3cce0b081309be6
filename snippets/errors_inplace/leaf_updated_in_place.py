"""A hand-written SGD step and a weight initialisation, both in place on leaves
that require grad."""
import torch
from torch import nn

torch.manual_seed(0)
inputs = torch.randn(32, 3)
targets = inputs @ torch.tensor([1.0, -2.0, 0.5]) + 0.3

# --8<-- [start:error]
w = torch.zeros(3, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr = 0.1
loss = ((inputs @ w + b - targets) ** 2).mean()
loss.backward()
try:
    w -= lr * w.grad
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:init]
layer = nn.Linear(3, 1)
try:
    layer.weight.normal_(0.0, 0.01)
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:init]

# --8<-- [start:fix]
w = torch.zeros(3, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
for step in range(5):
    loss = ((inputs @ w + b - targets) ** 2).mean()
    loss.backward()
    with torch.no_grad():  # the update is not part of the model: not recorded
        w -= lr * w.grad
        b -= lr * b.grad
    w.grad = None
    b.grad = None
    print(f"step {step}: loss {loss.item():.4f}")
print("w is still a leaf that requires grad:", w.is_leaf, w.requires_grad)
# --8<-- [end:fix]

# --8<-- [start:init_fix]
torch.manual_seed(0)
layer = nn.Linear(3, 1)
nn.init.normal_(layer.weight, 0.0, 0.01)  # runs under no_grad inside
print(layer.weight)
# --8<-- [end:init_fix]
