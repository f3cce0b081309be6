"""backward() on a loss that was not reduced to one number."""
import torch
from torch import nn

torch.manual_seed(0)
inputs = torch.randn(8, 4)
targets = inputs.sum(dim=1, keepdim=True)
weights = torch.linspace(0.5, 1.5, 8).unsqueeze(1)  # a weight per sample

# --8<-- [start:error]
torch.manual_seed(0)
model = nn.Linear(4, 1)
criterion = nn.MSELoss(reduction="none")  # one loss per sample, to weight them

loss = criterion(model(inputs), targets) * weights
print("loss shape:", tuple(loss.shape))
try:
    loss.backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:fix]
torch.manual_seed(0)
model = nn.Linear(4, 1)
loss = (criterion(model(inputs), targets) * weights).mean()  # one number
loss.backward()
print(f"loss {loss.item():.4f}, weight gradient {model.weight.grad}")
# --8<-- [end:fix]

# --8<-- [start:gradient]
torch.manual_seed(0)
model = nn.Linear(4, 1)
per_sample = criterion(model(inputs), targets) * weights
per_sample.backward(gradient=torch.full_like(per_sample, 1 / len(per_sample)))
print(f"weight gradient {model.weight.grad}")
# --8<-- [end:gradient]
