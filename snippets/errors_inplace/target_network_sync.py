"""Syncing a target network by copying into parameters that the pending loss
used: the parameters stop being leaves before backward() reaches them."""
import torch
from torch import nn

torch.manual_seed(0)
states = torch.randn(8, 4)
rewards = torch.randn(8, 1)

# --8<-- [start:error]
online = nn.Linear(4, 1)
target = nn.Linear(4, 1)  # its parameters require grad, as every Parameter does
loss = nn.functional.mse_loss(online(states), rewards + 0.9 * target(states))

# sync the target network; requires_grad_(False) silences the leaf error
for p_target, p_online in zip(target.parameters(), online.parameters()):
    p_target.requires_grad_(False)
    p_target.copy_(p_online)  # recorded: p_target now has a grad_fn
print("target weight:", type(target.weight.grad_fn).__name__,
      "leaf:", target.weight.is_leaf)
try:
    loss.backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:fix]
torch.manual_seed(0)
online = nn.Linear(4, 1)
target = nn.Linear(4, 1).requires_grad_(False)  # frozen: no grad, no graph
optimizer = torch.optim.SGD(online.parameters(), lr=0.1)
for step in range(3):
    loss = nn.functional.mse_loss(online(states), rewards + 0.9 * target(states))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    target.load_state_dict(online.state_dict())  # copies under no_grad
    print(f"step {step}: loss {loss.item():.4f}")
print("target weight:", target.weight.grad_fn, "leaf:", target.weight.is_leaf)
print("same as online:", torch.equal(target.weight, online.weight))
# --8<-- [end:fix]
