"""What the benchmarks share: timing a call, medians of repeats, and a run's provenance."""

import datetime
import os
import platform
import shlex
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(call):
    """Wall-clock seconds `call()` takes, and what it returns (a command: `lambda: subprocess.run(...)`)."""
    start = time.perf_counter()
    result = call()
    return time.perf_counter() - start, result


def median_seconds(call, repeats, warmup=0):
    """Median wall-clock seconds of `call()` over `repeats` runs, after `warmup` runs not timed."""
    for _ in range(warmup):
        call()
    return statistics.median(timed(call)[0] for _ in range(repeats))


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            return next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        return platform.processor() or platform.machine()


def torch():
    import torch

    return torch


KNOWN = {
    "date": lambda: datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    "python": platform.python_version,
    "torch": lambda: torch().__version__,
    "cuda": lambda: torch().version.cuda,
    "threads": lambda: torch().get_num_threads(),
    "platform": platform.platform,
    "machine": platform.machine,
    "cpu": cpu_name,
    "cores": os.cpu_count,
}


def provenance(fields, script, argv=None, **given):
    """The run's provenance: the `fields` named (separated by spaces), in that order, each from
    `given` or else measured here. "command" is the command line that ran `script` with `argv`
    (default: this process's arguments), as run from the project root."""
    command = ["python", Path(script).resolve().relative_to(ROOT).as_posix(),
               *(sys.argv[1:] if argv is None else argv)]
    known = {**KNOWN, "command": lambda: shlex.join(command)}
    return {name: given[name] if name in given else known[name]() for name in fields.split()}
