"""Example 2 again, its three outputs written one by one into an empty tensor."""
import torch
from torchviz import make_dot

# --8<-- [start:write]
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.empty(3)
print(y.requires_grad, y.grad_fn)
y[0] = x[0] ** 2
print(y.requires_grad, type(y.grad_fn).__name__)
y[1] = x[0] ** 2 + 5 * x[1] ** 2
y[2] = 3 * x[1]
print(y)
# --8<-- [end:write]

# --8<-- [start:graph]
graph = make_dot(y, params={"x": x})
graph.render("three_outputs_written_in_graph", format="svg", cleanup=True)
# --8<-- [end:graph]

# --8<-- [start:backward]
y.backward(torch.tensor([1.0, 1.0, 1.0]))
print(x.grad)
# --8<-- [end:backward]
