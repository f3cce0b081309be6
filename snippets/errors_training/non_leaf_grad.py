"""Reading .grad of a tensor autograd keeps no gradient for, and three fixes."""
import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(16, 3)
y = torch.randn(16, 3)

# --8<-- [start:error]
# A hand-made layer: a small random weight matrix, scaled after it was marked
w = torch.randn(3, 3, requires_grad=True) * 0.01
loss = ((x @ w - y) ** 2).mean()
loss.backward()
print("w.is_leaf:", w.is_leaf, " w.grad_fn:", w.grad_fn.name())
print("w.grad:", w.grad)
# --8<-- [end:error]

# --8<-- [start:activation]
model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 3))
hidden = model[1](model[0](x))  # the activation after the ReLU
loss = ((model[2](hidden) - y) ** 2).mean()
loss.backward()
print("hidden.grad:", hidden.grad)
# --8<-- [end:activation]

# --8<-- [start:fix_leaf]
# Scale first, then mark: the tensor you keep is the leaf
w = (torch.randn(3, 3) * 0.01).requires_grad_()
loss = ((x @ w - y) ** 2).mean()
loss.backward()
print("w.is_leaf:", w.is_leaf)
print("w.grad norm:", round(w.grad.norm().item(), 4))
# --8<-- [end:fix_leaf]

# --8<-- [start:retain_grad]
hidden = model[1](model[0](x))
hidden.retain_grad()  # before backward(): keep this tensor's gradient in .grad
loss = ((model[2](hidden) - y) ** 2).mean()
loss.backward()
print("hidden.grad shape:", tuple(hidden.grad.shape))
print("hidden.grad norm:", round(hidden.grad.norm().item(), 4))
# --8<-- [end:retain_grad]

# --8<-- [start:hook]
grads = {}
hidden = model[1](model[0](x))
hidden.register_hook(lambda grad: grads.update(hidden=grad))
loss = ((model[2](hidden) - y) ** 2).mean()
loss.backward()
print("gradient seen by the hook, norm:", round(grads["hidden"].norm().item(), 4))
# --8<-- [end:hook]
