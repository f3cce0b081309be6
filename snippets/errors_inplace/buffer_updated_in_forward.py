"""A module that updates a running statistic in place in forward(): the second
call changes the buffer that the first call's graph saved."""
import torch
from torch import nn

torch.manual_seed(0)


# --8<-- [start:module]
class RunningScale(nn.Module):
    """Divides its input by a running estimate of each feature's spread."""

    def __init__(self, features, momentum=0.1):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("running_std", torch.ones(features))

    def forward(self, x):
        if self.training:
            std = x.detach().std(dim=0)
            self.running_std.mul_(1 - self.momentum).add_(self.momentum * std)
        return x / self.running_std  # division saves running_std for backward
# --8<-- [end:module]


# --8<-- [start:error]
encoder = nn.Sequential(nn.Linear(4, 3), RunningScale(3), nn.Linear(3, 1))
view_1, view_2 = torch.randn(8, 4), torch.randn(8, 4)  # two augmented views
loss = (encoder(view_1) - encoder(view_2)).pow(2).mean()
try:
    loss.backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]


# --8<-- [start:fix]
class RunningScale(nn.Module):
    """Divides its input by a running estimate of each feature's spread."""

    def __init__(self, features, momentum=0.1):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("running_std", torch.ones(features))

    def forward(self, x):
        if self.training:
            std = x.detach().std(dim=0)
            # a new tensor replaces the buffer; the one the graph saved is unchanged
            old = self.running_std
            self.running_std = (1 - self.momentum) * old + self.momentum * std
        return x / self.running_std


torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(4, 3), RunningScale(3), nn.Linear(3, 1))
loss = (encoder(view_1) - encoder(view_2)).pow(2).mean()
loss.backward()
print("grad norm of the first layer:", round(encoder[0].weight.grad.norm().item(), 4))
print("running_std:", encoder[1].running_std)
# --8<-- [end:fix]
