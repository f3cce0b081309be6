"""find_unused_parameters=True on a model that uses every parameter: DDP's
warning, and the same training without the flag."""
import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from cpp_warnings import with_cpp_warnings
from ranks import run_on_ranks


def train(rank, **ddp_options):
    """Three SGD steps on this rank's own batch: the losses and a weight sum."""
    torch.manual_seed(0)  # the same initial weights on every rank
    model = DDP(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1)),
                **ddp_options)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    torch.manual_seed(rank)  # each rank its own batch
    x, y = torch.randn(16, 4), torch.randn(16, 1)
    losses = []
    for _ in range(3):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(round(loss.item(), 4))
    return {"losses": losses,
            "weight sum": round(model.module[0].weight.sum().item(), 6)}


# --8<-- [start:error]
def with_the_flag(rank):
    return with_cpp_warnings(train, rank, find_unused_parameters=True)


flagged = []
for rank, (result, printed) in enumerate(run_on_ranks(with_the_flag)):
    print(f"rank {rank}, with the flag: {result}")
    for line in printed:
        print(f"rank {rank}: {line}")
    flagged.append(result)
# --8<-- [end:error]

# --8<-- [start:fix]
for rank, (before, result) in enumerate(zip(flagged, run_on_ranks(train))):
    print(f"rank {rank}, without the flag: {result}")
    print(f"rank {rank}, the same as with the flag: {result == before}")
# --8<-- [end:fix]
