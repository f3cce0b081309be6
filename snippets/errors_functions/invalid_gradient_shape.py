"""A custom Function that adds a per-channel bias, and a backward that does not sum
the bias's gradient over the dimensions the bias was broadcast along."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
conv = nn.Conv2d(3, 8, 3, padding=1, bias=False)
bias = nn.Parameter(torch.zeros(8))
images = torch.randn(4, 3, 16, 16)


# --8<-- [start:error]
class BiasLeakyReLU(torch.autograd.Function):
    """leaky_relu(x + bias) in one step, x of shape [N, C, H, W], bias of shape [C]."""

    @staticmethod
    def forward(ctx, x, bias):
        out = F.leaky_relu(x + bias.view(1, -1, 1, 1), 0.2)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        (out,) = ctx.saved_tensors
        grad_x = torch.where(out > 0, grad_out, grad_out * 0.2)
        return grad_x, grad_x  # the bias's gradient still has shape [N, C, H, W]


try:
    BiasLeakyReLU.apply(conv(images), bias).pow(2).mean().backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]


# --8<-- [start:leading]
class AddBias(torch.autograd.Function):
    """x + bias, x of shape [N, features], bias of shape [features]."""

    @staticmethod
    def forward(ctx, x, bias):
        return x + bias

    @staticmethod
    def backward(ctx, grad_out):
        return grad_out, grad_out  # [N, features] for a bias of shape [features]


features = torch.randn(5, 8)
row_bias = torch.zeros(8, requires_grad=True)
AddBias.apply(features, row_bias).sum().backward()
print("bias.grad:", row_bias.grad)
# --8<-- [end:leading]


# --8<-- [start:fix]
class FixedBiasLeakyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, bias):
        out = F.leaky_relu(x + bias.view(1, -1, 1, 1), 0.2)
        ctx.save_for_backward(out)
        ctx.bias_shape = bias.shape
        return out

    @staticmethod
    def backward(ctx, grad_out):
        (out,) = ctx.saved_tensors
        grad_x = torch.where(out > 0, grad_out, grad_out * 0.2)
        # sum over N, H and W: the dimensions the bias was broadcast along
        grad_bias = grad_x.sum_to_size(1, grad_x.shape[1], 1, 1).view(ctx.bias_shape)
        return grad_x, grad_bias


loss = FixedBiasLeakyReLU.apply(conv(images), bias).pow(2).mean()
loss.backward()
expected = torch.autograd.grad(
    F.leaky_relu(conv(images) + bias.view(1, -1, 1, 1), 0.2).pow(2).mean(), bias
)[0]
print("bias.grad shape:", tuple(bias.grad.shape))
print("same as autograd's own:", torch.allclose(bias.grad, expected))
# --8<-- [end:fix]

# --8<-- [start:gradcheck]
x = torch.randn(2, 3, 4, 4, dtype=torch.float64, requires_grad=True)
b = torch.randn(3, dtype=torch.float64, requires_grad=True)
print("gradcheck:", torch.autograd.gradcheck(FixedBiasLeakyReLU.apply, (x, b)))
# --8<-- [end:gradcheck]
