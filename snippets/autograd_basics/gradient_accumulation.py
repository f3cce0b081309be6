"""backward() adds into .grad; zero it, or set it to None, between passes."""
import torch


def forward(x):
    return (3 * (x + 2) ** 2).mean()


x = torch.ones(2, 2, requires_grad=True)

# --8<-- [start:accumulate]
forward(x).backward()
print(x.grad)
forward(x).backward()
print(x.grad)
# --8<-- [end:accumulate]

# --8<-- [start:zero]
x.grad.zero_()
forward(x).backward()
print(x.grad)

optimizer = torch.optim.SGD([x], lr=0.1)
optimizer.zero_grad()
print(x.grad)
# --8<-- [end:zero]
