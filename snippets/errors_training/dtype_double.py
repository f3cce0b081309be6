"""A float64 target from NumPy meets a float32 model: Huber loss fails in backward."""
import numpy as np
import torch
from torch import nn

torch.manual_seed(0)
rng = np.random.default_rng(0)
features = rng.normal(size=(64, 3))  # NumPy arrays are float64
prices = features @ np.array([1.5, -2.0, 0.5]) + rng.normal(scale=0.1, size=64)
model = nn.Linear(3, 1)
x = torch.from_numpy(features).float()

# --8<-- [start:error]
y = torch.from_numpy(prices).unsqueeze(1)  # keeps NumPy's float64
loss = nn.HuberLoss()(model(x), y)
print("loss:", loss.dtype)
try:
    loss.backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:mse]
loss = nn.MSELoss()(model(x), y)
print("MSELoss:", loss.dtype)
loss.backward()
print("weight.grad:", model.weight.grad.dtype)
# --8<-- [end:mse]

# --8<-- [start:fix]
# or torch.tensor(prices, dtype=torch.float32)
y = torch.from_numpy(prices).float().unsqueeze(1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    optimizer.zero_grad()
    loss = nn.HuberLoss()(model(x), y)
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f} ({loss.dtype})")
# --8<-- [end:fix]
