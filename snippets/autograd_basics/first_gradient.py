"""out = mean(3 * (x + 2)**2) for a 2x2 tensor of ones, and its gradient."""
import torch
from torchviz import make_dot

# --8<-- [start:forward]
x = torch.ones(2, 2, requires_grad=True)
y = x + 2
z = 3 * y**2
out = z.mean()
print(out)
# --8<-- [end:forward]

# --8<-- [start:backward]
out.backward()
print(x.grad)
# --8<-- [end:backward]

# --8<-- [start:graph]
graph = make_dot(out, params={"x": x})
graph.render("first_gradient_graph", format="svg", cleanup=True)
# --8<-- [end:graph]
