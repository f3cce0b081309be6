"""An ELU that also returns which units are active: a float mask, marked
non-differentiable."""
import torch
from modern_elu import ELUFunction


class ELUWithMask(ELUFunction):
    @staticmethod
    def forward(z, alpha):
        return ELUFunction.forward(z, alpha), (z > 0).float()

    @staticmethod
    def setup_context(ctx, inputs, outputs):
        out, active = outputs
        ELUFunction.setup_context(ctx, inputs, out)
        ctx.mark_non_differentiable(active)

    @staticmethod
    def backward(ctx, grad_out, grad_active):  # one gradient per output
        return ELUFunction.backward(ctx, grad_out)


class ELUWithUnmarkedMask(ELUWithMask):
    @staticmethod
    def setup_context(ctx, inputs, outputs):
        ELUFunction.setup_context(ctx, inputs, outputs[0])


z = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
for function in (ELUWithMask, ELUWithUnmarkedMask):
    out, active = function.apply(z, 0.5)
    print(f"{function.__name__}: active.requires_grad={active.requires_grad}")
    try:
        active.sum().backward()
        print("  backward through the mask ran; z.grad:", z.grad)
    except RuntimeError as err:
        print(f"  RuntimeError: {err}")
print(f"fraction of active units: {active.mean().item():.3f}")
