"""The first gradient again, recorded as PyTorch's engine runs backward."""
import torch
from autograd_steps import step_through

# In anomaly mode each node made in this block remembers the line that made it.
with torch.autograd.set_detect_anomaly(True, check_nan=False):
    x = torch.ones(2, 2, requires_grad=True)
    y = x + 2
    z = 3 * y**2
    out = z.mean()
step_through(out)  # runs out.backward() and records each step of it
print(x.grad)
