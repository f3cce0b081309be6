"""A NumPy function called inside torch.func transforms, and the same function wrapped
in an autograd.Function that the transforms can see through."""
import numpy as np
import torch
from torch.func import grad, vmap

torch.manual_seed(0)
KNOTS = np.linspace(-3.0, 3.0, 13)
VALUES = np.tanh(KNOTS)  # a response curve known at 13 points
weight = torch.randn(4, dtype=torch.float64)
inputs = torch.randn(6, 4, dtype=torch.float64)
targets = torch.rand(6, dtype=torch.float64) - 0.5


# --8<-- [start:error]
def response(z):
    """The curve between its knots, computed by NumPy."""
    return torch.from_numpy(np.interp(z.detach().numpy(), KNOTS, VALUES))


try:
    vmap(response)(inputs @ weight)
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]


# --8<-- [start:grad]
def sample_loss(weight, x, y):
    return (response(x @ weight) - y) ** 2


try:
    grad(sample_loss)(weight, inputs[0], targets[0])
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:grad]

# --8<-- [start:numpy_requires_grad]
try:
    grad(lambda z: torch.from_numpy(np.interp(z.numpy(), KNOTS, VALUES)))(inputs[0, 0])
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:numpy_requires_grad]


# --8<-- [start:fix]
class Response(torch.autograd.Function):
    """np.interp with its derivative (the slope of the segment) and a vmap rule."""

    @staticmethod
    def forward(z):
        z_np = z.detach().cpu().numpy()
        out = np.interp(z_np, KNOTS, VALUES)
        segment = np.clip(np.searchsorted(KNOTS, z_np) - 1, 0, len(KNOTS) - 2)
        inside = (z_np > KNOTS[0]) & (z_np < KNOTS[-1])  # constant outside the knots
        slope = np.where(inside, (np.diff(VALUES) / np.diff(KNOTS))[segment], 0.0)
        return torch.as_tensor(out).to(z), torch.as_tensor(slope).to(z)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output[1])
        ctx.mark_non_differentiable(output[1])

    @staticmethod
    def backward(ctx, grad_out, grad_slope):
        (slope,) = ctx.saved_tensors
        return grad_out * slope

    @staticmethod
    def vmap(info, in_dims, z):
        # elementwise: NumPy can take the whole batch at once, batch dimension and all
        return Response.apply(z), (in_dims[0], in_dims[0])


def fixed_sample_loss(weight, x, y):
    return (Response.apply(x @ weight)[0] - y) ** 2


per_sample_grad = vmap(grad(fixed_sample_loss), in_dims=(None, 0, 0))
per_sample = per_sample_grad(weight, inputs, targets)
loop = []
for x, y in zip(inputs, targets):
    w = weight.clone().requires_grad_()
    fixed_sample_loss(w, x, y).backward()
    loop.append(w.grad)
print("per-sample gradients:", tuple(per_sample.shape))
print("same as a loop over samples:", torch.allclose(per_sample, torch.stack(loop)))
# --8<-- [end:fix]

# --8<-- [start:gradcheck]
z = torch.randn(8, dtype=torch.float64, requires_grad=True)
print("gradcheck:", torch.autograd.gradcheck(lambda z: Response.apply(z)[0], (z,)))
# --8<-- [end:gradcheck]
