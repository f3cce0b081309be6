"""Exercise: an operator that returns a view of its input."""
import torch
from torch import Tensor


@torch.library.custom_op("autograd_inside_out::first_row", mutates_args=())
def first_row(z: Tensor) -> Tensor:
    return z[0]  # a view: it shares z's memory


@torch.library.custom_op("autograd_inside_out::first_row_copy", mutates_args=())
def first_row_copy(z: Tensor) -> Tensor:
    return z[0].clone()  # memory of its own


z = torch.arange(6.0).reshape(2, 3)
try:
    first_row(z)
except RuntimeError as error:
    print("first_row: RuntimeError, aliasing:",
          "may not alias any inputs" in str(error))
row = first_row_copy(z)
z[0, 0] = 100.0
print("first_row_copy:", row)
