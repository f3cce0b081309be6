"""torch.where picks values, but both branches are differentiated."""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(6, 5)  # attention scores over 5 positions
x = torch.randn(8, 6)
lengths = torch.tensor([5, 5, 3, 4, 5, 2, 5, 3])  # shorter sequences are padded
padding = torch.arange(5) >= lengths[:, None]
labels = torch.tensor([0, 0, 1, 1, 1, 0, 0, 1])  # class 2 has no sample in this batch

# --8<-- [start:error]
# An entropy bonus on attention weights; padded positions get probability 0
scores = model(x).masked_fill(padding, float("-inf"))
p = torch.softmax(scores, dim=1)
log_p = torch.where(p > 0, torch.log(p), 0.0)  # "0 * log 0 counts as 0"
entropy = -(p * log_p).sum(dim=1).mean()
entropy.backward()
print("entropy:", round(entropy.item(), 4))
print("NaN in model.weight.grad:", model.weight.grad.isnan().any().item())
# --8<-- [end:error]

# --8<-- [start:division]
# A per-class mean of the per-sample losses; 0 for a class absent from the batch
model.zero_grad()
per_sample = model(x).pow(2).mean(dim=1)
one_hot = nn.functional.one_hot(labels, num_classes=3).float()
sums, counts = per_sample @ one_hot, one_hot.sum(dim=0)
class_means = torch.where(counts > 0, sums / counts, 0.0)
class_means.sum().backward()
print("counts:", counts.tolist(), " class means:", class_means.detach())
print("NaN in model.weight.grad:", model.weight.grad.isnan().any().item())
# --8<-- [end:division]

# --8<-- [start:fix]
model.zero_grad()
scores = model(x).masked_fill(padding, float("-inf"))
p = torch.softmax(scores, dim=1)
safe_p = torch.where(p > 0, p, 1.0)  # log only ever sees positive numbers
log_p = torch.where(p > 0, torch.log(safe_p), 0.0)
entropy = -(p * log_p).sum(dim=1).mean()
entropy.backward()
print("entropy:", round(entropy.item(), 4))
print("NaN in model.weight.grad:", model.weight.grad.isnan().any().item(),
      " grad norm:", round(model.weight.grad.norm().item(), 4))
# --8<-- [end:fix]

# --8<-- [start:fix_division]
model.zero_grad()
per_sample = model(x).pow(2).mean(dim=1)
sums, counts = per_sample @ one_hot, one_hot.sum(dim=0)
safe_counts = torch.where(counts > 0, counts, 1.0)  # never divide by 0
class_means = torch.where(counts > 0, sums / safe_counts, 0.0)
class_means.sum().backward()
print("class means:", class_means.detach())
print("NaN in model.weight.grad:", model.weight.grad.isnan().any().item(),
      " grad norm:", round(model.weight.grad.norm().item(), 4))
# --8<-- [end:fix_division]
