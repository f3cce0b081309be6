"""DistributedDataParallel and the reentrant checkpoint: a parameter marked
ready twice in one backward pass, and the fixes."""
import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.checkpoint import checkpoint
from ranks import run_on_ranks


class CheckpointedNet(nn.Module):
    """A stem, two checkpointed blocks and a head. With shared=True the two
    blocks are one block applied twice; with aux_head=True the model also
    holds a head that this training phase does not use."""

    def __init__(self, use_reentrant, shared=False, aux_head=False):
        super().__init__()
        self.use_reentrant = use_reentrant
        self.stem = nn.Linear(4, 16)
        block = nn.Sequential(nn.Linear(16, 16), nn.Tanh())
        other = block if shared else nn.Sequential(nn.Linear(16, 16), nn.Tanh())
        self.blocks = nn.ModuleList([block, other])
        self.head = nn.Linear(16, 1)
        self.aux_head = nn.Linear(16, 1) if aux_head else None

    def forward(self, x):
        h = self.stem(x)
        for block in self.blocks:
            h = checkpoint(block, h, use_reentrant=self.use_reentrant)
        return self.head(h)


def train(rank, model_options, ddp_options):
    """Three SGD steps on this rank's own batch: the losses, and a weight sum
    that is the same on every rank when DDP averaged the gradients."""
    torch.manual_seed(0)  # the same initial weights on every rank
    model = DDP(CheckpointedNet(**model_options), **ddp_options)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    torch.manual_seed(rank)  # each rank its own batch
    x = torch.randn(32, 4)
    targets = x.sum(dim=1, keepdim=True)
    losses = []
    for _ in range(3):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), targets)
        loss.backward()
        optimizer.step()
        losses.append(round(loss.item(), 4))
    weight_sum = model.module.blocks[0][0].weight.sum().item()
    return {"losses": losses, "blocks[0] weight sum": round(weight_sum, 6)}


# --8<-- [start:error]
def train_reentrant_find_unused(rank):
    return train(rank, dict(use_reentrant=True, aux_head=True),
                 dict(find_unused_parameters=True))


for rank, result in enumerate(run_on_ranks(train_reentrant_find_unused)):
    print(f"rank {rank}: {result}")
# --8<-- [end:error]


# --8<-- [start:shared]
def train_reentrant_shared(rank):
    return train(rank, dict(use_reentrant=True, shared=True), {})


for rank, result in enumerate(run_on_ranks(train_reentrant_shared)):
    print(f"rank {rank}: {result}")
# --8<-- [end:shared]


# --8<-- [start:fix]
FIXES = {
    "aux head, use_reentrant=False": (dict(use_reentrant=False, aux_head=True),
                                      dict(find_unused_parameters=True)),
    "shared, use_reentrant=False": (dict(use_reentrant=False, shared=True), {}),
    "aux head, static_graph=True": (dict(use_reentrant=True, aux_head=True),
                                    dict(static_graph=True)),
    "shared, static_graph=True": (dict(use_reentrant=True, shared=True),
                                  dict(static_graph=True)),
}


def train_with_each_fix(rank):
    return {fix: train(rank, *options) for fix, options in FIXES.items()}


for rank, result in enumerate(run_on_ranks(train_with_each_fix)):
    for fix, trained in result.items():
        print(f"rank {rank}, {fix}: {trained}")
# --8<-- [end:fix]
