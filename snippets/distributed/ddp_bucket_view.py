"""gradient_as_bucket_view=True: each parameter's .grad is a view into DDP's bucket,
with the strides of the parameter, laid out when DDP wraps the model."""
import warnings

import torch
import torch.distributed as dist
from ranks import run_on_ranks
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


def convnet():
    torch.manual_seed(0)  # the same initial weights on every rank
    return nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Conv2d(8, 4, 3))


def batch(rank):
    torch.manual_seed(rank)  # each rank its own batch
    return torch.randn(4, 3, 8, 8).to(memory_format=torch.channels_last)


# --8<-- [start:view]
def where_grads_live(rank, as_view, convert_before_ddp=True, steps=2):
    """`steps` backward passes; then whether each .grad lies in the bucket's memory, its
    strides against its parameter's, the warnings, and the model."""
    net = convnet()
    if convert_before_ddp:
        net.to(memory_format=torch.channels_last)
    model = DDP(net, gradient_as_bucket_view=as_view)
    if not convert_before_ddp:
        net.to(memory_format=torch.channels_last)  # after wrapping
    buffers = []

    def keep_buffer(state, bucket):  # DDP's own all-reduce, noting the bucket
        buffers.append(bucket.buffer())
        average = bucket.buffer().div_(dist.get_world_size())
        work = dist.all_reduce(average, async_op=True)
        return work.get_future().then(lambda fut: fut.value()[0])

    model.register_comm_hook(None, keep_buffer)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)  # DDP's warning, from C++
        for _ in range(steps):
            model(batch(rank)).square().mean().backward()
    bucket = buffers[-1].untyped_storage().data_ptr()
    return {"grads in the bucket": [p.grad.untyped_storage().data_ptr() == bucket
                                    for p in net.parameters()],
            "strides": {name: (p.stride(), p.grad.stride())
                        for name, p in net.named_parameters() if p.dim() == 4},
            "warnings": [f"{w.category.__name__}: {w.message}" for w in caught]}, net


def both(rank):
    return [where_grads_live(rank, as_view)[0] for as_view in (False, True)]


def show(result):
    for key, value in result.items():
        if key == "warnings":  # each as Python prints it, whole
            print(f"  warnings: {len(value)}", *value, sep="\n" if value else "")
        else:
            shown = f"{value:.1e}" if isinstance(value, float) else value
            print(f"  {key}: {shown}")


labels = ["gradient_as_bucket_view=False", "gradient_as_bucket_view=True"]
for label, result in zip(labels, run_on_ranks(both)[0]):
    print(label)
    show(result)
# --8<-- [end:view]


# --8<-- [start:after]
def converted_after(rank):
    net = convnet()  # what DDP should average to: one process, both batches
    sum(net(batch(r)).square().mean() for r in range(2)).div(2).backward()
    found = []
    for steps in (1, 2):
        result, trained = where_grads_live(rank, True, convert_before_ddp=False,
                                           steps=steps)
        result["largest difference from the one-process gradient"] = max(
            (p.grad - steps * q.grad).abs().max().item()  # .grad adds up the steps
            for p, q in zip(trained.parameters(), net.parameters()))
        found.append(result)
    return found


for steps, result in enumerate(run_on_ranks(converted_after)[0], 1):
    print(f"after {steps} step{'s' if steps > 1 else ''}")
    show(result)
# --8<-- [end:after]
