"""Loss scaling for float16: a small gradient flushed to 0, kept by scaling
the loss, and torch.amp.GradScaler doing it for training steps."""
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

# --8<-- [start:range]
print("largest float16:  ", torch.finfo(torch.float16).max)
print("smallest float16: ", torch.tensor(2.0**-24, dtype=torch.float16).item())
print("4e-8 in float16:  ", torch.tensor(4e-8, dtype=torch.float16).item())
print("2.9e-8 in float16:", torch.tensor(2.9e-8, dtype=torch.float16).item())
print("1e-8 in float16:  ", torch.tensor(1e-8, dtype=torch.float16).item())
# --8<-- [end:range]

# --8<-- [start:underflow]
h = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float16, device=device,
                 requires_grad=True)
small = torch.tensor(1e-4, dtype=torch.float16, device=device)


def float32_loss(h):
    y = h * small                  # float16, like a layer's output under autocast
    return y.float().sum() * 1e-4  # the loss in float32, like autocast's losses


float32_loss(h).backward()  # d loss / d h = 1e-4 * 1e-4 = 1e-8
print("gradient in float16:", h.grad)
# --8<-- [end:underflow]

# --8<-- [start:scaled]
scale = 2.0**16
h.grad = None
(float32_loss(h) * scale).backward()  # every gradient is 65536 times larger
print("scaled gradient:    ", h.grad)
print("unscaled in float32:", h.grad.float() / scale)
# --8<-- [end:scaled]

# --8<-- [start:scaler]
torch.manual_seed(0)
model = nn.Linear(64, 1).to(device)  # float32 parameters
x = torch.randn(64, 64, device=device)
y = torch.randn(64, 1, device=device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
# growth_interval: double the scale after this many steps without an inf (default 2000)
scaler = torch.amp.GradScaler(device.type, growth_interval=3)

for step in range(1, 9):
    optimizer.zero_grad()
    with torch.autocast(device_type=device.type, dtype=torch.float16):
        loss = ((model(x) - y) ** 2).mean()  # float16 matmul, float32 loss
    current = scaler.get_scale()
    scaler.scale(loss).backward()  # backward of loss * scale
    before = model.weight.detach().clone()
    scaler.step(optimizer)  # unscale; step only if every gradient is finite
    scaler.update()         # halve the scale after an inf; double it after 3 good steps
    taken = not torch.equal(before, model.weight)
    print(f"step {step}: loss {loss.item():.4f}  scale {current:7.0f}  "
          f"step {'taken' if taken else 'skipped'}")
# --8<-- [end:scaler]
