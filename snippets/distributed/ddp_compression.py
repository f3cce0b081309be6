"""A communication hook that compresses each bucket to float16 before the all-reduce:
the bytes it sends, and what the compression does to the averaged gradient."""
import torch
import torch.distributed as dist
from ranks import run_on_ranks
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import fp16_compress_hook
from torch.nn.parallel import DistributedDataParallel as DDP


# --8<-- [start:hook]
def fp16_all_reduce(sent, bucket):
    """Average the bucket in float16; note in `sent` the bytes sent."""
    compressed = bucket.buffer().to(torch.float16).div_(dist.get_world_size())
    sent.append(compressed.numel() * compressed.element_size())
    work = dist.all_reduce(compressed, async_op=True)

    def decompress(fut):
        return bucket.buffer().copy_(fut.value()[0])  # back to float32, in the bucket

    return work.get_future().then(decompress)


def averaged_gradient(rank, hook=None, state=None):
    """One backward pass under DDP: the gradients (flattened, in one tensor), and the
    bytes the hook noted."""
    torch.manual_seed(0)  # the same initial weights on every rank
    model = DDP(nn.Sequential(nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10)))
    if hook is not None:
        model.register_comm_hook(state, hook)
    torch.manual_seed(rank)  # each rank its own batch
    nn.functional.cross_entropy(model(torch.randn(64, 256)),
                                torch.randint(10, (64,))).backward()
    return torch.cat([p.grad.flatten() for p in model.parameters()])


def compare(rank):
    exact = averaged_gradient(rank)  # DDP's own all-reduce, in float32
    sent = []
    ours = averaged_gradient(rank, fp16_all_reduce, sent)
    ddps = averaged_gradient(rank, fp16_compress_hook)
    error = ((ours - exact).norm() / exact.norm()).item()
    return {"float32 bytes": exact.numel() * exact.element_size(),
            "bytes sent": sum(sent), "relative error": f"{error:.1e}",
            "same as fp16_compress_hook": torch.equal(ours, ddps)}


for rank, result in enumerate(run_on_ranks(compare)):
    print(f"rank {rank}: {result}")
# --8<-- [end:hook]
