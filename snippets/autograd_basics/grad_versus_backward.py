"""torch.autograd.grad returns gradients; backward() accumulates them into leaves."""
import torch

x = torch.ones(2, 2, requires_grad=True)

# --8<-- [start:grad]
z = 3 * (x + 2) ** 2
out = z.mean()
dout_dx, dout_dz = torch.autograd.grad(out, [x, z])
print(dout_dx)
print(dout_dz)
print(x.grad)
# --8<-- [end:grad]

# --8<-- [start:backward]
out = (3 * (x + 2) ** 2).mean()
returned = out.backward()
print(returned)
print(x.grad)
# --8<-- [end:backward]
