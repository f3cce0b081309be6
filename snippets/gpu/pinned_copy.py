"""Copying a batch to the GPU from pinned memory, with non_blocking=True."""
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
batch = torch.randn(256, 512)

# --8<-- [start:pinned]
print("pinned:", batch.is_pinned())
try:
    pinned = batch.pin_memory()  # page-locked memory, allocated by the GPU's driver
    print("pinned:", pinned.is_pinned())
    on_device = pinned.to(device, non_blocking=True)  # queued: returns at once
    print(on_device.device)
except RuntimeError as error:
    print("RuntimeError:", error)
# --8<-- [end:pinned]
