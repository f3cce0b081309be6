"""FSDP2 (fully_shard) on the CPU: each rank holds a shard of every parameter, gathers
the whole parameter for forward and backward, and keeps its shard of the gradient."""
import torch
from ranks import run_on_ranks
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard


# --8<-- [start:shard]
def sharded_step(rank):
    """One training step of a model sharded over the ranks: what each rank holds."""
    mesh = init_device_mesh("cpu", (2,))  # a 1-D mesh of the two ranks
    torch.manual_seed(0)  # the same initial weights on every rank
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    whole = {name: p.detach().clone() for name, p in model.named_parameters()}
    for layer in (model[0], model[2]):
        fully_shard(layer, mesh=mesh)  # each layer gathered on its own
    fully_shard(model, mesh=mesh)
    weight = model[0].weight
    local = weight.to_local()
    held = {"parameter": f"{type(weight).__name__} {tuple(weight.shape)} "
                         f"{weight.placements}, local shard {tuple(local.shape)}",
            "local shard is rows": [row for row in range(16) if any(
                torch.equal(whole["0.weight"][row], local_row) for local_row in local)]}
    gathered = []
    model[0].register_forward_pre_hook(  # what the layer computes with, in forward
        lambda layer, args: gathered.append(
            f"{type(layer.weight).__name__} {tuple(layer.weight.shape)}"))
    torch.manual_seed(rank)  # each rank its own batch
    model(torch.randn(4, 8)).square().mean().backward()
    grad = model[0].weight.grad
    held["forward used"] = gathered[0]
    held["gradient"] = (f"{type(grad).__name__} {tuple(grad.shape)} {grad.placements}, "
                        f"local shard {tuple(grad.to_local().shape)}")
    whole_grad = grad.full_tensor()  # all-gathered
    held["whole gradient, summed"] = round(whole_grad.sum().item(), 6)
    return held


for rank, held in enumerate(run_on_ranks(sharded_step)):
    print(f"rank {rank}")
    for key, value in held.items():
        print(f"  {key}: {value}")
# --8<-- [end:shard]
