"""FullyShardedDataParallel over a model whose frozen weights and trained
adapters are mixed in one wrapped module: the error, and the two fixes."""
import functools

import torch
from torch import nn
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp.wrap import lambda_auto_wrap_policy
from ranks import run_on_ranks


class LoRALinear(nn.Module):
    """A frozen pretrained linear layer plus a trained low-rank update."""

    def __init__(self, features, rank=2):
        super().__init__()
        self.base = nn.Linear(features, features).requires_grad_(False)
        self.adapter = nn.Sequential(nn.Linear(features, rank, bias=False),
                                     nn.Linear(rank, features, bias=False))
        nn.init.zeros_(self.adapter[1].weight)  # starts as the pretrained layer

    def forward(self, x):
        return self.base(x) + self.adapter(x)


def model():
    torch.manual_seed(0)  # the same initial weights on every rank
    return nn.Sequential(LoRALinear(8), nn.ReLU(), LoRALinear(8))


def train(rank, **fsdp_options):
    """Three SGD steps on this rank's own batch: the losses, and whether the
    frozen weights stayed as they were."""
    net = model()
    frozen = [p.detach().clone() for p in net.parameters() if not p.requires_grad]
    net = FSDP(net, device_id=torch.device("cpu"), **fsdp_options)  # on the CPU
    trainable = [p for p in net.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(trainable, lr=0.5)
    torch.manual_seed(rank)  # each rank its own batch
    x, y = torch.randn(16, 8), torch.randn(16, 8)
    losses = []
    for _ in range(3):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(net(x), y)
        loss.backward()
        optimizer.step()
        losses.append(round(loss.item(), 4))
    with FSDP.summon_full_params(net):
        after = [p for p in net.parameters() if not p.requires_grad]
        unchanged = all(torch.equal(a, b) for a, b in zip(frozen, after))
    return {"losses": losses, "frozen weights unchanged": unchanged}


# --8<-- [start:error]
for rank, result in enumerate(run_on_ranks(train)):
    print(f"rank {rank}: {result}")
# --8<-- [end:error]


# --8<-- [start:fix]
def is_adapter(module):
    return isinstance(module, nn.Sequential) and all(
        p.requires_grad for p in module.parameters())


adapters_apart = functools.partial(lambda_auto_wrap_policy, lambda_fn=is_adapter)


def train_with_each_fix(rank):
    return {
        "use_orig_params=True": train(rank, use_orig_params=True),
        "adapters wrapped apart": train(rank, auto_wrap_policy=adapters_apart),
    }


for rank, result in enumerate(run_on_ranks(train_with_each_fix)):
    for fix, trained in result.items():
        print(f"rank {rank}, {fix}: {trained}")
# --8<-- [end:fix]
