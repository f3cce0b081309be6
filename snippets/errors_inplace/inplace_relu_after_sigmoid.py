"""An in-place ReLU overwrites the output that Sigmoid saved for backward."""
import torch
from torch import nn

torch.manual_seed(0)
inputs = torch.randn(2, 4)
targets = torch.randn(2, 1)

# --8<-- [start:error]
model = nn.Sequential(
    nn.Linear(4, 3),
    nn.Sigmoid(),          # saves its output: sigmoid' = s * (1 - s)
    nn.ReLU(inplace=True),  # writes into that output
    nn.Linear(3, 1),
)
loss = nn.functional.mse_loss(model(inputs), targets)
try:
    loss.backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:anomaly]
with torch.autograd.set_detect_anomaly(True):
    loss = nn.functional.mse_loss(model(inputs), targets)
    try:
        loss.backward()
    except RuntimeError:
        pass
# --8<-- [end:anomaly]

# --8<-- [start:fix]
torch.manual_seed(0)
model = nn.Sequential(
    nn.Linear(4, 3),
    nn.Sigmoid(),
    nn.ReLU(),  # out of place: a new tensor, the saved output stays intact
    nn.Linear(3, 1),
)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(inputs), targets)
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}")
# --8<-- [end:fix]
