"""Random expression graphs, built twice over the same leaf values: with the tiny engine
and with PyTorch. Every random decision goes through `choose(options)`, so that a seeded
random.Random or a property-based testing library can drive it."""
import torch.nn.functional as F

import tiny_autograd as tiny

ALPHA = 0.5


# --8<-- [start:ops]
def leaf_shapes(n):
    """Shapes that all broadcast together, to (n, n) at most."""
    return [(n, n), (1, n), (n, 1), (n,), (1,), ()]


def random_op(choose, nodes):
    """One random operation on nodes already built (any of them, so a node is often
    used twice), as a pair: (tiny engine, PyTorch). None if the operation has no
    valid inputs."""
    op = choose(["add", "mul", "matmul", "sum", "mean", "pow", "tanh", "exp", "elu"])
    if op == "matmul":  # 2-D and fitting: (n, n) @ (n, 1), (n, 1) @ (1, n), ...
        pairs = [(a, b) for a in nodes for b in nodes
                 if a[1].dim() == b[1].dim() == 2 and a[1].shape[1] == b[1].shape[0]]
        if not pairs:
            return None
        a, b = choose(pairs)
        return a[0] @ b[0], a[1] @ b[1]
    a = choose(nodes)
    if op in ("add", "mul"):
        b = choose(nodes)  # shapes may differ: the result is broadcast
        return (a[0] + b[0], a[1] + b[1]) if op == "add" else (a[0] * b[0], a[1] * b[1])
    if op in ("sum", "mean"):
        dim, keepdim = choose([None, *range(a[1].dim())]), choose([False, True])
        return getattr(a[0], op)(dim, keepdim), getattr(a[1], op)(dim, keepdim)
    if op == "pow":
        p = choose([2, 3, -1])
        return a[0] ** p, a[1] ** p
    if op == "elu":
        return tiny.elu(a[0], ALPHA), F.elu(a[1], ALPHA)
    return getattr(a[0], op)(), getattr(a[1], op)()  # tanh, exp


def random_graph(choose, values, n_ops):
    """Leaves holding `values`, n_ops random operations, and a loss: the sum of every
    entry of every node, so that each operation is on the path to the loss. Returns
    the leaves (pairs), the tiny engine's results of the operations, and the losses
    (a pair)."""
    leaves = [(tiny.Value(v.clone()), v.clone().requires_grad_()) for v in values]
    nodes = list(leaves)
    for _ in range(n_ops):
        node = random_op(choose, nodes)
        if node is not None:
            nodes.append(node)
    mine, theirs = zip(*nodes)
    return leaves, list(mine[len(leaves):]), (sum_all(mine), sum_all(theirs))


def sum_all(values):
    total = values[0].sum()
    for value in values[1:]:
        total = total + value.sum()
    return total
# --8<-- [end:ops]


# --8<-- [start:compare]
def gradient_difference(leaves, losses):
    """Backpropagate through both engines; the largest difference between a leaf
    gradient of the tiny engine and PyTorch's, relative to the largest gradient."""
    tiny.backward(losses[0])
    losses[1].backward()
    scale = max((t.grad.abs().max().item() for _, t in leaves if t.grad is not None),
                default=0.0)
    difference = 0.0
    for mine, theirs in leaves:
        if theirs.grad is None:  # a leaf the loss does not depend on
            assert mine.grad is None
            continue
        assert mine.grad.shape == theirs.grad.shape
        difference = max(difference, (mine.grad - theirs.grad).abs().max().item())
    return difference / max(scale, 1e-300)
# --8<-- [end:compare]


def graph_features(results):
    """(a value is an input of two operations, an operation broadcasts an input),
    read off the tiny engine's results of the random operations."""
    uses = {}
    for value in results:
        for parent in value.parents:
            uses[id(parent)] = uses.get(id(parent), 0) + 1
    reused = any(count > 1 for count in uses.values())
    broadcast = any(value.op in ("add", "mul")
                    and "constant" not in [p.op for p in value.parents]
                    and any(p.shape != value.shape for p in value.parents)
                    for value in results)
    return reused, broadcast
