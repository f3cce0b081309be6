"""In-place writes into the result of expand(), whose elements share their memory."""
import torch
from torch import nn

torch.manual_seed(0)
batch = torch.randn(32, 4)


# --8<-- [start:error]
class GroupWhitening(nn.Module):
    """Keeps a running estimate of each group's covariance, as whitening layers do."""

    def __init__(self, channels, groups, momentum=0.1):
        super().__init__()
        self.groups, self.momentum = groups, momentum
        size = channels // groups
        self.register_buffer("running_cov", torch.eye(size).expand(groups, size, size))

    def forward(self, x):
        g = x.view(len(x), self.groups, -1).transpose(0, 1)  # groups, batch, size
        cov = g.transpose(1, 2) @ g / len(x)
        if self.training:
            with torch.no_grad():
                self.running_cov.mul_(1 - self.momentum).add_(self.momentum * cov)
        return x


layer = GroupWhitening(channels=4, groups=2)
print("running_cov:", tuple(layer.running_cov.shape),
      "strides:", layer.running_cov.stride())
try:
    layer(batch)
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:fix]
layer = GroupWhitening(channels=4, groups=2)
layer.running_cov = layer.running_cov.clone()  # in __init__: expand(...).clone()
print("strides:", layer.running_cov.stride())
layer(batch)
print("running_cov[0]:\n", layer.running_cov[0])
# --8<-- [end:fix]

# --8<-- [start:masked]
k, eps = 4, 1e-4
p_i_j = torch.softmax(torch.randn(k * k), 0).view(k, k)  # a joint distribution
p_i = p_i_j.sum(dim=1).view(k, 1).expand(k, k)  # its marginal, repeated per column
p_i[p_i < eps] = eps  # a masked write: a warning, for now
# --8<-- [end:masked]

# --8<-- [start:masked_fix]
p_i = p_i_j.sum(dim=1).view(k, 1).expand(k, k).clamp(min=eps)  # out of place
print("strides:", p_i.stride())
# --8<-- [end:masked_fix]
