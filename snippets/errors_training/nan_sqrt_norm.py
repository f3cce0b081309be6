"""A distance between embeddings as a loss: sqrt at 0 has no finite slope."""
import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
encoder = nn.Linear(8, 4)
images = torch.randn(4, 8)
# Positive pairs: each image and a slightly changed view of it; the first
# pair is the same image twice (a duplicate in the batch)
views = images + 0.1 * torch.randn(4, 8)
views[0] = images[0]

# --8<-- [start:error]
anchors, positives = encoder(images), encoder(views)
distance = torch.sqrt(((anchors - positives) ** 2).sum(dim=1))
loss = distance.mean()  # pull each positive pair together
loss.backward()
print("distances:", distance.detach())
print(f"loss: {loss.item():.5f}")
print("NaN entries in encoder.weight.grad:",
      encoder.weight.grad.isnan().sum().item(), "of", encoder.weight.grad.numel())
# --8<-- [end:error]

# --8<-- [start:which]
distances = {
    "torch.sqrt((d**2).sum(1))": lambda d: torch.sqrt((d**2).sum(dim=1)),
    "(d**2).sum(1) ** 0.5": lambda d: (d**2).sum(dim=1) ** 0.5,
    "d.norm(dim=1)": lambda d: d.norm(dim=1),
    "torch.linalg.vector_norm": lambda d: torch.linalg.vector_norm(d, dim=1),
    "F.pairwise_distance": lambda d: F.pairwise_distance(d, torch.zeros_like(d)),
    "torch.sqrt((d**2).sum(1) + eps)": lambda d: torch.sqrt((d**2).sum(dim=1) + 1e-12),
}
d = torch.zeros(1, 4, requires_grad=True)  # two equal embeddings: difference 0
for name, distance_of in distances.items():
    (grad,) = torch.autograd.grad(distance_of(d).sum(), d)
    print(f"{name:32} value {distance_of(d).item():.1e}  gradient {grad[0].tolist()}")
# --8<-- [end:which]

# --8<-- [start:fix]
optimizer = torch.optim.SGD(encoder.parameters(), lr=0.5)
for step in range(3):
    optimizer.zero_grad()
    anchors, positives = encoder(images), encoder(views)
    distance = torch.linalg.vector_norm(anchors - positives, dim=1)  # gradient 0 at 0
    loss = distance.mean()
    loss.backward()
    print(f"step {step}: loss {loss.item():.5f}  NaN in grad: "
          f"{encoder.weight.grad.isnan().any().item()}  "
          f"grad norm {encoder.weight.grad.norm().item():.4f}")
    optimizer.step()
# --8<-- [end:fix]
