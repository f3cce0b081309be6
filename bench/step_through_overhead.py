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

The second case is the debugger's test set (tests/recorded_models.py: fifteen models, most with
a bug planted in them) and three larger models whose plain step takes 20 ms or more here (a
TransformerEncoderLayer(256, 8, 1024) on 32×128×256, a ViT, and four checkpointed blocks of
1024 on 2048 rows), each run in four ways, each in a process of its own, the four in turn,
`--model-repeats` rounds after one not counted (and with `--before path/to/main/src`, the four
again with the code before a change, in the same turns):

  plain     the forward pass and loss.backward()
  watched   the forward pass in watch_forward(), then loss.backward(): what watching the forward
            pass costs (each node's creating stack and module, each result's check), which every
            recording pays before it records a step
  recorded  the forward pass in watch_forward(), then show_backward(loss, quiet=True): what a
            script's check runs
  viewer    the same with display(): the viewer laid out and its HTML made (a notebook's)

with the median time, the cost per recorded node ((recorded - plain) / nodes), and, from two
runs of each in processes of their own, the process's peak memory (ru_maxrss, glibc returning
each freed block of 64 KiB or more at once), and what the runs added to the memory the process
had once the model and its input were made (torch's CPU tensors are not seen by tracemalloc).

The third case is the recorder's growth with the graph: a chain of Linear(8, 8) layers of
about 1,000 and about 5,000 nodes (four per layer), its loss the mean square, recorded as
show_backward records it (the Recording made, every node hooked, backward() run, each step
described), against plain loss.backward() of the same graph, `--chain-repeats` times each after
one not counted: the seconds, the seconds per node, and how many times the larger took the
smaller (linear: 5).

Writes the medians and the ratios to bench/results/step_through_overhead.json
with the provenance; `--case` runs one case and replaces only its figures there.

    .venv/bin/python bench/step_through_overhead.py [--repeats 30] [--case snippets|models|chain]
        [--model-repeats 9] [--before ../main/src] [--chain-repeats 5]
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


VARIANTS = ("plain", "watched", "recorded", "viewer")


def larger():
    """Models of the test set made larger, whose plain step takes 20 ms or more here."""
    import torch
    from recorded_models import Checkpointed, ViT, mse
    from torch import nn

    return {
        "TransformerEncoderLayer(256, 8, 1024), 32×128×256": lambda: (
            nn.TransformerEncoderLayer(256, 8, 1024, batch_first=True), (torch.randn(32, 128, 256),), mse),
        "12-block ViT, dim 64, 64 images": lambda: (
            ViT(dim=64), (torch.randn(64, 3, 16, 16),), lambda out: nn.functional.cross_entropy(out, torch.arange(64) % 10)),
        "checkpointed, 4 blocks of 1024, 2048 rows": lambda: (
            Checkpointed(reentrant=False, dim=1024), (torch.randn(2048, 1024, requires_grad=True),), mse),
    }


def model_variant(name, variant):
    """Serve one variant of one model from this process: after "ready" (with the memory the
    process has once the model and its input are made), each line "run" on stdin runs it once and
    prints its seconds; "end" prints the process's peak memory, what the runs added to it, and
    the number of nodes recorded."""
    import torch
    from recorded_models import CASES

    from autograd_steps.notebook import show_backward
    from autograd_steps.recording import watch_forward

    torch.manual_seed(0)
    model, inputs, loss_of = {**CASES, **larger()}[name]()
    if variant == "viewer":
        builtins.display = lambda viewer: viewer._repr_mimebundle_()
    nodes = [0]

    def run():
        model.zero_grad(set_to_none=True)
        if variant == "plain":
            loss_of(model(*inputs)).backward()
            return
        with watch_forward():
            loss = loss_of(model(*inputs))
        if variant == "watched":
            loss.backward()
            return
        with contextlib.redirect_stdout(io.StringIO()):
            nodes[0] = len(show_backward(loss, quiet=variant == "recorded", max_nodes=10_000).nodes)

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print("ready", flush=True)
    for line in sys.stdin:
        if line.strip() == "end":
            break
        print(timed(run)[0], flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"peak_mb": peak, "added_mb": peak - before, "nodes": nodes[0]}), flush=True)


def models(repeats, codes):
    """Each model of the debugger's test set (tests/recorded_models.py) and the larger ones: each
    variant of each code ({name: the src folder it imports autograd_steps from}) in a process of
    its own, run in turn, once each (not counted), then `repeats` rounds, so that a change in the
    machine's load falls on all alike; the medians, memory, cost per node and ratios."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), str(ROOT / "src")])}
    sys.path.insert(0, str(ROOT / "tests"))
    from recorded_models import CASES

    def start(name, code, src, variant, memory):
        # For the memory, glibc returns a block of 64 KiB or more to the system when it is freed: the
        # peak is then the most the process held at once, not what its heap kept of earlier
        # allocations. The times are taken without that, which makes every large allocation a
        # system call (a plain step of the ViT took 2.5 times as long).
        child = subprocess.Popen([sys.executable, __file__, "--model", name, "--variant", variant], text=True,
                                 env={**env, "PYTHONPATH": os.pathsep.join([str(src), env["PYTHONPATH"]]),
                                      **({"MALLOC_MMAP_THRESHOLD_": "65536"} if memory else {})},
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert child.stdout.readline().strip() == "ready", f"{name} {code} {variant} did not start"
        return child

    def rounds(children, count):
        times = {key: [] for key in children}
        for _ in range(count):
            for key, child in children.items():
                child.stdin.write("run\n")
                child.stdin.flush()
                times[key].append(float(child.stdout.readline()))
        return times

    found = {}
    for name in [*CASES, *larger()]:
        for memory in (False, True):  # timed, then a run of each for its memory
            children = {(code, variant): start(name, code, src, variant, memory)
                        for code, src in codes.items() for variant in VARIANTS}
            times = rounds(children, 2 if memory else repeats + 1)
            for (code, variant), child in children.items():
                ended = json.loads(child.communicate("end\n")[0].splitlines()[-1])
                v = found.setdefault(code, {}).setdefault(name, {}).setdefault(variant, {})
                v.update(ended if memory else {"seconds": statistics.median(times[code, variant][1:])})
        for code in codes:
            v = found[code][name]
            nodes = v["recorded"]["nodes"]
            v["summary"] = {"nodes": nodes, "per_node_ms": (v["recorded"]["seconds"] - v["plain"]["seconds"]) / nodes * 1e3,
                            "watched_vs_plain": v["watched"]["seconds"] / v["plain"]["seconds"],
                            "recorded_vs_plain": v["recorded"]["seconds"] / v["plain"]["seconds"],
                            "viewer_vs_plain": v["viewer"]["seconds"] / v["plain"]["seconds"],
                            "recorded_added_vs_plain": v["recorded"]["added_mb"] / max(v["plain"]["added_mb"], 1.0)}
            s = v["summary"]
            print(f"{code:8} {name:46} {nodes:5} nodes  plain {v['plain']['seconds'] * 1e3:8.2f} ms  recorded "
                  f"{s['recorded_vs_plain']:5.2f}× (watched {s['watched_vs_plain']:4.2f}×)  viewer {s['viewer_vs_plain']:6.2f}×  {s['per_node_ms']:.3f} ms a "
                  f"node  memory added {v['plain']['added_mb']:6.0f} → {v['recorded']['added_mb']:6.0f} MB", flush=True)
    heavy = {code: {n: v["summary"]["recorded_vs_plain"] for n, v in by.items() if v["plain"]["seconds"] >= 0.02}
             for code, by in found.items()}
    return {"repeats": repeats, "src": {code: str(src) for code, src in codes.items()}, "models": found,
            "recorded_vs_plain_where_plain_takes_20_ms": heavy,
            "baseline": "plain: the model's forward pass and loss.backward(); watched: the forward pass in "
                        "watch_forward() and loss.backward(); recorded: the forward pass in "
                        "watch_forward() and show_backward(loss, quiet=True), as a script's check runs it; viewer: "
                        "show_backward(loss) with display(), the viewer laid out and its HTML made; per node: "
                        "(recorded - plain) / nodes; memory: what the runs added to the process's peak (ru_maxrss)",
            "targets": {"recorded_vs_plain": 2.0, "recorded_added_vs_plain": 1.15}}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--case", choices=["snippets", "models", "chain", "all"], default="all")
    parser.add_argument("--chain-repeats", type=int, default=5)
    parser.add_argument("--model-repeats", type=int, default=9)
    parser.add_argument("--before", help="a src folder of the code before a change (a checkout of main): "
                                         "the models run with it too, in turn with this code")
    parser.add_argument("--model", help=argparse.SUPPRESS)  # a process of models()
    parser.add_argument("--variant", choices=VARIANTS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.variant:
        return model_variant(args.model, args.variant)
    out = ROOT / "bench" / "results" / "step_through_overhead.json"
    data = json.loads(out.read_text()) if out.exists() else {}
    if args.case in ("models", "all"):
        codes = {"current": ROOT / "src", **({"before": args.before} if args.before else {})}
        data.pop("transformer", None)  # one of the models now
        data["models"] = {"provenance": provenance("date command python torch platform cpu cores threads",
                                                   __file__, argv), **models(args.model_repeats, codes)}
    if args.case in ("chain", "all"):
        data["chain"] = {"provenance": provenance("date command python torch platform cpu cores threads",
                                                  __file__, argv), **chain(args.chain_repeats)}
    if args.case in ("snippets", "all"):
        data.update(snippets(args.repeats, argv))
    out.write_text(json.dumps(data, indent=2) + "\n")
    print(f"written to {out.relative_to(ROOT)}")


def chain(repeats):
    """The chain case: {"repeats", "baseline", "results": [{"nodes", "median_seconds", "per_node_ms"}],
    "growth"}: recording against plain backward() on chains of about 1,000 and 5,000 nodes."""
    import torch
    from torch import nn

    from autograd_steps.recording import Recording

    results = []
    for layers in (250, 1250):
        torch.manual_seed(0)
        model, x = nn.Sequential(*[nn.Linear(8, 8) for _ in range(layers)]), torch.randn(4, 8)
        times: dict[str, list[float]] = {"plain": [], "recorded": []}
        for _ in range(repeats + 1):  # the first round warms up and is not counted
            loss = model(x).pow(2).mean()
            times["plain"].append(timed(loss.backward)[0])
            loss = model(x).pow(2).mean()
            times["recorded"].append(timed(lambda: Recording(loss, {}, __file__, max_nodes=10_000).run(loss.backward))[0])
        nodes = len(Recording(model(x).pow(2).mean(), {}, __file__, max_nodes=10_000).nodes)
        median = {name: statistics.median(t[1:]) for name, t in times.items()}
        results.append({"nodes": nodes, "median_seconds": median,
                        "per_node_ms": {name: seconds / nodes * 1e3 for name, seconds in median.items()}})
        print(f"chain of {nodes} nodes: plain {median['plain'] * 1e3:.1f} ms, recorded {median['recorded'] * 1e3:.1f} ms"
              f" ({results[-1]['per_node_ms']['recorded']:.3f} ms a node)")
    growth = results[1]["median_seconds"]["recorded"] / results[0]["median_seconds"]["recorded"]
    print(f"recording {results[1]['nodes']} nodes took {growth:.2f} times as long as {results[0]['nodes']}")
    return {"repeats": repeats, "baseline": "plain loss.backward() of the same chain; growth: the larger chain's "
                                            "recording time over the smaller's", "results": results, "growth": growth}


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
