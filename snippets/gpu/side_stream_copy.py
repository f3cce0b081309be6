"""The next batch's copy overlapping this batch's computation, on a CUDA side stream."""
import torch

from prefetch import on_device

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
batches = [torch.randn(256, 512) for _ in range(3)]
weight = torch.randn(512, 512, device=device)

# --8<-- [start:train]
if device.type == "cuda":
    for step, batch in enumerate(on_device(batches, device)):
        out = (batch @ weight).relu()  # queued on the current stream, after the copy
        print(f"step {step}: batch on {batch.device}, "
              f"arrived whole: {torch.equal(batch.cpu(), batches[step])}")
else:
    print("No CUDA GPU: CUDA streams need one, so this block ran nothing here.")
# --8<-- [end:train]
