"""A loss whose target is computed from the model: PyTorch 2.13 differentiates through
the target too."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
model = nn.Linear(6, 3)
images = torch.randn(16, 6)
augmented = images + 0.1 * torch.randn(16, 6)

# --8<-- [start:target]
# consistency training: the prediction on the augmented image should match the
# prediction on the original, used as a soft target
target = torch.sigmoid(model(images))
prediction = torch.sigmoid(model(augmented))
loss = F.binary_cross_entropy(prediction, target)
print("target requires grad:", target.requires_grad)
loss.backward()
through_target = model.weight.grad.clone()
print("weight gradient norm:", round(through_target.norm().item(), 4))
# --8<-- [end:target]

# --8<-- [start:fix]
model.zero_grad()
target = torch.sigmoid(model(images)).detach()  # a target, not a second prediction
prediction = torch.sigmoid(model(augmented))
F.binary_cross_entropy(prediction, target).backward()
print("weight gradient norm:", round(model.weight.grad.norm().item(), 4))
# --8<-- [end:fix]

# --8<-- [start:soft_margin]
scores = model(augmented)
try:
    F.soft_margin_loss(scores, torch.tanh(model(images)))
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:soft_margin]
