"""What the deep MLP stores for backward, counted with SavedBytes."""
from collections import Counter

import torch
from deep_mlp import loss_of, make_batch, make_deep_mlp
from saved_bytes import SavedBytes

# --8<-- [start:count]
torch.manual_seed(0)
model = make_deep_mlp(depth=8)
x, labels = make_batch(batch=128)
parameters = list(model.parameters())
with SavedBytes(exclude=[*parameters, x, labels]) as saved:
    loss = loss_of(model, x, labels)

print(f"pack hook calls: {saved.packs}")
print(f"stored for backward, parameters and inputs not counted:"
      f" {len(saved.stored)} tensors, {saved.nbytes():,} bytes")
sizes = Counter(size for size, _ in saved.stored.values())
for size, count in sorted(sizes.items(), reverse=True):
    print(f"{count:5} x {size:>9,} bytes")
activation = x.shape[0] * 1024 * 4
print(f"one activation, 128 x 1024 float32: {activation:,} bytes")
parameter_bytes = sum(p.numel() * p.element_size() for p in parameters)
print(f"the parameters, for comparison: {parameter_bytes:,} bytes")
# --8<-- [end:count]
