"""A second backward() through the same graph fails unless the first one kept it,
or no node of the graph saved a tensor."""
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

# --8<-- [start:nothing_saved]
t = torch.ones(2, 2, requires_grad=True)
total = (t + 2).sum()
total.backward()
total.backward()  # no error: neither AddBackward0 nor SumBackward0 saved a tensor
print(t.grad)
# --8<-- [end:nothing_saved]
