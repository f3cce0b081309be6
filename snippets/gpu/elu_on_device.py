"""The custom ELU Function from the previous chapter, unchanged, on the device."""
import torch
from elu import ELUFunction

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

# --8<-- [start:gradients]
torch.manual_seed(0)
for dtype in (torch.float32, torch.float64):
    z = torch.randn(5, dtype=dtype, device=device, requires_grad=True)
    ELUFunction.apply(z, 1.0).sum().backward()
    print(f"input {z.dtype} on {z.device} "
          f"-> gradient {z.grad.dtype} on {z.grad.device}")
# --8<-- [end:gradients]

# --8<-- [start:gradcheck]
z = torch.randn(20, dtype=torch.float64, device=device, requires_grad=True)
print("gradcheck:", torch.autograd.gradcheck(ELUFunction.apply, (z, 1.0)))
print("gradgradcheck:", torch.autograd.gradgradcheck(ELUFunction.apply, (z, 1.0)))
# --8<-- [end:gradcheck]
