"""torch.autograd.grad over parameters, one of which this step does not use."""
import torch
from torch import nn

torch.manual_seed(0)
inputs = torch.randn(16, 4)


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Linear(4, 8)
        self.regression = nn.Linear(8, 1)
        self.classification = nn.Linear(8, 3)

    def forward(self, x, task):
        features = torch.relu(self.trunk(x))
        if task == "regression":
            return self.regression(features)
        return self.classification(features)


# --8<-- [start:error]
torch.manual_seed(0)
model = TwoHeads()
weights = [model.trunk.weight, model.regression.weight, model.classification.weight]

loss = model(inputs, task="regression").pow(2).mean()  # this step: regression only
try:
    grads = torch.autograd.grad(loss, weights)
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:allow_unused]
loss = model(inputs, task="regression").pow(2).mean()
grads = torch.autograd.grad(loss, weights, allow_unused=True)
for name, grad in zip(["trunk", "regression", "classification"], grads):
    print(f"{name:14s}", None if grad is None else f"norm {grad.norm():.4f}")
# --8<-- [end:allow_unused]

# --8<-- [start:materialize]
loss = model(inputs, task="regression").pow(2).mean()
grads = torch.autograd.grad(loss, weights, materialize_grads=True)
for name, grad in zip(["trunk", "regression", "classification"], grads):
    print(f"{name:14s} shape {tuple(grad.shape)}, norm {grad.norm():.4f}")
# --8<-- [end:materialize]
