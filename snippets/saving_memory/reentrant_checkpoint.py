"""The reentrant checkpoint: what it needs, what it refuses, what it recomputes."""
import torch
from deep_mlp import gradients, loss_of, make_batch, make_deep_mlp
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
model = make_deep_mlp(depth=8)
x, labels = make_batch(batch=128)
plain_grads = gradients(model, loss_of(model, x, labels))


def reentrant_loss(x):
    """Every block under the reentrant checkpoint."""
    h = x
    for block in model[:-1]:
        h = checkpoint(block, h, use_reentrant=True)
    return torch.nn.functional.cross_entropy(model[-1](h), labels)


# --8<-- [start:needs_grad]
model.zero_grad()
reentrant_loss(x).backward()  # x, the batch, does not require grad
print("parameters with a gradient:",
      sum(p.grad is not None for p in model.parameters()), "of",
      len(list(model.parameters())))

model.zero_grad()
reentrant_loss(x.clone().requires_grad_()).backward()
print("with an input that requires grad:",
      all(torch.equal(p.grad, g) for p, g in zip(model.parameters(), plain_grads)))
# --8<-- [end:needs_grad]

# --8<-- [start:autograd_grad]
inputs = x.clone().requires_grad_()
try:
    torch.autograd.grad(reentrant_loss(inputs), inputs)
except RuntimeError as error:
    print("RuntimeError:", error)
# --8<-- [end:autograd_grad]

# --8<-- [start:recompute]
started, finished = [0], [0]
for block in model[:-1]:
    block.register_forward_pre_hook(lambda *_: started.append(started.pop() + 1))
    block.register_forward_hook(lambda *_: finished.append(finished.pop() + 1))
model.zero_grad()
reentrant_loss(x.clone().requires_grad_()).backward()
print(f"block forwards: {started[0]} started, {finished[0]} finished")
# --8<-- [end:recompute]

# --8<-- [start:default]
h = checkpoint(model[0], x)  # use_reentrant not given
print("requires grad:", h.requires_grad)
# --8<-- [end:default]
