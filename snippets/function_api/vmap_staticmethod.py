"""A custom Function batched by hand: the vmap staticmethod."""
import torch
from torch.func import grad, vmap

calls = []


# --8<-- [start:function]
class ELUBatched(torch.autograd.Function):
    @staticmethod
    def forward(z, alpha):
        return torch.where(z > 0, z, alpha * (torch.exp(z) - 1))

    @staticmethod
    def setup_context(ctx, inputs, output):
        z, alpha = inputs
        ctx.save_for_backward(z)
        ctx.alpha = alpha

    @staticmethod
    def backward(ctx, grad_output):
        (z,) = ctx.saved_tensors
        return grad_output * torch.where(z > 0, 1.0, ctx.alpha * torch.exp(z)), None

    @staticmethod
    def vmap(info, in_dims, z, alpha):
        """z arrives with its batch dimension at in_dims[0]; alpha unbatched (None)."""
        calls.append(f"batch {info.batch_size}, in_dims {in_dims}, z {tuple(z.shape)}")
        # Elementwise: the batched z is a valid input as it is, and the output's
        # batch dimension is where z's was.
        return ELUBatched.apply(z, alpha), in_dims[0]
# --8<-- [end:function]


# --8<-- [start:batched]
torch.manual_seed(0)
zs = torch.randn(4, 3)
columns = vmap(ELUBatched.apply, in_dims=(1, None))(zs, 0.5)  # map over the columns
print(columns.shape, torch.equal(columns, ELUBatched.apply(zs, 0.5).T))
rows = vmap(grad(lambda z: ELUBatched.apply(z, 0.5).sum()))(zs)  # gradient per row
print(torch.equal(rows, torch.where(zs > 0, 1.0, 0.5 * torch.exp(zs))))
print(*calls, sep="\n")
# --8<-- [end:batched]
