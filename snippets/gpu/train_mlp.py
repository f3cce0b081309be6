"""A short training run of the MLP with the custom ELU, on the device."""
import torch
import torch.nn.functional as F
from elu import ELUCustom
from mlp import make_mlp, synthetic_batch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

# --8<-- [start:setup]
# The chapter's network on a GPU; a smaller one keeps the CPU build fast.
sizes = (512, 1024, 1024, 10) if device.type == "cuda" else (64, 128, 128, 10)
torch.manual_seed(0)
model = make_mlp(ELUCustom, sizes).to(device)
x, labels = synthetic_batch(256, sizes[0], sizes[-1], device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
print(f"sizes {sizes} on {device.type}")
# --8<-- [end:setup]

# --8<-- [start:loop]
for step in range(1, 21):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), labels)
    loss.backward()
    optimizer.step()
    if step == 1 or step % 5 == 0:
        print(f"step {step:2}: cross-entropy {loss.item():.3f}")
# --8<-- [end:loop]
