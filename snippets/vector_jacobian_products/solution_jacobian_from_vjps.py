"""Exercise: the full Jacobian, one row per VJP with a one-hot v."""
import torch
from torch.autograd.functional import jacobian

from three_outputs import f

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = f(x)
rows = []
for e in torch.eye(3):  # e = (1, 0, 0), (0, 1, 0), (0, 0, 1)
    (row,) = torch.autograd.grad(y, x, grad_outputs=e, retain_graph=True)
    rows.append(row)
J = torch.stack(rows)
print(J)
print(torch.equal(J, jacobian(f, x)))
