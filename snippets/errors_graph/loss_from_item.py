"""A loss turned into a Python number and back into a tensor."""
import torch
from torch import nn

torch.manual_seed(0)
inputs = torch.randn(64, 4)
targets = inputs.sum(dim=1, keepdim=True)
criterion = nn.MSELoss()

# --8<-- [start:error]
torch.manual_seed(0)
model = nn.Linear(4, 1)

loss = criterion(model(inputs), targets)
loss = torch.tensor(loss.item())  # e.g. to log it, or to add a NumPy penalty
try:
    loss.backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:fix]
torch.manual_seed(0)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

for step in range(30):
    optimizer.zero_grad()
    loss = criterion(model(inputs), targets)
    loss.backward()
    optimizer.step()
    logged = loss.item()  # a number for the log, taken after backward
    if step % 10 == 0 or step == 29:
        print(f"step {step:2d}: loss {logged:.4f}")
# --8<-- [end:fix]
