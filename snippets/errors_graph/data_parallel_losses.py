"""The loss of a model wrapped in nn.DataParallel that computes its loss inside
forward(): one loss per GPU, gathered into a vector."""
import torch
from torch import nn

torch.manual_seed(0)
inputs, targets = torch.randn(16, 4), torch.randn(16, 1)


class ModelWithLoss(nn.Module):
    """Returns its loss, as many training scripts do to balance the GPUs' memory."""

    def __init__(self):
        super().__init__()
        self.net = nn.Linear(4, 1)

    def forward(self, x, y):
        return nn.functional.mse_loss(self.net(x), y)  # a scalar: shape []


# --8<-- [start:error]
torch.manual_seed(0)
model = ModelWithLoss()
# nn.DataParallel(model) on two GPUs runs one replica per half batch and gathers
# their scalar losses along dim 0: it makes each of shape [1], then concatenates.
halves = zip(inputs.chunk(2), targets.chunk(2))
loss = torch.cat([model(x, y).view(1) for x, y in halves])  # what it returns
print("loss:", loss)
try:
    loss.backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:fix]
loss = loss.mean()  # one number: the mean of the per-GPU losses
loss.backward()
whole_batch = model(inputs, targets)
print(f"mean of the two: {loss.item():.4f}, "
      f"loss of the whole batch: {whole_batch.item():.4f}")
print(f"weight gradient norm: {model.net.weight.grad.norm():.4f}")
# --8<-- [end:fix]
