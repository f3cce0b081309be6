"""Setting loss.requires_grad = True: the error goes, and nothing trains."""
import torch
from torch import nn

torch.manual_seed(0)
inputs = torch.randn(64, 4)
targets = inputs.sum(dim=1, keepdim=True)
criterion = nn.MSELoss()

# --8<-- [start:silenced]
torch.manual_seed(0)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
weight_before = model.weight.clone()

for step in range(30):
    optimizer.zero_grad()
    with torch.no_grad():  # the cause, still there
        loss = criterion(model(inputs), targets)
    loss.requires_grad = True  # "fixes" the error
    loss.backward()
    optimizer.step()
    if step % 10 == 0 or step == 29:
        print(f"step {step:2d}: loss {loss.item():.4f}")
print("model.weight.grad:", model.weight.grad)
print("weight moved by:", (model.weight - weight_before).abs().max().item())
# --8<-- [end:silenced]
