"""One NaN in the targets: GradScaler skips every step, halving its scale each
time, and the scheduler's warning appears once, at the first step."""
import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(256, 20)
y = 4 * torch.randn(256, 1)
y[17] = float("nan")  # one missing target in the data

# --8<-- [start:error]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1,
                                              total_iters=4)
scaler = torch.amp.GradScaler("cpu")
initial = [p.detach().clone() for p in model.parameters()]

for step in range(1, 31):
    optimizer.zero_grad()
    with torch.autocast("cpu", dtype=torch.float16):
        loss = nn.functional.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    scheduler.step()
    if step % 10 == 0:
        print(f"step {step}: loss {loss.item()}  scale {scaler.get_scale():.3g}")
unchanged = all(torch.equal(p, q) for p, q in zip(model.parameters(), initial))
print("parameters unchanged after 30 steps:", unchanged)
# --8<-- [end:error]
