"""Reverse mode gets the whole gradient of a scalar in one backward pass;
forward mode needs one pass per parameter."""
import torch
from torch.func import jvp

# --8<-- [start:setup]
torch.manual_seed(0)
n = 256
x = torch.randn(32, n)
target = torch.randn(32)


def loss_fn(w):
    return ((torch.tanh(x @ w) - target) ** 2).sum()


w = torch.randn(n) / n**0.5
# --8<-- [end:setup]

# --8<-- [start:reverse]
w_leaf = w.clone().requires_grad_()
loss_fn(w_leaf).backward()
reverse_grad = w_leaf.grad
print(f"reverse mode: 1 backward pass -> {reverse_grad.numel()} derivatives")
# --8<-- [end:reverse]

# --8<-- [start:forward]
forward_grad = torch.empty(n)
passes = 0
for i in range(n):
    direction = torch.zeros(n)
    direction[i] = 1.0  # e_i: how does the loss change when w[i] moves?
    _, forward_grad[i] = jvp(loss_fn, (w,), (direction,))
    passes += 1
print(f"forward mode: {passes} forward passes -> {n} derivatives")
same = torch.allclose(forward_grad, reverse_grad, rtol=1e-4, atol=1e-5)
print("same gradient:", same)
# --8<-- [end:forward]
