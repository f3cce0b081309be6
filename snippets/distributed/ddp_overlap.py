"""DDP launches each bucket's all-reduce while backward() is still running, and
bucket_cap_mb decides how the parameters are grouped into buckets."""
import functools

import torch
from ranks import run_on_ranks
from reducer_events import recorded
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


# --8<-- [start:timeline]
def timeline(rank, steps=2, **ddp_options):
    """The events of each training step's backward() on this rank."""
    torch.manual_seed(0)  # the same initial weights on every rank
    model = DDP(nn.Sequential(*[nn.Linear(256, 256) for _ in range(5)]), **ddp_options)
    events = recorded(model)
    torch.manual_seed(rank)  # each rank its own batches
    found = []
    for _ in range(steps):
        model(torch.randn(8, 256)).square().mean().backward()
        events.append("backward() returned")
        found.append(events.copy())
        events.clear()
    return found


ranks = run_on_ranks(functools.partial(timeline, bucket_cap_mb=0.5))
for step, events in enumerate(ranks[0], 1):
    print(f"step {step}, rank 0:", *events, sep="\n")
print("rank 1, the same events:", ranks[1] == ranks[0])
# --8<-- [end:timeline]


# --8<-- [start:buckets]
def buckets(rank):
    """For each bucket_cap_mb, the buckets that DDP launches in the second step."""
    return {cap: [event.split(": ")[1] for event in timeline(rank, bucket_cap_mb=cap)[1]
                  if event.startswith("bucket")]
            for cap in (None, 0.5, 0.25)}


for cap, found in run_on_ranks(buckets)[0].items():
    print(f"bucket_cap_mb={cap}: {len(found)} buckets")
    for index, names in enumerate(found):
        print(f"  bucket {index}: {names}")
# --8<-- [end:buckets]
