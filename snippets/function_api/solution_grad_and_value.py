"""Exercise: the loss and its gradient in one call, with has_aux and grad_and_value."""
import torch
from torch.func import grad, grad_and_value

torch.manual_seed(0)
x, y = torch.randn(5, 2), torch.randn(5)
w = torch.tensor([0.5, -1.0])


def loss_fn(w):
    return ((x @ w - y) ** 2).mean()


def loss_and_loss(w):
    loss = loss_fn(w)
    return loss, loss.detach()


gradient, loss = grad(loss_and_loss, has_aux=True)(w)
print(gradient, loss)
gradient_2, loss_2 = grad_and_value(loss_fn)(w)
print(gradient_2, loss_2)
print(torch.equal(gradient, gradient_2), torch.equal(loss, loss_2))
