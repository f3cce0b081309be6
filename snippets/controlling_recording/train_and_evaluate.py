"""One function for a training step and an evaluation step:
torch.set_grad_enabled(flag)."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.2), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(16, 4), torch.randn(16, 1)


# --8<-- [start:step]
def run_step(model, x, y, train):
    model.train(train)                    # dropout on or off
    with torch.set_grad_enabled(train):   # recording on or off
        loss = F.mse_loss(model(x), y)
    if train:
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss
# --8<-- [end:step]


# --8<-- [start:use]
train_loss = run_step(model, x, y, train=True)
eval_loss = run_step(model, x, y, train=False)
print(train_loss.requires_grad, train_loss.grad_fn.name())
print(eval_loss.requires_grad, eval_loss.grad_fn)
print(torch.is_grad_enabled())
# --8<-- [end:use]
