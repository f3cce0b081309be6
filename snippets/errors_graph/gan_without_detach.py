"""A GAN step whose discriminator update runs backward through the generator."""
import torch
from torch import nn

torch.manual_seed(0)
generator = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 2))
discriminator = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 1))
criterion = nn.BCEWithLogitsLoss()
opt_g = torch.optim.Adam(generator.parameters(), lr=2e-3)
opt_d = torch.optim.Adam(discriminator.parameters(), lr=2e-3)
real = torch.randn(64, 2) + 3.0  # the data: points around (3, 3)
ones, zeros = torch.ones(64, 1), torch.zeros(64, 1)

# --8<-- [start:error]
fake = generator(torch.randn(64, 8))

opt_d.zero_grad()
d_loss = criterion(discriminator(real), ones) + criterion(discriminator(fake), zeros)
d_loss.backward()
opt_d.step()

opt_g.zero_grad()
g_loss = criterion(discriminator(fake), ones)
try:
    g_loss.backward()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:retain]
fake = generator(torch.randn(64, 8))

opt_d.zero_grad()
d_loss = criterion(discriminator(real), ones) + criterion(discriminator(fake), zeros)
d_loss.backward(retain_graph=True)
opt_d.step()
print(f"generator gradient from the discriminator's loss: "
      f"{generator[0].weight.grad.norm():.4f}")

opt_g.zero_grad()
g_loss = criterion(discriminator(fake), ones)
g_loss.backward()
opt_g.step()
print(f"generator step done, g_loss = {g_loss.item():.4f}")
# --8<-- [end:retain]


# --8<-- [start:fix]
def train_step():
    fake = generator(torch.randn(64, 8))

    opt_d.zero_grad()
    d_loss = (criterion(discriminator(real), ones)
              + criterion(discriminator(fake.detach()), zeros))
    d_loss.backward()  # stops at fake.detach(): the generator's graph is untouched
    opt_d.step()

    opt_g.zero_grad()
    g_loss = criterion(discriminator(fake), ones)
    g_loss.backward()  # the generator's graph is used once, here
    opt_g.step()


torch.manual_seed(0)
print(f"mean of generated points: {generator(torch.randn(256, 8)).mean():.2f}")
for step in range(300):
    train_step()
print(f"after 300 steps:          {generator(torch.randn(256, 8)).mean():.2f}")
# --8<-- [end:fix]
