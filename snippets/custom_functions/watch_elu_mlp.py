"""A small MLP with the custom ELU: the page shows its backward pass step by step."""
import torch
from elu import ELUCustom
from torch import nn

torch.manual_seed(0)
hidden, elu, output = nn.Linear(3, 4), ELUCustom(alpha=0.5), nn.Linear(4, 1)
x = torch.randn(2, 3)
target = torch.randn(2, 1)

z = hidden(x)
h = elu(z)  # one custom node: ELUFunction
prediction = output(h)
loss = ((prediction - target) ** 2).mean()
loss.backward()
