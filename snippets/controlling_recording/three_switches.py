"""torch.no_grad(), torch.inference_mode() and torch.set_grad_enabled(False):
what each records."""
import torch
import torch.autograd.forward_ad as fwAD

# --8<-- [start:compare]
x = torch.ones(3, requires_grad=True)

with torch.no_grad():
    a = x * 2
with torch.inference_mode():
    b = x * 2
with torch.set_grad_enabled(False):
    c = x * 2

for name, t in [("no_grad", a), ("inference_mode", b), ("set_grad_enabled(False)", c)]:
    print(f"{name:24} requires_grad={t.requires_grad} grad_fn={t.grad_fn} "
          f"is_inference={t.is_inference()}")
print(torch.is_grad_enabled(), torch.is_inference_mode_enabled())
# --8<-- [end:compare]

# --8<-- [start:beyond_backward]
with fwAD.dual_level():
    dual = fwAD.make_dual(torch.ones(2), torch.ones(2))  # value [1, 1], tangent [1, 1]
    with torch.no_grad():
        no_grad_dual = dual * 3
    with torch.inference_mode():
        inference_dual = dual * 3
    print("tangent of dual * 3: no_grad", fwAD.unpack_dual(no_grad_dual).tangent,
          " inference_mode", fwAD.unpack_dual(inference_dual).tangent)

with torch.no_grad():
    base = torch.arange(4.0)  # a normal tensor
    view = base[:2]
with torch.inference_mode():
    inference_base = torch.arange(4.0)  # an inference tensor
    view_of_inference = inference_base[:2]
    view_of_normal = base[:2]
for mode, v, source in [("no_grad", view, base),
                        ("inference_mode", view_of_inference, inference_base),
                        ("inference_mode", view_of_normal, base)]:
    print(f"{mode:15} base is_inference={source.is_inference()!s:5} "
          f"view={v._is_view()!s:5} _base is base={v._base is source}")
# --8<-- [end:beyond_backward]

# --8<-- [start:version]
print(a._version)
a.add_(1)
print(a._version)
try:
    print(b._version)
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:version]
