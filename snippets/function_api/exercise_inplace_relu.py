"""Exercise: an in-place ReLU with mark_dirty, checked against torch.relu."""
import torch


class InPlaceReLU(torch.autograd.Function):
    @staticmethod
    def forward(z):
        return z.clamp_(min=0)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.mark_dirty(inputs[0])
        ctx.save_for_backward(output)  # out > 0 exactly where z > 0

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return grad_output * (out > 0)


torch.manual_seed(0)
x = torch.randn(6, requires_grad=True)
h = x * 3
out = InPlaceReLU.apply(h)
(ours,) = torch.autograd.grad(out.sum(), x)
(reference,) = torch.autograd.grad(torch.relu(x * 3).sum(), x)
print("out is h:", out is h, " h.grad_fn:", h.grad_fn.name())
print("same gradient as torch.relu:", torch.equal(ours, reference))
