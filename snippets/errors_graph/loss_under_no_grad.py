"""A training loss computed by the validation code, under torch.no_grad()."""
import torch
from torch import nn

torch.manual_seed(0)
inputs = torch.randn(64, 4)
labels = (inputs[:, 0] > 0).long() + (inputs[:, 1] > 0).long()  # classes 0, 1, 2
criterion = nn.CrossEntropyLoss()


def evaluate(model, inputs, labels):
    model.eval()
    with torch.no_grad():
        return criterion(model(inputs), labels)


# --8<-- [start:error]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)

loss = evaluate(model, inputs, labels)  # reused for the training step
print("requires_grad:", loss.requires_grad, "grad_fn:", loss.grad_fn)
try:
    loss.backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]


# --8<-- [start:fix]
def train_step(model, optimizer, inputs, labels):
    model.train()
    optimizer.zero_grad()
    loss = criterion(model(inputs), labels)  # recorded: no no_grad here
    loss.backward()
    optimizer.step()
    return loss.item()


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
for step in range(100):
    train_step(model, optimizer, inputs, labels)
    if step % 33 == 0:
        print(f"step {step:2d}: validation loss "
              f"{evaluate(model, inputs, labels).item():.3f}")
# --8<-- [end:fix]
