"""Time per training step of DistributedDataParallel with find_unused_parameters=True and with
static_graph=True, against DDP's default, on two processes of this machine.

    .venv/bin/python bench/ddp_options.py [--depth 64] [--width 64] [--batch 32]
        [--rounds 101] [--steps 5] [--output bench/results/ddp_options.json]

Two ranks, started by the chapter's snippets/distributed/ranks.py (gloo on 127.0.0.1, one
intra-op thread each), each build the same model: --depth blocks of Linear(--width, --width)
and tanh, every parameter used, so that all three variants run it; a seeded batch of --batch
float32 inputs per rank, loss the mean of the squared output. One training step is the
forward pass, the loss and `backward()`, whose hooks all-reduce the gradients (no optimizer:
the weights stay the same, and every step does the same work). The variants:

    default                  DDP(model): the baseline of every ratio
    find_unused_parameters   DDP(model, find_unused_parameters=True): after each forward
                             pass DDP walks the output's autograd graph for the parameters
                             it does not reach (here none)
    static_graph             DDP(model, static_graph=True)

Each variant is a DDP instance of its own model, built once, and runs 3 untimed steps first
(DDP rebuilds its buckets after the first, static_graph after the second). Then --rounds
rounds: in each, every variant in turn (starting with a different one each round) times
--steps steps one after the other, and takes their median. A variant's time is the median of
its round times on rank 0; its ratio to default is the median over rounds of (its time /
default's time in the same round), so that a slow spell of the shared machine does not land
on one variant. The graph size is the number of autograd nodes that the loss reaches, what
find_unused_parameters walks every step.
"""

import argparse
import functools
import json
import statistics
import sys
from pathlib import Path

from common import ROOT, provenance, timed

sys.path.insert(0, str(ROOT / "snippets" / "distributed"))
import torch  # noqa: E402
from ranks import run_on_ranks  # noqa: E402
from torch import nn  # noqa: E402
from torch.nn.parallel import DistributedDataParallel as DDP  # noqa: E402

VARIANTS = {"default": {}, "find_unused_parameters": {"find_unused_parameters": True},
            "static_graph": {"static_graph": True}}
BASELINE = "default"


def model(depth, width):
    torch.manual_seed(0)  # the same weights on every rank
    return nn.Sequential(*[layer for _ in range(depth) for layer in (nn.Linear(width, width), nn.Tanh())])


def graph_size(output):
    """The autograd nodes that `output` reaches."""
    seen, stack = set(), [output.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen.add(node)
            stack.extend(next_node for next_node, _ in node.next_functions)
    return len(seen)


def measure(rank, depth, width, batch, rounds, steps):
    """{variant: [median seconds of each round]} on this rank, and the graph size."""
    torch.manual_seed(rank)  # each rank its own batch
    x = torch.randn(batch, width)
    models = {name: DDP(model(depth, width), **options) for name, options in VARIANTS.items()}

    def step(ddp):
        ddp(x).square().mean().backward()

    for ddp in models.values():
        for _ in range(3):
            step(ddp)
    names = list(models)
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            times[name].append(statistics.median(timed(lambda: step(models[name]))[0] for _ in range(steps)))
    return times, graph_size(models[BASELINE].module(x).square().mean())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--depth", type=int, default=64)
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=101)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--output", type=Path, default=ROOT / "bench" / "results" / "ddp_options.json")
    args = parser.parse_args(argv)
    first, _ = run_on_ranks(functools.partial(
        measure, depth=args.depth, width=args.width, batch=args.batch, rounds=args.rounds, steps=args.steps),
        timeout=3600)
    if isinstance(first, str):  # a rank's error, as ranks.py reports it
        raise SystemExit(f"rank 0 failed: {first}")
    times, nodes = first
    variants = [{"name": name,
                 "median_seconds": statistics.median(times[name]),
                 "median_ratio_to_default": statistics.median(t / b for t, b in zip(times[name], times[BASELINE])),
                 "round_medians": times[name]} for name in VARIANTS]
    data = {
        "model": {"depth": args.depth, "width": args.width, "layers": "Linear + Tanh", "graph_nodes": nodes},
        "batch": args.batch, "ranks": 2, "backend": "gloo", "rounds": args.rounds, "steps": args.steps,
        "baseline": BASELINE, "variants": variants,
        "provenance": provenance("cpu cores torch python date command", __file__, argv),
    }
    args.output.write_text(json.dumps(data, indent=1) + "\n")
    for v in variants:
        print(f"{v['name']:24} {v['median_seconds'] * 1e3:8.2f} ms  x{v['median_ratio_to_default']:.3f}")


if __name__ == "__main__":
    main()
