"""Exercise: clipping the gradients before unscaling them."""
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
x = torch.randn(32, 16, device=device)
y = torch.randn(32, 1, device=device)

for unscale_first in (True, False):
    torch.manual_seed(1)
    model = nn.Linear(16, 1).to(device)
    before = model.weight.detach().clone()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler(device.type)
    with torch.autocast(device_type=device.type, dtype=torch.float16):
        loss = ((model(x) - y) ** 2).mean()
    scaler.scale(loss).backward()
    if unscale_first:
        scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    scaler.step(optimizer)
    moved = (model.weight.detach() - before).norm()
    print(f"unscale_ first: {unscale_first!s:5}  the weights moved by {moved:.2e}")
