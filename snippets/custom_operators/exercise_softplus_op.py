"""Exercise: softplus as a custom operator with autograd and fake kernels."""
import torch
import torch.nn.functional as F
from torch import Tensor
from torch.autograd import gradcheck


@torch.library.custom_op("autograd_inside_out::softplus", mutates_args=())
def softplus(z: Tensor) -> Tensor:
    return torch.logaddexp(z, torch.zeros_like(z))  # log(1 + e^z), no overflow


@softplus.register_fake
def _(z: Tensor) -> Tensor:
    return torch.empty_like(z)


def setup_context(ctx, inputs, output):
    (z,) = inputs
    ctx.save_for_backward(z)


def backward(ctx, grad_output: Tensor) -> Tensor:
    (z,) = ctx.saved_tensors
    return grad_output * torch.sigmoid(z)  # d/dz log(1 + e^z)


softplus.register_autograd(backward, setup_context=setup_context)

torch.manual_seed(0)
for sample in [torch.randn(6, requires_grad=True),
               torch.randn(2, 3, dtype=torch.float64, requires_grad=True)]:
    print(torch.library.opcheck(softplus, (sample,)))
z64 = torch.randn(20, dtype=torch.float64, requires_grad=True)
print("gradcheck:", gradcheck(softplus, (z64,)))

z = torch.randn(10_000, requires_grad=True) * 30
print("largest difference from F.softplus:",
      f"{(softplus(z) - F.softplus(z)).abs().max():.1e}")
explained = torch._dynamo.explain(lambda z: softplus(z) * 2)(z)
print("graph breaks:", explained.graph_break_count)
