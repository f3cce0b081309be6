"""Batches copied to the GPU on a side stream, each while the one before is computed on.

bench/gpu_benchmarks.py times this against the same copies on the current stream.
"""
import torch


# --8<-- [start:on_device]
def on_device(batches, device):
    """Yield each CPU batch on the CUDA `device`; the next batch's copy runs on a
    side stream while the current stream computes on this one."""
    copy_stream = torch.cuda.Stream(device)

    def queue_copy(batch):
        pinned = batch.pin_memory()  # page-locked, so that the copy engine can read it
        with torch.cuda.stream(copy_stream):  # what is queued here goes to copy_stream
            return pinned.to(device, non_blocking=True)  # queued: returns at once

    ahead = queue_copy(batches[0])
    for i in range(len(batches)):
        current = torch.cuda.current_stream(device)
        current.wait_stream(copy_stream)  # later kernels wait for the copies so far
        batch = ahead
        batch.record_stream(current)  # made for copy_stream, also used on current
        if i + 1 < len(batches):
            ahead = queue_copy(batches[i + 1])  # travels while `batch` is computed on
        yield batch
# --8<-- [end:on_device]
