"""checkpoint() called without use_reentrant: the warning, and the fix."""
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

torch.manual_seed(0)
model = nn.Sequential(
    nn.Linear(8, 32), nn.ReLU(),
    nn.Linear(32, 32), nn.ReLU(),
    nn.Linear(32, 32), nn.ReLU(),
    nn.Linear(32, 2),
)
x, labels = torch.randn(16, 8), torch.randint(0, 2, (16,))
nn.functional.cross_entropy(model(x), labels).backward()
plain = model[2].weight.grad.clone()  # the gradient without checkpointing

# --8<-- [start:error]
h = model[:2](x)
h = checkpoint(model[2:6], h)  # the middle layers, recomputed in backward
loss = nn.functional.cross_entropy(model[6](h), labels)
# --8<-- [end:error]

# --8<-- [start:sequential]
h = model[:2](x)
output = checkpoint_sequential(model[2:], 2, h)  # two segments
# --8<-- [end:sequential]

# --8<-- [start:fix]
model.zero_grad()
h = model[:2](x)
h = checkpoint(model[2:6], h, use_reentrant=False)
loss = nn.functional.cross_entropy(model[6](h), labels)
loss.backward()
grad = model[2].weight.grad
print("weight gradient of model[2], norm:", round(grad.norm().item(), 4))
print("the same as without checkpoint:", torch.allclose(model[2].weight.grad, plain))
# --8<-- [end:fix]
