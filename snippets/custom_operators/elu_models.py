"""A small model with each of the four ELUs in it."""
import torch.nn.functional as F
from elu_function import ELUFunction, elu_forward
from elu_op import elu
from torch import Tensor, nn

# --8<-- [start:variants]
ELUS = {
    "custom op": elu,                    # autograd_inside_out::elu
    "ELUFunction": ELUFunction.apply,    # the autograd.Function
    "composite": elu_forward,            # plain torch operations
    "F.elu": F.elu,                      # PyTorch's own
}


class Activation(nn.Module):
    def __init__(self, elu, alpha: float = 1.0):
        super().__init__()
        self.elu, self.alpha = elu, alpha

    def forward(self, z: Tensor) -> Tensor:
        return self.elu(z, self.alpha)


def mlp(elu, features=64, hidden=256, classes=10):
    return nn.Sequential(nn.Linear(features, hidden), Activation(elu),
                         nn.Linear(hidden, classes))
# --8<-- [end:variants]
