"""Exercise: the gradients of max, amax, max(dim) and abs at a three-way tie."""
import torch

for name, f in [
    ("max()", lambda x: x.max()),
    ("amax()", lambda x: x.amax()),
    ("max(dim=0)", lambda x: x.max(dim=0).values),
    ("abs(x - 5)", lambda x: (x - 5).abs().sum()),
]:
    x = torch.tensor([2.0, 5.0, 5.0, 5.0], requires_grad=True)
    f(x).backward()
    print(f"{name:<11}", x.grad)
