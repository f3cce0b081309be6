"""A backward that computes in place is recorded like any other:
its second derivative is right."""
import torch


class Cube(torch.autograd.Function):
    """x**3, whose backward scales a copy of the incoming gradient in place."""

    @staticmethod
    def forward(x):
        return x**3

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad.clone().mul_(3 * x**2)  # in place, on a tensor autograd records


x = torch.tensor([0.5, 1.0, 2.0], dtype=torch.float64, requires_grad=True)
(first,) = torch.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
(second,) = torch.autograd.grad(first.sum(), x)
print(first)   # 3 x**2
print(second)  # 6 x
print(torch.autograd.gradgradcheck(Cube.apply, (x,)))
