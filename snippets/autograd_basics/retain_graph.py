"""A second backward() through the same graph fails unless the first one kept it."""
import torch

# --8<-- [start:twice]
x = torch.ones(2, 2, requires_grad=True)
out = (3 * (x + 2) ** 2).mean()
out.backward()
try:
    out.backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:twice]

# --8<-- [start:retain]
x.grad = None
out = (3 * (x + 2) ** 2).mean()
out.backward(retain_graph=True)
out.backward()
print(x.grad)
# --8<-- [end:retain]
