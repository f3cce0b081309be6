"""Freezing a pretrained backbone, and freezing everything by mistake."""
import torch
from torch import nn

torch.manual_seed(0)
inputs = torch.randn(64, 8)
labels = (inputs[:, 0] > 0).long()
criterion = nn.CrossEntropyLoss()


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(8, 16), nn.ReLU())  # "pretrained"
        self.head = nn.Linear(16, 2)

    def forward(self, x):
        return self.head(self.backbone(x))


# --8<-- [start:error]
torch.manual_seed(0)
model = Classifier()
model.requires_grad_(False)  # meant: freeze the backbone
optimizer = torch.optim.SGD(model.head.parameters(), lr=0.1)

loss = criterion(model(inputs), labels)
try:
    loss.backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:fix]
torch.manual_seed(0)
model = Classifier()
model.backbone.requires_grad_(False)  # the backbone only
optimizer = torch.optim.SGD(model.head.parameters(), lr=0.1)
backbone_before = model.backbone[0].weight.clone()
head_before = model.head.weight.clone()

for step in range(20):
    optimizer.zero_grad()
    loss = criterion(model(inputs), labels)
    loss.backward()
    optimizer.step()
backbone_moved = (model.backbone[0].weight - backbone_before).abs().max().item()
head_moved = (model.head.weight - head_before).abs().max().item()
print("backbone moved by", backbone_moved)
print(f"head moved by     {head_moved:.4f}")
# --8<-- [end:fix]
