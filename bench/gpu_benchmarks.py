"""Times the numbers of the GPU chapter (docs/gpu.md) on a CUDA GPU and writes
them, with their provenance, to bench/results/gpu_benchmarks.json, which
snippets/gpu/gpu_results.py renders on the page.

    .venv/bin/python bench/gpu_benchmarks.py

With warm-up, synchronisation and medians over repeats (the helpers of
snippets/gpu/timing.py, shown on the page), it measures:

  - one training step (forward, cross-entropy, backward, SGD step) of the
    512-1024-1024-10 MLP with the custom ELU, on the CPU and on the GPU;
  - the same step on the GPU with the composite ELU and with F.elu;
  - forward and backward of each of the three ELUs alone on the GPU.

The GPU rows also record what the same loop measures without synchronising,
and what CUDA events measure. Without CUDA the script refuses; `--device cpu
--out PATH` runs the same measurements on the CPU only, to try the script.
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
    parser.add_argument("--device", choices=["cuda", "cpu"], default="cuda",
                        help="cuda (the recorded run) or cpu (a trial of the script)")
    parser.add_argument("--out", type=Path, help=f"where to write the JSON (default {RESULTS.relative_to(ROOT)})")
    parser.add_argument("--sizes", type=int, nargs=4, default=[512, 1024, 1024, 10])
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("gpu_benchmarks.py: no CUDA GPU is available here; nothing recorded "
                 "(use --device cpu --out PATH to try the script on the CPU)")
    if args.device == "cpu" and args.out is None:
        parser.error("--device cpu is a trial run: give --out PATH (the results file is for CUDA runs)")

    device = torch.device(args.device)
    rows = [measure("training step", training_step, "custom ELU", torch.device("cpu"), args)]
    if device.type == "cuda":
        rows.append(measure("training step", training_step, "custom ELU", device, args))
    rows += [measure("training step", training_step, name, device, args) for name in ("composite ELU", "F.elu")]
    rows += [measure("ELU forward and backward", activation_step, name, device, args) for name in ACTIVATIONS]

    results = {
        "provenance": provenance("command date gpu cuda torch cpu cpu_threads python", __file__,
                                 gpu=torch.cuda.get_device_name(device) if device.type == "cuda" else None,
                                 cpu_threads=torch.get_num_threads()),
        "settings": {"sizes": args.sizes, "batch": args.batch, "warmup": args.warmup, "repeats": args.repeats},
        "results": rows,
    }
    out = args.out or RESULTS
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
