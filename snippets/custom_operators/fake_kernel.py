"""What the fake kernel is for: tracing with shapes only,
and what happens without one."""
import torch
from elu_op import elu
from torch import Tensor
from torch._subclasses.fake_tensor import FakeTensorMode

# --8<-- [start:fake_mode]
with FakeTensorMode():
    z = torch.empty(100_000, 100_000)  # 40 GB if it were real
    y = elu(z, 1.0)
print(type(y).__name__, tuple(y.shape), y.dtype)
# --8<-- [end:fake_mode]


# --8<-- [start:missing]
@torch.library.custom_op("autograd_inside_out::elu_no_fake", mutates_args=())
def elu_no_fake(z: Tensor, alpha: float) -> Tensor:
    return torch.where(z > 0, z, alpha * (torch.exp(z) - 1))


print(elu_no_fake(torch.tensor([-1.0, 1.0]), 1.0))  # eager: fine


@torch.compile(fullgraph=True, backend="aot_eager")
def layer(z):
    return elu_no_fake(z, 1.0) * 2


try:
    layer(torch.tensor([-1.0, 1.0]))
except Exception as error:
    print(f"{type(error).__name__}: {error}")
# --8<-- [end:missing]
