"""torch.func.functional_call: a module called with a dict of parameters,
and per-sample gradients of an nn.Module with vmap(grad(...))."""
import torch
from modern_elu import ELUFunction
from torch import nn
from torch.func import functional_call, grad, vmap


class ELU(nn.Module):
    def forward(self, z):
        return ELUFunction.apply(z, 0.5)


# --8<-- [start:call]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), ELU(), nn.Linear(4, 1))
params = {name: p.detach() for name, p in model.named_parameters()}
print(list(params))

x = torch.randn(8, 3)
print("same as model(x):", torch.equal(functional_call(model, params, (x,)), model(x)))
zeroed = {**params, "2.bias": torch.zeros(1), "2.weight": torch.zeros(1, 4)}
print("with other parameters:", functional_call(model, zeroed, (x,))[:2].flatten())
print("the model's own are unchanged:",
      torch.equal(model[2].weight, params["2.weight"]))
# --8<-- [end:call]

# --8<-- [start:per_sample]
y = torch.randn(8, 1)


def sample_loss(params, x, y):
    """The squared error of one sample: x of shape (3,), y of shape (1,)."""
    prediction = functional_call(model, params, (x[None],))  # a batch of one
    return ((prediction - y) ** 2).sum()


per_sample = vmap(grad(sample_loss), in_dims=(None, 0, 0))(params, x, y)
print({name: tuple(g.shape) for name, g in per_sample.items()})


def loop_over_samples(model, x, y):
    """The same gradients with backward(), one sample at a time."""
    grads = {name: [] for name, _ in model.named_parameters()}
    for xi, yi in zip(x, y):
        model.zero_grad()
        ((model(xi[None]) - yi) ** 2).sum().backward()
        for name, p in model.named_parameters():
            grads[name].append(p.grad.clone())
    return {name: torch.stack(g) for name, g in grads.items()}


looped = loop_over_samples(model, x, y)
print("same as the loop:",
      all(torch.allclose(per_sample[n], looped[n], atol=1e-6) for n in params))
# --8<-- [end:per_sample]
