"""A tensor that requires grad turned into Python numbers: the warning comes at the
first conversion of the process, and a later one, which cuts the graph, says nothing."""
import torch
from torch import nn

inputs = torch.randn(64, 4, generator=torch.Generator().manual_seed(0))
targets = torch.randn(64, 2, generator=torch.Generator().manual_seed(1))


def two_task_loss(pred, target):
    """The mean squared error of each output column, summed: one loss per task."""
    per_task = [((pred[:, i] - target[:, i]) ** 2).mean() for i in range(2)]
    return torch.tensor(per_task, requires_grad=True).sum()  # numbers, in a new tensor


# --8<-- [start:error]
torch.manual_seed(0)
model = nn.Linear(4, 2)
pred = model(inputs)
print(f"first prediction: {float(pred[0, 0]):.4f}")  # for the log
loss = two_task_loss(pred, targets)
loss.backward()
print("loss:", loss)
print("model.weight.grad:", model.weight.grad)
# --8<-- [end:error]

# --8<-- [start:every]
torch.set_warn_always(True)  # every conversion warns, not only the first
loss = two_task_loss(pred, targets)
torch.set_warn_always(False)
# --8<-- [end:every]


# --8<-- [start:fix]
def two_task_loss_fixed(pred, target):
    per_task = [((pred[:, i] - target[:, i]) ** 2).mean() for i in range(2)]
    return torch.stack(per_task).sum()  # a tensor operation: the graph goes on


torch.manual_seed(0)
model = nn.Linear(4, 2)
pred = model(inputs)
print(f"first prediction: {pred[0, 0].item():.4f}")  # a number for the log, on purpose
loss = two_task_loss_fixed(pred, targets)
loss.backward()
print("loss:", loss)
print("model.weight.grad is None:", model.weight.grad is None)
# --8<-- [end:fix]
