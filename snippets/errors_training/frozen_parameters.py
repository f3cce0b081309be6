"""Freezing a backbone once its optimizer has started: when do frozen weights move?"""
import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(64, 8)
y = torch.randn(64, 1)


# --8<-- [start:fine_tune]
def fine_tune(make_optimizer, set_to_none, only_trainable=False):
    """Train all layers for 3 steps, freeze the backbone, train 3 more steps.
    Returns how far the frozen backbone and the trained head moved in those 3 steps."""
    torch.manual_seed(0)
    backbone, head = nn.Linear(8, 16), nn.Linear(16, 1)
    model = nn.Sequential(backbone, nn.ReLU(), head)
    optimizer = make_optimizer(model.parameters())
    for step in range(6):
        if step == 3:  # freeze the backbone
            backbone.requires_grad_(False)
            if only_trainable:
                trainable = [p for p in model.parameters() if p.requires_grad]
                optimizer = make_optimizer(trainable)
            frozen, trained = backbone.weight.clone(), head.weight.clone()
        optimizer.zero_grad(set_to_none=set_to_none)
        nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    return ((backbone.weight - frozen).abs().max().item(),
            (head.weight - trained).abs().max().item())


def sgd_momentum(params):
    return torch.optim.SGD(params, lr=0.1, momentum=0.9)


def adamw(params):
    return torch.optim.AdamW(params, lr=0.01, weight_decay=0.01)


def report(name, moved):
    frozen_moved, head_moved = moved
    print(f"{name:>6}: frozen backbone moved by {frozen_moved:.4f}, "
          f"head by {head_moved:.4f}")
# --8<-- [end:fine_tune]


# --8<-- [start:error]
# zero_grad(set_to_none=False): the frozen weights keep a .grad of zeros
report("SGD", fine_tune(sgd_momentum, set_to_none=False))
report("AdamW", fine_tune(adamw, set_to_none=False))
# --8<-- [end:error]

# --8<-- [start:fix_default]
# zero_grad() sets .grad to None: the optimizer skips the frozen weights
report("SGD", fine_tune(sgd_momentum, set_to_none=True))
report("AdamW", fine_tune(adamw, set_to_none=True))
# --8<-- [end:fix_default]

# --8<-- [start:fix_trainable]
# A new optimizer that holds only the parameters still trained
report("SGD", fine_tune(sgd_momentum, set_to_none=False, only_trainable=True))
report("AdamW", fine_tune(adamw, set_to_none=False, only_trainable=True))
# --8<-- [end:fix_trainable]
