"""A one-layer network z = xW + b with a binary cross-entropy loss,
and what backward() fills."""
import torch
import torch.nn.functional as F
from torchviz import make_dot

# --8<-- [start:forward]
torch.manual_seed(0)
x = torch.ones(8)                           # input
target = torch.zeros(10)                    # expected output
W = torch.randn(8, 10, requires_grad=True)  # weights
b = torch.randn(10, requires_grad=True)     # bias
z = x @ W + b                               # logits
loss = F.binary_cross_entropy_with_logits(z, target)
print(loss)
# --8<-- [end:forward]

# --8<-- [start:graph]
graph = make_dot(loss, params={"W": W, "b": b})
graph.render("one_layer_network_graph", format="svg", cleanup=True)
# --8<-- [end:graph]

# --8<-- [start:backward]
loss.backward()
print(W.grad.shape, b.grad.shape)
print(b.grad)
print(torch.equal(W.grad, b.grad.expand(8, 10)))
# --8<-- [end:backward]

# --8<-- [start:others]
print(x.grad, target.grad)
print(z.grad)
print(loss.grad)
# --8<-- [end:others]
