"""Tensor.register_post_accumulate_grad_hook: an optimizer step per parameter,
during backward, as soon as each .grad is complete."""
import copy

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
reference = copy.deepcopy(model)  # the same weights, trained the usual way
x, y = torch.randn(8, 3), torch.randn(8, 1)

# --8<-- [start:step_in_backward]
names = {p: name for name, p in model.named_parameters()}
lr = 0.1


def sgd_step(param):
    # Runs once param.grad holds its complete gradient for this backward pass.
    print(f"{names[param]:8} .grad filled, norm {param.grad.norm():.4f}")
    with torch.no_grad():
        param.add_(param.grad, alpha=-lr)  # what SGD does: p <- p - lr * grad
    param.grad = None  # this gradient is no longer needed: free it now


for param in model.parameters():
    param.register_post_accumulate_grad_hook(sgd_step)

loss = nn.functional.mse_loss(model(x), y)
loss.backward()
print("grads left after backward:", [p.grad for p in model.parameters()])
# --8<-- [end:step_in_backward]

# --8<-- [start:same]
optimizer = torch.optim.SGD(reference.parameters(), lr=lr)
nn.functional.mse_loss(reference(x), y).backward()
optimizer.step()
print("same weights as optimizer.step():", all(
    torch.equal(p, q) for p, q in zip(model.parameters(), reference.parameters())))
# --8<-- [end:same]
