"""Activation checkpointing of every block: what it stores, what it recomputes."""
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

# --8<-- [start:checkpoint]
started, finished = [0], [0]  # forward passes of the blocks
for block in model[:-1]:
    block.register_forward_pre_hook(lambda *_: started.append(started.pop() + 1))
    block.register_forward_hook(lambda *_: finished.append(finished.pop() + 1))

every_block = range(len(model) - 1)  # the 8 blocks, not the head
with SavedBytes(exclude=exclude) as saved:
    loss = loss_of(model, x, labels, checkpointed=every_block)
print(f"stored: {len(saved.stored)} tensors, {saved.nbytes():,} bytes"
      f" ({saved.nbytes() / plain.nbytes():.2f} x plain)")
print(f"after forward:  {started[0]} block forwards started, {finished[0]} finished")
grads = gradients(model, loss)
print(f"after backward: {started[0]} block forwards started, {finished[0]} finished")
print("loss identical to the plain model's:", torch.equal(loss, plain_loss))
print("gradients identical to the plain model's:",
      all(torch.equal(g, p) for g, p in zip(grads, plain_grads)))
# --8<-- [end:checkpoint]
