"""A linear layer with a hand-written backward, the same layer made safe for
autocast with torch.amp.custom_fwd / custom_bwd, and a batch to train them on."""
import torch
from torch import autograd, nn


# --8<-- [start:function]
class LinearFunction(autograd.Function):
    @staticmethod
    def forward(ctx, input, weight, bias):
        ctx.save_for_backward(input, weight)
        return torch.addmm(bias, input, weight.T)  # under autocast: 16-bit

    @staticmethod
    def backward(ctx, grad_output):  # runs after the autocast region was left
        input, weight = ctx.saved_tensors
        grad_input = grad_output @ weight  # 16-bit @ float32
        grad_weight = grad_output.T @ input
        return grad_input, grad_weight, grad_output.sum(0)


class CustomLinear(nn.Linear):
    def forward(self, input):
        return LinearFunction.apply(input, self.weight, self.bias)
# --8<-- [end:function]


# --8<-- [start:amp]
class LinearFunctionAMP(LinearFunction):
    @staticmethod
    @torch.amp.custom_fwd(device_type="cpu")  # device_type="cuda" on a GPU
    def forward(ctx, input, weight, bias):
        return LinearFunction.forward(ctx, input, weight, bias)

    @staticmethod
    @torch.amp.custom_bwd(device_type="cpu")  # backward under forward's autocast
    def backward(ctx, grad_output):
        return LinearFunction.backward(ctx, grad_output)


class CustomLinearAMP(nn.Linear):
    def forward(self, input):
        return LinearFunctionAMP.apply(input, self.weight, self.bias)
# --8<-- [end:amp]


def classification_batch():
    """64 samples of 16 features, each labelled with one of 4 classes."""
    return torch.randn(64, 16), torch.randint(0, 4, (64,))
