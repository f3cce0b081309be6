"""Exercise: the gradient of a model's output with respect to its input,
under no_grad."""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(3, 1)


def saliency(model, x):
    x = x.detach().requires_grad_()
    (grad,) = torch.autograd.grad(model(x).sum(), x)
    return grad


with torch.no_grad():
    batch = torch.randn(2, 3)
    try:
        saliency(model, batch)
    except RuntimeError as error:
        print("RuntimeError:", str(error).splitlines()[0])
    print(torch.enable_grad()(saliency)(model, batch))
print(model.weight)
