"""An iterative adversarial attack (PGD) that sets requires_grad on the image it
computed."""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3)).eval()
model.requires_grad_(False)
images, labels = torch.rand(4, 8), torch.tensor([0, 1, 2, 0])
epsilon, step_size = 0.1, 0.02
criterion = nn.CrossEntropyLoss()
start = torch.empty_like(images).uniform_(-epsilon, epsilon)  # a random start

# --8<-- [start:error]
x_adv = images + start
try:
    for step in range(3):
        x_adv.requires_grad = True
        loss = criterion(model(x_adv), labels)
        loss.backward()
        x_adv = x_adv + step_size * x_adv.grad.sign()  # computed from x_adv
        x_adv = images + (x_adv - images).clamp(-epsilon, epsilon)
        print(f"step {step}: loss {loss.item():.4f}, x_adv is a leaf: {x_adv.is_leaf}")
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:fix]
x_adv = images + start
for step in range(4):
    x_adv = x_adv.detach().requires_grad_()  # a new leaf, with the same values
    loss = criterion(model(x_adv), labels)
    loss.backward()
    x_adv = x_adv + step_size * x_adv.grad.sign()
    x_adv = images + (x_adv - images).clamp(-epsilon, epsilon)
    print(f"step {step}: loss {loss.item():.4f}")
print(f"largest change: {(x_adv - images).abs().max().item():.4f}")
# --8<-- [end:fix]
