"""Exercise: the operations that the backward passes of gather, index_select and
indexing run."""
import torch
from torch.utils._python_dispatch import TorchDispatchMode


class Operations(TorchDispatchMode):
    """Records the name of every operation that runs while it is active."""

    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.names.append(func.overloadpacket.__name__)
        return func(*args, **(kwargs or {}))


torch.manual_seed(0)
w = torch.randn(6, 3, requires_grad=True)
rows = torch.tensor([0, 2, 2, 5])
forwards = {
    "gather": lambda: torch.gather(w, 0, rows.unsqueeze(1).expand(-1, 3)),
    "index_select": lambda: torch.index_select(w, 0, rows),
    "w[rows]": lambda: w[rows],
}
for name, forward in forwards.items():
    w.grad = None
    out = forward().sum()
    with Operations() as backward:
        out.backward()
    print(f"{name:13} backward runs: {', '.join(backward.names)}")
