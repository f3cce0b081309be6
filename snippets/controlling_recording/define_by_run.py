"""Define-by-run: Python decides, at every call, what gets recorded."""
import torch


def chain(tensor):
    """The names of the nodes from tensor back to its leaf,
    for a graph that is a single chain."""
    names, node = [], tensor.grad_fn
    while node is not None:
        names.append(node.name().removeprefix("torch::autograd::"))
        node = node.next_functions[0][0] if node.next_functions else None
    return names


# --8<-- [start:branch]
def f(x):
    if x.sum() > 0:          # a Python `if` on a tensor's value
        return x * x
    return torch.exp(x)


for value in (2.0, -2.0):
    x = torch.tensor(value, requires_grad=True)
    y = f(x)
    y.backward()
    print(f"x={value:4}  graph={chain(y)}  dy/dx={x.grad.item():.4f}")
# --8<-- [end:branch]


# --8<-- [start:loop]
def double_until_large(x):
    while x.abs().sum() < 10:   # how many times depends on the data
        x = x * 2
    return x


for values in ([1.0, 1.0], [3.0, 4.0]):
    x = torch.tensor(values, requires_grad=True)
    y = double_until_large(x)
    y.sum().backward()
    print(f"x={values}  y={y.tolist()}  grad={x.grad.tolist()}")
    print(f"  graph={chain(y)}")
# --8<-- [end:loop]
