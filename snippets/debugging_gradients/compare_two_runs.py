"""The four sigmoid layers of watch_vanishing_layers.py, then the same layers with ReLU
in place of each sigmoid: the gradient each layer receives in the two runs."""
import torch
from torch import nn

from autograd_steps import compare, show_backward, watch_forward


def recorded(activation):
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Linear(16, 16), activation(),
        nn.Linear(16, 16), activation(),
        nn.Linear(16, 16), activation(),
        nn.Linear(16, 16), activation(),
        nn.Linear(16, 1),
    )
    x, target = torch.randn(32, 16), torch.randn(32, 1)
    with watch_forward():
        loss = nn.functional.mse_loss(model(x), target)
    return show_backward(loss, quiet=True)


before = recorded(nn.Sigmoid)
after = recorded(nn.ReLU)
print(compare(before, after, by="module"))
