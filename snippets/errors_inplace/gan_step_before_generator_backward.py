"""A GAN step: the discriminator's optimizer.step() runs before the generator's
backward(), which needs the discriminator's weights as they were."""
import torch
from torch import nn

torch.manual_seed(0)
latent, features, batch = 4, 8, 16
generator = nn.Sequential(nn.Linear(latent, 16), nn.ReLU(), nn.Linear(16, features))
discriminator = nn.Sequential(nn.Linear(features, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer_g = torch.optim.Adam(generator.parameters(), lr=1e-3)
optimizer_d = torch.optim.Adam(discriminator.parameters(), lr=1e-3)
criterion = nn.BCEWithLogitsLoss()
real = torch.randn(batch, features) + 2.0
ones, zeros = torch.ones(batch, 1), torch.zeros(batch, 1)

# --8<-- [start:error]
z = torch.randn(batch, latent)
fake = generator(z)
loss_d = (criterion(discriminator(real), ones)
          + criterion(discriminator(fake.detach()), zeros))
loss_g = criterion(discriminator(fake), ones)  # graph saves D's weights

optimizer_d.zero_grad()
loss_d.backward()
optimizer_d.step()  # updates D's weights in place: their versions go up

optimizer_g.zero_grad()
try:
    loss_g.backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:fix]
torch.manual_seed(0)
for step in range(3):
    z = torch.randn(batch, latent)
    fake = generator(z)
    loss_d = (criterion(discriminator(real), ones)
              + criterion(discriminator(fake.detach()), zeros))
    optimizer_d.zero_grad()
    loss_d.backward()
    optimizer_d.step()

    # the generator's loss, computed after the step, with D as it is now
    loss_g = criterion(discriminator(fake), ones)
    optimizer_g.zero_grad()
    loss_g.backward()
    optimizer_g.step()
    norm = generator[0].weight.grad.norm().item()
    print(f"step {step}: loss_g {loss_g.item():.4f}, "
          f"generator grad norm {norm:.4f}")
# --8<-- [end:fix]
