"""GradReverse under torch.func: the reverse-mode transforms and vmap run it,
the forward-mode ones need a jvp it does not have."""
import torch
from grad_reverse import GradReverse
from torch.func import grad, jacfwd, jacrev, vmap

# --8<-- [start:transforms]
def reverse(x):
    return GradReverse.apply(x, 0.3)


x = torch.tensor([1.0, -2.0, 3.0])
print("grad:", grad(lambda x: reverse(x).sum())(x))
print("jacrev:", jacrev(reverse)(x), sep="\n")

rows = torch.tensor([[1.0, -2.0], [3.0, 0.5]])
weights = torch.tensor([[0.5, 1.0], [2.0, 4.0]])
print("vmap:", vmap(reverse)(rows), sep="\n")
per_row = vmap(grad(lambda x, w: (reverse(x) * w).sum()))(rows, weights)
print("vmap of grad:", per_row, sep="\n")

try:
    jacfwd(reverse)(x)
except NotImplementedError as err:
    print(f"NotImplementedError: {err}")
# --8<-- [end:transforms]
