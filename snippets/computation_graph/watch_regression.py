"""This chapter's regression loss, backpropagated and recorded step by step."""
import torch
from autograd_steps import step_through

torch.manual_seed(0)
x = torch.randn(4, 3)
target = torch.randn(4, 1)
w = torch.randn(3, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)

with torch.autograd.set_detect_anomaly(True, check_nan=False):
    prediction = torch.tanh(x @ w + b)
    loss = ((prediction - target) ** 2).sum()
step_through(loss)
print(w.grad.flatten())
print(b.grad)
