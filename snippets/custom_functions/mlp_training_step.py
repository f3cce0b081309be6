"""An MLP with the custom ELU: the softmax-sum "loss" gives no gradient,
cross-entropy does."""
import torch
import torch.nn.functional as F
from elu import ELUCustom
from torch import nn
from torchviz import make_dot

# --8<-- [start:model]
torch.manual_seed(0)
mlp = nn.Sequential(
    nn.Linear(512, 1024),
    ELUCustom(alpha=0.01),
    nn.Linear(1024, 1024),
    ELUCustom(alpha=0.01),
    nn.Linear(1024, 10),
    nn.Softmax(dim=1),
)
print(mlp)
# --8<-- [end:model]

# --8<-- [start:softmax_sum]
x = torch.randn(10, 512)  # a batch of 10 inputs
probabilities = mlp(x)
loss = probabilities.sum()
print(f"loss = {loss.item()}")
# --8<-- [end:softmax_sum]

# --8<-- [start:graph]
graph = make_dot(loss, params=dict(mlp.named_parameters()))
graph.render("mlp_graph", format="svg", cleanup=True)
# --8<-- [end:graph]

# --8<-- [start:softmax_sum_backward]
loss.backward()
for name, param in mlp.named_parameters():
    print(f"{name:9} gradient norm {param.grad.norm().item():.1e}")
# --8<-- [end:softmax_sum_backward]

# --8<-- [start:row_sums]
print(probabilities.sum(dim=1).detach() - 1)  # how far each row is from 1
# --8<-- [end:row_sums]

# --8<-- [start:cross_entropy]
labels = torch.randint(0, 10, (10,))
logits_of = mlp[:-1]  # the same layers without the final Softmax
optimizer = torch.optim.SGD(mlp.parameters(), lr=0.1)

optimizer.zero_grad()
loss = F.cross_entropy(logits_of(x), labels)  # applies log-softmax itself
loss.backward()
print(f"cross-entropy before the step: {loss.item():.4f}")
for name, param in mlp.named_parameters():
    print(f"{name:9} gradient norm {param.grad.norm().item():.1e}")
optimizer.step()
loss = F.cross_entropy(logits_of(x), labels)
print(f"cross-entropy after one step:  {loss.item():.4f}")
# --8<-- [end:cross_entropy]
