"""The composite ELU module and the graph autograd records for it."""
import torch
from elu import ELU
from torchviz import make_dot

elu = ELU(alpha=0.5)
z = torch.tensor([-2.0, -1.0, 0.0, 1.0, 2.0, 3.0], requires_grad=True)
out = elu(z)
print(out)
graph = make_dot(out, params={"z": z})
graph.render("composite_elu_graph", format="svg", cleanup=True)
