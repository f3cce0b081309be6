"""backward() adds into the existing .grad tensor in place; zero_grad(set_to_none=False)
zeroes that tensor, zero_grad() (set_to_none=True) drops it for a new one."""
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.ones(4)

# --8<-- [start:in_place]
model(x).sum().backward()
first = model.weight.grad
address = first.data_ptr()
model(x).sum().backward()
print(model.weight.grad is first, model.weight.grad.data_ptr() == address)
# --8<-- [end:in_place]

# --8<-- [start:keep]
optimizer.zero_grad(set_to_none=False)
print(model.weight.grad is first, model.weight.grad.data_ptr() == address)
print(model.weight.grad)
# --8<-- [end:keep]

# --8<-- [start:none]
optimizer.zero_grad()  # set_to_none=True, the default
print(model.weight.grad)
model(x).sum().backward()
print(model.weight.grad is first, model.weight.grad.data_ptr() == address)
# --8<-- [end:none]
