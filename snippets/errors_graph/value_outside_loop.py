"""A value computed once from a parameter, outside the training loop."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
inputs = torch.randn(32, 4)
targets = inputs @ torch.tensor([[1.0], [-2.0], [0.5], [3.0]])

# --8<-- [start:error]
torch.manual_seed(0)
model = nn.Linear(4, 1)
log_scale = nn.Parameter(torch.zeros(()))
optimizer = torch.optim.SGD([*model.parameters(), log_scale], lr=0.02)

scale = log_scale.exp()  # computed once, before the loop
for step in range(3):
    optimizer.zero_grad()
    loss = F.mse_loss(model(inputs) * scale, targets)
    try:
        loss.backward()
    except RuntimeError as err:
        print(f"step {step}: RuntimeError: {err}")
        break
    optimizer.step()
    print(f"step {step}: loss {loss.item():.3f}")
# --8<-- [end:error]

# --8<-- [start:retain]
torch.manual_seed(0)
model = nn.Linear(4, 1)
log_scale = nn.Parameter(torch.zeros(()))
optimizer = torch.optim.SGD([*model.parameters(), log_scale], lr=0.02)

scale = log_scale.exp()
for step in range(50):
    optimizer.zero_grad()
    loss = F.mse_loss(model(inputs) * scale, targets)
    loss.backward(retain_graph=True)
    optimizer.step()
print(f"log_scale.exp() = {log_scale.exp().item():.3f}")
print(f"scale used      = {scale.item():.3f}")
# --8<-- [end:retain]

# --8<-- [start:fix]
torch.manual_seed(0)
model = nn.Linear(4, 1)
log_scale = nn.Parameter(torch.zeros(()))
optimizer = torch.optim.SGD([*model.parameters(), log_scale], lr=0.02)

for step in range(50):
    optimizer.zero_grad()
    scale = log_scale.exp()  # recomputed every step: a new graph each time
    loss = F.mse_loss(model(inputs) * scale, targets)
    loss.backward()
    optimizer.step()
    if step % 10 == 0 or step == 49:
        print(f"step {step:2d}: loss {loss.item():.3f}, scale {scale.item():.3f}")
# --8<-- [end:fix]
