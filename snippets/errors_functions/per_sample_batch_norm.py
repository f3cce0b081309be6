"""Per-sample gradients with vmap(grad(...)) of a model with batch norm."""
import torch
from torch import nn
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(64, 3)
)
params = {name: p.detach() for name, p in model.named_parameters()}
buffers = {name: b.detach() for name, b in model.named_buffers()}
images = torch.randn(5, 1, 6, 6)
labels = torch.tensor([0, 2, 1, 1, 0])


def sample_loss(params, buffers, image, label):
    """The loss of one sample: vmap calls it with one image and one label."""
    logits = functional_call(model, (params, buffers), (image.unsqueeze(0),))
    return nn.functional.cross_entropy(logits, label.unsqueeze(0))


per_sample_grads = vmap(grad(sample_loss), in_dims=(None, None, 0, 0))

# --8<-- [start:error]
try:
    grads = per_sample_grads(params, buffers, images, labels)
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:fix]
model.eval()  # batch norm uses its running statistics and updates nothing
grads = per_sample_grads(params, buffers, images, labels)
print("per-sample gradient of the conv weight:", tuple(grads["0.weight"].shape))

loop = []
for image, label in zip(images, labels):
    model.zero_grad()
    nn.functional.cross_entropy(model(image[None]), label[None]).backward()
    loop.append(model[0].weight.grad.clone())
same = torch.allclose(grads["0.weight"], torch.stack(loop))
print("same as a loop over samples:", same)
# --8<-- [end:fix]

# --8<-- [start:per_sample_statistics]
model.train()
torch.func.replace_all_batch_norm_modules_(model)  # drops the running statistics
print(model[1])
grads = per_sample_grads(params, {}, images, labels)  # no buffers left to pass

loop = []
for image, label in zip(images, labels):
    model.zero_grad()
    nn.functional.cross_entropy(model(image[None]), label[None]).backward()
    loop.append(model[0].weight.grad.clone())
same = torch.allclose(grads["0.weight"], torch.stack(loop), atol=1e-6)
print("same as a loop over samples:", same)
# --8<-- [end:per_sample_statistics]
