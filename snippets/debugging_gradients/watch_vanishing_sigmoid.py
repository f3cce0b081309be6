"""A two-layer MLP whose first layer barely learns: its inputs were never
scaled. The page shows its backward pass step by step."""
import torch
from torch import nn


class Sigmoid(torch.autograd.Function):
    """The logistic function, with its derivative y(1 - y) written by hand."""

    @staticmethod
    def forward(ctx, z):
        y = 1 / (1 + torch.exp(-z))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_y):
        (y,) = ctx.saved_tensors
        return grad_y * y * (1 - y)


torch.manual_seed(0)
hidden, output = nn.Linear(3, 4), nn.Linear(4, 1)
x = torch.tensor([[120.0, -40.0, 75.0], [90.0, 10.0, -60.0]])  # raw measurements
target = torch.tensor([[1.0], [0.0]])

z = hidden(x)
h = Sigmoid.apply(z)
loss = ((output(h) - target) ** 2).mean()
loss.backward()
print(hidden.weight.grad)
print(output.weight.grad)
