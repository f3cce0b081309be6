"""A training loop without optimizer.zero_grad(): each step adds to old gradients."""
import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(32, 3)
y = x @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.3

# --8<-- [start:error]
torch.manual_seed(1)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(10):
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()  # adds this step's gradient to what .grad already holds
    print(f"step {step}: loss {loss.item():.3f}  "
          f"weight grad norm {model.weight.grad.norm().item():.3f}")
    optimizer.step()
# --8<-- [end:error]

# --8<-- [start:fix]
torch.manual_seed(1)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(10):
    optimizer.zero_grad()  # .grad = None for every parameter
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    print(f"step {step}: loss {loss.item():.3f}  "
          f"weight grad norm {model.weight.grad.norm().item():.3f}")
    optimizer.step()
# --8<-- [end:fix]

# --8<-- [start:accumulation]
torch.manual_seed(1)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
micro_batches = 4  # a batch of 32 seen as 4 micro-batches of 8
optimizer.zero_grad()
for x_part, y_part in zip(x.chunk(micro_batches), y.chunk(micro_batches)):
    loss = nn.functional.mse_loss(model(x_part), y_part) / micro_batches
    loss.backward()  # accumulates: wanted here
accumulated = model.weight.grad.clone()

optimizer.zero_grad()
nn.functional.mse_loss(model(x), y).backward()  # the whole batch at once
print("accumulated:", accumulated)
print("whole batch:", model.weight.grad)
print("same gradient:", torch.allclose(accumulated, model.weight.grad))
optimizer.step()  # one step per batch, after all its micro-batches
# --8<-- [end:accumulation]
