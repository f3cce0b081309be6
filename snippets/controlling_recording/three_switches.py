"""torch.no_grad(), torch.inference_mode() and torch.set_grad_enabled(False): what each records."""
import torch

# --8<-- [start:compare]
x = torch.ones(3, requires_grad=True)

with torch.no_grad():
    a = x * 2
with torch.inference_mode():
    b = x * 2
with torch.set_grad_enabled(False):
    c = x * 2

for name, t in [("no_grad", a), ("inference_mode", b), ("set_grad_enabled(False)", c)]:
    print(f"{name:24} requires_grad={t.requires_grad} grad_fn={t.grad_fn} is_inference={t.is_inference()}")
print(torch.is_grad_enabled(), torch.is_inference_mode_enabled())
# --8<-- [end:compare]

# --8<-- [start:version]
print(a._version)
a.add_(1)
print(a._version)
try:
    print(b._version)
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:version]
