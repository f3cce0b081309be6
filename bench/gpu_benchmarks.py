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
and what CUDA events measure. A run without CUDA records the CPU rows only, and
does not overwrite a file that holds a CUDA run (give --out to write elsewhere).
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
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
