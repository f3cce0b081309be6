"""argmax, a cast to an integer and round: no gradient, or a gradient of zero."""
import torch
from torch import nn

torch.manual_seed(0)
inputs = torch.randn(16, 4)
targets = torch.rand(16)

# --8<-- [start:argmax]
torch.manual_seed(0)
model = nn.Linear(4, 3)
scale = nn.Parameter(torch.ones(()))

picked = model(inputs).argmax(dim=1)  # the class as a number
print("argmax:", picked.dtype, picked.requires_grad, picked.grad_fn)
as_int = (model(inputs)[:, 0] * 10).long()  # a cast to an integer
print("long():", as_int.dtype, as_int.requires_grad, as_int.grad_fn)

loss = ((picked.float() * scale - targets) ** 2).mean()
loss.backward()  # no error: scale still reaches the loss
print("model.weight.grad:", model.weight.grad)
print(f"scale.grad: {scale.grad.item():.4f}")
# --8<-- [end:argmax]

# --8<-- [start:round]
torch.manual_seed(0)
model = nn.Linear(4, 1)
quantized = torch.round(model(inputs).squeeze(1) * 4) / 4  # steps of 0.25
print("requires_grad:", quantized.requires_grad)
loss = ((quantized - targets) ** 2).mean()
loss.backward()
print("model.weight.grad:", model.weight.grad)
# --8<-- [end:round]

# --8<-- [start:softmax]
torch.manual_seed(0)
model = nn.Linear(4, 3)
scale = nn.Parameter(torch.ones(()))
probabilities = model(inputs).softmax(dim=1)
expected = probabilities @ torch.arange(3.0)  # a soft argmax: differentiable
loss = ((expected * scale - targets) ** 2).mean()
loss.backward()
print(f"model.weight.grad norm: {model.weight.grad.norm():.4f}")
# --8<-- [end:softmax]

# --8<-- [start:straight_through]
torch.manual_seed(0)
model = nn.Linear(4, 1)
values = model(inputs).squeeze(1)
rounded = torch.round(values * 4) / 4
quantized = values + (rounded - values).detach()  # forward: rounded, backward: 1
print("same values:", torch.equal(quantized, rounded))
loss = ((quantized - targets) ** 2).mean()
loss.backward()
print(f"model.weight.grad norm: {model.weight.grad.norm():.4f}")
# --8<-- [end:straight_through]
