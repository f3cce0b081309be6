"""Operator rules: no aliasing, declared mutation, a kernel per device."""
import torch
from torch import Tensor


# --8<-- [start:alias]
@torch.library.custom_op("autograd_inside_out::relu_or_same", mutates_args=())
def relu_or_same(z: Tensor) -> Tensor:
    if bool((z > 0).all()):
        return z  # no clone: the output is the input
    return z.clamp(min=0)


try:
    relu_or_same(torch.ones(3))
except RuntimeError as error:
    message = str(error)
    print(message[message.index("The output"):message.index(" The most common")])
# --8<-- [end:alias]


# --8<-- [start:mutating]
@torch.library.custom_op("autograd_inside_out::elu_", mutates_args={"z"})
def elu_(z: Tensor, alpha: float) -> None:
    """ELU in place: writes into z, returns nothing."""
    torch.where(z > 0, z, alpha * (torch.exp(z) - 1), out=z)


elu_.register_fake(lambda z, alpha: None)

z = torch.tensor([-1.0, 2.0])
elu_(z, 1.0)
print(z)
compiled = torch.compile(lambda z: elu_(z, 1.0), fullgraph=True, backend="aot_eager")
z = torch.tensor([-1.0, 2.0])
compiled(z)
print(z)
print(torch.library.opcheck(elu_, (torch.tensor([-1.0, 2.0]), 1.0)))
# --8<-- [end:mutating]


# --8<-- [start:undeclared]
@torch.library.custom_op("autograd_inside_out::double_plus_one", mutates_args=())
def double_plus_one(z: Tensor) -> Tensor:
    z.mul_(2)  # writes to z, but mutates_args=() says it does not
    return z + 1


double_plus_one.register_fake(lambda z: torch.empty_like(z))
try:
    torch.library.opcheck(double_plus_one, (torch.ones(2),))
except Exception as error:  # opcheck's OpCheckError
    print(f"{type(error).__name__}: {str(error).split(' (scroll up')[0]}")
# --8<-- [end:undeclared]


# --8<-- [start:by_device]
@torch.library.custom_op("autograd_inside_out::elu_by_device", mutates_args=())
def elu_by_device(z: Tensor, alpha: float) -> Tensor:
    print("the default kernel")  # every device without a kernel of its own
    return torch.where(z > 0, z, alpha * (torch.exp(z) - 1))


@elu_by_device.register_kernel("cpu")
def _(z: Tensor, alpha: float) -> Tensor:
    print("the CPU kernel")
    return torch.nn.functional.elu(z, alpha)


device = "cuda" if torch.cuda.is_available() else "cpu"
print(elu_by_device(torch.tensor([-1.0, 2.0], device=device), 1.0))
# --8<-- [end:by_device]
