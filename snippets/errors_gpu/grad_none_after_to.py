"""A learnable tensor made with requires_grad=True and then moved or converted is
a copy, not a leaf: its .grad stays None. On the CPU, .to("cpu") does not copy,
so .double() shows the same thing; the fixes; model.to() keeps leaves."""
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def regression_batch():
    """32 samples of 3 features and their targets, in float64 on the device."""
    features = torch.randn(32, 3, device=device, dtype=torch.float64)
    return features, torch.randn(32, device=device, dtype=torch.float64)


# --8<-- [start:error]
torch.manual_seed(0)
features, target = regression_batch()
w = torch.randn(3, requires_grad=True).to(device)  # the same tensor on the CPU
print(f"to({device.type!r}): is_leaf={w.is_leaf}")
w = torch.randn(3, requires_grad=True).to(torch.float64)  # a copy everywhere
print(f"to(float64): is_leaf={w.is_leaf}, grad_fn={w.grad_fn.name()}")
loss = ((features @ w - target) ** 2).mean()
loss.backward()
print("w.grad:", w.grad)
# --8<-- [end:error]

# --8<-- [start:fix]
torch.manual_seed(0)
features, target = regression_batch()
w = torch.randn(3, device=device, dtype=torch.float64, requires_grad=True)
v = torch.randn(3).to(device, torch.float64).requires_grad_()
loss = ((features @ w - target) ** 2).mean() + (v ** 2).sum()
loss.backward()
print(f"w: is_leaf={w.is_leaf}, grad {w.grad}")
print(f"v: is_leaf={v.is_leaf}, grad {v.grad}")
# --8<-- [end:fix]

# --8<-- [start:module]
torch.manual_seed(0)
features, target = regression_batch()
model = nn.Linear(3, 1)
weight = model.weight
model.to(device, torch.float64)  # converts each parameter in place
print("same Parameter:", model.weight is weight,
      " leaves:", all(p.is_leaf for p in model.parameters()))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)  # after the move
before = model.weight.detach().clone()
loss = ((model(features).squeeze(1) - target) ** 2).mean()
loss.backward()
optimizer.step()
print("weight.grad:", model.weight.grad)
print("weight moved by:", (model.weight - before).detach())
# --8<-- [end:module]
