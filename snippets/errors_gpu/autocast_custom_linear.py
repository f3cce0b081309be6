"""A mixed-precision training step through a custom linear layer: its backward
multiplies a bfloat16 gradient by a float32 weight. The custom_fwd / custom_bwd
version trains."""
import torch
from torch import nn

from custom_linear import CustomLinear, CustomLinearAMP, classification_batch

# --8<-- [start:error]
torch.manual_seed(0)
x, labels = classification_batch()
model = nn.Sequential(CustomLinear(16, 32), nn.ReLU(), nn.Linear(32, 4))
with torch.autocast("cpu", dtype=torch.bfloat16):  # a GPU: "cuda", float16
    logits = model(x)
    loss = nn.functional.cross_entropy(logits, labels)
print(f"logits: {logits.dtype}, weight: {model[0].weight.dtype}")
try:
    loss.backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:fix]
torch.manual_seed(0)
x, labels = classification_batch()
model = nn.Sequential(CustomLinearAMP(16, 32), nn.ReLU(), nn.Linear(32, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
for step in range(1, 4):
    optimizer.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = nn.functional.cross_entropy(model(x), labels)
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}  "
          f"weight.grad of the custom layer: {model[0].weight.grad.dtype}")
# --8<-- [end:fix]
