"""y = (x1^2, x1^2 + 5 x2^2, 3 x2): two inputs, three outputs."""
import torch


def f(x):
    return torch.stack([x[0] ** 2, x[0] ** 2 + 5 * x[1] ** 2, 3 * x[1]])
