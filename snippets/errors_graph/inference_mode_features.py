"""Features from a frozen encoder, computed in inference mode, fed to a trained head."""
import torch
from torch import nn

torch.manual_seed(0)
images = torch.randn(32, 10)
labels = (images[:, 0] > 0).long()
encoder = nn.Sequential(nn.Linear(10, 16), nn.ReLU())  # pretrained, frozen
criterion = nn.CrossEntropyLoss()

# --8<-- [start:error]
with torch.inference_mode():  # precompute the features once
    features = encoder(images)

torch.manual_seed(0)
head = nn.Linear(16, 2)
try:
    loss = criterion(head(features), labels)
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:fix]
with torch.no_grad():  # no_grad, not inference_mode
    features = encoder(images)

torch.manual_seed(0)
head = nn.Linear(16, 2)
optimizer = torch.optim.SGD(head.parameters(), lr=0.5)
for step in range(30):
    optimizer.zero_grad()
    loss = criterion(head(features), labels)
    loss.backward()
    optimizer.step()
    if step % 10 == 0 or step == 29:
        print(f"step {step:2d}: loss {loss.item():.3f}")
# --8<-- [end:fix]

# --8<-- [start:clone]
with torch.inference_mode():
    cached = encoder(images)
features = cached.clone()  # outside inference mode: an ordinary tensor
print("is_inference:", cached.is_inference(), "->", features.is_inference())
torch.manual_seed(0)
head = nn.Linear(16, 2)
criterion(head(features), labels).backward()
print(f"head.weight.grad norm: {head.weight.grad.norm():.4f}")
# --8<-- [end:clone]
