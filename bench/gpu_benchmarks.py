"""Times the numbers of the GPU chapter (docs/gpu.md) and writes them, with their
provenance, to bench/results/gpu_benchmarks.json, which snippets/gpu/gpu_results.py
renders on the page.

    .venv/bin/python bench/gpu_benchmarks.py

With warm-up, synchronisation and medians over repeats (the helpers of
snippets/gpu/timing.py, shown on the page), it measures on the CPU, and on the
GPU when there is one:

  - one training step (forward, cross-entropy, backward, SGD step) of the
    512-1024-1024-10 MLP with each of the three ELUs (the custom ELUFunction,
    the composite, F.elu);
  - forward and backward of each ELU alone, on a 4096 x 1024 batch.

The GPU rows also record what the same loop measures without synchronising,
and what CUDA events measure. On the GPU it also times copies overlapping
computation ("streams"): --copy-batches pinned float32 batches of --copy-size
squared, each copied to the GPU with non_blocking=True and multiplied by a
matrix; the copies alone, the products alone, both on the current stream (the
baseline), and the copies on a side stream (snippets/gpu/prefetch.py, as the
page shows it). And it times the backward passes of index_select and gather
(index_add and scatter_add kernels) on --index-rows rows gathered from a
1024 x 256 parameter, with torch.use_deterministic_algorithms off (the baseline)
and on ("determinism"). A run without CUDA records the CPU rows only
("streams" and "determinism" are null), and does not overwrite a file that
holds a CUDA run (give --out to write elsewhere).
"""

import argparse
import json
import sys
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "snippets" / "gpu"))  # time exactly what the page shows

from common import provenance  # noqa: E402
from elu import ELU, ELUCustom  # noqa: E402
from mlp import make_mlp, synthetic_batch  # noqa: E402
from prefetch import on_device  # noqa: E402
from timing import cuda_event_median_ms, median_ms  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "gpu_benchmarks.json"
ACTIVATIONS = {"custom ELU": ELUCustom, "composite ELU": ELU, "F.elu": nn.ELU}


def training_step(activation, sizes, batch, device):
    torch.manual_seed(0)
    model = make_mlp(activation, sizes).to(device)
    x, labels = synthetic_batch(batch, sizes[0], sizes[-1], device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

    def step():
        optimizer.zero_grad()
        F.cross_entropy(model(x), labels).backward()
        optimizer.step()

    return step


def activation_step(activation, sizes, batch, device):
    z = torch.randn(batch, sizes[1], device=device, requires_grad=True)
    layer = activation()
    grad = torch.ones_like(z)

    def step():
        z.grad = None
        layer(z).backward(grad)

    return step


def measure(name, make, activation, device, args):
    step = make(ACTIVATIONS[activation], args.sizes, args.batch, device)
    row = {"measurement": name, "device": device.type, "activation": activation,
           "median_ms": median_ms(step, device, args.warmup, args.repeats),
           "unsynchronised_median_ms": None, "cuda_event_median_ms": None}
    if device.type == "cuda":
        row["unsynchronised_median_ms"] = median_ms(step, device, args.warmup, args.repeats, synchronise=False)
        row["cuda_event_median_ms"] = cuda_event_median_ms(step, args.warmup, args.repeats)
    print(f"{name:24} {device.type:4} {activation:13} {row['median_ms']:10.3f} ms", file=sys.stderr)
    return row


STREAM_BASELINE = "one stream"


def copy_and_compute(device, args):
    """Medians of copying pinned batches to the GPU and multiplying each by a matrix: the
    copies alone, the products alone, both on the current stream, the copies on a side stream."""
    torch.manual_seed(0)
    size = args.copy_size
    host = [torch.randn(size, size).pin_memory() for _ in range(args.copy_batches)]
    resident = [h.to(device) for h in host]
    weight = torch.randn(size, size, device=device)
    steps = {
        "copy only": lambda: [h.to(device, non_blocking=True) for h in host],
        "compute only": lambda: [x @ weight for x in resident],
        STREAM_BASELINE: lambda: [h.to(device, non_blocking=True) @ weight for h in host],
        "side stream": lambda: [x @ weight for x in on_device(host, device)],
    }
    rows = []
    for variant, step in steps.items():
        rows.append({"variant": variant, "median_ms": median_ms(step, device, args.warmup, args.repeats)})
        print(f"copy and compute         {device.type:4} {variant:13} {rows[-1]['median_ms']:10.3f} ms",
              file=sys.stderr)
    return {"settings": {"batches": args.copy_batches, "size": size, "dtype": "float32"},
            "baseline": STREAM_BASELINE, "rows": rows}


DETERMINISM_BASELINE = False


def deterministic_backward(device, args):
    """Medians of the backward passes of index_select and gather, whose kernels add many
    gradients into the same rows, with torch.use_deterministic_algorithms off and on."""
    torch.manual_seed(0)
    w = torch.randn(1024, 256, device=device, requires_grad=True)
    rows = torch.randint(0, 1024, (args.index_rows,), device=device)
    forwards = {
        "index_select": lambda: torch.index_select(w, 0, rows),
        "gather": lambda: torch.gather(w, 0, rows.unsqueeze(1).expand(-1, w.shape[1])),
    }
    table = []
    for operation, forward in forwards.items():
        out = forward()
        grad = torch.ones_like(out)
        for deterministic in (DETERMINISM_BASELINE, not DETERMINISM_BASELINE):
            torch.use_deterministic_algorithms(deterministic)
            try:
                step = lambda: torch.autograd.grad(out, w, grad, retain_graph=True)  # noqa: E731
                table.append({"operation": operation, "deterministic": deterministic,
                              "median_ms": median_ms(step, device, args.warmup, args.repeats)})
            finally:
                torch.use_deterministic_algorithms(False)
            print(f"backward of {operation:13} {device.type:4} deterministic={deterministic!s:5} "
                  f"{table[-1]['median_ms']:10.3f} ms", file=sys.stderr)
    return {"settings": {"weight": list(w.shape), "rows": args.index_rows, "dtype": "float32"},
            "baseline": {"deterministic": DETERMINISM_BASELINE}, "rows": table}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", choices=["cuda", "cpu"],
                        default="cuda" if torch.cuda.is_available() else "cpu",
                        help="cuda: the CPU and GPU rows (the default where there is a GPU); "
                             "cpu: the CPU rows only")
    parser.add_argument("--out", type=Path, help=f"where to write the JSON (default {RESULTS.relative_to(ROOT)})")
    parser.add_argument("--sizes", type=int, nargs=4, default=[512, 1024, 1024, 10])
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--copy-batches", type=int, default=8, help="batches copied in the streams measurement")
    parser.add_argument("--copy-size", type=int, default=4096,
                        help="each of those batches is a float32 matrix of this size squared")
    parser.add_argument("--index-rows", type=int, default=1 << 20,
                        help="rows gathered in the determinism measurement (indices repeat)")
    args = parser.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("gpu_benchmarks.py: no CUDA GPU is available here; nothing recorded "
                 "(--device cpu records the CPU rows only)")
    out = args.out or RESULTS
    if args.device == "cpu" and out.exists() and json.loads(out.read_text())["provenance"]["gpu"]:
        sys.exit(f"gpu_benchmarks.py: {out} holds a CUDA run, which a CPU-only run does not "
                 "replace (give --out PATH)")

    device = torch.device(args.device)
    devices = [torch.device("cpu")] + ([device] if device.type == "cuda" else [])
    rows = [measure(name, make, activation, d, args)
            for name, make in (("training step", training_step), ("ELU forward and backward", activation_step))
            for d in devices for activation in ACTIVATIONS]

    results = {
        "provenance": provenance("command date gpu cuda torch cpu cpu_threads python", __file__,
                                 gpu=torch.cuda.get_device_name(device) if device.type == "cuda" else None,
                                 cpu_threads=torch.get_num_threads()),
        "settings": {"sizes": args.sizes, "batch": args.batch, "warmup": args.warmup, "repeats": args.repeats},
        "results": rows,
        "streams": copy_and_compute(device, args) if device.type == "cuda" else None,
        "determinism": deterministic_backward(device, args) if device.type == "cuda" else None,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
