"""A model converted to float16 with .half(), trained with a GradScaler: the
error, and the fix (float32 parameters, float16 computation under autocast)."""
import torch
from torch import nn

torch.manual_seed(0)
x, labels = torch.randn(64, 16), torch.randint(0, 4, (64,))


def classifier():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))


# --8<-- [start:error]
model = classifier().half()  # float16 parameters, to halve the memory
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
loss = nn.functional.cross_entropy(model(x.half()).float(), labels)
scaler.scale(loss).backward()
print("gradient dtype:", model[0].weight.grad.dtype)
try:
    scaler.step(optimizer)
except ValueError as err:
    print(f"ValueError: {err}")
# --8<-- [end:error]

# --8<-- [start:part]
def train_step(model, scaler):
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(trainable, lr=0.1)
    with torch.autocast("cpu", dtype=torch.float16):
        logits = model(x)
    scaler.scale(nn.functional.cross_entropy(logits.float(), labels)).backward()
    try:
        scaler.step(optimizer)
        return "stepped"
    except ValueError as err:
        return f"ValueError: {err}"


model = classifier()
model[0].half()  # a pretrained part, stored in float16
model[0].requires_grad_(False)  # frozen: it gets no gradient
print("model[0] frozen:  ", train_step(model, torch.amp.GradScaler("cpu")))
model[0].requires_grad_(True)  # unfrozen, to fine-tune it too
print("model[0] unfrozen:", train_step(model, torch.amp.GradScaler("cpu")))
# --8<-- [end:part]

# --8<-- [start:fix]
model = classifier()  # float32 parameters
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
for step in range(1, 6):
    optimizer.zero_grad()
    with torch.autocast("cpu", dtype=torch.float16):  # float16 computation
        logits = model(x)
    loss = nn.functional.cross_entropy(logits.float(), labels)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    print(f"step {step}: loss {loss.item():.4f}  logits {logits.dtype}  "
          f"gradients {model[0].weight.grad.dtype}")
# --8<-- [end:fix]

# --8<-- [start:fix_part]
model = classifier()
model[0].half()  # stored in float16, as above
model[0].float()  # unfrozen to train: its parameters in float32 first
print("model[0] unfrozen, float32:", train_step(model, torch.amp.GradScaler("cpu")))
# --8<-- [end:fix_part]
