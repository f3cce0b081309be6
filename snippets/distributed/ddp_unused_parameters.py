"""A model with a parameter that the loss does not use, under DDP: what
find_unused_parameters=True and static_graph=True each do about it."""
import functools

import torch
from ranks import run_on_ranks
from reducer_events import recorded
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


class WithUnusedHead(nn.Module):
    """A body and a head that the loss uses, and a second head that it does not."""

    def __init__(self):
        super().__init__()
        self.body = nn.Linear(256, 256)
        self.head = nn.Linear(256, 256)
        self.unused = nn.Linear(256, 256)

    def forward(self, x):
        return self.head(torch.relu(self.body(x)))


def timeline(rank, **ddp_options):
    """The events of three training steps' backward() on this rank."""
    torch.manual_seed(0)  # the same initial weights on every rank
    model = DDP(WithUnusedHead(), bucket_cap_mb=0.25, **ddp_options)
    events = recorded(model)
    torch.manual_seed(rank)  # each rank its own batches
    found = []
    for _ in range(3):
        model(torch.randn(8, 256)).square().mean().backward()
        events.append("backward() returned")
        found.append(events.copy())
        events.clear()
    return found


def show(steps):
    for step, events in enumerate(steps, 1):
        print(f"step {step}, rank 0:", *events, sep="\n")


# --8<-- [start:find_unused]
show(run_on_ranks(functools.partial(timeline, find_unused_parameters=True))[0])
# --8<-- [end:find_unused]


# --8<-- [start:static_graph]
show(run_on_ranks(functools.partial(timeline, static_graph=True))[0])
# --8<-- [end:static_graph]


# --8<-- [start:graph]
def graph_size(output):
    """The nodes of the autograd graph that reach `output`: what DDP searches."""
    seen, stack = set(), [output.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen.add(node)
            stack.extend(next_node for next_node, _ in node.next_functions)
    return len(seen)


torch.manual_seed(0)
print("nodes searched after each forward pass:",
      graph_size(WithUnusedHead()(torch.randn(8, 256)).square().mean()))
# --8<-- [end:graph]
