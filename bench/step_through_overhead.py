"""What recording a backward pass for a step-through adds to a snippet's own run time.

Every snippet whose page asks for a step-through runs in two ways, alternating, each
`--repeats` times:

  plain     as written: its forward pass and its plain `loss.backward()`
  recorded  as the build runs it: inside `autograd_steps.recorded`, anomaly mode on and every
            `backward()` recorded (hooks, summaries) and shown through `display()`

and is timed twice over:

  engine    as the build runs it: the snippet engine's worker, which times each snippet in
            its own forked process (the Graphviz layout of the recorded graph is made after
            that time is taken, and cached)
  compute   in this one process, torch and the modules imported before, so that only the
            snippet's own operations are timed

and once more in this process as a notebook's `show_backward` shows it:

  notebook  recorded, and displayed as the viewer: the graph laid out by Graphviz and the
            self-contained HTML made (`autograd_steps.notebook.Viewer`)

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

from common import ROOT, provenance, timed

from autograd_steps.notebook import Viewer
from autograd_steps.recording import recorded
from snippet_engine.chapter import parse
from snippet_engine.runner import Runner
from snippet_engine.shapes import Settings

SNIPPETS = ROOT / "snippets"
SHOW = {"compute": lambda recording: recording._repr_mimebundle_(),  # what the build's display() asks for
        "notebook": lambda recording: Viewer(recording)._repr_mimebundle_()}


def engine_seconds(runner, path, variant):
    """The run time the engine measures for the snippet, as the build runs it."""
    result = runner.run_uncached({"path": str(path), "steps": variant == "recorded"}, path, path.name)
    if result.error:
        sys.exit(f"{path.name} ({variant}) failed: {result.describe()}")
    return result.seconds


def compute_seconds(path, variant, how="compute"):
    code = compile(path.read_text(encoding="utf-8"), str(path), "exec")
    builtins.display = SHOW[how]
    around = recorded(str(path)) if variant == "recorded" else contextlib.nullcontext()
    try:
        with contextlib.redirect_stdout(io.StringIO()), around:
            seconds, _ = timed(lambda: exec(code, {"__name__": "__main__", "__file__": str(path)}))
    finally:
        del builtins.display
        for name in [n for n, m in sys.modules.items() if str(getattr(m, "__file__", "")).startswith(str(path.parent))]:
            del sys.modules[name]  # the snippet's helper modules load again, as in a fresh run
    return seconds


def stepped_through():
    """The snippets whose page asks for a step-through, as the build finds them."""
    pages = sorted((ROOT / "docs").glob("*.md"))
    return sorted(set().union(*(parse(p.name, p.read_text(encoding="utf-8"), SNIPPETS).recorded for p in pages)))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args(argv)
    timings = [("engine", "plain"), ("engine", "recorded"), ("compute", "plain"), ("compute", "recorded"),
               ("notebook", "recorded")]
    results = []
    runner = Runner(Settings(SNIPPETS, ROOT / ".cache" / "bench-snippets", timeout=120,
                             preload=("torch", "torch._dynamo", "matplotlib.pyplot", "graphviz", "torchviz")))
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)  # files a snippet writes stay out of the project
        for path in stepped_through():
            sys.path.insert(0, str(path.parent))
            times: dict[tuple[str, str], list[float]] = {timing: [] for timing in timings}
            for _ in range(args.repeats + 1):  # the first round warms up and is not counted
                for how, variant in timings:
                    seconds = (engine_seconds(runner, path, variant) if how == "engine"
                               else compute_seconds(path, variant, how))
                    times[how, variant].append(seconds)
            sys.path.remove(str(path.parent))
            median = {f"{how} {v}": statistics.median(t[1:]) for (how, v), t in times.items()}
            results.append({"snippet": path.relative_to(SNIPPETS).as_posix(), "median_seconds": median,
                            "engine_ratio": median["engine recorded"] / median["engine plain"],
                            "compute_ratio": median["compute recorded"] / median["compute plain"],
                            "notebook_ratio": median["notebook recorded"] / median["compute plain"]})
    runner.close()
    print(f"{'snippet':48} {'engine: plain ms':>16} {'recorded':>9} {'ratio':>6}   "
          f"{'compute: plain ms':>17} {'recorded':>9} {'ratio':>6}   {'notebook ms':>11} {'ratio':>6}")
    for r in results:
        m = r["median_seconds"]
        print(f"{r['snippet']:48} {m['engine plain'] * 1e3:16.1f} {m['engine recorded'] * 1e3:9.1f} "
              f"{r['engine_ratio']:6.2f}   {m['compute plain'] * 1e3:17.2f} {m['compute recorded'] * 1e3:9.2f} "
              f"{r['compute_ratio']:6.2f}   {m['notebook recorded'] * 1e3:11.2f} {r['notebook_ratio']:6.2f}")
    out = ROOT / "bench" / "results" / "step_through_overhead.json"
    data = {"provenance": provenance("date command python torch platform cpu cores threads", __file__, argv),
            "repeats": args.repeats,
            "baseline": "the same snippet run plain (its own loss.backward(), no anomaly mode); engine: as the "
                        "build's worker times it, compute: in one process, imports done; notebook: recorded "
                        "and shown as show_backward's viewer (layout and HTML included), against compute plain",
            "results": results}
    out.write_text(json.dumps(data, indent=2) + "\n")
    print(f"written to {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
