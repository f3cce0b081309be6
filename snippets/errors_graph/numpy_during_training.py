"""Logging predictions as a NumPy array during training."""
import torch
from torch import nn

torch.manual_seed(0)
inputs = torch.randn(5, 3)
model = nn.Linear(3, 1)

# --8<-- [start:error]
predictions = model(inputs)
try:
    values = predictions.numpy()  # for a plot or a log
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:fix]
predictions = model(inputs)
values = predictions.detach().cpu().numpy()  # .cpu() where the model is on a GPU
print(values.round(3).ravel())

model.eval()
with torch.no_grad():  # evaluation: nothing is recorded, nothing to detach
    print(model(inputs).numpy().round(3).ravel())
# --8<-- [end:fix]
