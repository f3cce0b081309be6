"""A body Dynamo cannot trace: in an autograd.Function it breaks the graph,
in a custom operator the compiler never looks inside."""
import torch
from elu_function import ELUFunction, elu_forward
from elu_op import backward, setup_context
from torch import Tensor


# --8<-- [start:body]
def elu_with_fast_path(z: Tensor, alpha: float) -> Tensor:
    if bool((z > 0).all()):  # a Python branch on the values of z
        return z.clone()     # every input positive: ELU is the identity
    return elu_forward(z, alpha)
# --8<-- [end:body]


# --8<-- [start:function]
class FastPathELUFunction(ELUFunction):
    @staticmethod
    def forward(ctx, z: Tensor, alpha: float) -> Tensor:
        ctx.save_for_backward(z)
        ctx.alpha = alpha
        return elu_with_fast_path(z, alpha)


z = torch.randn(1000)
explained = torch._dynamo.explain(
    lambda z: FastPathELUFunction.apply(z, 1.0))(z)
print("graph breaks:", explained.graph_break_count)
print(explained.break_reasons[0].reason.splitlines()[0])
try:
    torch.compile(lambda z: FastPathELUFunction.apply(z, 1.0),
                  fullgraph=True, backend="aot_eager")(z)
except torch._dynamo.exc.TorchDynamoException as error:
    reason = "Could not guard on data-dependent expression"
    print(f"fullgraph=True: {type(error).__name__},", reason in str(error))
# --8<-- [end:function]


# --8<-- [start:op]
@torch.library.custom_op("autograd_inside_out::elu_fast_path", mutates_args=())
def elu_fast_path(z: Tensor, alpha: float) -> Tensor:
    return elu_with_fast_path(z, alpha)


elu_fast_path.register_fake(lambda z, alpha: torch.empty_like(z))
elu_fast_path.register_autograd(backward, setup_context=setup_context)

torch._dynamo.reset()
explained = torch._dynamo.explain(lambda z: elu_fast_path(z, 1.0))(z)
print("graph breaks:", explained.graph_break_count)
compiled = torch.compile(lambda z: elu_fast_path(z, 1.0), fullgraph=True,
                         backend="aot_eager")
z = torch.randn(1000, requires_grad=True)
print("same as eager:", torch.equal(compiled(z), elu_forward(z, 1.0)))
print(torch.library.opcheck(elu_fast_path, (z, 1.0)))
# --8<-- [end:op]
