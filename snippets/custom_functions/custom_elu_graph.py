"""The ELU built on ELUFunction: same values, one node in the graph,
one saved tensor."""
import torch
from elu import ELUCustom
from torchviz import make_dot

elu_custom = ELUCustom(alpha=0.5)
z = torch.tensor([-2.0, -1.0, 0.0, 1.0, 2.0, 3.0], requires_grad=True)
out = elu_custom(z)
print(out)
graph = make_dot(out, params={"z": z}, show_saved=True)
graph.render("custom_elu_graph", format="svg", cleanup=True)
