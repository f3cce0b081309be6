"""Freezing with module.requires_grad = False: a plain attribute, nothing frozen."""
import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(64, 8)
y = torch.randn(64, 1)


def train(freeze):
    """Freeze the backbone with `freeze`, train 3 steps; how far did the
    backbone move?"""
    torch.manual_seed(0)
    backbone, head = nn.Linear(8, 16), nn.Linear(16, 1)
    model = nn.Sequential(backbone, nn.ReLU(), head)
    freeze(backbone)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    before = backbone.weight.clone()
    for _ in range(3):
        optimizer.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    return backbone, (backbone.weight - before).abs().max().item()


# --8<-- [start:error]
def set_attribute(backbone):
    backbone.requires_grad = False  # sets an attribute of the module, nothing else


backbone, moved = train(set_attribute)
print("backbone.requires_grad:", backbone.requires_grad)
print("backbone.weight.requires_grad:", backbone.weight.requires_grad)
print(f"backbone moved by {moved:.4f}")
# --8<-- [end:error]


# --8<-- [start:fix]
def freeze(backbone):
    backbone.requires_grad_(False)  # the method: sets it on every parameter


backbone, moved = train(freeze)
print("backbone.weight.requires_grad:", backbone.weight.requires_grad)
print(f"backbone moved by {moved:.4f}")
# --8<-- [end:fix]
