"""Gradient accumulation under DistributedDataParallel: without no_sync() every
micro-batch's backward all-reduces; with it, only the last one does."""
import contextlib

import torch
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook
from torch.nn.parallel import DistributedDataParallel as DDP
from ranks import run_on_ranks

accumulate = 4  # four micro-batches of 8 make one step


# --8<-- [start:accumulate]
def counting_allreduce(calls, bucket):
    """DDP's own all-reduce, counted: DDP calls it once per bucket it reduces."""
    calls.append(bucket.index())
    return allreduce_hook(None, bucket)  # None: the default process group


def accumulated_gradient(rank, use_no_sync):
    """One step's accumulated gradient, and the all-reduces it took."""
    torch.manual_seed(0)  # the same initial weights on every rank
    model = DDP(nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1)))
    calls = []
    model.register_comm_hook(calls, counting_allreduce)
    torch.manual_seed(rank)  # each rank its own batch
    x, y = torch.randn(32, 16), torch.randn(32, 1)
    for i, (micro_x, micro_y) in enumerate(zip(x.split(8), y.split(8)), 1):
        last = i == accumulate
        with model.no_sync() if use_no_sync and not last else contextlib.nullcontext():
            loss = nn.functional.mse_loss(model(micro_x), micro_y) / accumulate
            loss.backward()
    return {"all-reduces": len(calls),
            "gradient": [p.grad.flatten().tolist() for p in model.parameters()]}
# --8<-- [end:accumulate]


# --8<-- [start:error]
def without_no_sync(rank):
    return accumulated_gradient(rank, use_no_sync=False)


every = run_on_ranks(without_no_sync)
for rank, result in enumerate(every):
    print(f"rank {rank}: {accumulate} micro-batches, "
          f"{result['all-reduces']} all-reduces")
# --8<-- [end:error]


# --8<-- [start:fix]
def with_no_sync(rank):
    return accumulated_gradient(rank, use_no_sync=True)


for rank, (synced, result) in enumerate(zip(every, run_on_ranks(with_no_sync))):
    difference = max((torch.tensor(a) - torch.tensor(b)).abs().max().item()
                     for a, b in zip(synced["gradient"], result["gradient"]))
    print(f"rank {rank}: {accumulate} micro-batches, "
          f"{result['all-reduces']} all-reduce, "
          f"largest difference from the gradient above {difference:.1e}")
# --8<-- [end:fix]
