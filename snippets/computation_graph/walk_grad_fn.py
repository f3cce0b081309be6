"""A small regression loss: its graph walked from loss.grad_fn, drawn,
and backpropagated by hand."""
import torch
from torchviz import make_dot

# --8<-- [start:forward]
torch.manual_seed(0)
x = torch.randn(4, 3)  # a batch of 4 inputs: data, no gradient wanted
target = torch.randn(4, 1)
# The parameters: leaves that want a .grad
w = torch.randn(3, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)

prediction = torch.tanh(x @ w + b)
loss = ((prediction - target) ** 2).sum()
print(loss)
# --8<-- [end:forward]

# --8<-- [start:walk]
params = {"w": w, "b": b}


def walk(node, depth=0):
    """Print a backward node, then every node it passes gradients on to."""
    indent = "    " * depth
    if node is None:
        print(f"{indent}None (an input that needs no gradient)")
        return
    label = node.name()
    if hasattr(node, "variable"):  # AccumulateGrad: holds the leaf it fills
        leaf = next(name for name, p in params.items() if p is node.variable)
        label += " -> " + leaf
    print(indent + label)
    for next_node, _input_nr in node.next_functions:
        walk(next_node, depth + 1)


walk(loss.grad_fn)
# --8<-- [end:walk]

# --8<-- [start:graph]
graph = make_dot(loss, params=params)
graph.render("walk_grad_fn_graph", format="svg", cleanup=True)
# --8<-- [end:graph]

# --8<-- [start:by_hand]
loss.backward()

# The same chain rule, one node at a time, from the loss back to w and b.
with torch.no_grad():
    # PowBackward0 and SubBackward0: d/dp (p - t)**2 = 2 (p - t)
    grad_prediction = 2 * (prediction - target)
    # TanhBackward0: tanh'(a) = 1 - tanh(a)**2
    grad_pre = grad_prediction * (1 - prediction**2)
    # MmBackward0: the gradient of x @ w with respect to w
    grad_w = x.T @ grad_pre
    # AddBackward0: b was broadcast over the 4 rows, so their gradients add up
    grad_b = grad_pre.sum(0)

print(w.grad.flatten(), grad_w.flatten(), sep="\n")
print(b.grad, grad_b)
# --8<-- [end:by_hand]
