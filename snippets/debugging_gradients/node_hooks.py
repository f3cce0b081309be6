"""Walk the graph from grad_fn and hook every node: where do non-finite
gradients start?"""
import torch
from distances import pairwise_distances

points = torch.tensor([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]], requires_grad=True)
loss = pairwise_distances(points).sum()


# --8<-- [start:walk]
def nodes(grad_fn):
    """Every node reachable from grad_fn, each once."""
    seen, stack = [], [grad_fn]
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen.append(node)
            stack.extend(next_node for next_node, _ in node.next_functions)
    return seen


def worst(grads):
    """"nan" if any gradient has a NaN, else "inf" if any has an inf, else "finite"."""
    grads = [g for g in grads if g is not None]
    if any(g.isnan().any() for g in grads):
        return "nan"
    return "inf" if any(g.isinf().any() for g in grads) else "finite"


def report(node):
    def hook(grad_inputs, grad_outputs):
        # grad_outputs: what reached the node; grad_inputs: what it returns.
        print(f"{node.name():18} received {worst(grad_outputs):6}"
              f"  returned {worst(grad_inputs)}")
    node.register_hook(hook)


for node in nodes(loss.grad_fn):
    if node.name() != "torch::autograd::AccumulateGrad":  # the leaf's node
        report(node)
loss.backward()
# --8<-- [end:walk]
