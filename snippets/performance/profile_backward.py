"""torch.profiler around the forward and backward pass of a small MLP with
ELUFunction: the backward nodes the engine ran, and what each ran inside."""
import os
from collections import Counter

import torch
from elu_function import ELU
from torch import nn
from torch.profiler import ProfilerActivity, profile

# --8<-- [start:profile]
def cpu_profile():
    """torch.profiler.profile of the CPU's operations, its log lines off."""
    os.environ["KINETO_LOG_LEVEL"] = "6"
    return profile(activities=[ProfilerActivity.CPU])


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), ELU(), nn.Linear(16, 1))
x = torch.randn(32, 8)

with cpu_profile() as prof:
    loss = model(x).pow(2).mean()
    loss.backward()
# --8<-- [end:profile]

# --8<-- [start:rows]
ENGINE = "autograd::engine::evaluate_function: "
for row in prof.key_averages():
    if row.key.startswith(ENGINE):
        print(f"{row.key:70} {row.count}")
# --8<-- [end:rows]

# --8<-- [start:order]
ran = [e.name.removeprefix(ENGINE) for e in prof.events()
       if e.name.startswith(ENGINE)]
for step, name in enumerate(ran, 1):
    print(f"{step:2} {name}")
# --8<-- [end:order]


# --8<-- [start:graph]
def graph_nodes(node):
    """Every node reachable from `node`, each once."""
    seen, todo = [], [node]
    while todo:
        node = todo.pop()
        if node is not None and node not in seen:
            seen.append(node)
            todo += [next_node for next_node, _ in node.next_functions]
    return seen


in_graph = Counter(node.name() for node in graph_nodes(loss.grad_fn))
print("the profile's nodes are the graph's:", Counter(ran) == in_graph)
# --8<-- [end:graph]

# --8<-- [start:inside]
(elu_node,) = [e for e in prof.events() if e.name == ENGINE + "ELUFunctionBackward"]
for child in elu_node.cpu_children:
    print(child.name, [grandchild.name for grandchild in child.cpu_children])
# --8<-- [end:inside]
