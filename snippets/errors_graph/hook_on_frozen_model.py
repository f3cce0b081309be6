"""Grad-CAM on a frozen model: a hook registered on an activation that does not
require a gradient."""
import torch
from torch import nn

torch.manual_seed(0)
image = torch.rand(1, 3, 16, 16)


def make_model():
    torch.manual_seed(1)
    model = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
        nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 5))
    return model.eval().requires_grad_(False)  # pretrained, frozen


# --8<-- [start:error]
activations, gradients = [], []


def save_activation(module, inputs, output):  # a forward hook, as Grad-CAM code has
    activations.append(output)
    output.register_hook(gradients.append)  # called with the gradient in backward


model = make_model()
model[3].register_forward_hook(save_activation)  # the last convolution's ReLU
try:
    scores = model(image)
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:no_grad]
image.requires_grad_()
with torch.no_grad():  # as an evaluation loop has it
    try:
        scores = model(image)
    except RuntimeError as err:
        print(f"RuntimeError: {err}")
image.requires_grad_(False)
# --8<-- [end:no_grad]

# --8<-- [start:fix]
activations.clear()
image = image.detach().requires_grad_()  # the graph starts at the image
scores = model(image)  # recording on: no torch.no_grad() here
scores[0, scores.argmax()].backward()  # the top class's score

weights = gradients[0].mean(dim=(2, 3), keepdim=True)  # one weight per channel
cam = torch.relu((weights * activations[0]).sum(dim=1))
print("gradient of the activation:", tuple(gradients[0].shape),
      f"norm {gradients[0].norm().item():.4f}")
print("CAM:", tuple(cam.shape), f"max {cam.max().item():.2e}")
print("parameters still frozen:", all(p.grad is None for p in model.parameters()))
# --8<-- [end:fix]
