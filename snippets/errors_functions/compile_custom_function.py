"""torch.compile(fullgraph=True) and a custom Function with a Python if on a tensor."""
import torch
from torch import nn


class ClipNorm(torch.autograd.Function):
    """Scales x down to norm `max_norm` when it is longer; the gradient passes as is."""

    @staticmethod
    def forward(ctx, x, max_norm):
        norm = x.norm()
        if norm > max_norm:  # a Python if on a tensor's value
            return x * (max_norm / norm)
        return x

    @staticmethod
    def backward(ctx, grad_out):
        return grad_out, None


torch.manual_seed(0)
model = nn.Linear(4, 4)
inputs = torch.randn(2, 4)


def loss_fn(x):
    return ClipNorm.apply(model(x), 1.0).pow(2).sum()


# --8<-- [start:error]
compiled = torch.compile(loss_fn, backend="eager", fullgraph=True)
try:
    compiled(inputs).backward()
except torch._dynamo.exc.Unsupported as err:
    first_lines = "\n".join(str(err).splitlines()[:3])  # the rest names file paths
    print(f"Unsupported: {first_lines}")
# --8<-- [end:error]


# --8<-- [start:fix]
class FixedClipNorm(torch.autograd.Function):
    """The same Function, with the choice made by tensor operations."""

    @staticmethod
    def forward(ctx, x, max_norm):
        return x * torch.clamp(max_norm / x.norm(), max=1.0)

    @staticmethod
    def backward(ctx, grad_out):
        return grad_out, None


def fixed_loss_fn(x):
    return FixedClipNorm.apply(model(x), 1.0).pow(2).sum()


compiled = torch.compile(fixed_loss_fn, backend="eager", fullgraph=True)
compiled(inputs).backward()
compiled_grad = model.weight.grad.clone()
model.zero_grad()
loss_fn(inputs).backward()  # the eager Function with its if
print("compiled loss:", round(compiled(inputs).item(), 4))
print("same gradient as eager:", torch.allclose(compiled_grad, model.weight.grad))
# --8<-- [end:fix]
