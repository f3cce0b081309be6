"""Forward+backward time and saved memory of five ELUs on the CPU.

    .venv/bin/python bench/elu_performance.py [--numel 4194304] [--repeats 31]
        [--threads 1] [--copy-numel 67108864] [--output bench/results/elu_performance.json]

Variants: the composite (PyTorch operations, autograd derives the backward),
ELUFunction (the custom Function of the custom-Function chapter), F.elu,
torch.compile of the composite, and FusedELUFunction (ELUFunction with a
compiled forward and backward kernel). Each step is y = elu(z) followed by
torch.autograd.grad(y, z, grad), on a float32 vector of --numel elements.

The memory-bound limit: a step must at least read z and write y (forward),
then read grad and z and write the input gradient (backward), 5 floats or
20 bytes per element. The machine's bandwidth is measured with a copy of a
tensor far larger than the caches (--copy-numel floats, 8 bytes moved per
element: one read, one write). Times are medians over --repeats runs, after
warm-up runs that also trigger and keep compilation out of the timed region.
Saved bytes are counted with saved_tensors_hooks. A few single eager
kernels (forward only, no autograd) are timed as well, to show where the
composite's time goes.

The run uses --threads intra-op threads (default 1: on a machine whose few
cores are shared, a second thread waits for the first whenever the other core
is busy, and medians stop meaning anything).
"""

import argparse
import json
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "snippets" / "custom_functions"), str(ROOT / "snippets" / "performance")]
from common import median_seconds, provenance  # noqa: E402
from elu import ELUFunction, elu_forward  # noqa: E402
from fused_elu import FusedELUFunction  # noqa: E402

ALPHA = 1.0
MIN_BYTES_PER_ELEMENT = 20  # forward: read z, write y; backward: read grad and z, write the result


def variants():
    compiled = torch.compile(elu_forward, dynamic=False)
    return {
        "composite": lambda z: elu_forward(z, ALPHA),
        "ELUFunction": lambda z: ELUFunction.apply(z, ALPHA),
        "F.elu": lambda z: F.elu(z, ALPHA),
        "torch.compile(composite)": lambda z: compiled(z, ALPHA),
        "FusedELUFunction": lambda z: FusedELUFunction.apply(z, ALPHA),
    }


def saved_tensors(elu, z):
    saved = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(t) or t, lambda t: t):
        elu(z)
    return saved


def copy_bandwidth(numel, repeats):
    """(median seconds, bytes per second) of a copy of `numel` float32 values, which reads and
    writes each (the tensors are freed on return)."""
    source = torch.randn(numel)
    target = torch.empty_like(source)
    seconds = median_seconds(lambda: target.copy_(source), repeats, warmup=3)
    return seconds, 2 * source.element_size() * numel / seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--numel", type=int, default=1 << 22)
    parser.add_argument("--repeats", type=int, default=31)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--copy-numel", type=int, default=1 << 26)
    parser.add_argument("--output", type=Path, default=ROOT / "bench" / "results" / "elu_performance.json")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)

    copy_seconds, bandwidth = copy_bandwidth(args.copy_numel, args.repeats)

    z = torch.randn(args.numel, requires_grad=True)
    grad = torch.randn(args.numel)
    results = []
    for name, elu in variants().items():
        seconds = median_seconds(lambda: torch.autograd.grad(elu(z), z, grad), args.repeats, warmup=3)
        saved = saved_tensors(elu, z)
        results.append({
            "name": name,
            "median_seconds": seconds,
            "saved_bytes": sum(t.numel() * t.element_size() for t in saved),
            "saved_dtypes": [str(t.dtype).removeprefix("torch.") for t in saved],
        })
        print(f"{name:25} {seconds * 1e3:8.3f} ms", file=sys.stderr)

    with torch.no_grad():
        mask, exp = z > 0, torch.exp(z)
        kernels = [  # (name, the call, bytes it must move per element)
            ("z > 0", lambda: z > 0, 4 + 1),
            ("torch.exp(z)", lambda: torch.exp(z), 4 + 4),
            ("torch.where(mask, z, exp)", lambda: torch.where(mask, z, exp), 1 + 4 + 4 + 4),
            ("F.elu(z) forward", lambda: F.elu(z, ALPHA), 4 + 4),
        ]
        kernel_results = [{"name": name, "median_seconds": median_seconds(call, args.repeats, warmup=3),
                           "min_bytes_per_element": nbytes} for name, call, nbytes in kernels]

    data = {
        "benchmark": "ELU forward+backward on the CPU",
        "provenance": provenance("cpu cores threads torch python date command", __file__, argv),
        "dtype": "float32",
        "numel": args.numel,
        "input_bytes": z.numel() * z.element_size(),
        "repeats": args.repeats,
        "min_bytes_per_element": MIN_BYTES_PER_ELEMENT,
        "copy": {"numel": args.copy_numel, "median_seconds": copy_seconds, "bytes_per_second": bandwidth},
        "variants": results,
        "kernels": kernel_results,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(data, indent=2) + "\n")
    return data


if __name__ == "__main__":
    main()
