"""Hooks that store saved tensors in a smaller dtype and restore them for backward."""
import torch
from torch import Tensor


# --8<-- [start:hooks]
def compressing_hooks(dtype: torch.dtype, exclude=()):
    """Pack and unpack hooks: float32 tensors are stored as `dtype`
    (bfloat16 or float16: half the bytes) and unpacked to float32.
    Tensors in `exclude` are stored as they are: they stay in memory
    anyway, and a compressed copy would add to it."""
    keep = {t.untyped_storage().data_ptr() for t in exclude}

    def pack(tensor: Tensor):
        if (tensor.dtype != torch.float32
                or tensor.untyped_storage().data_ptr() in keep):
            return tensor.dtype, tensor
        return tensor.dtype, tensor.to(dtype)  # a new, smaller tensor

    def unpack(packed) -> Tensor:
        original_dtype, tensor = packed
        return tensor.to(original_dtype)

    return pack, unpack
# --8<-- [end:hooks]
