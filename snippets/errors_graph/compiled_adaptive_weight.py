"""A compiled autoencoder whose adversarial loss starts after a few steps: its
adaptive weight needs two gradients of one graph (retain_graph=True)."""
import torch
import torch._functorch.config
from torch import nn

torch.manual_seed(0)
images = torch.rand(16, 32)


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(32, 8), nn.Tanh())
        self.decoder = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 32))

    def forward(self, x):
        return self.decoder(self.encoder(x))


def adaptive_weight(rec_loss, g_loss, last_layer):
    """Balance the two losses by their gradients at the last layer (as in VQGAN)."""
    rec_grad = torch.autograd.grad(rec_loss, last_layer, retain_graph=True)[0]
    g_grad = torch.autograd.grad(g_loss, last_layer, retain_graph=True)[0]
    return (rec_grad.norm() / (g_grad.norm() + 1e-4)).detach()


def train(steps=4, gan_start=2):
    torch.manual_seed(0)
    model = AutoEncoder()
    discriminator = nn.Linear(32, 1)
    compiled = torch.compile(model, backend="aot_eager")
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for step in range(steps):
        optimizer.zero_grad()
        output = compiled(images)
        loss = rec_loss = (output - images).abs().mean()
        if step >= gan_start:  # the adversarial loss starts here
            g_loss = -discriminator(output).mean()
            weight = adaptive_weight(rec_loss, g_loss, model.decoder[2].weight)
            loss = rec_loss + weight * g_loss
        loss.backward()
        optimizer.step()
        print(f"step {step}: reconstruction loss {rec_loss.item():.4f}")


# --8<-- [start:error]
try:
    train()
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:twice]
torch.manual_seed(0)
compiled = torch.compile(AutoEncoder(), backend="aot_eager")
loss = (compiled(images) - images).abs().mean()
loss.backward()
try:
    loss.backward()  # a second time, without retain_graph=True
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:twice]

# --8<-- [start:fix]
with torch._functorch.config.patch(donated_buffer=False):  # compile and train with it
    train()
# --8<-- [end:fix]
