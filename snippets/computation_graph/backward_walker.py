"""A backward pass written by hand: walk grad_fn in reverse topological
order, apply each node, and fill the leaves' gradients (the exercises' solution)."""
import torch


def reverse_topological(root):
    """The nodes reachable from root, each one before every node it sends
    gradients to."""
    order, seen = [], set()

    def visit(node):  # depth first: a node is added after everything it leads to
        if node is None or node in seen:
            return
        seen.add(node)
        for next_node, _ in node.next_functions:
            visit(next_node)
        order.append(node)

    visit(root)
    return order[::-1]  # the root first, the leaves' AccumulateGrad nodes last


@torch.no_grad()  # the engine does not record the backward pass either
def my_backward(loss, order=reverse_topological):
    """{leaf: gradient of loss with respect to it}, computed by calling each node."""
    # node -> {input_nr: gradient}
    incoming = {loss.grad_fn: {0: torch.ones_like(loss)}}
    leaf_grads = {}
    for node in order(loss.grad_fn):
        grads = incoming.pop(node)  # complete if every node that feeds it has run
        if hasattr(node, "variable"):  # AccumulateGrad: store the gradient, do not call
            leaf = node.variable
            # b was broadcast to 4 rows: sum its gradient back to b's shape
            leaf_grads[leaf] = grads[0].sum_to_size(leaf.shape)
            continue
        outputs = node(*(grads.get(i) for i in range(max(grads) + 1)))
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        for (next_node, input_nr), grad in zip(node.next_functions, outputs):
            if next_node is None or grad is None:
                continue
            slots = incoming.setdefault(next_node, {})
            # A value used twice receives two gradients: they add up.
            slots[input_nr] = grad if input_nr not in slots else slots[input_nr] + grad
    return leaf_grads
