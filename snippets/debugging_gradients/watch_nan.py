"""The NaN of the pairwise distances, stepped through: where does it start?"""
import torch
from distances import pairwise_distances

points = torch.tensor([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]], requires_grad=True)
dist = pairwise_distances(points)
loss = dist.sum()
loss.backward()
print(points.grad)
