"""The tiny engine on a small expression: a value used three times,
and a broadcast add."""
import torch

from tiny_autograd import Value, backward

x = Value(torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
b = Value(torch.tensor([10.0, 20.0, 30.0]))  # shape (3,): broadcast over the 2 rows
loss = (x * x + x * b).sum()
backward(loss)
print("x.grad:", x.grad, sep="\n")
print("b.grad:", b.grad)

# The same with PyTorch's autograd.
xt = x.data.clone().requires_grad_()
bt = b.data.clone().requires_grad_()
(xt * xt + xt * bt).sum().backward()
print("same as torch.autograd:",
      torch.equal(x.grad, xt.grad) and torch.equal(b.grad, bt.grad))
