"""`.to(device)` after requires_grad=True can make a non-leaf whose .grad
stays None; `.double()` does the same on any machine."""
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def describe(t):
    grad_fn = t.grad_fn.name() if t.grad_fn else None
    return f"is_leaf={t.is_leaf}, grad_fn={grad_fn}"


torch.manual_seed(0)
# --8<-- [start:to_device]
w = torch.randn(3, requires_grad=True).to(device)
print(f"to({device.type!r}): {describe(w)}")
# --8<-- [end:to_device]

# --8<-- [start:double]
w = torch.randn(3, requires_grad=True).double()
print(f"double(): {describe(w)}")
w.sum().backward()
print(w.grad)
# --8<-- [end:double]

# --8<-- [start:fix]
w = torch.randn(3, dtype=torch.float64, device=device, requires_grad=True)
v = torch.randn(3).to(device, torch.float64).requires_grad_()
print(describe(w))
print(describe(v))
(w * v).sum().backward()
print(w.grad is not None, v.grad is not None)
# --8<-- [end:fix]
