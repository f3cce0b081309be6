"""A small MLP with the custom ELU, its backward pass recorded step by step."""
import torch
from autograd_steps import step_through
from elu import ELUCustom
from torch import nn

torch.manual_seed(0)
hidden, elu, output = nn.Linear(3, 4), ELUCustom(alpha=0.5), nn.Linear(4, 1)
x = torch.randn(2, 3)
target = torch.randn(2, 1)

with torch.autograd.set_detect_anomaly(True, check_nan=False):
    z = hidden(x)
    h = elu(z)  # one custom node: ELUFunction
    prediction = output(h)
    loss = ((prediction - target) ** 2).mean()
step_through(loss)
