"""SumAll's backward on a device other than the CPU: the meta device, which every
build of PyTorch has, shows the mismatch that a GPU raises; and the fix."""
import torch

from sum_function import SumAll, SumAllOnDevice

# --8<-- [start:cpu]
x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
SumAll.apply(x).backward()
print("on the CPU:", x.grad.device,
      "gradcheck:", torch.autograd.gradcheck(SumAll.apply, x))
# --8<-- [end:cpu]

# --8<-- [start:meta]
x = torch.empty(3, 4, device="meta", requires_grad=True)  # shapes, no data
print("torch.ones in backward:", torch.ones(x.shape).device, " gradient:", x.device)
try:
    SumAll.apply(x).backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:meta]

# --8<-- [start:fix]
x = torch.empty(3, 4, device="meta", requires_grad=True)
SumAllOnDevice.apply(x).backward()
print("on the meta device:", x.grad.device, tuple(x.grad.shape))
x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
print("gradcheck on the CPU:", torch.autograd.gradcheck(SumAllOnDevice.apply, x))
# --8<-- [end:fix]
