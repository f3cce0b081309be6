"""Summing loss tensors for logging keeps every iteration's graph alive."""
import weakref

import torch
from torch import nn


# --8<-- [start:graph_size]
def graph_size(tensor):
    """The number of autograd nodes reachable from tensor.grad_fn (0 for none)."""
    seen, todo = set(), [tensor.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        todo.extend(next_node for next_node, _ in node.next_functions)
    return len(seen)
# --8<-- [end:graph_size]


# --8<-- [start:saved]
class Saved:
    """A tensor autograd saved for backward, wrapped to see whether it is still held."""
    alive = weakref.WeakSet()

    def __init__(self, tensor):
        # the same storage, without a link back to the graph
        self.tensor = tensor.detach()
        Saved.alive.add(self)


def saved_megabytes():
    """Megabytes of the storages behind the saved tensors still held (each once)."""
    storages = {}
    for saved in Saved.alive:
        storage = saved.tensor.untyped_storage()
        storages[storage.data_ptr()] = storage.nbytes()
    return sum(storages.values()) / 1e6
# --8<-- [end:saved]


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(100, 256), nn.ReLU(), nn.Linear(256, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
batches = [(torch.randn(128, 100), torch.randn(128, 1)) for _ in range(100)]

# --8<-- [start:error]
total_loss = 0
for i, (x, y) in enumerate(batches, start=1):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    total_loss += loss  # a tensor with a grad_fn: the sum links every graph
    if i in (1, 10, 100):
        print(f"after {i:3} batches: total_loss's graph has "
              f"{graph_size(total_loss)} nodes")
# --8<-- [end:error]

# --8<-- [start:validation]
val_loss = 0
with torch.autograd.graph.saved_tensors_hooks(Saved, lambda saved: saved.tensor):
    for i, (x, y) in enumerate(batches, start=1):
        val_loss += nn.functional.mse_loss(model(x), y)  # no backward() frees them
        if i in (1, 10, 100):
            print(f"after {i:3} batches: {graph_size(val_loss)} nodes, "
                  f"saved tensors held: {saved_megabytes():.2f} MB")
# --8<-- [end:validation]

# --8<-- [start:fix]
total_loss = 0.0
for i, (x, y) in enumerate(batches, start=1):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    total_loss += loss.item()  # a Python float: nothing links the graphs
print(f"total_loss is a {type(total_loss).__name__}; mean loss {total_loss / i:.4f}")
# --8<-- [end:fix]

# --8<-- [start:fix_validation]
val_loss = 0.0  # rebinding the name also lets the old, linked graphs go
with torch.autograd.graph.saved_tensors_hooks(Saved, lambda saved: saved.tensor):
    for i, (x, y) in enumerate(batches, start=1):
        val_loss += nn.functional.mse_loss(model(x), y).item()
        if i in (1, 10, 100):
            print(f"after {i:3} batches: "
                  f"saved tensors held: {saved_megabytes():.2f} MB")
print(f"mean validation loss {val_loss / i:.4f}")
# --8<-- [end:fix_validation]
