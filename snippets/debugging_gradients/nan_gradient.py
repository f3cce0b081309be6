"""A NaN gradient from pairwise distances, and anomaly mode finding it."""
import torch
from distances import pairwise_distances

# --8<-- [start:nan]
points = torch.tensor([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]], requires_grad=True)
dist = pairwise_distances(points)
print(dist)
dist.sum().backward()
print(points.grad)
# --8<-- [end:nan]

# --8<-- [start:anomaly]
points.grad = None
with torch.autograd.set_detect_anomaly(True):
    dist = pairwise_distances(points)
    try:
        dist.sum().backward()
    except RuntimeError as err:
        print(f"RuntimeError: {err}")
# --8<-- [end:anomaly]
