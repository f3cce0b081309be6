"""The MLP of the custom-Functions chapter, shrunk, trained for a few steps twice
from the same weights and data: with the tiny engine and with PyTorch."""
import torch
from torch import nn

import tiny_autograd as tiny

# --8<-- [start:model]
torch.manual_seed(0)
alpha, lr, steps = 0.5, 0.5, 8
mlp = nn.Sequential(
    nn.Linear(8, 16), nn.ELU(alpha),
    nn.Linear(16, 16), nn.ELU(alpha),
    nn.Linear(16, 4), nn.Softmax(dim=1),
).double()
x = torch.randn(10, 8, dtype=torch.float64)
labels = torch.randint(0, 4, (10,))
targets = nn.functional.one_hot(labels, 4).double()


def brier(probabilities, targets):
    """Squared distance between the predicted probabilities and the one-hot labels."""
    return ((probabilities - targets) ** 2).sum(dim=1).mean()
# --8<-- [end:model]


# --8<-- [start:tiny]
# The same weights as leaves of the tiny engine; nn.Linear computes x @ W.T + b.
params = [tiny.Value(p.detach().T.clone() if p.dim() == 2 else p.detach().clone())
          for p in mlp.parameters()]


def tiny_mlp(x):
    w1, b1, w2, b2, w3, b3 = params
    h = tiny.elu(x @ w1 + b1, alpha)
    h = tiny.elu(h @ w2 + b2, alpha)
    e = (h @ w3 + b3).exp()
    return e / e.sum(dim=1, keepdim=True)  # softmax: exp, sum, pow -1, mul


tiny_losses = []
for step in range(steps):
    loss = brier(tiny_mlp(x), targets)
    tiny.backward(loss)
    for p in params:  # plain gradient descent, then clear .grad for the next step
        p.data -= lr * p.grad
        p.grad = None
    tiny_losses.append(loss.data.item())
# --8<-- [end:tiny]

# --8<-- [start:torch]
optimizer = torch.optim.SGD(mlp.parameters(), lr=lr)
torch_losses = []
for step in range(steps):
    loss = brier(mlp(x), targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    torch_losses.append(loss.item())

print("step  tiny engine          PyTorch              difference")
for step, (mine, theirs) in enumerate(zip(tiny_losses, torch_losses)):
    print(f"{step:4}  {mine:.15f}  {theirs:.15f}  {mine - theirs:+.1e}")
# --8<-- [end:torch]
