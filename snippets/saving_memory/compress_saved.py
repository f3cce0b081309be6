"""Store saved tensors in bfloat16 or float16: the bytes, and the gradient error."""
import torch
from compressed_saving import compressing_hooks
from deep_mlp import gradients, loss_of, make_batch, make_deep_mlp
from saved_bytes import SavedBytes

torch.manual_seed(0)
model = make_deep_mlp(depth=8)
x, labels = make_batch(batch=128)
exclude = [*model.parameters(), x, labels]
with SavedBytes(exclude=exclude) as plain:
    plain_loss = loss_of(model, x, labels)
plain_grads = gradients(model, plain_loss)

# --8<-- [start:compress]
def relative_error(grads, reference):
    """The largest |g - g_ref| / |g_ref| (Frobenius norms) over parameters."""
    return max(((g - r).norm() / r.norm()).item()
               for g, r in zip(grads, reference))


print(f"{'stored as':10}{'bytes':>12}{'x plain':>9}{'same loss':>11}"
      f"{'gradient error':>16}")
for dtype in (torch.bfloat16, torch.float16):
    pack, unpack = compressing_hooks(dtype, exclude=exclude)
    with SavedBytes(pack, unpack, exclude=exclude) as saved:
        loss = loss_of(model, x, labels)
    grads = gradients(model, loss)
    name = str(dtype).removeprefix("torch.")
    print(f"{name:10}{saved.nbytes():>12,}{saved.nbytes() / plain.nbytes():9.2f}"
          f"{str(torch.equal(loss, plain_loss)):>11}"
          f"{relative_error(grads, plain_grads):16.1e}")
# --8<-- [end:compress]

# --8<-- [start:roundoff]
for dtype in (torch.bfloat16, torch.float16):
    print(f"{str(dtype).removeprefix('torch.'):9} relative rounding error"
          f" at most {torch.finfo(dtype).eps / 2:.1e}")
# --8<-- [end:roundoff]
