"""An optimizer given tensors that are results of operations, and the leaves that
fix it."""
import numpy as np
import torch

torch.manual_seed(0)
# an initial value from NumPy: float64
initial = np.random.default_rng(0).normal(size=3)
x = torch.randn(32, 3)
y = x @ torch.tensor([1.5, -2.0, 0.5]) + 0.3

# --8<-- [start:error]
weight = torch.tensor(initial, requires_grad=True).float()  # a float32 copy
scale = torch.randn(3, 3, requires_grad=True) * 0.01  # a product
for name, tensor in [("weight", weight), ("scale", scale)]:
    try:
        torch.optim.SGD([tensor], lr=0.1)
    except ValueError as err:
        print(f"{name}: ValueError: {err}")
# --8<-- [end:error]

# --8<-- [start:fix]
# The operations first, then requires_grad_(): the tensor kept is a leaf
weight = torch.tensor(initial).float().requires_grad_()
bias = torch.zeros(1, requires_grad=True)
optimizer = torch.optim.SGD([weight, bias], lr=0.1)
for step in range(3):
    optimizer.zero_grad()
    loss = ((x @ weight + bias - y) ** 2).mean()
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}")
# --8<-- [end:fix]
