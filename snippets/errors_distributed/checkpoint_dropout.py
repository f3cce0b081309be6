"""Dropout inside a checkpoint: the recomputation must draw the same mask."""
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
block = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 16))
x = torch.randn(32, 16)


def weight_gradient(forward):
    """The first layer's weight gradient of a loss computed with `forward`."""
    block.zero_grad()
    torch.manual_seed(1)  # the same dropout mask in every forward pass
    forward(x).pow(2).mean().backward()
    return block[0].weight.grad.clone()


plain = weight_gradient(block)  # no checkpoint: the reference

# --8<-- [start:error]
wrong = weight_gradient(lambda x: checkpoint(
    block, x, use_reentrant=False, preserve_rng_state=False))
print(f"largest difference from the plain gradient: {(wrong - plain).abs().max():.4g}")
# --8<-- [end:error]

# --8<-- [start:fix]
right = weight_gradient(lambda x: checkpoint(block, x, use_reentrant=False))
print("largest difference from the plain gradient:", (right - plain).abs().max().item())
# --8<-- [end:fix]

# --8<-- [start:eval]
block.eval()  # dropout off: nothing random left in the block
plain_eval = weight_gradient(block)
no_rng = weight_gradient(lambda x: checkpoint(
    block, x, use_reentrant=False, preserve_rng_state=False))
print("in eval mode:", (no_rng - plain_eval).abs().max().item())
# --8<-- [end:eval]
