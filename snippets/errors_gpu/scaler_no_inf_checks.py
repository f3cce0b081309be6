"""GradScaler.step() on an optimizer none of whose parameters got a gradient:
a loss rebuilt from numbers, an optimizer of a frozen part, zero_grad() too late;
and the fixes."""
import torch
from torch import nn


def classifier():
    """The same small classifier, the same initial weights, at every call."""
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))


torch.manual_seed(1)
x, labels = torch.randn(64, 16), torch.randint(0, 4, (64,))

# --8<-- [start:error]
model = classifier()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
with torch.autocast("cpu", dtype=torch.float16):
    logits = model(x)
# a loss computed sample by sample, as numbers, then made a tensor again
losses = [nn.functional.cross_entropy(logits[i:i + 1].float(), labels[i:i + 1]).item()
          for i in range(len(x))]
loss = torch.tensor(losses, requires_grad=True).mean()
scaler.scale(loss).backward()
try:
    scaler.step(optimizer)
except AssertionError as err:
    print(f"AssertionError: {err}")
print("gradient of the first layer:", model[0].weight.grad)
# --8<-- [end:error]

# --8<-- [start:frozen]
model = classifier()
model[0].requires_grad_(False)  # the pretrained layer, frozen
optimizers = {"model[0]": torch.optim.SGD(model[0].parameters(), lr=0.01),
              "model[2]": torch.optim.SGD(model[2].parameters(), lr=0.1)}
scaler = torch.amp.GradScaler("cpu")
with torch.autocast("cpu", dtype=torch.float16):
    loss = nn.functional.cross_entropy(model(x), labels)
scaler.scale(loss).backward()
for part, optimizer in optimizers.items():
    try:
        scaler.step(optimizer)
        print(f"{part}: stepped")
    except AssertionError as err:
        print(f"{part}: AssertionError: {err}")
# --8<-- [end:frozen]

# --8<-- [start:zero_grad]
model = classifier()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
with torch.autocast("cpu", dtype=torch.float16):
    loss = nn.functional.cross_entropy(model(x), labels)
scaler.scale(loss).backward()
optimizer.zero_grad()  # meant for the next step: sets every .grad to None
try:
    scaler.step(optimizer)
except AssertionError as err:
    print(f"AssertionError: {err}")
# --8<-- [end:zero_grad]

# --8<-- [start:not_scaled]
model = classifier()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
with torch.autocast("cpu", dtype=torch.float16):
    loss = nn.functional.cross_entropy(model(x), labels)
loss.backward()  # scaler.scale(loss) left out
try:
    scaler.step(optimizer)
except AssertionError as err:
    print(f"AssertionError: {err}")
# --8<-- [end:not_scaled]

# --8<-- [start:fix]
model = classifier()
model[0].requires_grad_(False)
trainable = [p for p in model.parameters() if p.requires_grad]
optimizer = torch.optim.SGD(trainable, lr=0.1)  # what will get a gradient
scaler = torch.amp.GradScaler("cpu")
for step in range(1, 6):
    optimizer.zero_grad()  # at the start of the step
    with torch.autocast("cpu", dtype=torch.float16):
        logits = model(x)
    loss = nn.functional.cross_entropy(logits.float(), labels)  # from tensors
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    print(f"step {step}: loss {loss.item():.4f}")
# --8<-- [end:fix]
