"""Time torch.func.jacfwd against jacrev on a tall and a wide function.

Both functions are a two-layer network with the custom ELU of the chapter
"Double backward and forward mode" (snippets/higher_order/elu_with_jvp.py):

  tall  x in R^small -> R^large   (few inputs, many outputs)
  wide  x in R^large -> R^small   (many inputs, few outputs)

jacfwd computes the Jacobian with one JVP per input (a column each), jacrev
with one VJP per output (a row each), both batched with vmap. Writes the
median times and the provenance to bench/results/jacobian_modes.json.

    .venv/bin/python bench/jacobian_modes.py [--small 16] [--large 4096] [--hidden 512] [--repeats 20]
"""

import argparse
import json
import sys
from pathlib import Path

import torch
from torch.func import jacfwd, jacrev

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "snippets" / "higher_order"))
from common import median_seconds, provenance  # noqa: E402
from elu_with_jvp import ELUWithJvp  # noqa: E402


def network(inputs, hidden, outputs):
    """x -> W2 ELU(W1 x), with fixed random weights."""
    generator = torch.Generator().manual_seed(0)
    w1 = torch.randn(hidden, inputs, generator=generator) / inputs**0.5
    w2 = torch.randn(outputs, hidden, generator=generator) / hidden**0.5
    return lambda x: w2 @ ELUWithJvp.apply(w1 @ x, 0.5)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=16)
    parser.add_argument("--large", type=int, default=4096)
    parser.add_argument("--hidden", type=int, default=512)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--output", type=Path, default=ROOT / "bench" / "results" / "jacobian_modes.json")
    args = parser.parse_args(argv)

    results = []
    for shape, (n, m) in {"tall": (args.small, args.large), "wide": (args.large, args.small)}.items():
        f = network(n, args.hidden, m)
        x = torch.randn(n, generator=torch.Generator().manual_seed(1))
        assert torch.allclose(jacfwd(f)(x), jacrev(f)(x), atol=1e-5), "both modes give the same Jacobian"
        results.append({
            "function": shape, "inputs": n, "outputs": m, "hidden": args.hidden,
            "jacfwd_seconds": median_seconds(lambda: jacfwd(f)(x), args.repeats, warmup=1),
            "jacrev_seconds": median_seconds(lambda: jacrev(f)(x), args.repeats, warmup=1),
        })

    data = {
        "provenance": provenance("cpu machine platform python torch cuda device threads date command repeats statistic",
                                 __file__, argv, device="cpu", repeats=args.repeats,
                                 statistic="median wall-clock seconds per Jacobian"),
        "results": results,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(data, indent=2) + "\n")
    for row in results:
        print(f"{row['function']:5} {row['inputs']:>5} -> {row['outputs']:<5}"
              f" jacfwd {row['jacfwd_seconds'] * 1e3:8.2f} ms   jacrev {row['jacrev_seconds'] * 1e3:8.2f} ms")


if __name__ == "__main__":
    main()
