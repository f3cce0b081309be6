"""Claims of the chapter 'Performance of custom Functions' (docs/performance.md).

Timings are never measured here: the benchmark runs once on tiny sizes to check
that it works and writes its schema, and the prose's reading of the committed
data file is checked against that file.
"""

import inspect
import json
import os
import re
import subprocess
import sys

import pytest
import torch
from conftest import ROOT, kind, run_benchmark

BENCH = ROOT / "bench" / "elu_performance.py"
DATA = ROOT / "bench" / "results" / "elu_performance.json"
PAGE = ROOT / "docs" / "performance.md"
VARIANTS = ["composite", "ELUFunction", "F.elu", "torch.compile(composite)", "FusedELUFunction"]
COMPILED = ["torch.compile(composite)", "FusedELUFunction"]


def check_schema(data):
    assert set(data["provenance"]) == {"cpu", "cores", "threads", "torch", "python", "date", "command"}
    assert data["provenance"]["command"].startswith("python bench/elu_performance.py")
    assert data["min_bytes_per_element"] == 20 and data["dtype"] == "float32"
    assert data["input_bytes"] == 4 * data["numel"]
    assert data["copy"]["bytes_per_second"] == pytest.approx(8 * data["copy"]["numel"] / data["copy"]["median_seconds"])
    assert [v["name"] for v in data["variants"]] == VARIANTS
    saved = {v["name"]: v["saved_bytes"] / data["input_bytes"] for v in data["variants"]}
    assert saved == {"composite": 1.25, "ELUFunction": 1.0, "F.elu": 1.0,
                     "torch.compile(composite)": 1.0, "FusedELUFunction": 1.0}
    assert {v["name"]: v["saved_dtypes"] for v in data["variants"]}["composite"] == ["float32", "bool"]
    assert all(v["median_seconds"] > 0 for v in data["variants"] + data["kernels"])


def test_benchmark_runs_and_writes_its_schema(tmp_path):
    args = ["--numel", "4096", "--repeats", "2", "--copy-numel", "4096"]
    data = run_benchmark(BENCH, tmp_path / "elu.json", *args)
    check_schema(data)
    assert data["numel"] == 4096 and data["repeats"] == 2 and data["provenance"]["threads"] == 1
    assert data["provenance"]["command"].endswith(" ".join([*args, "--output", str(tmp_path / "elu.json")]))
    assert data["provenance"]["torch"] == torch.__version__


def test_committed_data_file_has_the_schema_and_the_page_sizes():
    data = json.loads(DATA.read_text())
    check_schema(data)
    assert data["numel"] == 2**22 and data["copy"]["numel"] == 2**26 and data["repeats"] == 31
    assert data["provenance"]["threads"] == 1


def test_the_prose_reading_of_the_committed_timings():
    data = json.loads(DATA.read_text())
    limit = 20 * data["numel"] / data["copy"]["bytes_per_second"]
    t = {v["name"]: v["median_seconds"] for v in data["variants"]}
    assert all(t[name] < 1.5 * limit for name in COMPILED), "within a few tens of percent of the limit"
    assert all(t[name] >= limit for name in VARIANTS), "nothing beats the limit"
    assert all(1.5 < t["F.elu"] / t[name] < 3 for name in COMPILED), "F.elu about twice as long"
    assert all(t[slow] > 10 * t[fast] for slow in ("composite", "ELUFunction") for fast in COMPILED)
    assert 0.35 < t["FusedELUFunction"] / t["F.elu"] < 0.7, "about half of F.elu's time"
    bandwidth = data["copy"]["bytes_per_second"]
    assert all(k["min_bytes_per_element"] * data["numel"] / k["median_seconds"] < bandwidth
               for k in data["kernels"]), "no single eager kernel is memory-bound"


def page_text():
    """The chapter's prose on one line, so that a phrase can be found across line breaks."""
    return " ".join(PAGE.read_text().split())


def test_the_prose_figures_for_elu_function_are_the_data_file_s():
    data = json.loads(DATA.read_text())
    t = {v["name"]: v["median_seconds"] for v in data["variants"]}
    saved = {v["name"]: v["saved_bytes"] for v in data["variants"]}
    text = page_text()
    less = 1 - saved["ELUFunction"] / saved["composite"]
    assert f"saves {less:.0%} less memory" in text and less == pytest.approx(0.2)
    ratios = f"(1× the input against the composite's {saved['composite'] / data['input_bytes']:.2f}×)"
    assert ratios in text
    assert f"`ELUFunction` is {t['composite'] / t['ELUFunction']:.1f} times as fast as the composite" in text
    assert 9 < t["ELUFunction"] / t["F.elu"] < 10 and "more than nine times slower than `F.elu`" in text


def test_the_page_sets_no_target_it_does_not_define():
    assert "target" not in page_text()


def test_fused_functions_are_written_in_the_pytorch_2_style(chapter):
    for snippet, name in [("fused_elu.py", "FusedELUFunction"),
                          ("solution_fused_saves_output.py", "FusedELUSavesOutput")]:
        function = chapter.run(snippet)[name]
        assert list(inspect.signature(function.forward).parameters) == ["z", "alpha"], "forward takes no ctx"
        assert "setup_context" in vars(function)


def test_results_snippet_prints_the_data_file(chapter):
    data = json.loads(DATA.read_text())
    table = chapter.shown("benchmark_results.py", "table").splitlines()
    assert len(table) == 4 + len(VARIANTS)
    assert f"copy bandwidth {data['copy']['bytes_per_second'] / 1e9:.1f} GB/s" in table[0]
    limit_ms = 20 * data["numel"] / data["copy"]["bytes_per_second"] * 1e3
    assert table[1] == f"memory-bound limit: {limit_ms:.2f} ms"
    rows = table[4:]
    for line, variant in zip(rows, data["variants"]):
        assert line.startswith(variant["name"]) and f"{variant['median_seconds'] * 1e3:.2f}" in line
    assert rows[VARIANTS.index("F.elu")].split()[2] == "1.00"
    provenance = chapter.shown("benchmark_results.py", "provenance")
    assert all(str(value) in provenance for value in data["provenance"].values())
    kernels = chapter.shown("benchmark_results.py", "kernels").splitlines()
    assert [k["name"] for k in data["kernels"]] == ["z > 0", "torch.exp(z)", "torch.where(mask, z, exp)",
                                                   "F.elu(z) forward"]
    assert len(kernels) == 1 + len(data["kernels"])
    result = chapter.result("benchmark_results.py")
    assert [kind(o) for o in result.select()].count("figure") == 1
    assert str(DATA) in map(str, result.deps), "the page rebuilds when the data file changes"


def test_fused_function_passes_gradcheck_and_saves_one_input(chapter):
    ns = chapter.run("fused_elu_check.py")
    assert torch.allclose(ns["ours"], ns["theirs"], atol=1e-7, rtol=0)
    assert torch.allclose(ns["our_grad"], ns["their_grad"], atol=1e-7, rtol=0)
    text = chapter.shown("fused_elu_check.py", "gradcheck")
    assert text.startswith("gradcheck: True\n")
    saved = chapter.shown("fused_elu_check.py", "saved").splitlines()
    assert saved == ["FusedELUFunction saves 400,000 bytes = 1.00 x the input",
                     "F.elu            saves 400,000 bytes = 1.00 x the input"]


def test_solution_float64_limit(chapter):
    data = json.loads(DATA.read_text())
    lines = chapter.shown("solution_float64_limit.py").splitlines()
    limit = {line.split()[0]: float(line.split()[-2]) for line in lines}
    float32 = 20 * data["numel"] / data["copy"]["bytes_per_second"] * 1e3
    assert limit["float32"] == pytest.approx(float32, abs=0.01)
    assert limit["float64"] == pytest.approx(2 * float32, abs=0.01)
    assert limit["bfloat16"] == pytest.approx(float32 / 2, abs=0.01)


def test_solution_fused_saves_output(chapter):
    ns = chapter.run("solution_fused_saves_output.py")
    assert ns["saved"][0] is ns["y"] and len(ns["saved"]) == 1
    assert torch.allclose(ns["grad"], ns["reference"], atol=1e-7, rtol=0)
    assert chapter.shown("solution_fused_saves_output.py").startswith("gradcheck: True\nsaves the output: True")


# ---- profiling the backward pass --------------------------------------------------------------

ENGINE = "autograd::engine::evaluate_function: "


def test_the_profile_rows_are_the_graph_s_nodes_with_their_counts(chapter):
    ns = chapter.run("profile_backward.py")
    rows = chapter.shown("profile_backward.py", "rows").splitlines()
    counted = {line.rsplit(maxsplit=1)[0].removeprefix(ENGINE): int(line.rsplit(maxsplit=1)[1]) for line in rows}
    assert all(line.startswith(ENGINE) for line in rows)
    assert counted == {"MeanBackward0": 1, "PowBackward0": 1, "AddmmBackward0": 2, "TBackward0": 2,
                       "torch::autograd::AccumulateGrad": 4, "ELUFunctionBackward": 1}
    assert counted["torch::autograd::AccumulateGrad"] == len(list(ns["model"].parameters()))
    assert sum(isinstance(m, torch.nn.Linear) for m in ns["model"]) == 2
    names = {node.name() for node in ns["graph_nodes"](ns["loss"].grad_fn)}
    assert names == set(counted)
    assert chapter.shown("profile_backward.py", "graph") == "the profile's nodes are the graph's: True\n"
    assert all(re.fullmatch(r"autograd::engine::evaluate_function: \S+ +\d+", line) for line in rows), "no times"


def test_the_profile_order_is_the_order_the_engine_ran_the_nodes(chapter):
    ns = chapter.run("profile_backward.py")
    events = list(ns["prof"].events())
    starts = [e.time_range.start for e in events]
    assert starts == sorted(starts), "prof.events() in the order they started"
    # Run the same model again with a pre-hook on every node, as the step-through records.
    model, x, ran = ns["model"], ns["x"], []
    loss = model(x).pow(2).mean()
    for node in ns["graph_nodes"](loss.grad_fn):
        node.register_prehook(lambda grads, node=node: ran.append(node.name()))
    loss.backward()
    shown = [line.split(maxsplit=1)[1] for line in chapter.shown("profile_backward.py", "order").splitlines()]
    assert shown == ran == ns["ran"]
    assert len(shown) == 11


def test_the_elu_node_runs_the_operations_of_our_backward_and_the_table_adds_them_up(chapter):
    ns = chapter.run("profile_backward.py")
    assert chapter.shown("profile_backward.py", "inside") == (
        "ELUFunctionBackward ['aten::ones_like', 'aten::gt', 'aten::exp', 'aten::mul', 'aten::where', "
        "'aten::mul']\n")
    node = ns["elu_node"]
    assert [c.name for c in node.cpu_children] == ["ELUFunctionBackward"]
    inner = node.cpu_children[0]
    assert node.time_range.start <= inner.time_range.start and inner.time_range.end <= node.time_range.end
    assert node.cpu_time_total >= inner.cpu_time_total
    averages = {row.key: row for row in ns["prof"].key_averages()}
    assert averages["aten::exp"].count == 2
    inside = [op.name for op in inner.cpu_children]
    assert inside.count("aten::exp") == 1, "one in the backward node, the other in the forward pass"
    assert {kind(o) for o in chapter.outputs("profile_backward.py")} == {"stdout"}, "no Kineto log lines"


def test_solution_profile_composite(chapter):
    ns = chapter.run("solution_profile_composite.py")
    composite = ns["elu_nodes"](True)
    assert [name for name, _ in composite] == ["WhereBackward0", "MulBackward0", "SubBackward0", "ExpBackward0"]
    ours = ns["elu_nodes"](False)
    assert [name for name, _ in ours] == ["ELUFunctionBackward"]
    assert sum(len(ops) for _, ops in composite) < sum(len(ops) for _, ops in ours)
    assert dict(composite)["ExpBackward0"] == ["aten::mul"] and "aten::exp" in dict(ours)["ELUFunctionBackward"]
    assert "aten::gt" not in [op for _, ops in composite for op in ops]
    z = torch.randn(5, requires_grad=True)
    y = ns["ELU"](composite=True)(z)
    where = y.grad_fn
    assert type(where).__name__ == "WhereBackward0" and torch.equal(where._saved_condition, z > 0)
    exp_nodes = [f for f, _ in where.next_functions[1][0].next_functions[0][0].next_functions if f is not None]
    assert type(exp_nodes[0]).__name__ == "ExpBackward0" and torch.equal(exp_nodes[0]._saved_result, torch.exp(z))
    data = json.loads(DATA.read_text())
    saved = {v["name"]: v["saved_bytes"] / data["input_bytes"] for v in data["variants"]}
    assert (saved["composite"], saved["ELUFunction"]) == (1.25, 1.0)
    shown = chapter.shown("solution_profile_composite.py").splitlines()
    assert shown[0] == "ELUFunction: nodes 1, ATen operations 6"
    assert shown[2] == "composite: nodes 4, ATen operations 4"


def test_kineto_log_level_is_read_when_the_first_profile_starts():
    """Without it, each profile writes lines with the time and the process id to stderr; set before
    the first profile of the process it silences them, set after it does not."""
    code = """
import os, torch
from torch.profiler import profile
if {before}:
    os.environ["KINETO_LOG_LEVEL"] = "6"
with profile():
    torch.ones(2).exp()
os.environ["KINETO_LOG_LEVEL"] = "6"
with profile():
    torch.ones(2).exp()
"""
    env = {k: v for k, v in os.environ.items() if k != "KINETO_LOG_LEVEL"}
    runs = {before: subprocess.run([sys.executable, "-c", code.format(before=before)], env=env,
                                   capture_output=True, text=True, check=True)
            for before in (True, False)}
    assert runs[True].stderr == ""
    assert re.search(r"\d\d:\d\d:\d\d (\d+):\1 .*profiler_start", runs[False].stderr), "the time, the process id"
    assert runs[False].stderr.count("profiler_start") == 2, "the second profile still logs"
