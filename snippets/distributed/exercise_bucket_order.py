"""Exercise: a model whose forward pass uses its layers in another order than they
were registered. Which parameters share a bucket in the first step, and in the
second?"""
import torch
from ranks import run_on_ranks
from reducer_events import recorded
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


class Shuffled(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b, self.c = (nn.Linear(256, 256) for _ in range(3))

    def forward(self, x):
        return self.a(torch.relu(self.c(torch.relu(self.b(x)))))  # b, then c, then a


def buckets_per_step(rank):
    torch.manual_seed(0)  # the same initial weights on every rank
    model = DDP(Shuffled(), bucket_cap_mb=0.25)
    events = recorded(model)
    torch.manual_seed(rank)  # each rank its own batches
    steps = []
    for _ in range(2):
        model(torch.randn(8, 256)).square().mean().backward()
        steps.append([event for event in events if event.startswith("bucket")])
        events.clear()
    return steps


for step, launched in enumerate(run_on_ranks(buckets_per_step)[0], 1):
    print(f"step {step}:", *launched, sep="\n  ")
