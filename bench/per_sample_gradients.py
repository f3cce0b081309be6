"""Time per-sample gradients: vmap(grad(...)) against a Python loop of backward() calls.

The model is the one of the chapter "The PyTorch 2 Function API"
(snippets/function_api/functional_call_module.py), Linear -> ELU -> Linear with the
chapter's custom ELUFunction, in larger sizes. Both ways compute the gradient of every
sample's squared error with respect to every parameter; the script checks that they agree,
then times them side by side (one of each per repeat, alternating which goes first) and
writes the medians, their ratio and the provenance to bench/results/per_sample_gradients.json.

    .venv/bin/python bench/per_sample_gradients.py [--batch 64] [--sizes 32 128 1] [--repeats 30] [--threads 1]
"""

import argparse
import json
import statistics
import sys
from pathlib import Path

import torch
from torch import nn
from torch.func import functional_call, grad, vmap

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "snippets" / "function_api"))
from common import provenance, timed  # noqa: E402
from modern_elu import ELUFunction  # noqa: E402


class ELU(nn.Module):
    def forward(self, z):
        return ELUFunction.apply(z, 0.5)


def setup(batch, sizes):
    torch.manual_seed(0)
    inputs, hidden, outputs = sizes
    model = nn.Sequential(nn.Linear(inputs, hidden), ELU(), nn.Linear(hidden, outputs))
    x, y = torch.randn(batch, inputs), torch.randn(batch, outputs)
    return model, x, y


def with_vmap(model, x, y):
    """Per-sample gradients in one call: vmap over the samples of grad of one sample's loss."""
    params = {name: p.detach() for name, p in model.named_parameters()}

    def sample_loss(params, x, y):
        prediction = functional_call(model, params, (x[None],))
        return ((prediction - y) ** 2).sum()

    return vmap(grad(sample_loss), in_dims=(None, 0, 0))(params, x, y)


def with_loop(model, x, y):
    """The same gradients with backward(), one sample at a time."""
    grads = {name: [] for name, _ in model.named_parameters()}
    for xi, yi in zip(x, y):
        model.zero_grad()
        ((model(xi[None]) - yi) ** 2).sum().backward()
        for name, p in model.named_parameters():
            grads[name].append(p.grad.clone())
    return {name: torch.stack(g) for name, g in grads.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--sizes", type=int, nargs=3, default=[32, 128, 1], metavar=("IN", "HIDDEN", "OUT"))
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--threads", type=int, default=1,
                        help="torch's intra-op threads (default 1: a busy machine's other processes"
                             " then slow both ways alike instead of stalling a thread pool)")
    parser.add_argument("--output", type=Path, default=ROOT / "bench" / "results" / "per_sample_gradients.json")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)

    model, x, y = setup(args.batch, args.sizes)
    vmapped, looped = with_vmap(model, x, y), with_loop(model, x, y)  # also the warm-up
    assert all(torch.allclose(vmapped[n], looped[n], atol=1e-5) for n in looped), "both give the same gradients"

    times = {"vmap": [], "loop": []}
    for repeat in range(args.repeats):
        pair = [("vmap", with_vmap), ("loop", with_loop)]
        for name, way in pair if repeat % 2 == 0 else pair[::-1]:
            times[name].append(timed(lambda: way(model, x, y))[0])
    vmap_s, loop_s = statistics.median(times["vmap"]), statistics.median(times["loop"])

    data = {
        "provenance": provenance("cpu machine platform python torch cuda device threads date command repeats statistic",
                                 __file__, argv, device="cpu", repeats=args.repeats,
                                 statistic="median wall-clock seconds per batch of per-sample gradients"),
        "settings": {"batch": args.batch, "sizes": args.sizes},
        "same_gradients": True,
        "vmap_seconds": vmap_s,
        "loop_seconds": loop_s,
        "loop_over_vmap": loop_s / vmap_s,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(data, indent=2) + "\n")
    print(f"vmap {vmap_s * 1e3:.2f} ms   loop {loop_s * 1e3:.2f} ms   loop / vmap {loop_s / vmap_s:.1f}")


if __name__ == "__main__":
    main()
