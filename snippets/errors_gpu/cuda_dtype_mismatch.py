"""The custom linear layer's backward under autocast in float16, the dtype of a
GPU's autocast: the CPU's wording of the mismatch (the CUDA build's is in
gpu_only_messages.py), and the fix, in float16 on the CPU."""
import torch
from torch import nn

from custom_linear import CustomLinear, CustomLinearAMP, classification_batch

# --8<-- [start:cpu]
torch.manual_seed(0)
x, labels = classification_batch()
model = nn.Sequential(CustomLinear(16, 32), nn.ReLU(), nn.Linear(32, 4))
with torch.autocast("cpu", dtype=torch.float16):  # the GPU's autocast dtype
    loss = nn.functional.cross_entropy(model(x), labels)
try:
    loss.backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:cpu]

# --8<-- [start:fix]
torch.manual_seed(0)
x, labels = classification_batch()
model = nn.Sequential(CustomLinearAMP(16, 32), nn.ReLU(), nn.Linear(32, 4))
with torch.autocast("cpu", dtype=torch.float16):
    loss = nn.functional.cross_entropy(model(x), labels)
loss.backward()
grad = model[0].weight.grad
print(f"weight.grad: {grad.dtype}, norm {grad.norm():.4f}")
# --8<-- [end:fix]
