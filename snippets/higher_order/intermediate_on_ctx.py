"""The counter-example: the local derivative computed in forward and kept
on ctx. First derivatives are right, second derivatives are not."""
import torch
from elu_with_jvp import ELUFunction, elu_derivative, elu_forward
from torch.autograd import gradcheck, gradgradcheck

# --8<-- [start:function]
class ELUKeepsLocalGrad(torch.autograd.Function):
    @staticmethod
    def forward(z, alpha):
        return elu_forward(z, alpha)

    @staticmethod
    def setup_context(ctx, inputs, output):
        z, alpha = inputs
        # Computed here, where autograd records nothing: a constant to it.
        ctx.local_grad = elu_derivative(z, alpha)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.local_grad, None
# --8<-- [end:function]


def wrong(z):
    return ELUKeepsLocalGrad.apply(z, 0.5)


def right(z):
    return ELUFunction.apply(z, 0.5)


# --8<-- [start:checks]
torch.manual_seed(0)
z64 = torch.randn(20, dtype=torch.float64, requires_grad=True)
print("gradcheck:", gradcheck(wrong, (z64,)))
try:
    gradgradcheck(wrong, (z64,))
except RuntimeError as err:  # GradcheckError is a RuntimeError
    print(f"{type(err).__name__}: {str(err).splitlines()[0].rstrip(',')}")
# --8<-- [end:checks]

# --8<-- [start:direct]
z = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
(first,) = torch.autograd.grad(wrong(z).sum(), z, create_graph=True)
try:
    torch.autograd.grad(first.sum(), z)
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:direct]

# --8<-- [start:silent]
def second_derivative(elu, z):
    """d/dz of the gradient of L = sum(ELU(z)^2) / 2, summed."""
    loss = (elu(z) ** 2).sum() / 2
    (first,) = torch.autograd.grad(loss, z, create_graph=True)
    (second,) = torch.autograd.grad(first.sum(), z)
    return second


print("kept on ctx:  ", second_derivative(wrong, z))
print("ELUFunction:  ", second_derivative(right, z))
print("composite ELU:", second_derivative(lambda z: elu_forward(z, 0.5), z))
# --8<-- [end:silent]

# --8<-- [start:saved]
class ELUSavesLocalGrad(ELUKeepsLocalGrad):
    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(elu_derivative(*inputs))  # still a constant

    @staticmethod
    def backward(ctx, grad_output):
        (local_grad,) = ctx.saved_tensors
        return grad_output * local_grad, None


saved = second_derivative(lambda z: ELUSavesLocalGrad.apply(z, 0.5), z)
print("saved for backward:", saved)
# --8<-- [end:saved]
