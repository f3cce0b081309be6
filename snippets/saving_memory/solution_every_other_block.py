"""Exercise: checkpoint every other block; predict the bytes stored, then count them."""
import torch
from deep_mlp import gradients, loss_of, make_batch, make_deep_mlp
from saved_bytes import SavedBytes

torch.manual_seed(0)
model = make_deep_mlp(depth=8)
x, labels = make_batch(batch=128)
exclude = [*model.parameters(), x, labels]
with SavedBytes(exclude=exclude) as plain:
    plain_loss = loss_of(model, x, labels)
plain_grads = gradients(model, plain_loss)

# A checkpointed block still stores its input (checkpoint keeps it instead
# of the Linear), but no longer the ELU's input: one activation less.
every_other = range(1, len(model) - 1, 2)  # blocks 1, 3, 5, 7
activation = x.shape[0] * 1024 * 4  # bytes of one 128 x 1024 float32
predicted = plain.nbytes() - len(every_other) * activation

with SavedBytes(exclude=exclude) as saved:
    loss = loss_of(model, x, labels, checkpointed=every_other)
grads = gradients(model, loss)
print(f"predicted {predicted:,} bytes, counted {saved.nbytes():,} bytes")
print(f"{saved.nbytes() / plain.nbytes():.2f} x plain")
print("gradients identical to the plain model's:",
      all(torch.equal(g, p) for g, p in zip(grads, plain_grads)))
