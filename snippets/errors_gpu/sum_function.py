"""A hand-written sum whose backward makes its tensor of ones on the CPU, and
the same Function making it on the gradient's device."""
import torch
from torch import autograd


# --8<-- [start:function]
class SumAll(autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.input_shape = input.shape
        return input.sum()

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * torch.ones(ctx.input_shape)  # made on the CPU
# --8<-- [end:function]


# --8<-- [start:fixed]
class SumAllOnDevice(SumAll):
    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * torch.ones(ctx.input_shape, dtype=grad_output.dtype,
                                        device=grad_output.device)
# --8<-- [end:fixed]
