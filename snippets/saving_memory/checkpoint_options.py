"""Checkpointing with dropout (preserve_rng_state), and selective checkpointing."""
from collections import Counter

import torch
import torch.nn.functional as F
from deep_mlp import gradients, make_batch, make_deep_mlp
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.checkpoint import (CheckpointPolicy, checkpoint,
                                    create_selective_checkpoint_contexts)

x, labels = make_batch(batch=128)

# --8<-- [start:dropout]
torch.manual_seed(0)
block = nn.Sequential(nn.Linear(512, 1024), nn.Dropout(0.5), nn.ELU())


def weight_gradient(run):
    torch.manual_seed(1)  # the same dropout mask for every variant's forward
    block.zero_grad()
    run(x).sum().backward()
    return block[0].weight.grad


plain = weight_gradient(block)
for preserve in (True, False):
    grad = weight_gradient(lambda x: checkpoint(
        block, x, use_reentrant=False, preserve_rng_state=preserve))
    same = torch.equal(grad, plain)
    print(f"preserve_rng_state={preserve!s:5}  same gradient: {same}")
# --8<-- [end:dropout]


# --8<-- [start:policy]
def save_matmuls(ctx, op, *args, **kwargs):
    """Keep the matrix products' outputs; recompute everything else."""
    if op in (torch.ops.aten.mm.default, torch.ops.aten.addmm.default):
        return CheckpointPolicy.MUST_SAVE
    return CheckpointPolicy.PREFER_RECOMPUTE


class CountOps(TorchDispatchMode):
    """Counts the operations that run inside it."""

    def __init__(self):
        super().__init__()
        self.ops = Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops[func.overloadpacket.__name__] += 1
        return func(*args, **(kwargs or {}))
# --8<-- [end:policy]


# --8<-- [start:selective]
torch.manual_seed(0)
model = make_deep_mlp(depth=8)
blocks, head = model[:-1], model[-1]
variants = {
    "whole segment": {},
    "selective": {
        "context_fn": lambda: create_selective_checkpoint_contexts(save_matmuls)},
}
for name, options in variants.items():
    h = checkpoint(blocks, x, use_reentrant=False, **options)  # the 8 blocks as one
    loss = F.cross_entropy(head(h), labels)
    with CountOps() as counted:
        grads = gradients(model, loss)
    recomputed = {op: counted.ops[op] for op in ("addmm", "elu")}
    print(f"{name:14} recomputed in backward: {recomputed}")
# --8<-- [end:selective]
