"""Exercise: the hand-written backward pass against backward()."""
import torch
from backward_walker import my_backward

# The regression loss of this chapter
torch.manual_seed(0)
x, target = torch.randn(4, 3), torch.randn(4, 1)
w = torch.randn(3, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
loss = ((torch.tanh(x @ w + b) - target) ** 2).sum()

mine = my_backward(loss)  # first: backward() frees the saved tensors the nodes need
loss.backward()
print("w:", mine[w].flatten(), w.grad.flatten(), sep="\n   ")
print("b:", mine[b], b.grad)

# A value used twice: a feeds both the product and the exp
v = torch.tensor([0.5, -1.0], requires_grad=True)
a = v * 2
shared = (a * a.exp()).sum()
mine = my_backward(shared)
shared.backward()
print("used twice:", mine[v], v.grad)
