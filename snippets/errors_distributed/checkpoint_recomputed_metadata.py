"""A checkpointed forward that changes state it reads: the recomputation in
backward sees other shapes. A cache that grows, a counter that steps twice;
and the fix."""
import torch
from torch import nn
from torch.utils.checkpoint import CheckpointError, checkpoint


class CachedAttention(nn.Module):
    """Attention over the keys of every call so far, kept in a cache."""

    def __init__(self, use_cache):
        super().__init__()
        torch.manual_seed(0)
        self.key, self.value = nn.Linear(8, 8), nn.Linear(8, 8)
        self.use_cache, self.cache = use_cache, None

    def forward(self, x):
        keys, values = self.key(x), self.value(x)
        if self.use_cache:
            if self.cache is not None:
                keys = torch.cat([self.cache[0], keys], dim=1)
                values = torch.cat([self.cache[1], values], dim=1)
            self.cache = (keys, values)
        weights = torch.softmax(x @ keys.transpose(1, 2) / 8**0.5, dim=-1)
        return weights @ values


torch.manual_seed(1)
x = torch.randn(2, 5, 8, requires_grad=True)

# --8<-- [start:error]
layer = CachedAttention(use_cache=True)
out = checkpoint(layer, x, use_reentrant=False)
try:
    out.square().mean().backward()
except CheckpointError as err:
    print(f"torch.utils.checkpoint.CheckpointError: {err}")
# --8<-- [end:error]


# --8<-- [start:counter]
class ShortThenLong(nn.Module):
    """Trains on the first half of each sequence for its first `warmup` calls."""

    def __init__(self, warmup):
        super().__init__()
        torch.manual_seed(0)
        self.layer, self.warmup, self.calls = nn.Linear(8, 8), warmup, 0

    def forward(self, x):
        self.calls += 1
        if self.calls <= self.warmup:
            x = x[:, : x.shape[1] // 2]
        return self.layer(x)


model = ShortThenLong(warmup=3)
for step in range(1, 4):
    try:
        checkpoint(model, x, use_reentrant=False).square().mean().backward()
        print(f"step {step}: calls so far {model.calls}")
    except CheckpointError as err:
        print(f"step {step}: CheckpointError: {str(err).splitlines()[0]}")
        break
# --8<-- [end:counter]

# --8<-- [start:fix]
def input_gradient(layer, use_checkpoint):
    x.grad = None
    out = checkpoint(layer, x, use_reentrant=False) if use_checkpoint else layer(x)
    out.square().mean().backward()
    return x.grad


plain = input_gradient(CachedAttention(use_cache=False), use_checkpoint=False)
checkpointed = input_gradient(CachedAttention(use_cache=False), use_checkpoint=True)
print("no cache in training, checkpointed: same gradient as without checkpoint:",
      torch.equal(plain, checkpointed))
# --8<-- [end:fix]

# --8<-- [start:fix_counter]
class ShortThenLongByStep(ShortThenLong):
    def forward(self, x, step):  # the training loop says which step it is
        if step <= self.warmup:
            x = x[:, : x.shape[1] // 2]
        return self.layer(x)


model = ShortThenLongByStep(warmup=3)
for step in range(1, 6):
    out = checkpoint(model, x, step, use_reentrant=False)
    out.square().mean().backward()
    print(f"step {step}: output {tuple(out.shape)}")
# --8<-- [end:fix_counter]
