"""Freezing parameters with requires_grad_(False): who gets a .grad, what the
optimizer does, what backward walks."""
import torch
import torch.nn.functional as F
from graph_nodes import graph_nodes, node_counts
from torch import nn
from torchviz import make_dot

# --8<-- [start:full]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(),
                      nn.Linear(16, 1))
x, y = torch.randn(32, 4), torch.randn(32, 1)

loss = F.mse_loss(model(x), y)
print(len(graph_nodes(loss)), node_counts(loss))
# --8<-- [end:full]

# --8<-- [start:freeze]
for p in model[:4].parameters():   # every layer but the last
    p.requires_grad_(False)

loss = F.mse_loss(model(x), y)
print(len(graph_nodes(loss)), node_counts(loss))
loss.backward()
for name, p in model.named_parameters():
    print(f"{name:8} requires_grad={p.requires_grad!s:5} "
          f"grad={None if p.grad is None else tuple(p.grad.shape)}")
# --8<-- [end:freeze]

# --8<-- [start:graph]
graph = make_dot(loss, params=dict(model.named_parameters()))
graph.render("frozen_model_graph", format="svg", cleanup=True)
# --8<-- [end:graph]

# --8<-- [start:optimizer]
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=0.01)
before = {name: p.detach().clone() for name, p in model.named_parameters()}
optimizer.step()
for name, p in model.named_parameters():
    print(f"{name:8} changed={not torch.equal(p, before[name])}")
# --8<-- [end:optimizer]

# --8<-- [start:zero_grad]
first = model[0].weight
first.grad = torch.zeros_like(first)     # a zero gradient is not "no gradient"
kept = first.detach().clone()
optimizer.step()
print(torch.equal(first, kept), first.requires_grad)
# --8<-- [end:zero_grad]
