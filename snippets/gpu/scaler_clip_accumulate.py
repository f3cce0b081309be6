"""GradScaler with gradient clipping and with gradient accumulation."""
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
x = torch.randn(32, 16, device=device)
y = torch.randn(32, 1, device=device)


def total_norm(model):
    return torch.cat([p.grad.flatten() for p in model.parameters()]).norm().item()


# --8<-- [start:clip]
model = nn.Linear(16, 1).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler(device.type)
with torch.autocast(device_type=device.type, dtype=torch.float16):
    loss = ((model(x) - y) ** 2).mean()
scaler.scale(loss).backward()
print(f"norm of the scaled gradients:   {total_norm(model):10.4f}")
scaler.unscale_(optimizer)  # divide by the scale now, in place
norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
print(f"norm of the true gradients:     {norm:10.4f}")
print(f"norm after clipping:            {total_norm(model):10.4f}")
scaler.step(optimizer)  # knows they are unscaled: does not divide again
scaler.update()
# --8<-- [end:clip]

# --8<-- [start:accumulate]
torch.manual_seed(1)
model = nn.Linear(16, 1).to(device)
full = nn.Linear(16, 1).to(device)
full.load_state_dict(model.state_dict())
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler(device.type)
accumulate = 4  # four micro-batches of 8 make one step of 32
for micro_x, micro_y in zip(x.split(8), y.split(8)):
    with torch.autocast(device_type=device.type, dtype=torch.float16):
        loss = ((model(micro_x) - micro_y) ** 2).mean() / accumulate
    scaler.scale(loss).backward()  # adds into .grad, all at the same scale
scaler.unscale_(optimizer)
accumulated = model.weight.grad.clone()
scaler.step(optimizer)  # one step, one update of the scale
scaler.update()
optimizer.zero_grad()

((full(x) - y) ** 2).mean().backward()  # the whole batch at once, in float32
difference = (accumulated - full.weight.grad).abs().max()
print(f"largest difference from the full batch's gradient: {difference:.1e}")
# --8<-- [end:accumulate]
