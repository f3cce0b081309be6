"""Exercise: an in-place dropout after tanh, and the fix."""
import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(4, 3)
for inplace in (True, False):
    torch.manual_seed(1)
    dropout = nn.Dropout(0.5, inplace=inplace)
    model = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), dropout)
    try:
        model(x).sum().backward()
        norm = model[0].weight.grad.norm()
        print(f"inplace={inplace}: weight gradient norm {norm:.4f}")
    except RuntimeError as err:
        message = str(err).split(' Hint:')[0]
        print(f"inplace={inplace}: RuntimeError: {message}")
