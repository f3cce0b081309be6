"""Four sigmoid layers on scaled inputs: the gradient still fades, layer by layer."""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(
    nn.Linear(16, 16), nn.Sigmoid(),
    nn.Linear(16, 16), nn.Sigmoid(),
    nn.Linear(16, 16), nn.Sigmoid(),
    nn.Linear(16, 16), nn.Sigmoid(),
    nn.Linear(16, 1),
)
x, target = torch.randn(32, 16), torch.randn(32, 1)
loss = nn.functional.mse_loss(model(x), target)
loss.backward()
for i in range(0, 9, 2):
    print(f"model[{i}].weight.grad: norm {model[i].weight.grad.norm():.2g}")
