"""Choose a device, move a model to it, create tensors on it."""
import torch
from torch import nn

# --8<-- [start:choose]
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
if device.type == "cuda":
    print(f"This build ran on a CUDA GPU: {torch.cuda.get_device_name(device)}.")
else:
    print("No CUDA GPU: this build ran every snippet on the CPU.")
# --8<-- [end:choose]

# --8<-- [start:move]
torch.manual_seed(0)
layer = nn.Linear(4, 2)
print(layer.to(device) is layer)  # a module moves its parameters in place

x_cpu = torch.randn(3, 4)
x = x_cpu.to(device)              # a tensor: .to returns the moved tensor
print(x is x_cpu)                 # a new tensor, unless it was there already

x = torch.randn(3, 4, device=device)  # created on the device directly
print(layer.weight.device, x.device, layer(x).device)
# --8<-- [end:move]
