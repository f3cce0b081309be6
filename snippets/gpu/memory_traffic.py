"""Count the bytes that each eager kernel of a forward and backward pass reads and
writes: what bounds the time of a memory-bound step."""
import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves


# --8<-- [start:counter]
class KernelTraffic(TorchDispatchMode):
    """Records each operation run inside it and the bytes of the tensors it
    reads and writes."""

    def __init__(self):
        super().__init__()
        self.kernels = []  # (operation, bytes)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        name = func.overloadpacket.__name__  # aten.exp.default -> "exp"
        if not func.is_view:  # a view (detach, reshape) moves no data
            # ones_like(z) only writes: it takes nothing from z but its shape
            read = () if name.endswith("_like") else (args, kwargs)
            tensors = tree_leaves((read, out))
            nbytes = sum(t.nbytes for t in tensors if isinstance(t, torch.Tensor))
            self.kernels.append((name, nbytes))
        return out


def eager_traffic(layer, shape, dtype=torch.float32):
    """The kernels of one forward and backward of `layer` on a `z` of that shape.
    Meta tensors have a shape and a dtype but no data: nothing is computed."""
    z = torch.empty(shape, dtype=dtype, device="meta", requires_grad=True)
    grad = torch.empty_like(z)
    with KernelTraffic() as traffic:
        layer(z).backward(grad)
    return traffic.kernels
# --8<-- [end:counter]
