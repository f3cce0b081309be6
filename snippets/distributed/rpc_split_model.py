"""A model split across two processes with torch.distributed.rpc: distributed autograd
runs its backward pass across both, and DistributedOptimizer steps both halves."""
import os
import warnings

import torch
import torch.distributed.autograd as dist_autograd
import torch.distributed.rpc as rpc
from ranks import run_on_ranks
from torch import nn
from torch.distributed.optim import DistributedOptimizer


def tensorpipe(address, rank, world_size):
    """Join as the RPC worker `worker{rank}`, over TensorPipe; returns how to leave."""
    os.environ.setdefault("TP_SOCKET_IFNAME", "lo")  # loopback ("lo0" on macOS)
    # PyTorch 2.13's RPC start-up warns about its own use of a gloo group.
    warnings.filterwarnings("ignore", "You are using a Backend", UserWarning)
    options = rpc.TensorPipeRpcBackendOptions(init_method=address, rpc_timeout=60)
    rpc.init_rpc(f"worker{rank}", rank=rank, world_size=world_size,
                 rpc_backend_options=options)
    return rpc.shutdown  # waits for the other workers' calls to end


# --8<-- [start:split]
class SecondHalf(nn.Module):
    """The half of the model that lives on worker1."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(1)
        self.layer = nn.Linear(16, 1)

    def forward(self, h):
        return self.layer(h)


def parameter_rrefs(module_rref):
    """Run on the module's owner: a remote reference to each of its parameters."""
    return [rpc.RRef(p) for p in module_rref.local_value().parameters()]


def gradients_there(module_rref, context_id):
    """Run on the module's owner: the gradients that the context holds for it there."""
    grads = dist_autograd.get_gradients(context_id)
    module = module_rref.local_value()
    return {name: tuple(grads[p].shape) for name, p in module.named_parameters()}, \
        [p.grad for p in module.parameters()]


def train(rank):
    """Worker0 drives: the first half here, the second on worker1, by RPC."""
    if rank != 0:
        return None  # worker1 serves the calls until rpc.shutdown()
    torch.manual_seed(0)
    first = nn.Linear(4, 16)
    second = rpc.remote("worker1", SecondHalf)  # built on worker1; an RRef here
    params = [rpc.RRef(p) for p in first.parameters()]
    params += rpc.rpc_sync("worker1", parameter_rrefs, args=(second,))
    optimizer = DistributedOptimizer(torch.optim.SGD, params, lr=0.1)
    x, y = torch.randn(8, 4), torch.randn(8, 1)
    found = {}
    for step in range(3):
        with dist_autograd.context() as context_id:
            h = torch.relu(first(x))
            loss = nn.functional.mse_loss(second.rpc_sync().forward(h), y)
            dist_autograd.backward(context_id, [loss])
            if step == 0:
                grads = dist_autograd.get_gradients(context_id)
                found["worker0 gradients"] = {name: tuple(grads[p].shape)
                                              for name, p in first.named_parameters()}
                found["worker1 gradients"], found["worker1 .grad"] = rpc.rpc_sync(
                    "worker1", gradients_there, args=(second, context_id))
                found["worker0 .grad"] = [p.grad for p in first.parameters()]
            optimizer.step(context_id)
        found[f"loss {step}"] = round(loss.item(), 4)
    return found


for key, value in run_on_ranks(train, join=tensorpipe)[0].items():
    print(f"{key}: {value}")
# --8<-- [end:split]
