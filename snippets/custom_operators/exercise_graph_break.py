"""Exercise: find and fix the graph break of an ELU Function that prints."""
import torch
from elu_function import ELUFunction, elu_forward
from torch import Tensor


class LoggingELUFunction(ELUFunction):
    """ELUFunction that reports the share of inputs on the negative branch."""

    @staticmethod
    def forward(ctx, z: Tensor, alpha: float) -> Tensor:
        ctx.save_for_backward(z)
        ctx.alpha = alpha
        share = (z <= 0).float().mean().item()
        print(f"{share:.0%} of the inputs are negative")
        return elu_forward(z, alpha)


def layer(z):
    return LoggingELUFunction.apply(z, 1.0) * 2


z = torch.tensor([-2.0, -1.0, 0.5, 3.0], requires_grad=True)
explained = torch._dynamo.explain(layer)(z)
print("graph breaks:", explained.graph_break_count)
for reason in explained.break_reasons:
    print(" ", reason.reason.splitlines()[0])


# The fix: forward computes only the ELU; the share stays a tensor,
# returned by the compiled function and printed outside it.
def layer_and_share(z):
    share = (z <= 0).float().mean()
    return ELUFunction.apply(z, 1.0) * 2, share


torch._dynamo.reset()
explained = torch._dynamo.explain(layer_and_share)(z)
print("graph breaks after the fix:", explained.graph_break_count)
compiled = torch.compile(layer_and_share, fullgraph=True, backend="aot_eager")
out, share = compiled(z)
print(f"{share:.0%} of the inputs are negative")
out.sum().backward()
print(z.grad)
