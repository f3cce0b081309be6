"""Indexing with a batched tensor under vmap: int() and .item() on the index, a slice
with tensor bounds, and indexing with the tensor itself."""
import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)
model = nn.Linear(5, 3)
params = {name: p.detach() for name, p in model.named_parameters()}
inputs = torch.randn(6, 5)
labels = torch.tensor([0, 2, 1, 1, 0, 2])
class_weights = torch.tensor([1.0, 2.0, 0.5])  # rarer classes weigh more


# --8<-- [start:error]
def sample_loss(params, x, label):
    logits = functional_call(model, params, (x,))
    weight = class_weights[int(label)]  # the label as a Python int
    return weight * F.cross_entropy(logits, label)


try:
    vmap(grad(sample_loss), in_dims=(None, 0, 0))(params, inputs, labels)
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]


# --8<-- [start:slice]
sequence = torch.randn(6, 10)
starts = torch.tensor([0, 3, 5, 1, 7, 2])


def window_mean(row, start):
    return row[start : start + 3].mean()  # the bounds of a slice become Python ints


try:
    vmap(window_mean)(sequence, starts)
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:slice]


# --8<-- [start:fix]
def fixed_sample_loss(params, x, label):
    logits = functional_call(model, params, (x,))
    weight = class_weights.gather(0, label.view(1))  # a 1-element index tensor
    return weight.squeeze(0) * F.cross_entropy(logits, label)


grads = vmap(grad(fixed_sample_loss), in_dims=(None, 0, 0))(params, inputs, labels)
loop = torch.stack(
    [grad(sample_loss)(params, x, y)["weight"] for x, y in zip(inputs, labels)]
)
print("per-sample gradients:", tuple(grads["weight"].shape))
print("same as a loop over samples:", torch.allclose(grads["weight"], loop))
# --8<-- [end:fix]


# --8<-- [start:fix_slice]
def fixed_window_mean(row, start):
    return row[start + torch.arange(3)].mean()  # the indices as a tensor


means = vmap(fixed_window_mean)(sequence, starts)
loop = torch.stack([window_mean(row, int(s)) for row, s in zip(sequence, starts)])
print("same as a loop over rows:", torch.allclose(means, loop))
# --8<-- [end:fix_slice]
