"""Exercise: y.sum().backward() is y.backward(ones)."""
import torch

x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)

torch.log(x).sum().backward()
by_sum = x.grad
x.grad = None
torch.log(x).backward(torch.ones(2, 3))
print(by_sum)
print(torch.equal(x.grad, by_sum))
