"""DistributedDataParallel and a model converted to channels_last after it was
wrapped: the warning about gradient strides, what it hides, and the fix."""
import warnings

import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from ranks import run_on_ranks


def convnet():
    torch.manual_seed(0)  # the same initial weights on every rank
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(8, 4, 1))  # a 1x1 convolution


def batch(rank):
    torch.manual_seed(rank)  # each rank its own batch
    return torch.randn(4, 3, 8, 8).to(memory_format=torch.channels_last)


def gradients(rank, convert_before_ddp):
    """One backward pass in channels_last: the warnings, and the averaged
    gradients (as lists: a tensor sent from a rank dies with the rank)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)  # DDP's warning, from C++
        if convert_before_ddp:
            model = DDP(convnet().to(memory_format=torch.channels_last))
        else:
            model = DDP(convnet())
            model.to(memory_format=torch.channels_last)  # after wrapping
        model(batch(rank)).square().mean().backward()
    return {"warnings": [f"{w.category.__name__}: {w.message}" for w in caught],
            "grads": {name: p.grad.tolist()
                      for name, p in model.module.named_parameters()}}


# --8<-- [start:error]
def converted_after(rank):
    return gradients(rank, convert_before_ddp=False)


after = run_on_ranks(converted_after)
for rank, result in enumerate(after):
    print(f"rank {rank}:", *result["warnings"], sep="\n")
# --8<-- [end:error]


# --8<-- [start:wrong]
def one_process_gradients():
    """What DDP should average to: one process, the mean loss of both batches."""
    model = convnet()
    sum(model(batch(rank)).square().mean() for rank in range(2)).div(2).backward()
    return {name: p.grad for name, p in model.named_parameters()}


expected = one_process_gradients()
print("largest difference from the one-process gradient, rank 0")
for name, grad in expected.items():
    print(f"{name:9} {(torch.tensor(after[0]['grads'][name]) - grad).abs().max():.1e}")
# --8<-- [end:wrong]


# --8<-- [start:fix]
def converted_before(rank):
    return gradients(rank, convert_before_ddp=True)


for rank, result in enumerate(run_on_ranks(converted_before)):
    difference = max((torch.tensor(result["grads"][name]) - grad).abs().max()
                     for name, grad in expected.items())
    print(f"rank {rank}: {len(result['warnings'])} warnings, "
          f"largest difference from the one-process gradient {difference:.1e}")
# --8<-- [end:fix]
