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

The second case is a real layer: a TransformerEncoderLayer (d_model 256, 8 heads, feed-forward
1024) on an input of 32×128×256, its loss the mean square of its output, run in four ways, each
in a fresh process (`--variant`), `--model-repeats` times after one run not counted:

  plain     the forward pass and loss.backward()
  anomaly   both under torch.autograd.set_detect_anomaly(True, check_nan=False)
  table     the forward pass under it (as show_backward needs, for the lines), then
            show_backward(loss) where there is no display(): the table printed
  viewer    the same with display(): the viewer made (Viewer(...)._repr_mimebundle_())

with the median time and the process's peak memory (ru_maxrss), and what the runs added to the
memory the process had once the layer and its input were made (torch's CPU tensors are not seen
by tracemalloc).

Writes the medians and the ratios to bench/results/step_through_overhead.json
with the provenance; `--case transformer --label before` replaces only that case's figures
under that label.

    .venv/bin/python bench/step_through_overhead.py [--repeats 30] [--case snippets|transformer]
"""

import argparse
import builtins
import contextlib
import io
import json
import os
import resource
import statistics
import subprocess
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


VARIANTS = ("plain", "anomaly", "table", "viewer")


def transformer_run(variant, repeats):
    """One variant of the transformer case in this process: {"seconds": median, "peak_mb": ...,
    "added_mb": peak less the memory before the first run}."""
    import torch

    from autograd_steps.notebook import show_backward

    torch.manual_seed(0)
    model = torch.nn.TransformerEncoderLayer(256, 8, 1024, batch_first=True)
    x = torch.randn(32, 128, 256)
    anomaly = torch.autograd.set_detect_anomaly(True, check_nan=False)
    if variant == "viewer":
        builtins.display = lambda viewer: viewer._repr_mimebundle_()

    def run():
        model.zero_grad(set_to_none=True)
        with anomaly if variant != "plain" else contextlib.nullcontext():
            loss = model(x).pow(2).mean()
            if variant == "anomaly":
                loss.backward()
        if variant == "plain":
            loss.backward()
        elif variant in ("table", "viewer"):
            with contextlib.redirect_stdout(io.StringIO()):
                show_backward(loss)

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    run()  # warms up, not counted
    seconds = statistics.median(timed(run)[0] for _ in range(repeats))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"seconds": seconds, "peak_mb": peak, "added_mb": peak - before}


def transformer(repeats):
    """Each variant in a fresh process, with the ratios the targets name."""
    found = {}
    for variant in VARIANTS:
        out = subprocess.run([sys.executable, __file__, "--variant", variant, "--model-repeats", str(repeats)],
                             capture_output=True, text=True, check=True).stdout
        found[variant] = json.loads(out.splitlines()[-1])
        print(f"{variant:8} {found[variant]['seconds']:7.3f} s  peak {found[variant]['peak_mb']:7.0f} MB  "
              f"added {found[variant]['added_mb']:6.0f} MB", flush=True)
    plain, anomaly, viewer = found["plain"], found["anomaly"], found["viewer"]
    ratios = {"viewer_vs_anomaly": viewer["seconds"] / anomaly["seconds"],
              "viewer_vs_plain": viewer["seconds"] / plain["seconds"],
              "table_vs_plain": found["table"]["seconds"] / plain["seconds"],
              "viewer_peak_vs_plain": viewer["peak_mb"] / plain["peak_mb"],
              "viewer_added_vs_plain": viewer["added_mb"] / plain["added_mb"]}
    print("  ".join(f"{k} {v:.2f}" for k, v in ratios.items()))
    return {"repeats": repeats, "variants": found, "ratios": ratios,
            "targets": {"viewer_vs_anomaly": 1.5, "viewer_vs_plain": 2.0, "viewer_peak_vs_plain": 1.15}}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--case", choices=["snippets", "transformer", "both"], default="both")
    parser.add_argument("--model-repeats", type=int, default=9)
    parser.add_argument("--label", default="current", help="the name the transformer's figures are kept under")
    parser.add_argument("--variant", choices=VARIANTS, help="run one variant of the transformer here, print JSON")
    args = parser.parse_args(argv)
    if args.variant:
        print(json.dumps(transformer_run(args.variant, args.model_repeats)))
        return
    out = ROOT / "bench" / "results" / "step_through_overhead.json"
    data = json.loads(out.read_text()) if out.exists() else {}
    if args.case != "snippets":
        data.setdefault("transformer", {})[args.label] = {
            "provenance": provenance("date command python torch platform cpu cores threads", __file__, argv),
            **transformer(args.model_repeats)}
    if args.case != "transformer":
        data.update(snippets(args.repeats, argv))
    out.write_text(json.dumps(data, indent=2) + "\n")
    print(f"written to {out.relative_to(ROOT)}")


def snippets(repeats, argv):
    """The snippets' case: {"provenance", "repeats", "baseline", "results"}."""
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
            for _ in range(repeats + 1):  # the first round warms up and is not counted
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
    return {"provenance": provenance("date command python torch platform cpu cores threads", __file__, argv),
            "repeats": repeats,
            "baseline": "the same snippet run plain (its own loss.backward(), no anomaly mode); engine: as the "
                        "build's worker times it, compute: in one process, imports done; notebook: recorded "
                        "and shown as show_backward's viewer (layout and HTML included), against compute plain",
            "results": results}


if __name__ == "__main__":
    main()
