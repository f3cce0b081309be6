"""Setting requires_grad = False on a computed tensor to stop its gradient."""
import torch
from torch import nn

torch.manual_seed(0)
inputs = torch.randn(16, 4)
encoder = nn.Linear(4, 8)
decoder = nn.Linear(8, 4)

# --8<-- [start:error]
codes = encoder(inputs)
try:
    codes.requires_grad = False  # meant: train the decoder only
except RuntimeError as err:
    print(f"RuntimeError: {err}")
# --8<-- [end:error]

# --8<-- [start:fix]
codes = encoder(inputs).detach()  # same values, no graph back to the encoder
loss = (decoder(codes) - inputs).pow(2).mean()
loss.backward()
print("encoder.weight.grad:", encoder.weight.grad)
print(f"decoder.weight.grad norm: {decoder.weight.grad.norm():.4f}")
# --8<-- [end:fix]
