"""A Function with setup_context under torch.vmap: it needs a vmap rule."""
import torch


class SoftClip(torch.autograd.Function):
    """limit * tanh(x / limit), with forward and setup_context split."""

    @staticmethod
    def forward(x, limit):
        return limit * torch.tanh(x / limit)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)
        ctx.limit = inputs[1]

    @staticmethod
    def backward(ctx, grad_out):
        (out,) = ctx.saved_tensors
        return grad_out * (1 - (out / ctx.limit) ** 2), None


def sample_loss(x):
    return SoftClip.apply(x, 3.0).pow(2).sum()


torch.manual_seed(0)
batch = torch.randn(4, 3) * 3

# --8<-- [start:error]
try:
    print(torch.vmap(torch.func.grad(sample_loss))(batch))
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]


# --8<-- [start:fix]
class BatchedSoftClip(SoftClip):
    """The same Function; vmap runs its forward and backward on batched tensors."""

    generate_vmap_rule = True


def fixed_sample_loss(x):
    return BatchedSoftClip.apply(x, 3.0).pow(2).sum()


per_sample = torch.vmap(torch.func.grad(fixed_sample_loss))(batch)
one_by_one = torch.stack([torch.func.grad(fixed_sample_loss)(x) for x in batch])
print(per_sample)
print("same as a loop over samples:", torch.allclose(per_sample, one_by_one))
# --8<-- [end:fix]
