"""A WGAN critic step that passes a one-element tensor to backward() of a scalar
loss."""
import torch
from torch import nn

torch.manual_seed(0)
real = torch.randn(64, 2) + 3  # the data
fake = torch.randn(64, 2)  # a generator's output, detached for the critic's step


def make_critic():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 1))


# --8<-- [start:error]
critic = make_critic()
one = torch.tensor([1.0])  # shape [1]: one element, one dimension
mone = one * -1

d_real = critic(real).mean()  # shape []: a scalar
print("d_real:", tuple(d_real.shape), "mone:", tuple(mone.shape))
try:
    d_real.backward(mone)  # maximise d_real
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:fix]
critic = make_critic()
mone = torch.tensor(-1.0)  # shape [], as d_real
critic(real).mean().backward(mone)
by_mone = [p.grad.clone() for p in critic.parameters()]

critic.zero_grad()
(-critic(real).mean()).backward()  # the same, without a gradient argument
same = all(torch.equal(a, p.grad) for a, p in zip(by_mone, critic.parameters()))
print("same gradients as (-d_real).backward():", same)
# --8<-- [end:fix]

# --8<-- [start:train]
critic = make_critic()
optimizer = torch.optim.RMSprop(critic.parameters(), lr=5e-4)
for step in range(61):
    optimizer.zero_grad()
    loss = critic(fake).mean() - critic(real).mean()  # the critic's loss
    loss.backward()
    optimizer.step()
    with torch.no_grad():  # the WGAN's weight clipping
        for p in critic.parameters():
            p.clamp_(-0.1, 0.1)
    if step % 20 == 0:
        print(f"step {step:2d}: d_real - d_fake = {-loss.item():.4f}")
# --8<-- [end:train]
