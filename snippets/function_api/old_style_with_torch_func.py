"""torch.func refuses a Function whose forward takes ctx, and accepts the
same Function written with setup_context."""
import torch
from modern_elu import ELUFunction, elu_forward


class OldStyleELU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, z, alpha):  # ctx in forward, as in the last chapter
        ctx.save_for_backward(z)
        ctx.alpha = alpha
        return elu_forward(z, alpha)

    backward = staticmethod(ELUFunction.backward)  # the same backward


z = torch.tensor([-1.0, 0.5, 2.0])
try:
    torch.func.grad(lambda z: OldStyleELU.apply(z, 0.5).sum())(z)
except RuntimeError as err:
    print(f"RuntimeError: {err}")
print(torch.func.grad(lambda z: ELUFunction.apply(z, 0.5).sum())(z))
