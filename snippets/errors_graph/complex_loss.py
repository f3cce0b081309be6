"""A loss computed on Fourier coefficients and left complex."""
import torch
from torch import nn

torch.manual_seed(0)
t = torch.linspace(0, 1, 64)
inputs = torch.randn(32, 64)
targets = torch.sin(2 * torch.pi * 4 * t) + 0.5 * inputs  # signals to predict


def make_model():
    torch.manual_seed(0)
    return nn.Linear(64, 64)


# --8<-- [start:error]
model = make_model()
prediction = model(inputs)
difference = torch.fft.rfft(prediction) - torch.fft.rfft(targets)
loss = (difference**2).mean()  # complex: the square of a complex number
print("loss:", loss.dtype, loss.shape)
try:
    loss.backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:real_part]
print("real part of the squares, min:", round((difference**2).real.min().item(), 4))
# --8<-- [end:real_part]

# --8<-- [start:fix]
model = make_model()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(61):
    optimizer.zero_grad()
    difference = torch.fft.rfft(model(inputs)) - torch.fft.rfft(targets)
    loss = difference.abs().pow(2).mean()  # |z|^2: real, and zero only when equal
    loss.backward()
    optimizer.step()
    if step % 20 == 0:
        print(f"step {step:2d}: loss {loss.item():.4f} ({loss.dtype})")
# --8<-- [end:fix]
