"""Gradient norms per layer during training, and clip_grad_norm_ on a batch
that produces a large gradient."""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
x, y = torch.randn(32, 4), torch.randn(32, 1)

# --8<-- [start:monitor]
def layer_norms(model):
    """The norm of each parameter's gradient, by name."""
    return {name: p.grad.norm().item() for name, p in model.named_parameters()}


optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(1, 4):
    optimizer.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    print(f"step {step}:",
          "  ".join(f"{name} {norm:.3f}" for name, norm in layer_norms(model).items()))
    optimizer.step()
# --8<-- [end:monitor]

# --8<-- [start:spike]
outlier_y = y.clone()
outlier_y[0] = 1000.0  # one mislabelled sample
optimizer.zero_grad()
nn.functional.mse_loss(model(x), outlier_y).backward()
before = layer_norms(model)
print("before:", "  ".join(f"{name} {norm:.3f}" for name, norm in before.items()))
# --8<-- [end:spike]

# --8<-- [start:clip]
total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
print(f"total norm returned: {total:.3f}")
after = layer_norms(model)
print("after: ", "  ".join(f"{name} {norm:.3f}" for name, norm in after.items()))
total_after = torch.tensor(list(after.values())).norm()
print(f"total norm after: {total_after:.4f}")
# --8<-- [end:clip]
