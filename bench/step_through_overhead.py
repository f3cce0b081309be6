"""What recording a backward pass with `step_through` adds to a snippet's own run time.

Every snippet that calls `step_through(...)` runs in two ways, alternating,
each `--repeats` times:

  plain     `step_through(t)` is `t.backward()` and the snippet's
            `torch.autograd.set_detect_anomaly(...)` block does nothing:
            the snippet as it would be without the recording
  recorded  as written: anomaly mode on for the forward pass, then the
            real `step_through` (hooks, summaries), shown through `display()`

and is timed twice over:

  engine    as the build runs it: the snippet engine's worker, which times
            each snippet in its own forked process (the Graphviz layout of
            the recorded graph is made after that time is taken, and cached)
  compute   in this one process, torch and the modules imported before, so
            that only the snippet's own operations are timed

Writes the medians and the ratios to bench/results/step_through_overhead.json
with the provenance.

    .venv/bin/python bench/step_through_overhead.py [--repeats 30]
"""

import argparse
import builtins
import contextlib
import io
import json
import os
import statistics
import sys
import tempfile

import torch
from common import ROOT, provenance, timed

from snippet_engine.runner import Runner

SNIPPETS = ROOT / "snippets"


PLAIN = """import contextlib, torch
torch.autograd.set_detect_anomaly = lambda *args, **kwargs: contextlib.nullcontext()
step_through = lambda output: output.backward()
"""


def plain_source(path):
    return PLAIN + path.read_text(encoding="utf-8").replace("from autograd_steps import step_through\n", "")


def engine_seconds(runner, path, variant):
    """The run time the engine measures for the snippet, run as `python -c` from its folder."""
    source = path.read_text(encoding="utf-8") if variant == "recorded" else plain_source(path)
    code = f"import sys\nsys.path.insert(0, {str(path.parent)!r})\n" + source
    result = runner.run_uncached({"code": code}, path, path.name)
    if result.error:
        sys.exit(f"{path.name} ({variant}) failed: {result.describe()}")
    return result.seconds


def compute_seconds(path, variant):
    source = path.read_text(encoding="utf-8") if variant == "recorded" else plain_source(path)
    code = compile(source, str(path), "exec")
    builtins.display = lambda recording: recording._repr_mimebundle_()  # what the build's display() asks for
    anomaly = torch.autograd.set_detect_anomaly
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            seconds, _ = timed(lambda: exec(code, {"__name__": "__main__", "__file__": str(path)}))
    finally:
        del builtins.display
        torch.autograd.set_detect_anomaly = anomaly
        for name in [n for n, m in sys.modules.items() if str(getattr(m, "__file__", "")).startswith(str(path.parent))]:
            del sys.modules[name]  # the snippet's helper modules load again, as in a fresh run
    return seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args(argv)
    paths = sorted(p for p in SNIPPETS.rglob("*.py") if "step_through(" in p.read_text(encoding="utf-8"))
    variants, results = ["plain", "recorded"], []
    runner = Runner(SNIPPETS, ROOT / ".cache" / "bench-snippets", timeout=120,
                    preload=("torch", "torch._dynamo", "matplotlib.pyplot", "graphviz", "torchviz"))
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)  # files a snippet writes stay out of the project
        for path in paths:
            sys.path.insert(0, str(path.parent))
            times = {(how, v): [] for how in ("engine", "compute") for v in variants}
            for _ in range(args.repeats + 1):  # the first round warms up and is not counted
                for variant in variants:
                    times["engine", variant].append(engine_seconds(runner, path, variant))
                    times["compute", variant].append(compute_seconds(path, variant))
            sys.path.remove(str(path.parent))
            median = {f"{how} {v}": statistics.median(t[1:]) for (how, v), t in times.items()}
            results.append({"snippet": path.relative_to(SNIPPETS).as_posix(), "median_seconds": median,
                            "engine_ratio": median["engine recorded"] / median["engine plain"],
                            "compute_ratio": median["compute recorded"] / median["compute plain"]})
    runner.close()
    print(f"{'snippet':44} {'engine: plain ms':>16} {'recorded':>9} {'ratio':>6}   "
          f"{'compute: plain ms':>17} {'recorded':>9} {'ratio':>6}")
    for r in results:
        m = r["median_seconds"]
        print(f"{r['snippet']:44} {m['engine plain'] * 1e3:16.1f} {m['engine recorded'] * 1e3:9.1f} "
              f"{r['engine_ratio']:6.2f}   {m['compute plain'] * 1e3:17.2f} {m['compute recorded'] * 1e3:9.2f} "
              f"{r['compute_ratio']:6.2f}")
    out = ROOT / "bench" / "results" / "step_through_overhead.json"
    data = {"provenance": provenance("date command python torch platform cpu cores threads", __file__, argv),
            "repeats": args.repeats,
            "baseline": "the same snippet with step_through(t) replaced by t.backward() and anomaly mode off; "
                        "engine: as the build's worker times it, compute: in one process, imports done",
            "results": results}
    out.write_text(json.dumps(data, indent=2) + "\n")
    print(f"written to {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
