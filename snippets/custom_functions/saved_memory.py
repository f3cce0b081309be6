"""Bytes each ELU saves for backward, counted with saved_tensors_hooks."""
import torch
import torch.nn.functional as F
from elu import ELUFunction, elu_forward


def saved_bytes(elu, z):
    """Run elu(z); return bytes and dtypes of what it saves for backward."""
    saved = []

    def pack(tensor):
        saved.append(tensor)
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        elu(z)
    nbytes = sum(t.numel() * t.element_size() for t in saved)
    return nbytes, [str(t.dtype).removeprefix("torch.") for t in saved]


torch.manual_seed(0)
z = torch.randn(1000, 1000, requires_grad=True)
input_bytes = z.numel() * z.element_size()
print(f"input z: {input_bytes:,} bytes")
for name, elu in {
    "composite": lambda z: elu_forward(z, 0.5),
    "ELUFunction": lambda z: ELUFunction.apply(z, 0.5),
    "F.elu": lambda z: F.elu(z, alpha=0.5),
}.items():
    saved, dtypes = saved_bytes(elu, z)
    print(f"{name:12} saves {saved:>9,} bytes"
          f" = {saved / input_bytes:.2f} x the input ({' + '.join(dtypes)})")
