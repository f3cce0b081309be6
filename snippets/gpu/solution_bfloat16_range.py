"""Exercise: the underflow example in bfloat16, which has float32's range."""
import torch

for dtype in (torch.float16, torch.bfloat16, torch.float32):
    info = torch.finfo(dtype)
    h = torch.tensor([1.0, 2.0, 3.0], dtype=dtype, requires_grad=True)
    small = torch.tensor(1e-4, dtype=dtype)
    loss = (h * small).float().sum() * 1e-4  # d loss / d h = 1e-8
    loss.backward()
    print(f"{str(dtype):14} largest {info.max:8.3g}  smallest normal {info.tiny:8.3g}"
          f"  eps {info.eps:8.3g}  gradient {h.grad[0].item():.4g}")
