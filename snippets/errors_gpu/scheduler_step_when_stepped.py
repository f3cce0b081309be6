"""Step the learning-rate scheduler only when GradScaler let optimizer.step() run:
the scale was not halved."""
import torch
from torch import nn


def regression_batch():
    """256 samples of 20 features; the targets were never standardised."""
    x = torch.randn(256, 20)
    return x, 4 * torch.randn(256, 1)


# --8<-- [start:fix]
torch.manual_seed(0)
x, y = regression_batch()
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1,
                                              total_iters=4)
scaler = torch.amp.GradScaler("cpu")

for step in range(1, 6):
    optimizer.zero_grad()
    with torch.autocast("cpu", dtype=torch.float16):
        loss = nn.functional.mse_loss(model(x), y)
    lr = scheduler.get_last_lr()[0]
    scale = scaler.get_scale()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    stepped = scaler.get_scale() >= scale  # halved only after a skipped step
    if stepped:
        scheduler.step()
    print(f"step {step}: scale {scale:5.0f}  lr {lr:.5f}  "
          f"{'taken' if stepped else 'skipped'}  loss {loss.item():.2f}")
# --8<-- [end:fix]
