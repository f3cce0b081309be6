"""backward must return one gradient per input of forward, floats too."""
import torch
from elu import ELUFunction


class ELUForgetsAlpha(ELUFunction):
    @staticmethod
    def backward(ctx, grad_output):
        grad_z, _ = ELUFunction.backward(ctx, grad_output)
        return grad_z  # the None for alpha is missing


z = torch.tensor([-1.0, 2.0], requires_grad=True)
out = ELUForgetsAlpha.apply(z, 0.5).sum()
try:
    out.backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
