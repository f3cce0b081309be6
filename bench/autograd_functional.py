"""Time torch.autograd.functional against torch.func on the same small functions.

    .venv/bin/python bench/autograd_functional.py [--inputs 256] [--hidden 256]
        [--outputs 256] [--repeats 31] [--warmup 2] [--threads 1]
        [--output bench/results/autograd_functional.json]

The functions are those of the chapter "Double backward and forward mode"
(snippets/higher_order/functional_and_func.py), with the chapter's ELU
(snippets/higher_order/elu_with_jvp.py) and fixed random weights:

  layer  x in R^inputs -> W2 ELU(W1 x) in R^outputs   (Jacobians, VJP, JVP)
  loss   x in R^inputs -> 1/2 |ELU(W1 x)|^2           (Hessian, HVP, VHP)

Four groups, each with its baseline named in the data file:

  jacobian  torch.autograd.functional.jacobian (one VJP per output, in a Python
            loop), the same with vectorize=True (the VJPs batched with vmap),
            torch.func.jacrev; baseline torch.func.jacrev
  hessian   torch.autograd.functional.hessian, with vectorize=True, and
            torch.func.hessian (jacfwd of jacrev); baseline torch.func.hessian
  hvp       torch.autograd.functional.hvp (H v, by double backward: the docs say
            much slower than vhp), torch.autograd.functional.vhp (v^T H), and
            torch.func forward over reverse (jvp of grad); baseline
            torch.autograd.functional.vhp
  jvp/vjp   torch.autograd.functional.jvp (by the double backward trick),
            torch.func.jvp (forward mode), torch.autograd.functional.vjp and
            torch.func.vjp; baseline torch.func.vjp

Every variant is checked against its group's baseline first (the same values).
The variants are timed side by side: after --warmup untimed calls each, every
repeat times every variant once, in turn, so that a slow spell of the machine
hits all of them alike. Reported: the median over --repeats of each, and each
median divided by its group's baseline median. The run uses --threads intra-op
threads (default 1: on a machine whose few cores are shared, medians with more
threads depend on what else runs).
"""

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

import torch
from torch.autograd import functional
from torch.func import grad, jacrev, jvp, vjp
from torch.func import hessian as func_hessian

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "snippets" / "higher_order"))
from common import provenance, timed  # noqa: E402
from elu_with_jvp import ELUWithJvp  # noqa: E402

BASELINES = {"jacobian": "torch.func.jacrev", "hessian": "torch.func.hessian",
             "hvp": "torch.autograd.functional.vhp", "jvp/vjp": "torch.func.vjp"}


def functions(inputs, hidden, outputs):
    """layer(x) = W2 ELU(W1 x) and loss(x) = 1/2 |ELU(W1 x)|^2, fixed random weights."""
    generator = torch.Generator().manual_seed(0)
    w1 = torch.randn(hidden, inputs, generator=generator) / inputs**0.5
    w2 = torch.randn(outputs, hidden, generator=generator) / hidden**0.5

    def layer(x):
        return w2 @ ELUWithJvp.apply(w1 @ x, 0.5)

    def loss(x):
        return 0.5 * ELUWithJvp.apply(w1 @ x, 0.5).pow(2).sum()

    return layer, loss


def variants(layer, loss, x, u, v):
    """{group: {name: call}}; each call returns the value its group compares."""
    return {
        "jacobian": {
            "torch.autograd.functional.jacobian": lambda: functional.jacobian(layer, x),
            "torch.autograd.functional.jacobian(vectorize=True)":
                lambda: functional.jacobian(layer, x, vectorize=True),
            "torch.func.jacrev": lambda: jacrev(layer)(x),
        },
        "hessian": {
            "torch.autograd.functional.hessian": lambda: functional.hessian(loss, x),
            "torch.autograd.functional.hessian(vectorize=True)":
                lambda: functional.hessian(loss, x, vectorize=True),
            "torch.func.hessian": lambda: func_hessian(loss)(x),
        },
        "hvp": {
            "torch.autograd.functional.hvp": lambda: functional.hvp(loss, x, v)[1],
            "torch.autograd.functional.vhp": lambda: functional.vhp(loss, x, v)[1],
            "torch.func.jvp(grad(loss))": lambda: jvp(grad(loss), (x,), (v,))[1],
        },
        "jvp/vjp": {
            "torch.autograd.functional.jvp": lambda: functional.jvp(layer, x, v)[1],
            "torch.func.jvp": lambda: jvp(layer, (x,), (v,))[1],
            "torch.autograd.functional.vjp": lambda: functional.vjp(layer, x, u)[1],
            "torch.func.vjp": lambda: vjp(layer, x)[1](u)[0],
        },
    }


def same_values(group, calls):
    """Each variant agrees with its group (the JVPs with each other, the VJPs with each other)."""
    values = {name: call() for name, call in calls.items()}
    pairs = ([("torch.autograd.functional.jvp", "torch.func.jvp"),
              ("torch.autograd.functional.vjp", "torch.func.vjp")] if group == "jvp/vjp"
             else [(name, BASELINES[group]) for name in values])
    for a, b in pairs:
        assert torch.allclose(values[a], values[b], atol=1e-5), f"{a} and {b} differ"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=256)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--outputs", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=31)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--output", type=Path, default=ROOT / "bench" / "results" / "autograd_functional.json")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)

    layer, loss = functions(args.inputs, args.hidden, args.outputs)
    generator = torch.Generator().manual_seed(1)
    x = torch.randn(args.inputs, generator=generator)
    u = torch.randn(args.outputs, generator=generator)
    v = torch.randn(args.inputs, generator=generator)
    groups = variants(layer, loss, x, u, v)
    calls = {}
    for group, named in groups.items():
        same_values(group, named)
        calls.update({(group, name): call for name, call in named.items()})
    for call in calls.values():
        for _ in range(args.warmup):
            call()

    times: dict[tuple[str, str], list[float]] = {key: [] for key in calls}
    for _ in range(args.repeats):
        for key, call in calls.items():
            times[key].append(timed(call)[0])
    medians = {key: statistics.median(t) for key, t in times.items()}

    results: list[dict[str, Any]] = [{"group": group, "name": name, "median_seconds": seconds,
                "baseline": BASELINES[group], "ratio": seconds / medians[group, BASELINES[group]]}
               for (group, name), seconds in medians.items()]
    data = {
        "benchmark": "torch.autograd.functional against torch.func on the CPU",
        "provenance": provenance("cpu cores threads torch python date command", __file__, argv,
                                 threads=args.threads),
        "functions": {"layer": f"W2 ELU(W1 x): R^{args.inputs} -> R^{args.outputs}, {args.hidden} hidden",
                      "loss": f"1/2 |ELU(W1 x)|^2: R^{args.inputs} -> R, {args.hidden} hidden"},
        "inputs": args.inputs, "hidden": args.hidden, "outputs": args.outputs,
        "dtype": "float32", "repeats": args.repeats, "warmup": args.warmup,
        "statistic": "median wall-clock seconds per call",
        "results": results,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(data, indent=2) + "\n")
    for row in results:
        print(f"{row['group']:9} {row['name']:52} {row['median_seconds'] * 1e3:9.3f} ms"
              f" {row['ratio']:7.2f}x", file=sys.stderr)
    return data


if __name__ == "__main__":
    main()
