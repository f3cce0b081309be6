"""Switching recording back on inside no_grad, and forward-mode AD under each switch."""
import torch
import torch.autograd.forward_ad as fwAD

x = torch.tensor([1.0, 2.0], requires_grad=True)

# --8<-- [start:nested]
with torch.no_grad():
    a = x * 2
    with torch.enable_grad():
        b = x * 2
    c = x * 2
print(a.requires_grad, b.requires_grad, c.requires_grad)

with torch.inference_mode():
    with torch.enable_grad():
        d = x * 2
print(d.requires_grad, d.is_inference())
# --8<-- [end:nested]


# --8<-- [start:decorator]
@torch.enable_grad()
def squared_norm_gradient(v):
    """The gradient of |v|^2, also when called under no_grad."""
    v = v.detach().requires_grad_()
    (grad,) = torch.autograd.grad(v.pow(2).sum(), v)
    return grad


with torch.no_grad():
    print(squared_norm_gradient(x))
# --8<-- [end:decorator]

# --8<-- [start:forward_ad]
switches = {
    "no_grad": torch.no_grad,
    "set_grad_enabled(False)": lambda: torch.set_grad_enabled(False),
    "inference_mode": torch.inference_mode,
}
with fwAD.dual_level():
    dual = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.ones(2))
    for name, switch in switches.items():
        with switch():
            tangent = fwAD.unpack_dual(dual * 3).tangent
        print(f"{name:24} tangent of dual * 3: {tangent}")
# --8<-- [end:forward_ad]
