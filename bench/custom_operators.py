"""Forward+backward time of a small model with four ELUs, eager and compiled.

    .venv/bin/python bench/custom_operators.py [--batch 256] [--features 16]
        [--hidden 4096] [--repeats 31] [--threads 1]
        [--output bench/results/custom_operators.json]

The model is snippets/custom_operators/elu_models.py's mlp: Linear(features,
hidden), an ELU, Linear(hidden, 10), with the ELU as the custom operator
autograd_inside_out::elu, the autograd.Function ELUFunction, the composite
(plain torch operations) or F.elu. Each runs eager and compiled with
torch.compile(fullgraph=True) (TorchInductor, the default backend). One step
is the forward pass on a float32 batch and torch.autograd.grad of the sum of
the outputs with respect to the parameters. Baseline: eager F.elu.

The eight steps are timed side by side: after warm-up steps (which also
compile, keeping compilation out of the timed region), each repeat times
every step once, in turn, so that a slow spell of the machine hits all of
them alike; the medians over --repeats are reported, and each ratio is a
median over eager F.elu's median.

The run uses --threads intra-op threads (default 1: on a machine whose few
cores are shared, a second thread waits for the first whenever the other core
is busy, and medians stop meaning anything).
"""

import argparse
import json
import statistics
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "snippets" / "custom_operators")]
from common import provenance, timed  # noqa: E402
from elu_models import ELUS, mlp  # noqa: E402

BASELINE = "eager F.elu"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--features", type=int, default=16)
    parser.add_argument("--hidden", type=int, default=4096)
    parser.add_argument("--repeats", type=int, default=31)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--output", type=Path, default=ROOT / "bench" / "results" / "custom_operators.json")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    x = torch.randn(args.batch, args.features)

    steps, graphs = {}, {}
    for mode in ("eager", "compiled"):
        for name, elu in ELUS.items():
            torch.manual_seed(0)  # the same weights in every model
            model = mlp(elu, args.features, args.hidden)
            params = list(model.parameters())
            run = torch.compile(model, fullgraph=True, dynamic=False) if mode == "compiled" else model
            steps[f"{mode} {name}"] = lambda run=run, params=params: torch.autograd.grad(run(x).sum(), params)

    for label, step in steps.items():
        torch._dynamo.utils.counters.clear()
        for _ in range(args.warmup):
            step()
        graphs[label] = torch._dynamo.utils.counters["stats"]["unique_graphs"]
        print(f"warmed up {label}", file=sys.stderr)

    times = {label: [] for label in steps}
    for _ in range(args.repeats):
        for label, step in steps.items():
            times[label].append(timed(step)[0])
    medians = {label: statistics.median(t) for label, t in times.items()}
    for label, seconds in medians.items():
        print(f"{label:22} {seconds * 1e3:8.3f} ms {seconds / medians[BASELINE]:6.2f}x", file=sys.stderr)

    data = {
        "benchmark": "forward+backward of Linear-ELU-Linear with four ELUs, eager and torch.compile, on the CPU",
        "provenance": provenance("cpu cores threads torch python date command", __file__, argv),
        "model": f"Linear({args.features}, {args.hidden}), ELU, Linear({args.hidden}, 10)",
        "dtype": "float32",
        "batch": args.batch,
        "features": args.features,
        "hidden": args.hidden,
        "repeats": args.repeats,
        "warmup": args.warmup,
        "baseline": BASELINE,
        "results": [{"name": label, "mode": label.split(" ", 1)[0], "elu": label.split(" ", 1)[1],
                     "median_seconds": medians[label], "ratio": medians[label] / medians[BASELINE],
                     "compiled_graphs": graphs[label]}
                    for label in steps],
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(data, indent=2) + "\n")
    return data


if __name__ == "__main__":
    main()
