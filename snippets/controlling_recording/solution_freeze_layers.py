"""Exercise: freeze all but the last layer, then only the middle one;
which .grad are None?"""
import torch
import torch.nn.functional as F
from graph_nodes import node_counts
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 5), nn.ReLU(),
                      nn.Linear(5, 2))
x, y = torch.randn(10, 3), torch.randn(10, 2)


def grads_after_backward():
    model.zero_grad()                       # sets every .grad to None
    loss = F.mse_loss(model(x), y)
    loss.backward()
    print(node_counts(loss))
    return {name: p.grad is not None for name, p in model.named_parameters()}


# --8<-- [start:last_only]
model.requires_grad_(False)                 # every parameter
model[-1].requires_grad_(True)              # then the last layer again
print(grads_after_backward())
# --8<-- [end:last_only]

# --8<-- [start:middle_frozen]
model.requires_grad_(True)
model[2].requires_grad_(False)              # only the middle Linear
print(grads_after_backward())
# --8<-- [end:middle_frozen]
