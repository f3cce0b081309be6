"""Record what DDP's reducer does during backward(): each parameter's gradient as
autograd accumulates it, and each bucket's all-reduce as DDP launches it."""
import torch.distributed as dist


def recorded(model):
    """The list into which `model`, a DistributedDataParallel, now notes its events."""
    names = {id(p): name for name, p in model.module.named_parameters()}
    events = []

    def launch_all_reduce(state, bucket):
        """A comm hook: DDP calls it once all the gradients of a bucket are ready."""
        events.append(f"bucket {bucket.index()} all-reduce launched: "
                      + " ".join(names[id(p)] for p in bucket.parameters()))
        work = dist.all_reduce(bucket.buffer(), async_op=True)  # returns at once
        world_size = dist.get_world_size()
        return work.get_future().then(lambda fut: fut.value()[0] / world_size)

    model.register_comm_hook(None, launch_all_reduce)
    for name, p in model.module.named_parameters():
        p.register_post_accumulate_grad_hook(
            lambda p, name=name: events.append(f"  gradient of {name} accumulated"))
    return events
