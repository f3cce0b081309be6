"""scaler.unscale_() twice before one scaler.step(): clipping in a gradient
accumulation loop, two helpers that each unscale; and the fix."""
import torch
from torch import nn

torch.manual_seed(0)
x, y = torch.randn(32, 16), torch.randn(32, 1)
accumulate = 4  # four micro-batches of 8 make one step


def regressor():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))


def micro_batch_loss(model, micro_x, micro_y):
    with torch.autocast("cpu", dtype=torch.float16):
        prediction = model(micro_x)
    return nn.functional.mse_loss(prediction.float(), micro_y) / accumulate


# --8<-- [start:error]
model = regressor()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
try:
    for i, (micro_x, micro_y) in enumerate(zip(x.split(8), y.split(8)), 1):
        scaler.scale(micro_batch_loss(model, micro_x, micro_y)).backward()
        scaler.unscale_(optimizer)  # clipping after every backward
        nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        if i % accumulate == 0:
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
except RuntimeError as err:
    print(f"micro-batch {i}: RuntimeError: {err}")
# --8<-- [end:error]


# --8<-- [start:helpers]
def log_gradient_norm(scaler, optimizer, model):
    scaler.unscale_(optimizer)  # the true gradients, to log their norm
    norm = torch.cat([p.grad.flatten() for p in model.parameters()]).norm()
    print(f"gradient norm: {norm:.4f}")


def clip_gradients(scaler, optimizer, model):
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)


model = regressor()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
scaler.scale(micro_batch_loss(model, x, y) * accumulate).backward()  # the whole batch
log_gradient_norm(scaler, optimizer, model)
try:
    clip_gradients(scaler, optimizer, model)
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:helpers]

# --8<-- [start:fix]
model = regressor()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
for step in range(1, 4):
    total = 0.0
    for micro_x, micro_y in zip(x.split(8), y.split(8)):
        loss = micro_batch_loss(model, micro_x, micro_y)
        scaler.scale(loss).backward()  # only backward between the steps
        total += loss.item()
    scaler.unscale_(optimizer)  # once, after the last micro-batch
    norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
    print(f"step {step}: loss {total:.4f}  gradient norm before clipping {norm:.4f}")
# --8<-- [end:fix]
