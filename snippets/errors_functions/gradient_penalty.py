"""The WGAN-GP gradient penalty: inputs that require grad, and create_graph=True."""
import torch
from torch import nn

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
real = torch.randn(8, 2) + 2
fake = torch.randn(8, 2)  # a generator's output, detached for the critic's step
alpha = torch.rand(8, 1)

# --8<-- [start:error]
mixed = alpha * real + (1 - alpha) * fake
try:
    (grad_mixed,) = torch.autograd.grad(critic(mixed).sum(), mixed)
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]


# --8<-- [start:no_graph]
def critic_loss():
    """The Wasserstein loss of the critic: low on real samples, high on fake ones."""
    return critic(fake).mean() - critic(real).mean()


def first_weight_grad(loss):
    """The gradient the critic's first weight gets from `loss`."""
    critic.zero_grad()
    loss.backward()
    return critic[0].weight.grad.clone()


mixed = (alpha * real + (1 - alpha) * fake).requires_grad_()
(grad_mixed,) = torch.autograd.grad(critic(mixed).sum(), mixed)  # no create_graph
penalty = ((grad_mixed.norm(dim=1) - 1) ** 2).mean()
print("penalty:", round(penalty.item(), 4), "requires_grad:", penalty.requires_grad)
with_penalty = first_weight_grad(critic_loss() + 10 * penalty)
print("the penalty changed the critic's gradient:",
      not torch.equal(with_penalty, first_weight_grad(critic_loss())))
# --8<-- [end:no_graph]

# --8<-- [start:fix]
mixed = (alpha * real + (1 - alpha) * fake).requires_grad_()
(grad_mixed,) = torch.autograd.grad(critic(mixed).sum(), mixed, create_graph=True)
penalty = ((grad_mixed.norm(dim=1) - 1) ** 2).mean()
print("penalty:", round(penalty.item(), 4), "requires_grad:", penalty.requires_grad)
with_penalty = first_weight_grad(critic_loss() + 10 * penalty)
without = first_weight_grad(critic_loss())
changed = not torch.equal(with_penalty, without)
print("the penalty changed the critic's gradient:", changed)
penalty_grad = (with_penalty - without) / 10
print("norm of the penalty's gradient on the first weight:",
      round(penalty_grad.norm().item(), 4))
# --8<-- [end:fix]
