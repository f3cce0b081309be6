"""Exercise: a selective policy that saves the ELUs' outputs instead of the matmuls'."""
from collections import Counter

import torch
import torch.nn.functional as F
from deep_mlp import gradients, loss_of, make_batch, make_deep_mlp
from saved_bytes import SavedBytes
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.checkpoint import (CheckpointPolicy, checkpoint,
                                    create_selective_checkpoint_contexts)


def save_elus(ctx, op, *args, **kwargs):
    if op == torch.ops.aten.elu.default:
        return CheckpointPolicy.MUST_SAVE
    return CheckpointPolicy.PREFER_RECOMPUTE


def save_matmuls(ctx, op, *args, **kwargs):  # the policy of the chapter
    if op in (torch.ops.aten.mm.default, torch.ops.aten.addmm.default):
        return CheckpointPolicy.MUST_SAVE
    return CheckpointPolicy.PREFER_RECOMPUTE


class CountOps(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops[func.overloadpacket.__name__] += 1
        return func(*args, **(kwargs or {}))


def step(policy):
    """The 8 blocks as one segment under `policy`: what is stored, what backward
    recomputes. What the policy keeps is stored by checkpoint, not through the
    saved-tensor hooks: it is given to the counter by hand, once per storage."""
    kept = []

    def keeping(ctx, op, *args, **kwargs):
        decision = policy(ctx, op, *args, **kwargs)
        if decision == CheckpointPolicy.MUST_SAVE:
            kept.append(ctx.op_output)
        return decision

    with SavedBytes(exclude=exclude) as saved:
        h = checkpoint(model[:-1], x, use_reentrant=False,
                       context_fn=lambda: create_selective_checkpoint_contexts(keeping))
        loss = F.cross_entropy(model[-1](h), labels)  # the head stores h
        for t in kept:
            saved.pack_hook(t)
    with CountOps() as counted:
        gradients(model, loss)
    return saved, {op: counted.ops[op] for op in ("addmm", "elu")}


torch.manual_seed(0)
model = make_deep_mlp(depth=8)
x, labels = make_batch(batch=128)
exclude = [*model.parameters(), x, labels]
with SavedBytes(exclude=exclude) as plain:
    loss_of(model, x, labels)

print(f"{'policy keeps':16} storages      bytes  x plain  recomputed in backward")
for name, policy in (("matrix products", save_matmuls), ("ELU outputs", save_elus)):
    saved, recomputed = step(policy)
    nbytes, storages = saved.nbytes(), len(saved.stored)
    ratio = nbytes / plain.nbytes()
    print(f"{name:16} {storages:8} {nbytes:10,} {ratio:8.2f}  {recomputed}")
