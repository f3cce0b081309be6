"""Exercise: which tensors get a .grad, and which warn."""
import torch

a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0)
c = a * b
c.retain_grad()
d = c + a
d.backward()
print(a.grad, b.grad, c.grad)
print(d.grad)
