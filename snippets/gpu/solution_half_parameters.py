"""Exercise: GradScaler with float16 parameters, and with float32 ones."""
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
x = torch.randn(64, 64, device=device)
y = torch.randn(64, 1, device=device)

for dtype in (torch.float16, torch.float32):
    model = nn.Linear(64, 1).to(device, dtype)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    scaler = torch.amp.GradScaler(device.type)
    with torch.autocast(device_type=device.type, dtype=torch.float16):
        loss = ((model(x) - y) ** 2).mean()
    scaler.scale(loss).backward()
    try:
        scaler.step(optimizer)
        print(f"{dtype} parameters: step done, gradients {model.weight.grad.dtype}")
    except ValueError as err:
        print(f"{dtype} parameters: ValueError: {err}")
