"""The chapter's MLP, and seeded synthetic data it can learn from."""
import torch
from torch import nn


# --8<-- [start:mlp]
def make_mlp(activation: type[nn.Module], sizes=(512, 1024, 1024, 10)) -> nn.Sequential:
    """Linear layers of the given sizes, an activation() between them.

    The network returns logits: F.cross_entropy applies the softmax itself.
    """
    inputs, hidden1, hidden2, classes = sizes
    return nn.Sequential(
        nn.Linear(inputs, hidden1), activation(),
        nn.Linear(hidden1, hidden2), activation(),
        nn.Linear(hidden2, classes),
    )
# --8<-- [end:mlp]


# --8<-- [start:data]
def synthetic_batch(batch, inputs, classes, device, seed=0):
    """Random inputs labelled by a fixed random linear 'teacher'.

    Drawn on the CPU from their own generator, then moved, so that every
    device trains on the same numbers.
    """
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(batch, inputs, generator=generator)
    teacher = torch.randn(inputs, classes, generator=generator)
    labels = (x @ teacher).argmax(dim=1)
    return x.to(device), labels.to(device)
# --8<-- [end:data]
