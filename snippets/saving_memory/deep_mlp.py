"""The sources' MLP made deeper, a seeded batch,
and a training step that can checkpoint."""
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.checkpoint import checkpoint


# --8<-- [start:model]
def make_deep_mlp(depth: int = 8, inputs: int = 512, width: int = 1024,
                  classes: int = 10, alpha: float = 1.0) -> nn.Sequential:
    """depth blocks of Linear + ELU (inputs -> width, then width -> width),
    and a Linear head to the class logits."""
    blocks = [nn.Sequential(nn.Linear(inputs if i == 0 else width, width),
                            nn.ELU(alpha)) for i in range(depth)]
    return nn.Sequential(*blocks, nn.Linear(width, classes))


def make_batch(batch: int = 128, inputs: int = 512, classes: int = 10):
    """Seeded random inputs and labels."""
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(batch, inputs, generator=generator)
    labels = torch.randint(classes, (batch,), generator=generator)
    return x, labels
# --8<-- [end:model]


# --8<-- [start:step]
def loss_of(model: nn.Sequential, x: Tensor, labels: Tensor,
            checkpointed=()) -> Tensor:
    """Forward pass and loss; the blocks whose index is in `checkpointed`
    run under checkpoint: their insides are recomputed in backward."""
    for i, layer in enumerate(model):
        if i in checkpointed:
            x = checkpoint(layer, x, use_reentrant=False)
        else:
            x = layer(x)
    return F.cross_entropy(x, labels)


def gradients(model: nn.Sequential, loss: Tensor) -> list[Tensor]:
    """Backward pass; the gradient of every parameter, in order."""
    return list(torch.autograd.grad(loss, list(model.parameters())))
# --8<-- [end:step]
