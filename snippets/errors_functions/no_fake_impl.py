"""torch.compile over a custom operator that wraps NumPy code and has no fake kernel:
the error Dynamo raises, and the fix, a fake kernel registered with register_fake."""
import numpy as np
import torch
from torch import Tensor


# --8<-- [start:error]
@torch.library.custom_op("mylib::soft_threshold", mutates_args=())
def soft_threshold(x: Tensor, threshold: float) -> Tensor:
    """sign(x) * max(|x| - threshold, 0), computed by NumPy: opaque to the compiler."""
    a = x.detach().cpu().numpy()
    result = np.sign(a) * np.maximum(np.abs(a) - threshold, 0)
    return torch.from_numpy(result).to(x.device)


@torch.compile(fullgraph=True, backend="aot_eager")  # no code generated: quick
def sparse_code(x):
    return soft_threshold(x, 0.5) * 2


x = torch.tensor([-1.0, 0.2, 0.9])
print("eager:", soft_threshold(x, 0.5))
try:
    sparse_code(x)
except Exception as err:
    print(f"{type(err).__module__}.{type(err).__name__}: {err}")
# --8<-- [end:error]


# --8<-- [start:fix]
@soft_threshold.register_fake
def _(x, threshold):
    return torch.empty_like(x)  # the output's shape, dtype and device: no values


torch._dynamo.reset()  # compile again, now that the operator has a fake kernel
print("compiled:", sparse_code(x))
# --8<-- [end:fix]
