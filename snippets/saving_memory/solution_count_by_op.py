"""Exercise: a pack hook that counts saved tensors by the operation saving them."""
from collections import defaultdict

import torch
from deep_mlp import loss_of, make_batch, make_deep_mlp
from torch.overrides import TorchFunctionMode


class CurrentOperation(TorchFunctionMode):
    """Knows which torch function (F.linear, F.elu, ...) is running.

    Inside the handler the mode is off, so `name` stays the outermost
    call: F.cross_entropy, not the log_softmax it calls."""

    name = None

    def __torch_function__(self, func, types, args=(), kwargs=None):
        outer, self.name = self.name, func.__name__
        try:
            return func(*args, **(kwargs or {}))
        finally:
            self.name = outer


torch.manual_seed(0)
model = make_deep_mlp(depth=8)
x, labels = make_batch(batch=128)
packs = defaultdict(int)
stored = defaultdict(dict)  # operation -> {storage address: bytes}


def pack(tensor):
    packs[operation.name] += 1
    size = tensor.numel() * tensor.element_size()
    stored[operation.name][tensor.untyped_storage().data_ptr()] = size
    return tensor


with CurrentOperation() as operation, \
        torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
    loss = loss_of(model, x, labels)

print(f"{'operation':14}{'packs':>6}{'storages':>9}{'bytes':>12}")
for name in packs:
    print(f"{name:14}{packs[name]:6}{len(stored[name]):9}"
          f"{sum(stored[name].values()):12,}")
