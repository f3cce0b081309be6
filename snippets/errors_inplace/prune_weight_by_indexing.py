"""Pruning a layer by writing zeros into part of its weight: a view of a leaf."""
import torch
from torch import nn

torch.manual_seed(0)
inputs = torch.randn(16, 4)
targets = torch.randn(16, 2)

# --8<-- [start:error]
layer = nn.Linear(4, 2)
try:
    layer.weight[:, :2] = 0.0  # drop the first two input features
except RuntimeError as err:
    print(f"RuntimeError: {err}")
try:
    layer.weight[0].zero_()  # drop the first output unit
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:no_grad]
with torch.no_grad():
    layer.weight[:, :2] = 0.0
print("after pruning:", layer.weight[:, :2].abs().sum().item())

optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
loss = nn.functional.mse_loss(layer(inputs), targets)
loss.backward()
optimizer.step()
print("after one step:", round(layer.weight[:, :2].abs().sum().item(), 4))
# --8<-- [end:no_grad]

# --8<-- [start:mask]
torch.manual_seed(0)
layer = nn.Linear(4, 2)
mask = torch.tensor([0.0, 0.0, 1.0, 1.0])  # one entry per input feature
optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
for step in range(3):
    optimizer.zero_grad()
    pruned = layer.weight * mask  # out of place: a new tensor in the graph
    loss = nn.functional.mse_loss(nn.functional.linear(inputs, pruned, layer.bias),
                                  targets)
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}")
print("gradient of the pruned entries:", layer.weight.grad[:, :2].abs().sum().item())
# --8<-- [end:mask]
