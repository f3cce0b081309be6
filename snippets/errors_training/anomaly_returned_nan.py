"""Anomaly mode on a training step whose hand-written loss takes log(0)."""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
x = torch.randn(8, 4) * 10  # features nobody scaled
y = (x[:, 0] > 0).float()
with torch.no_grad():
    model.weight.mul_(10)  # large logits: sigmoid rounds to exactly 0.0 or 1.0


def binary_cross_entropy(logits, targets):
    p = torch.sigmoid(logits)
    log_p = torch.log(p)
    log_not_p = torch.log(1 - p)
    return -(targets * log_p + (1 - targets) * log_not_p).mean()


# --8<-- [start:error]
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
torch.autograd.set_detect_anomaly(True)
optimizer.zero_grad()
loss = binary_cross_entropy(model(x).squeeze(1), y)
print("loss:", loss.item())
try:
    loss.backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
torch.autograd.set_detect_anomaly(False)
# --8<-- [end:error]

# --8<-- [start:probabilities]
p = torch.sigmoid(model(x).squeeze(1)).detach()
print("targets:       ", y.int().tolist())
print("p == 1 exactly:", (p == 1).int().tolist())
print("p == 0 exactly:", (p == 0).int().tolist())
# --8<-- [end:probabilities]

# --8<-- [start:fix]
loss_fn = nn.BCEWithLogitsLoss()  # log-sigmoid computed from the logits, stably
for step in range(3):
    optimizer.zero_grad()
    loss = loss_fn(model(x).squeeze(1), y)
    loss.backward()
    print(f"step {step}: loss {loss.item():.4f}  "
          f"weight grad finite: {model.weight.grad.isfinite().all().item()}")
    optimizer.step()
# --8<-- [end:fix]
