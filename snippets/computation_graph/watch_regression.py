"""This chapter's regression loss, backpropagated: the page shows each step."""
import torch

torch.manual_seed(0)
x = torch.randn(4, 3)
target = torch.randn(4, 1)
w = torch.randn(3, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)

prediction = torch.tanh(x @ w + b)
loss = ((prediction - target) ** 2).sum()
loss.backward()
print(w.grad.flatten())
print(b.grad)
