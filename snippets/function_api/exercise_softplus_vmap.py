"""Exercise: softplus in the PyTorch 2 style; its derivative at many points
with vmap(grad(...)), against the sigmoid."""
import torch
from torch.func import grad, jacrev, vmap


class Softplus(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(z):
        return z.clamp(min=0) + torch.log1p(torch.exp(-z.abs()))

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    @staticmethod
    def backward(ctx, grad_output):
        (z,) = ctx.saved_tensors
        return grad_output * torch.sigmoid(z)


z = torch.linspace(-4, 4, steps=9)
derivative = vmap(grad(Softplus.apply))(z)  # grad of each scalar z[i]
print(derivative)
print("equals sigmoid(z):", torch.allclose(derivative, torch.sigmoid(z)))
print("jacrev is diagonal:", torch.equal(
    jacrev(Softplus.apply)(z), torch.diag(derivative)))
