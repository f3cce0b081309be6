"""Exercise: the entropy of a distribution with zeros, and its gradient."""
import torch

p = torch.tensor([0.5, 0.5, 0.0], requires_grad=True)

naive = -(p * p.log()).sum()
print("naive entropy:", naive)

masked = -torch.where(p > 0, p * p.log(), 0.0).sum()
(grad,) = torch.autograd.grad(masked, p)
print("where only:   ", masked, grad)

positive = p > 0
safe_p = torch.where(positive, p, 1.0)  # log only sees positive numbers
entropy = -torch.where(positive, safe_p * safe_p.log(), 0.0).sum()
(grad,) = torch.autograd.grad(entropy, p)
print("masked input: ", entropy, grad)
