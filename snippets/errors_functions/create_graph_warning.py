"""backward(create_graph=True) on parameters: the reference-cycle warning, the fix."""
import gc
import weakref

import torch
from torch import nn

torch.manual_seed(0)
inputs = torch.randn(32, 4)
targets = torch.randn(32, 1)


def make_model():
    """The same small model at each call."""
    torch.manual_seed(1)
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))


# --8<-- [start:warning]
def step_with_backward():
    """One step whose penalty is the squared norm of each p.grad; returns a weak
    reference to the model's first weight."""
    model = make_model()
    loss = nn.functional.mse_loss(model(inputs), targets)
    loss.backward(create_graph=True)
    penalty = sum((p.grad**2).sum() for p in model.parameters())
    print("penalty:", round(penalty.item(), 4))
    return weakref.ref(model[0].weight)


weight = step_with_backward()  # the step is over: nothing names the model any more
print("after the step:     ", "alive" if weight() is not None else "freed")
gc.collect()
print("after gc.collect(): ", "alive" if weight() is not None else "freed")
# --8<-- [end:warning]


# --8<-- [start:fix]
def train_with_autograd_grad(steps):
    """The same penalty from torch.autograd.grad, in a short training loop."""
    model = make_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(steps):
        loss = nn.functional.mse_loss(model(inputs), targets)
        grads = torch.autograd.grad(loss, model.parameters(), create_graph=True)
        penalty = sum((g**2).sum() for g in grads)
        optimizer.zero_grad()
        (loss + 0.1 * penalty).backward()
        optimizer.step()
        print(f"step {step}: loss {loss.item():.4f}, penalty {penalty.item():.4f}")
    return weakref.ref(model[0].weight)


weight = train_with_autograd_grad(3)
print("after training:", "alive" if weight() is not None else "freed")
# --8<-- [end:fix]
