"""GradScaler skips optimizer.step() when the scaled gradients overflow, and the
learning-rate scheduler stepped after it warns."""
import torch
from torch import nn


def regression_batch():
    """256 samples of 20 features; the targets were never standardised."""
    x = torch.randn(256, 20)
    return x, 4 * torch.randn(256, 1)


# --8<-- [start:error]
torch.manual_seed(0)
x, y = regression_batch()
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
# warm-up: the learning rate climbs from 0.001 to 0.01 over 4 steps
scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1,
                                              total_iters=4)
scaler = torch.amp.GradScaler("cpu")  # GradScaler("cuda") on a GPU

for step in range(1, 5):
    optimizer.zero_grad()
    with torch.autocast("cpu", dtype=torch.float16):
        loss = nn.functional.mse_loss(model(x), y)
    scale, lr = scaler.get_scale(), scheduler.get_last_lr()[0]
    scaler.scale(loss).backward()
    finite = all(p.grad.isfinite().all() for p in model.parameters())
    before = model[0].weight.detach().clone()
    scaler.step(optimizer)  # skips optimizer.step() if a gradient is inf or NaN
    scaler.update()         # and then halves the scale
    scheduler.step()
    taken = not torch.equal(before, model[0].weight)
    print(f"step {step}: scale {scale:5.0f}  gradients "
          f"{'finite' if finite else 'inf   '}  lr {lr:.5f}  "
          f"{'taken' if taken else 'skipped'}  loss {loss.item():.2f}")
# --8<-- [end:error]
