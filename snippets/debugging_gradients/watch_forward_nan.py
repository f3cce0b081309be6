"""A NaN made in the forward pass: a Poisson model whose rate can go negative."""
import torch
from torch import nn


class PoissonHead(nn.Module):
    def __init__(self, features):
        super().__init__()
        # A rate must be positive: a softplus belongs on this layer's output.
        self.rate = nn.Linear(features, 1, bias=False)

    def forward(self, x):
        return torch.log(self.rate(x))  # the log of the rate


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), PoissonHead(8))
x, counts = torch.randn(6, 3), torch.tensor([[2.0], [0.0], [1.0], [4.0], [1.0], [3.0]])
log_rate = model(x)
loss = (log_rate.exp() - counts * log_rate).mean()  # Poisson negative log-likelihood
print(loss)
loss.backward()
print(model[0].weight.grad.isnan().any())
