"""Double backward through torch.cdist, which has no formula for it, and a loss whose
target comes from the model."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
pocket = torch.randn(12, 3) * 2  # fixed atoms of a binding pocket
ligand = torch.randn(5, 3)  # the atoms that move
reference_forces = torch.randn(5, 3)
strength = nn.Parameter(torch.tensor(1.0))  # a learned constant of the potential


def energy(positions, distances):
    """A soft repulsion between every ligand atom and every pocket atom."""
    return (strength * torch.exp(-distances(positions, pocket))).sum()


# --8<-- [start:error]
def cdist(a, b):
    return torch.cdist(a, b)


positions = ligand.clone().requires_grad_()
forces = -torch.autograd.grad(energy(positions, cdist), positions, create_graph=True)[0]
loss = F.mse_loss(forces, reference_forces)  # train the potential on forces
try:
    loss.backward()
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")
# --8<-- [end:error]


# --8<-- [start:fix]
def explicit_cdist(a, b):
    """The same distances, from operations that all have a double backward."""
    return (a[:, None, :] - b[None, :, :]).pow(2).sum(-1).sqrt()


positions = ligand.clone().requires_grad_()
forces = -torch.autograd.grad(
    energy(positions, explicit_cdist), positions, create_graph=True
)[0]
F.mse_loss(forces, reference_forces).backward()
print("strength.grad:", round(strength.grad.item(), 4))
# --8<-- [end:fix]

# --8<-- [start:gradgradcheck]
a = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)
b = pocket.double()
print("gradgradcheck:",
      torch.autograd.gradgradcheck(lambda a: explicit_cdist(a, b), (a,)))
# --8<-- [end:gradgradcheck]
