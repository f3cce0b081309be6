"""model.eval() changes what layers compute; torch.no_grad() changes what autograd
records. Neither does the other's job."""
import torch
from torch import nn

# --8<-- [start:dropout]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(p=0.5))
x = torch.ones(1, 4)

for mode in ("train", "eval"):
    model.train(mode == "train")
    for recording in (True, False):
        # the same dropout mask for both rows of a mode
        torch.manual_seed(1)
        with torch.set_grad_enabled(recording):
            out = model(x)
        grad_fn = out.grad_fn.name() if out.grad_fn else None
        print(f"{mode:5} recording={recording!s:5} zeros={(out == 0).sum().item()} "
              f"grad_fn={grad_fn}")
# --8<-- [end:dropout]

# --8<-- [start:batchnorm]
torch.manual_seed(0)
bn = nn.BatchNorm1d(3)
batch = torch.randn(8, 3) * 5 + 10

with torch.no_grad():                         # train mode, not recording
    bn(batch)
print(bn.num_batches_tracked.item(), bn.running_mean)

bn.eval()                                     # eval mode, recording
out = bn(batch)
print(bn.num_batches_tracked.item(), bn.running_mean, out.grad_fn.name())
# normalised with the running statistics, not the batch's
print(out.mean(dim=0))
# --8<-- [end:batchnorm]
