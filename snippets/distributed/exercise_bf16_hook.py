"""Exercise: a communication hook that averages each bucket in bfloat16: its bytes
and its error, against float16's; and DDP's own bf16_compress_hook on the CPU."""
import torch
import torch.distributed as dist
from ranks import run_on_ranks
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import bf16_compress_hook
from torch.nn.parallel import DistributedDataParallel as DDP


def compressed_all_reduce(state, bucket):
    dtype, sent = state
    compressed = bucket.buffer().to(dtype).div_(dist.get_world_size())
    sent.append(compressed.numel() * compressed.element_size())
    work = dist.all_reduce(compressed, async_op=True)
    return work.get_future().then(lambda fut: bucket.buffer().copy_(fut.value()[0]))


def gradient(rank, hook=None, state=None):
    """One backward pass under DDP, with `hook` if given: the flattened gradient."""
    torch.manual_seed(0)  # the same initial weights on every rank
    model = DDP(nn.Sequential(nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10)))
    if hook is not None:
        model.register_comm_hook(state, hook)
    torch.manual_seed(rank)  # each rank its own batch
    nn.functional.cross_entropy(model(torch.randn(64, 256)),
                                torch.randint(10, (64,))).backward()
    return torch.cat([p.grad.flatten() for p in model.parameters()])


def compare(rank):
    exact, found = gradient(rank), {}
    for dtype in (torch.float16, torch.bfloat16):
        sent = []
        compressed = gradient(rank, compressed_all_reduce, (dtype, sent))
        error = ((compressed - exact).norm() / exact.norm()).item()
        found[str(dtype)] = f"{sum(sent)} bytes sent, relative error {error:.1e}"
    try:
        gradient(rank, bf16_compress_hook)
    except TypeError as err:
        found["bf16_compress_hook"] = f"TypeError: {err}"
    return found


for key, value in run_on_ranks(compare)[0].items():
    print(f"{key}: {value}")
