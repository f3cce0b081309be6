"""save_on_cpu: what its hooks do, and what they do on a CPU-only machine."""
import torch
from deep_mlp import gradients, loss_of, make_batch, make_deep_mlp
from saved_bytes import SavedBytes

# --8<-- [start:hooks]
offload = torch.autograd.graph.save_on_cpu(pin_memory=False)
t = torch.randn(1024, 1024)
device, stored = offload.pack_hook(t)  # what autograd keeps instead of t
print("stored on:", stored.device, "| the same tensor as t:", stored is t)
print("unpacked back to:", device,
      "| still t:", offload.unpack_hook((device, stored)) is t)
# --8<-- [end:hooks]

torch.manual_seed(0)
model = make_deep_mlp(depth=8)
x, labels = make_batch(batch=128)
exclude = [*model.parameters(), x, labels]
with SavedBytes(exclude=exclude) as plain:
    plain_loss = loss_of(model, x, labels)
plain_grads = gradients(model, plain_loss)

# --8<-- [start:model]
offload = torch.autograd.graph.save_on_cpu(pin_memory=False)
with SavedBytes(offload.pack_hook, offload.unpack_hook, exclude=exclude) as saved:
    loss = loss_of(model, x, labels)
for device in ("cpu", "cuda"):
    print(f"stored on {device}: {saved.nbytes(device):,} bytes")
print(f"plain model, for comparison: {plain.nbytes():,} bytes")
grads = gradients(model, loss)
print("gradients identical to the plain model's:",
      all(torch.equal(g, p) for g, p in zip(grads, plain_grads)))
# --8<-- [end:model]
