"""Accuracy, built from argmax, used as a loss."""
import torch
from torch import nn

torch.manual_seed(0)
inputs = torch.randn(64, 4)
labels = (inputs[:, 0] > 0).long() + (inputs[:, 1] > 0).long()  # classes 0, 1, 2


def accuracy(logits, labels):
    return (logits.argmax(dim=1) == labels).float().mean()


# --8<-- [start:error]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))

loss = 1 - accuracy(model(inputs), labels)
try:
    loss.backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:fix]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
criterion = nn.CrossEntropyLoss()  # differentiable; accuracy is only reported

for step in range(100):
    optimizer.zero_grad()
    logits = model(inputs)
    loss = criterion(logits, labels)
    loss.backward()
    optimizer.step()
    if step % 33 == 0:
        print(f"step {step:2d}: loss {loss.item():.3f}, "
              f"accuracy {accuracy(logits, labels).item():.2f}")
# --8<-- [end:fix]
