"""Timing GPU work: warm up, synchronise around the timed region, take medians.

bench/gpu_benchmarks.py times every number of the chapter with these helpers.
"""
import statistics
import time

import torch


# --8<-- [start:synchronize]
def synchronize(device: torch.device) -> None:
    """Wait until the device has finished all the work queued on it."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    # On the CPU an operation has finished when it returns: nothing to wait for.
# --8<-- [end:synchronize]


# --8<-- [start:median_ms]
def median_ms(step, device, warmup=5, repeats=30, synchronise=True):
    """Median wall-clock time of step() in milliseconds.

    With synchronise=False the clock stops when step() returns, which on a
    GPU is when its kernels have been queued, not when they have run.
    """
    for _ in range(warmup):  # one-time costs: not what we measure
        step()
    times = []
    for _ in range(repeats):
        synchronize(device)  # start with nothing left in the queue
        start = time.perf_counter()
        step()
        if synchronise:
            synchronize(device)  # wait for step's own work
        times.append(time.perf_counter() - start)
    synchronize(device)
    return 1000 * statistics.median(times)
# --8<-- [end:median_ms]


# --8<-- [start:cuda_events]
def cuda_event_median_ms(step, warmup=5, repeats=30):
    """Median GPU time of step() in milliseconds, measured by CUDA events."""
    for _ in range(warmup):
        step()
    times = []
    for _ in range(repeats):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()  # a marker in the GPU's queue, not a clock read now
        step()
        end.record()
        end.synchronize()  # wait until the GPU has passed the end marker
        times.append(start.elapsed_time(end))
    return statistics.median(times)
# --8<-- [end:cuda_events]
