"""Exercise: the hand-written backward pass in breadth-first order."""
import torch
from backward_walker import my_backward, reverse_topological


def breadth_first(root):
    """The nodes by their distance from root: first the root, then its next nodes..."""
    order, queue = [], [root]
    while queue:
        node = queue.pop(0)
        if node is not None and node not in order:
            order.append(node)
            queue.extend(next_node for next_node, _ in node.next_functions)
    return order


v = torch.tensor([0.5, -1.0], requires_grad=True)
a = v * 2
shared = (a * a.exp()).sum()
for order in (breadth_first, reverse_topological):
    names = [node.name().removeprefix("torch::autograd::")
             for node in order(shared.grad_fn)]
    print(f"{order.__name__:20}", ", ".join(names))
print("breadth first:      ", my_backward(shared, breadth_first)[v])
print("reverse topological:", my_backward(shared)[v])
