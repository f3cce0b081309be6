"""Count the bytes autograd keeps for backward, with saved_tensors_hooks."""
import torch
from torch import Tensor


# --8<-- [start:counter]
class SavedBytes(torch.autograd.graph.saved_tensors_hooks):
    """Counts what is stored for backward while the context is active.

    Wraps a pair of hooks (default: store each tensor as it is) and
    records each tensor that the pack hook stores, once per storage:
    a tensor saved twice, or two views of one tensor, take memory once.
    Tensors in `exclude` (the parameters, the input batch) are kept
    alive by their owner anyway: saving them costs nothing."""

    def __init__(self, pack=lambda t: t, unpack=lambda p: p, exclude=()):
        self.exclude = {t.untyped_storage().data_ptr() for t in exclude}
        self.stored = {}  # storage address -> (bytes, device type)
        self.packs = 0    # calls of the pack hook

        def counting_pack(tensor: Tensor):
            self.packs += 1
            packed = pack(tensor)
            for t in packed if isinstance(packed, tuple) else (packed,):
                if not isinstance(t, Tensor):
                    continue
                key = t.untyped_storage().data_ptr()
                if key not in self.exclude:
                    size = t.numel() * t.element_size()
                    before = self.stored.get(key, (0, ""))[0]
                    self.stored[key] = (max(size, before), t.device.type)
            return packed

        super().__init__(counting_pack, unpack)

    def __enter__(self):
        super().__enter__()
        return self

    def nbytes(self, device: str | None = None) -> int:
        """Bytes stored (on one device type, or on all)."""
        return sum(size for size, where in self.stored.values()
                   if device in (None, where))
# --8<-- [end:counter]
