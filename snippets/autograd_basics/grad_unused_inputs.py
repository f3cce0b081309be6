"""torch.autograd.grad with an input the output does not use:
an error, None with allow_unused=True, zeros with materialize_grads=True."""
import torch

x = torch.ones(2, 2, requires_grad=True)
w = torch.ones(3, requires_grad=True)  # tracked, but out never uses it

# --8<-- [start:error]
out = (3 * (x + 2) ** 2).mean()
try:
    torch.autograd.grad(out, [x, w])
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:allow_unused]
out = (3 * (x + 2) ** 2).mean()
dout_dx, dout_dw = torch.autograd.grad(out, [x, w], allow_unused=True)
print(dout_dx)
print(dout_dw)
# --8<-- [end:allow_unused]

# --8<-- [start:materialize]
out = (3 * (x + 2) ** 2).mean()
dout_dx, dout_dw = torch.autograd.grad(out, [x, w], materialize_grads=True)
print(dout_dw)
# --8<-- [end:materialize]
