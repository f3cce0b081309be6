"""Grad-CAM's module backward hook on a layer followed by an in-place ReLU."""
import torch
from torch import nn

torch.manual_seed(0)
image = torch.rand(1, 3, 16, 16)


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(inplace=True),
        nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(inplace=True),  # as torchvision's
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 5)).eval()


# --8<-- [start:error]
gradients = []


def save_gradient(module, grad_input, grad_output):
    gradients.append(grad_output[0])  # the gradient of the layer's output


model = make_model()
target_layer = model[2]  # the last convolution
target_layer.register_full_backward_hook(save_gradient)
try:
    scores = model(image)
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:fix]
activations, gradients = [], []


def save_activation_and_its_gradient(module, inputs, output):
    activations.append(output)
    output.register_hook(gradients.append)  # a hook on the tensor, not the module


model = make_model()
model[2].register_forward_hook(save_activation_and_its_gradient)
scores = model(image)
scores[0, 3].backward()
print("gradient:", tuple(gradients[0].shape), f"norm {gradients[0].norm():.4f}")
# --8<-- [end:fix]

# --8<-- [start:not_inplace]
model = make_model()
for module in model.modules():
    if isinstance(module, nn.ReLU):
        module.inplace = False
full = []
model[2].register_full_backward_hook(lambda m, gi, go: full.append(go[0]))
model(image)[0, 3].backward()
print("same gradient:", torch.allclose(full[0], gradients[0]))
# --8<-- [end:not_inplace]
