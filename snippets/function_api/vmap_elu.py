"""torch.vmap through the custom ELU: refused without a vmap rule, batched
with generate_vmap_rule=True, and per-sample gradients of a tiny network."""
import torch
from modern_elu import ELUFunction
from torch.func import grad, vmap

# --8<-- [start:no_rule]
class ELUWithoutVmapRule(ELUFunction):
    generate_vmap_rule = False


rows = torch.tensor([[-1.0, 0.5], [2.0, -3.0], [0.0, 1.5]])
try:
    vmap(lambda row: ELUWithoutVmapRule.apply(row, 0.5))(rows)
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:no_rule]

# --8<-- [start:batched]
per_row = vmap(lambda row: ELUFunction.apply(row, 0.5))(rows)
print(per_row)
print("same as one call on the batch:",
      torch.equal(per_row, ELUFunction.apply(rows, 0.5)))
# --8<-- [end:batched]

# --8<-- [start:per_sample]
torch.manual_seed(0)
params = {"w1": torch.randn(4, 3), "w2": torch.randn(4)}
xs, ys = torch.randn(8, 3), torch.randn(8)  # 8 samples


def loss(params, x, y):
    """Squared error of one sample x (3 numbers) with target y."""
    h = ELUFunction.apply(params["w1"] @ x, 0.5)
    return (params["w2"] @ h - y) ** 2


# grad differentiates with respect to params; vmap maps over samples.
per_sample = vmap(grad(loss), in_dims=(None, 0, 0))(params, xs, ys)
print({name: tuple(g.shape) for name, g in per_sample.items()})

loop = [grad(loss)(params, x, y) for x, y in zip(xs, ys)]
print("same as a loop over samples:", all(
    torch.allclose(per_sample[name][i], loop[i][name])
    for i in range(8) for name in params))
# --8<-- [end:per_sample]
