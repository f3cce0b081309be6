"""The nodes of the graph behind a tensor: what backward() would walk."""
from collections import Counter


def graph_nodes(tensor):
    """Every node reachable from tensor.grad_fn, each once."""
    seen, stack = {}, [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen[node] = None
            stack.extend(child for child, _ in node.next_functions)
    return list(seen)


def node_counts(tensor):
    """How many nodes of each kind that graph has, by name."""
    names = (node.name().removeprefix("torch::autograd::")
             for node in graph_nodes(tensor))
    return dict(sorted(Counter(names).items()))
