"""Normalizing each channel in place while iterating over an image that requires grad,
as an adversarial attack does when it feeds its image through the preprocessing."""
import torch
from torch import nn

torch.manual_seed(0)
image = torch.rand(3, 8, 8)
mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
model = nn.Sequential(nn.Flatten(0), nn.Linear(3 * 8 * 8, 2)).requires_grad_(False)


# --8<-- [start:error]
def normalize(tensor, mean, std):  # the loop older torchvision transforms ran
    for t, m, s in zip(tensor, mean, std):  # iterating gives the outputs of unbind
        t.sub_(m).div_(s)
    return tensor


perturbed = (image + 0.01 * torch.randn_like(image)).requires_grad_()
try:
    score = model(normalize(perturbed, mean, std))[1]
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]


# --8<-- [start:fix]
def normalize(tensor, mean, std):
    mean = torch.tensor(mean).view(-1, 1, 1)
    std = torch.tensor(std).view(-1, 1, 1)
    return (tensor - mean) / std  # out of place, every channel at once


score = model(normalize(perturbed, mean, std))[1]
score.backward()
print(f"gradient of the image: norm {perturbed.grad.norm():.4f}")
# --8<-- [end:fix]
