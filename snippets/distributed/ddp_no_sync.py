"""Gradient accumulation under DDP: no_sync() keeps the reducer from launching
all-reduces in every micro-batch's backward(), and the gradient is the same."""
import contextlib

import torch
from ranks import run_on_ranks
from reducer_events import recorded
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


# --8<-- [start:accumulate]
def accumulate(rank, use_no_sync, micro_batches=4):
    """One step over four micro-batches: its reducer events and its gradient."""
    torch.manual_seed(0)  # the same initial weights on every rank
    model = DDP(nn.Sequential(nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 1)))
    events = recorded(model)
    torch.manual_seed(rank)  # each rank its own batch
    x, y = torch.randn(32, 256), torch.randn(32, 1)
    for i, (micro_x, micro_y) in enumerate(zip(x.chunk(micro_batches),
                                               y.chunk(micro_batches)), 1):
        skip_sync = use_no_sync and i < micro_batches
        with model.no_sync() if skip_sync else contextlib.nullcontext():
            loss = nn.functional.mse_loss(model(micro_x), micro_y) / micro_batches
            loss.backward()
        events.append(f"backward() {i} returned")
    return events, [p.grad for p in model.parameters()]


def both(rank):
    """Both ways, and the largest difference between their gradients (a tensor sent
    from a rank dies with the rank: the rank compares them)."""
    (every, every_grad), (once, once_grad) = (accumulate(rank, use_no_sync=False),
                                              accumulate(rank, use_no_sync=True))
    difference = max((a - b).abs().max().item() for a, b in zip(every_grad, once_grad))
    return every, once, difference


every, synced_once, difference = run_on_ranks(both)[0]
for label, events in [("without no_sync()", every), ("with no_sync()", synced_once)]:
    launched = [event for event in events if event.startswith("bucket")]
    print(f"{label}, all-reduces launched: {len(launched)}")
    print(*(event for event in events if not event.startswith("  ")), sep="\n")
print(f"largest difference between the two gradients: {difference:.1e}")
# --8<-- [end:accumulate]
