"""A per-sample loss with a Python if on a tensor, under vmap(grad(...))."""
import torch
from torch import nn
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)
model = nn.Linear(3, 1)
params = {name: p.detach() for name, p in model.named_parameters()}
inputs = torch.randn(6, 3)
targets = torch.randn(6, 1) * 2


def sample_loss(params, x, y):
    """A hand-written Huber loss of one sample."""
    error = (functional_call(model, params, (x,)) - y).abs().sum()
    if error < 1.0:
        return 0.5 * error**2
    return error - 0.5


# --8<-- [start:error]
try:
    grads = vmap(grad(sample_loss), in_dims=(None, 0, 0))(params, inputs, targets)
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]


# --8<-- [start:fix]
def fixed_sample_loss(params, x, y):
    """The same loss with both branches computed and torch.where choosing."""
    error = (functional_call(model, params, (x,)) - y).abs().sum()
    return torch.where(error < 1.0, 0.5 * error**2, error - 0.5)


grads = vmap(grad(fixed_sample_loss), in_dims=(None, 0, 0))(params, inputs, targets)
loop = torch.stack(
    [grad(sample_loss)(params, x, y)["weight"] for x, y in zip(inputs, targets)]
)
print(grads["weight"].squeeze(1))
print("same as a loop over samples:", torch.allclose(grads["weight"], loop))
# --8<-- [end:fix]
