"""Exercise: features computed under inference_mode feed a layer that is trained."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
encoder = nn.Linear(6, 4)                   # pretrained, not trained here
head = nn.Linear(4, 1)                      # trained
x, y = torch.randn(16, 6), torch.randn(16, 1)

# --8<-- [start:fails]
with torch.inference_mode():
    features = encoder(x)
try:
    F.mse_loss(head(features), y).backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:fails]

# --8<-- [start:fixes]
F.mse_loss(head(features.clone()), y).backward()     # fix 1: a normal copy
print(head.weight.grad is not None, encoder.weight.grad)
head.zero_grad()

with torch.no_grad():                                 # fix 2: no_grad instead
    features = encoder(x)
F.mse_loss(head(features), y).backward()
print(head.weight.grad is not None, encoder.weight.grad)
# --8<-- [end:fixes]
