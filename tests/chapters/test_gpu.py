"""Claims of the chapter 'Running on a GPU' (docs/gpu.md) and its recording script.

The CPU path always runs; tests marked `cuda` check what the page says happens on a GPU.
"""

import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from conftest import ROOT, SNIPPETS, kind, printed, script, sharing, torch_libraries_holding, warnings_in

BENCH = ROOT / "bench" / "gpu_benchmarks.py"
RESULTS = ROOT / "bench" / "results" / "gpu_benchmarks.json"
CUDA = torch.cuda.is_available()
TINY = ["--sizes", "16", "32", "32", "4", "--batch", "8", "--warmup", "1", "--repeats", "3",
        "--copy-batches", "2", "--copy-size", "64", "--index-rows", "4096"]


def bench(*args, tmp_path):
    return subprocess.run([sys.executable, BENCH, *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600)


# Choosing a device and moving to it


def test_the_page_says_which_device_built_it(chapter):
    shown = chapter.shown("choose_device.py", "choose")
    if CUDA:
        assert shown == f"This build ran on a CUDA GPU: {torch.cuda.get_device_name()}.\n"
    else:
        assert shown == "No CUDA GPU: this build ran every snippet on the CPU.\n"


def test_module_to_is_in_place_and_tensor_to_copies_only_across_devices(chapter):
    ns = chapter.run("choose_device.py")
    assert ns["layer"].weight.device.type == ns["device"].type == ns["x"].device.type
    lines = chapter.shown("choose_device.py", "move").splitlines()
    assert lines[0] == "True", "Module.to returns the module itself"
    assert lines[1] == str(not CUDA), "Tensor.to returns the same tensor only when it is already there"
    assert lines[2] == " ".join([str(ns["x"].device)] * 3)


@pytest.mark.cuda
def test_mixing_devices_raises():
    with pytest.raises(RuntimeError, match="same device"):
        torch.ones(2, device="cuda") + torch.ones(2, 2)


# The leaf pitfall


def test_to_the_same_device_keeps_the_leaf_and_double_makes_a_non_leaf(chapter):
    shown = chapter.shown("leaf_pitfall.py", "to_device")
    if CUDA:
        assert shown == "to('cuda'): is_leaf=False, grad_fn=ToCopyBackward0\n"
    else:
        assert shown == "to('cpu'): is_leaf=True, grad_fn=None\n", "on the CPU .to(cpu) is no copy"
    outputs = chapter.outputs("leaf_pitfall.py", "double")
    assert printed(outputs) == "double(): is_leaf=False, grad_fn=ToCopyBackward0\nNone\n"
    assert any("not a leaf Tensor" in w["message"] for w in warnings_in(outputs))


def test_the_gradient_goes_to_the_float32_leaf_that_only_the_graph_holds():
    leaf = torch.randn(3, requires_grad=True)
    w = leaf.double()
    w.sum().backward()
    assert torch.equal(leaf.grad, torch.ones(3)) and leaf.grad.dtype == torch.float32
    assert w.grad_fn.next_functions[0][0].variable is leaf
    for page in ("gpu.md", "errors_gpu.md"):
        assert "only the graph still refers to" in " ".join((ROOT / "docs" / page).read_text().split()), page


def test_the_fixed_tensors_are_leaves_with_a_gradient(chapter):
    with pytest.warns(UserWarning, match="not a leaf Tensor"):
        ns = chapter.run("leaf_pitfall.py")
    for t in (ns["w"], ns["v"]):
        assert t.is_leaf and t.grad is not None
        assert t.dtype == torch.float64 and t.device.type == ns["device"].type
    assert chapter.shown("leaf_pitfall.py", "fix") == "is_leaf=True, grad_fn=None\n" * 2 + "True True\n"


@pytest.mark.cuda
def test_to_cuda_after_requires_grad_is_a_non_leaf_without_grad():
    w = torch.randn(3, requires_grad=True).to("cuda")
    assert not w.is_leaf and w.grad_fn.name() == "ToCopyBackward0"
    w.sum().backward()
    with pytest.warns(UserWarning, match="not a leaf Tensor"):
        assert w.grad is None


# The custom ELU, unchanged


def test_the_chapter_uses_the_previous_chapters_elu_itself(chapter):
    link = chapter.path("elu.py")
    assert link.is_symlink()
    assert link.resolve() == (SNIPPETS / "custom_functions" / "elu.py").resolve()


def test_gradients_come_back_on_the_inputs_device_and_dtype(chapter):
    ns = chapter.run("elu_on_device.py")
    device = ns["device"]
    shown = chapter.shown("elu_on_device.py", "gradients")
    expected = "".join(f"input {d} on {device} -> gradient {d} on {device}\n" for d in (torch.float32, torch.float64))
    assert shown.replace("cuda:0", "cuda") == expected.replace("cuda:0", "cuda")
    z = ns["z"]
    assert z.abs().min() > 1e-3, "gradcheck's inputs stay away from the kink at 0"
    assert chapter.shown("elu_on_device.py", "gradcheck") == "gradcheck: True\ngradgradcheck: True\n"


@pytest.mark.cuda
def test_on_cuda_the_elu_gradient_is_on_cuda_and_a_cpu_made_tensor_fails(chapter):
    ns = chapter.run("elu_on_device.py")
    elu = ns["ELUFunction"]
    z = torch.randn(5, device="cuda", dtype=torch.float16, requires_grad=True)
    elu.apply(z, 1.0).sum().backward()
    assert z.grad.device.type == "cuda" and z.grad.dtype == torch.float16
    with pytest.raises(RuntimeError, match="same device"):
        torch.where(z > 0, torch.ones(z.shape), z)  # what torch.ones(z.shape) in backward would do


# Training the MLP


def test_the_loss_starts_near_ln_10_and_goes_down_at_every_printed_step(chapter):
    ns = chapter.run("train_mlp.py")
    expected_sizes = (512, 1024, 1024, 10) if CUDA else (64, 128, 128, 10)
    assert ns["sizes"] == expected_sizes
    linears = [m for m in ns["model"] if isinstance(m, torch.nn.Linear)]
    assert [(m.in_features, m.out_features) for m in linears] == list(zip(expected_sizes, expected_sizes[1:]))
    assert sum(type(m).__name__ == "ELUCustom" for m in ns["model"]) == 2
    shown = chapter.shown("train_mlp.py", "loop")
    steps = [(int(s), float(v)) for s, v in re.findall(r"step +(\d+): cross-entropy ([\d.]+)", shown)]
    assert [s for s, _ in steps] == [1, 5, 10, 15, 20]
    losses = [v for _, v in steps]
    assert abs(losses[0] - math.log(10)) < 0.05
    assert all(later < earlier for earlier, later in zip(losses, losses[1:]))


def test_the_data_is_the_same_whatever_the_device(chapter):
    ns = chapter.run("mlp.py")
    x1, y1 = ns["synthetic_batch"](4, 6, 3, "cpu")
    x2, y2 = ns["synthetic_batch"](4, 6, 3, "cpu")
    assert torch.equal(x1, x2) and torch.equal(y1, y2)
    assert y1.dtype == torch.int64 and set(y1.tolist()) <= {0, 1, 2}


# Timing


def test_median_ms_warms_up_then_repeats_and_needs_no_synchronisation_on_cpu(chapter):
    ns = chapter.run("timing.py")
    calls = []
    result = ns["median_ms"](lambda: calls.append(1), torch.device("cpu"), warmup=3, repeats=7)
    assert len(calls) == 10 and result >= 0
    assert ns["synchronize"](torch.device("cpu")) is None


@pytest.mark.cuda
def test_unsynchronised_timing_measures_only_the_launches(chapter):
    ns = chapter.run("timing.py")
    device = torch.device("cuda")
    a = torch.randn(8192, 8192, device=device)

    def step():
        for _ in range(4):
            a @ a

    synced = ns["median_ms"](step, device, warmup=2, repeats=5)
    launches = ns["median_ms"](step, device, warmup=2, repeats=5, synchronise=False)
    events = ns["cuda_event_median_ms"](step, warmup=2, repeats=5)
    assert launches < synced / 5
    assert events > synced / 2


# The recording script and the results on the page


@pytest.mark.skipif(CUDA, reason="this machine has a CUDA GPU")
def test_without_cuda_asking_for_cuda_is_refused(tmp_path):
    done = bench("--device", "cuda", "--out", str(tmp_path / "out.json"), tmp_path=tmp_path)
    assert done.returncode != 0
    assert len(done.stderr.strip().splitlines()) == 1 and "no CUDA GPU" in done.stderr
    assert not (tmp_path / "out.json").exists()


def test_a_cpu_run_does_not_replace_a_recorded_cuda_run(tmp_path, trial):
    out = tmp_path / "recorded.json"
    out.write_text(json.dumps(as_cuda_run(trial)))
    before = out.read_text()
    done = bench("--device", "cpu", "--out", str(out), *TINY, tmp_path=tmp_path)
    assert done.returncode != 0 and "holds a CUDA run" in done.stderr
    assert out.read_text() == before


def check_schema(results, device):
    p = results["provenance"]
    assert set(p) == {"command", "date", "gpu", "cuda", "torch", "cpu", "cpu_threads", "python"}
    assert p["torch"] == torch.__version__ and p["command"].startswith("python bench/gpu_benchmarks.py")
    assert p["cpu_threads"] == torch.get_num_threads() >= 1
    assert set(results["settings"]) == {"sizes", "batch", "warmup", "repeats"}
    rows = results["results"]
    assert {k for r in rows for k in r} == {"measurement", "device", "activation", "median_ms",
                                           "unsynchronised_median_ms", "cuda_event_median_ms"}
    assert all(r["median_ms"] > 0 for r in rows)
    assert all((r["cuda_event_median_ms"] is None) == (r["device"] == "cpu") for r in rows)
    three = ["custom ELU", "composite ELU", "F.elu"]
    devices = ["cpu"] + (["cuda"] if device == "cuda" else [])
    expected = [(m, d, a) for m in ("training step", "ELU forward and backward") for d in devices for a in three]
    assert [(r["measurement"], r["device"], r["activation"]) for r in rows] == expected
    streams = results.get("streams")
    if results["provenance"]["gpu"] is None or streams is not None:  # a CPU run records none
        assert (streams is None) == (results["provenance"]["gpu"] is None)
    if streams is not None:
        assert set(streams) == {"settings", "baseline", "rows"} and streams["baseline"] == "one stream"
        assert set(streams["settings"]) == {"batches", "size", "dtype"}
        assert [r["variant"] for r in streams["rows"]] == ["copy only", "compute only", "one stream", "side stream"]
        assert all(r["median_ms"] > 0 for r in streams["rows"])
    determinism = results.get("determinism")
    assert (determinism is None) == (streams is None), "both measured on a GPU, neither without"
    if determinism is not None:
        assert set(determinism) == {"settings", "baseline", "rows"}
        assert determinism["baseline"] == {"deterministic": False}
        assert set(determinism["settings"]) == {"weight", "rows", "dtype"}
        assert [(r["operation"], r["deterministic"]) for r in determinism["rows"]] == [
            ("index_select", False), ("index_select", True), ("gather", False), ("gather", True)]
        assert all(r["median_ms"] > 0 for r in determinism["rows"])


@pytest.fixture(scope="module")
def trial_json(tmp_path_factory):
    """One tiny CPU trial of bench/gpu_benchmarks.py for the tests of this file that read one:
    the JSON it wrote."""
    tmp_path = tmp_path_factory.mktemp("trial")
    out = tmp_path / "results" / "trial.json"
    done = bench("--device", "cpu", "--out", str(out), *TINY, tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    return out.read_text()


@pytest.fixture
def trial(trial_json):
    """That trial's results, a copy of their own for each test."""
    return json.loads(trial_json)


def as_cuda_run(results, gpu="NVIDIA H200", cuda="12.8"):
    """A CPU trial dressed as a CUDA run: the CPU rows, and the same rows again as GPU rows."""
    gpu_rows = [{**r, "device": "cuda", "median_ms": r["median_ms"] / 100,
                 "unsynchronised_median_ms": r["median_ms"] / 1000, "cuda_event_median_ms": r["median_ms"] / 100}
                for r in results["results"]]
    rows = [r for m in ("training step", "ELU forward and backward")
            for r in results["results"] + gpu_rows if r["measurement"] == m]
    return {**results, "provenance": {**results["provenance"], "gpu": gpu, "cuda": cuda}, "results": rows}


def test_a_tiny_cpu_trial_writes_the_schema(trial):
    check_schema(trial, "cpu")
    assert trial["provenance"]["gpu"] is None
    assert "streams" in trial and trial["streams"] is None, "no streams measurement without a GPU"
    assert "determinism" in trial and trial["determinism"] is None
    check_schema(as_cuda_run(trial), "cuda")


@pytest.mark.cuda
def test_a_tiny_cuda_run_writes_the_schema(tmp_path):
    out = tmp_path / "trial.json"
    done = bench("--out", str(out), *TINY, tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    results = json.loads(out.read_text())
    check_schema(results, "cuda")
    assert results["streams"]["settings"] == {"batches": 2, "size": 64, "dtype": "float32"}
    assert results["determinism"]["settings"] == {"weight": [1024, 256], "rows": 4096, "dtype": "float32"}
    assert results["provenance"]["gpu"] == torch.cuda.get_device_name()
    assert results["provenance"]["cuda"] == torch.version.cuda


def test_the_committed_file_holds_the_cpu_rows_at_the_benchmarks_sizes():
    results = json.loads(RESULTS.read_text())
    check_schema(results, "cuda" if results["provenance"]["gpu"] else "cpu")
    assert results["settings"]["sizes"] == [512, 1024, 1024, 10] and results["settings"]["batch"] == 4096
    assert results["provenance"]["command"].startswith("python bench/gpu_benchmarks.py")


def test_the_page_shows_what_the_file_holds(chapter):
    outputs = chapter.outputs("gpu_results.py", "measured")
    shown, kinds = printed(outputs), [kind(o) for o in outputs]
    results = json.loads(RESULTS.read_text())
    p = results["provenance"]
    assert shown.startswith(f"Recorded {p['date']} with: {p['command']}\n")
    if p["gpu"]:
        assert f"GPU: {p['gpu']}, CUDA {p['cuda']}" in shown
    else:
        assert "GPU: none, this run measured the CPU only" in shown and "unsynced" not in shown
    assert kinds.count("figure") == 1
    for r in results["results"]:
        assert f"{r['median_ms']:.3f}" in shown


def run_in_a_copy(chapter, worker, tmp_path, data=None):
    """The page's snippet in a copy of the project with `data` as its results file, or
    none (a cache of its own, in the copy)."""
    folder = tmp_path / "project" / "snippets" / "gpu"
    folder.mkdir(parents=True)
    for name in ("gpu_results.py", "results_table.py", "memory_traffic.py", "elu.py"):
        shutil.copy(chapter.path(name), folder / name)
    path = tmp_path / "project" / "bench" / "results" / "gpu_benchmarks.json"
    if data is not None:
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(data))
    result = sharing(worker, tmp_path / "project").run(folder / "gpu_results.py")
    assert result.error is None, result.error
    return result, path


def bounds_of(stdout):
    """The bounds table: {variant: the numbers of its line}, and the lines after it."""
    table = stdout[stdout.index("ELU forward and backward, float32 z"):]
    rows = {line[:13].strip(): line[13:].split() for line in table.splitlines()[5:8]}
    return rows, table.splitlines()[8:]


def test_the_page_depends_on_the_file_and_shows_the_bounds_without_it(chapter, worker, tmp_path, trial):
    result, path = run_in_a_copy(chapter, worker, tmp_path / "with", trial)
    assert result.stdout.startswith("Recorded ") and "training step" in result.stdout
    assert [kind(o) for o in result.select()].count("figure") == 1
    assert path in [Path(d) for d in result.deps], "the page is rebuilt when the file changes"

    bare, _ = run_in_a_copy(chapter, worker, tmp_path / "without")
    assert bare.stdout.startswith("No run of bench/gpu_benchmarks.py is recorded: nothing measured to show.\n")
    assert "figure" not in [kind(o) for o in bare.select()]
    rows, after = bounds_of(bare.stdout)
    assert [len(r) for r in rows.values()] == [5, 5, 5], "kernels, bytes, three bounds: nothing measured"
    assert after == ["", "No CUDA run is recorded: the three GPU columns are bounds, not measurements."]


def test_a_recorded_cuda_run_adds_its_column_beside_the_bounds_and_nothing_else(chapter, worker, tmp_path, trial):
    cpu, _ = run_in_a_copy(chapter, worker, tmp_path / "cpu", trial)
    cuda_run = as_cuda_run(trial)
    gpu, _ = run_in_a_copy(chapter, worker, tmp_path / "cuda", cuda_run)
    cpu_rows, cpu_after = bounds_of(cpu.stdout)
    gpu_rows, gpu_after = bounds_of(gpu.stdout)
    elu = {r["activation"]: r["median_ms"] for r in cuda_run["results"]
           if r["measurement"] == "ELU forward and backward" and r["device"] == "cuda"}
    for name in cpu_rows:
        assert gpu_rows[name] == cpu_rows[name] + [f"{elu[name]:.3f}"], "the same bounds, one more column"
    assert gpu_after == ["", "cuda ms: measured on NVIDIA H200, CUDA 12.8"]
    traffic = slice(cpu.stdout.index("gt "), cpu.stdout.index("ELU forward and backward, float32"))
    gpu_traffic = slice(gpu.stdout.index("gt "), gpu.stdout.index("ELU forward and backward, float32"))
    assert cpu.stdout[traffic] == gpu.stdout[gpu_traffic]
    assert "GPU: NVIDIA H200, CUDA 12.8" in gpu.stdout and "events ms" in gpu.stdout


def test_the_renderer_tabulates_every_row_with_its_provenance(chapter, monkeypatch, capsys, trial):
    ns = chapter.run("results_table.py")
    plots = []
    monkeypatch.setattr(ns["plt"], "show", lambda: plots.append(1))
    for data, median_column in ((trial, -1), (as_cuda_run(trial), -3)):
        ns["show"](data)
        shown = capsys.readouterr().out
        assert data["provenance"]["command"] in shown and data["provenance"]["date"] in shown
        table = shown.split("\n\n", 1)[1].splitlines()
        assert len(table) == 1 + len(data["results"])
        for line, row in zip(table[1:], data["results"]):
            assert line.split()[median_column] == f"{row['median_ms']:.3f}" and row["activation"] in line
    assert plots == [1, 1]


# What a GPU can do at best: bytes moved over bandwidth


CUSTOM_ELU_KERNELS = [("gt", 5), ("exp", 8), ("sub", 8), ("mul", 8), ("where", 13),  # forward
                      ("ones_like", 4), ("gt", 5), ("exp", 8), ("mul", 8), ("where", 13), ("mul", 12)]


def per_element(kernels, n):
    return [(name, nbytes / n) for name, nbytes in kernels]


def test_the_counter_sees_every_kernel_of_forward_and_backward(chapter):
    ns = chapter.run("gpu_results.py")
    n = ns["n"]
    assert ns["shape"] == (4096, 1024) and n == 4096 * 1024
    assert per_element(ns["traffic"]["custom ELU"], n) == CUSTOM_ELU_KERNELS
    assert sum(b for _, b in CUSTOM_ELU_KERNELS[:5]) == 42 and sum(b for _, b in CUSTOM_ELU_KERNELS) == 92
    composite = per_element(ns["traffic"]["composite ELU"], n)
    assert len(composite) == 12 and [name for name, _ in composite].count("scalar_tensor") == 2
    assert [b for name, b in composite if name == "scalar_tensor"] == [4 / n, 4 / n], "a single 0 each"
    assert sum(b for _, b in composite) == pytest.approx(92, abs=1e-5)
    assert per_element(ns["traffic"]["F.elu"], n) == [("elu", 8), ("elu_backward", 12)]
    lines = chapter.shown("gpu_results.py", "traffic").splitlines()
    assert [(line.split()[0], float(line.split()[1])) for line in lines] == CUSTOM_ELU_KERNELS


def test_meta_tensors_count_what_real_tensors_run(chapter):
    """The same operations, with the same bytes per element, as on real tensors."""
    ns = chapter.run("gpu_results.py")
    counter = chapter.run("memory_traffic.py")
    eager_traffic = ns["eager_traffic"]
    for name, layer in ns["layers"].items():
        meta = per_element(eager_traffic(layer, (64, 32)), 64 * 32)
        z = torch.randn(64, 32, requires_grad=True)
        traffic = counter["KernelTraffic"]()
        grad = torch.randn(64, 32)
        with traffic:
            layer(z).backward(grad)
        assert per_element(traffic.kernels, 64 * 32) == meta, name
    fused = json.loads((ROOT / "bench" / "results" / "elu_performance.json").read_text())
    assert fused["min_bytes_per_element"] == 20 == sum(b for _, b in per_element(ns["traffic"]["F.elu"], ns["n"]))


def test_the_bounds_are_bytes_over_the_data_sheet_bandwidths(chapter):
    ns = chapter.run("gpu_results.py")
    assert ns["BANDWIDTH"] == {"A100 SXM 80GB": 2.039e12, "H100 SXM": 3.35e12, "H200 SXM": 4.8e12}
    rows, after = bounds_of(chapter.shown("gpu_results.py", "bounds"))
    measured = {r["activation"]: r["median_ms"] for r in json.loads(RESULTS.read_text())["results"]
                if r["measurement"] == "ELU forward and backward" and r["device"] == "cpu"}
    for name, kernels in ns["traffic"].items():
        nbytes = sum(b for _, b in kernels)
        expected = [str(len(kernels)), f"{nbytes / ns['n']:.0f}"]
        expected += [f"{nbytes / bw * 1e3:.3f}" for bw in ns["BANDWIDTH"].values()]
        assert rows[name][:5] == expected
        assert rows[name][5] == f"{measured[name]:.3f}", "the CPU's measured column"
    assert rows["custom ELU"][:2] == ["11", "92"] and rows["F.elu"][:2] == ["2", "20"]
    assert rows["F.elu"][2:5] == ["0.041", "0.025", "0.017"]
    assert 92 / 20 == 4.6 and 4096 * 1024 * 4 == 16 * 2**20, "4.6 times the bytes; a 16 MiB tensor"
    if not json.loads(RESULTS.read_text())["provenance"]["gpu"]:
        assert after == ["", "No CUDA run is recorded: the three GPU columns are bounds, not measurements."]


def test_solution_bfloat16_traffic(chapter):
    lines = chapter.shown("solution_bfloat16_traffic.py").splitlines()
    table = {line[:18].strip(): line[18:].split() for line in lines[1:]}
    assert table == {"custom ELU": ["92", "48"], "composite ELU": ["92", "48"], "F.elu": ["20", "10"]}
    ns = chapter.run("solution_bfloat16_traffic.py")
    kernels = ns["eager_traffic"](ns["layers"]["custom ELU"], (8, 8), torch.bfloat16)
    masks = [b / 64 for name, b in kernels if name == "gt"]
    assert masks == [3, 3], "reads 2 bytes, writes a 1-byte mask"
    assert torch.empty(1, dtype=torch.bool).element_size() == 1
    # 4 bytes of masks per element (two written, two read by where); the other 88 halve
    assert (92 - 4) / 2 + 4 == 48


# Mixed precision


def test_a_matmul_in_backward_fails_under_autocast_and_custom_bwd_fixes_it(chapter):
    ns = chapter.run("autocast_backward_mismatch.py")
    low = "Half" if CUDA else "BFloat16"
    lines = chapter.shown("autocast_backward_mismatch.py", "crash").splitlines()
    assert lines[0] == f"output (and so grad_output): {ns['low']}, saved b: torch.float32"
    assert lines[1].startswith("RuntimeError: expected") and f"c10::{low} != float" in lines[1]
    assert len(lines) == 2
    assert ns["a"].grad.dtype == ns["b"].grad.dtype == torch.float32
    shown = chapter.shown("autocast_backward_mismatch.py", "custom_bwd")
    assert shown == "gradients: a torch.float32, b torch.float32\n"
    expected = torch.ones(4, 2, device=ns["device"]) @ ns["b"].detach().T
    assert torch.allclose(ns["a"].grad, expected, atol=0.05), "a correct gradient, up to 16-bit rounding"


def test_the_elu_runs_in_low_precision_unless_decorated(chapter):
    ns = chapter.run("autocast_elu.py")
    low = ns["low"]
    plain = chapter.shown("autocast_elu.py", "plain")
    match = re.fullmatch(r"z: (\S+), ELU\(z\): (\S+), largest error: (\S+)\n", plain)
    assert match[1] == str(low)
    if not CUDA:
        assert match[2] == str(low) and 1e-4 < float(match[3]) < 1e-1
    amp = chapter.shown("autocast_elu.py", "amp_run")
    assert amp == f"z: {low}, ELU(z): torch.float32, largest error: 0e+00\ngradient of z: {low}\n"


def test_cast_inputs_saves_a_float32_copy_and_the_decorators_are_per_device_type(chapter):
    ns = chapter.run("autocast_elu.py")
    device, low, amp = ns["device"], ns["low"], ns["ELUFunctionAMP"]
    z = torch.randn(8, device=device).to(low).requires_grad_()
    saved = []
    with torch.autocast(device_type=device.type, dtype=low):
        with torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(t) or t, lambda t: t):
            amp.apply(z, 1.0)
    assert [t.dtype for t in saved] == [torch.float32], "twice the bytes of the 16-bit z"

    z64 = torch.randn(8, dtype=torch.float64, device=device)
    assert amp.apply(z64, 1.0).dtype == torch.float64, "outside autocast the decorators do nothing"

    class ForCuda(ns["ELUFunction"]):
        @staticmethod
        @torch.amp.custom_fwd(device_type="cuda", cast_inputs=torch.float32)
        def forward(ctx, z, alpha):
            return ns["ELUFunction"].forward(ctx, z, alpha)

    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        z = torch.randn(4, 8) @ torch.eye(8)
        assert z.dtype == ForCuda.apply(z, 1.0).dtype == torch.bfloat16, "a cuda decorator ignores CPU autocast"


@pytest.mark.cuda
def test_on_cuda_the_plain_elu_returns_float32_but_its_backward_runs_without_autocast(chapter):
    ns = chapter.run("autocast_elu.py")
    elu = ns["ELUFunction"]
    states = []

    class Spy(elu):
        @staticmethod
        def backward(ctx, grad_output):
            (z,) = ctx.saved_tensors
            states.append((torch.is_autocast_enabled("cuda"), z.dtype, torch.exp(z).dtype))
            return elu.backward(ctx, grad_output)

    z = torch.randn(64, 8, device="cuda", requires_grad=True)
    with torch.autocast(device_type="cuda", dtype=torch.float16):
        pre = z @ torch.eye(8, device="cuda")
        y = Spy.apply(pre, 1.0)
    assert pre.dtype == torch.float16 and y.dtype == torch.float32
    y.sum().backward()
    assert states == [(False, torch.float16, torch.float16)]


# Loss scaling


def test_float16_range_and_a_gradient_of_1e_8_flushed_to_zero(chapter):
    def half(value):
        return torch.tensor(value, dtype=torch.float16).item()

    assert chapter.shown("loss_scaling.py", "range") == (
        f"largest float16:   {torch.finfo(torch.float16).max}\n"
        f"smallest float16:  {2.0**-24}\n"
        f"4e-8 in float16:   {half(4e-8)}\n"
        f"2.9e-8 in float16: {half(2.9e-8)}\n"
        f"1e-8 in float16:   {half(1e-8)}\n")
    smallest = torch.tensor(1, dtype=torch.int16).view(torch.float16).item()  # the bits 0...01
    assert smallest == 2.0**-24 == half(2.0**-24), "the smallest positive float16"
    assert 2.0**-24 == pytest.approx(6e-8, rel=0.01) and 2.0**-25 == pytest.approx(3e-8, rel=0.01)
    assert half(4e-8) == 2.0**-24 and half(2.9e-8) == half(1e-8) == 0
    # between 2^-25 and 2^-24 a number rounds up to 2^-24, below 2^-25 to 0 (2^-25 itself: to even, 0)
    between = torch.linspace(2.0**-26, 2.0**-24, 1001, dtype=torch.float64)
    rounded = between.to(torch.float16).double()
    assert torch.equal(rounded, torch.where(between > 2.0**-25, 2.0**-24, 0.0))
    ns = chapter.run("loss_scaling.py")
    h = ns["h"].detach().float().requires_grad_()
    (exact,) = torch.autograd.grad((h * ns["small"].float()).sum() * 1e-4, h)
    assert torch.allclose(exact, torch.full((3,), 1e-8), rtol=1e-3), "the true gradient is 1e-8"
    assert chapter.shown("loss_scaling.py", "underflow") == (
        f"gradient in float16: tensor([0., 0., 0.]{', device=' + repr(str(ns['h'].device)) if CUDA else ''}"
        ", dtype=torch.float16)\n")


def test_scaling_the_loss_keeps_the_gradient_and_unscaling_gives_it_back(chapter):
    ns = chapter.run("loss_scaling.py")
    h, scale = ns["h"], ns["scale"]
    assert h.grad.dtype == torch.float16 and (h.grad > 0).all()
    unscaled = h.grad.float() / scale
    expected = 1e-4 * ns["small"].float().item()  # 1e-4 times float16's nearest value to 1e-4
    assert torch.allclose(unscaled, torch.full((3,), expected, device=h.device), rtol=1e-3)
    lines = chapter.shown("loss_scaling.py", "scaled").splitlines()
    assert lines[0].startswith("scaled gradient:     tensor([0.0007, 0.0007, 0.0007]")
    assert lines[1].startswith("unscaled in float32: tensor([1.0004e-08, 1.0004e-08, 1.0004e-08]")
    assert scale == 2**16 > torch.finfo(torch.float16).max, "the scale is no float16"
    assert ns["float32_loss"](h.detach()).dtype == torch.float32


def test_every_gradient_is_multiplied_by_the_scale():
    torch.manual_seed(0)
    w = torch.randn(5, requires_grad=True)
    loss = lambda: torch.tanh(w * w.sum()).pow(2).mean()  # noqa: E731
    (plain,) = torch.autograd.grad(loss(), w)
    (scaled,) = torch.autograd.grad(loss() * 2.0**16, w)
    assert torch.allclose(scaled, plain * 2.0**16)


def test_grad_scaler_works_on_the_cpu_and_unscales_in_place():
    scaler = torch.amp.GradScaler("cpu")
    assert scaler.is_enabled() and scaler.get_scale() == 65536.0
    assert torch.amp.GradScaler("cpu")._growth_interval == 2000, "the default growth_interval"
    layer = torch.nn.Linear(4, 1)
    optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
    with torch.autocast(device_type="cpu", dtype=torch.float16):
        out = layer(torch.randn(8, 4))
        loss = out.float().pow(2).mean()
    assert out.dtype == torch.float16, "the CPU's autocast computes in float16 when asked"
    scaler.scale(loss).backward()
    scaled = layer.weight.grad.clone()
    scaler.unscale_(optimizer)
    assert torch.equal(layer.weight.grad, scaled / 65536.0)


def test_the_scaler_skips_the_overflowing_step_halves_then_grows(chapter):
    lines = chapter.shown("loss_scaling.py", "scaler").splitlines()
    rows = [re.fullmatch(r"step (\d): loss ([\d.]+)  scale +(\d+)  step (taken|skipped)", line) for line in lines]
    steps = [(float(m[2]), int(m[3]), m[4] == "taken") for m in rows]
    assert len(steps) == 8
    assert steps[0][1:] == (65536, False), "the first step overflows at 65536 and is skipped"
    assert steps[1][0] == steps[0][0] and steps[1][1] == 32768, "weights unchanged, scale halved"
    for (loss, scale, taken), (next_loss, next_scale, _) in zip(steps, steps[1:]):
        if not taken:
            assert next_scale == scale // 2 and next_loss == loss
        else:
            assert next_loss < loss, "the loss goes down after every step taken"
    taken = [t for _, _, t in steps]
    assert all(taken[1:])
    assert steps[4][1] == 2 * steps[3][1], "doubled after three steps without an inf"
    assert [s for _, s, _ in steps[1:4]] == [32768] * 3
    ns = chapter.run("loss_scaling.py")
    model = ns["model"]
    assert all(p.dtype == torch.float32 for p in model.parameters()), "float32 master weights"
    assert all(p.grad.dtype == torch.float32 for p in model.parameters()), "float32 gradients"
    # why the first step overflows: its exact gradient times 65536 is beyond float16's range
    torch.manual_seed(0)
    fresh = torch.nn.Linear(64, 1).to(ns["device"])
    ((fresh(ns["x"]) - ns["y"]) ** 2).mean().backward()
    assert fresh.weight.grad.abs().max() * 65536 > torch.finfo(torch.float16).max
    assert fresh.weight.grad.abs().max() * 32768 < torch.finfo(torch.float16).max


def test_the_scaler_holds_no_parameters_and_autocast_never_converts_them():
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    with torch.autocast(device_type="cpu", dtype=torch.float16):
        out = model(torch.randn(4, 8))
        loss = out.float().pow(2).mean()
        assert out.dtype == torch.float16 and model.weight.dtype == torch.float32, "a float16 copy"
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    assert all(p.dtype == p.grad.dtype == torch.float32 for p in model.parameters())
    held = [v for v in vars(scaler).values() if isinstance(v, torch.Tensor)]
    assert held and all(v.numel() == 1 for v in held), "a scale and a counter, no parameter"
    assert not any(v is p for v in held for p in model.parameters())
    assert set(scaler.state_dict()) == {"scale", "growth_factor", "backoff_factor", "growth_interval",
                                        "_growth_tracker"}


@pytest.mark.cuda
def test_cuda_events_time_the_gpu_waiting_for_python_too(chapter):
    """Between the markers the GPU ran two tiny kernels and waited 50 ms for Python:
    the events measure the wait."""
    import time

    ns = chapter.run("timing.py")
    a = torch.ones(16, device="cuda")

    def launch_bound():
        a.add_(1)
        time.sleep(0.05)  # Python busy, the GPU idle
        a.add_(1)

    def kernels_only():
        a.add_(1)
        a.add_(1)

    assert ns["cuda_event_median_ms"](launch_bound, warmup=1, repeats=3) > 45
    assert ns["cuda_event_median_ms"](kernels_only, warmup=1, repeats=3) < 5

def test_solution_half_parameters(chapter):
    assert chapter.shown("solution_half_parameters.py") == (
        "torch.float16 parameters: ValueError: Attempting to unscale FP16 gradients.\n"
        "torch.float32 parameters: step done, gradients torch.float32\n")
    one = torch.tensor(1.0, dtype=torch.float16)
    assert one + torch.tensor(1e-4, dtype=torch.float16) == one, "a small update rounds away in float16"


def test_solution_bfloat16_range(chapter):
    lines = chapter.shown("solution_bfloat16_range.py").splitlines()
    grads = {line.split()[0]: float(line.split()[-1]) for line in lines}
    assert grads["torch.float16"] == 0 and grads["torch.bfloat16"] > 0
    assert abs(grads["torch.bfloat16"] - 1e-8) < 1e-10
    assert torch.finfo(torch.bfloat16).max > 1e38 and torch.finfo(torch.bfloat16).tiny == torch.finfo(torch.float32).tiny
    assert torch.finfo(torch.bfloat16).eps == 8 * torch.finfo(torch.float16).eps


# Clipping, accumulating, pinned memory


def test_unscale_before_clipping_clips_the_true_gradients(chapter):
    lines = chapter.shown("scaler_clip_accumulate.py", "clip").splitlines()
    scaled, true, clipped = (float(line.split(":")[1]) for line in lines)
    assert scaled / true == pytest.approx(65536, rel=1e-4), "scaled by the initial scale"
    assert true > 1 and clipped == pytest.approx(1.0, abs=1e-4)
    ns = chapter.run("scaler_clip_accumulate.py")
    assert ns["norm"].item() == pytest.approx(true, abs=1e-4)
    # step does not unscale again after unscale_: the update is lr times the clipped gradient
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 1)
    before = model.weight.detach().clone()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    scaler.scale(model(torch.randn(8, 4)).pow(2).mean()).backward()
    scaler.unscale_(optimizer)
    grad = model.weight.grad.clone()
    scaler.step(optimizer)
    assert torch.allclose(model.weight.detach(), before - 0.1 * grad)


def test_accumulated_micro_batches_give_the_full_batch_gradient(chapter):
    shown = chapter.shown("scaler_clip_accumulate.py", "accumulate")
    difference = float(shown.rsplit(":", 1)[1])
    assert 0 < difference < 1e-3
    ns = chapter.run("scaler_clip_accumulate.py")
    assert ns["scaler"].get_scale() == 65536.0, "one update, after one good step: the scale kept"
    # without autocast, the same accumulation matches to float32 rounding
    x, y = ns["x"], ns["y"]
    torch.manual_seed(1)
    model = torch.nn.Linear(16, 1)
    full = torch.nn.Linear(16, 1)
    full.load_state_dict(model.state_dict())
    for micro_x, micro_y in zip(x.split(8), y.split(8)):
        (((model(micro_x) - micro_y) ** 2).mean() / 4).backward()
    ((full(x) - y) ** 2).mean().backward()
    assert (model.weight.grad - full.weight.grad).abs().max() < 1e-6


def test_pinned_memory_needs_a_gpu(chapter):
    shown = chapter.shown("pinned_copy.py", "pinned")
    if CUDA:
        assert shown == f"pinned: False\npinned: True\n{chapter.run('pinned_copy.py')['on_device'].device}\n"
    else:
        assert shown == "pinned: False\nRuntimeError: Cannot access accelerator device when none is available.\n"


@pytest.mark.cuda
def test_a_non_blocking_copy_from_pinned_memory_arrives_whole(chapter):
    ns = chapter.run("pinned_copy.py")
    torch.cuda.synchronize()
    assert ns["pinned"].is_pinned() and ns["on_device"].device.type == "cuda"
    assert torch.equal(ns["on_device"].cpu(), ns["batch"])


def test_solution_clip_before_unscale(chapter):
    lines = chapter.shown("solution_clip_before_unscale.py").splitlines()
    moved = [float(line.rsplit(" ", 1)[1]) for line in lines]
    assert lines[0].startswith("unscale_ first: True") and lines[1].startswith("unscale_ first: False")
    assert moved[0] / moved[1] == pytest.approx(65536, rel=0.01), "65536 times too short"


# Pinned memory, non_blocking and a side stream


def test_side_stream_copy_says_it_needs_a_gpu_or_shows_the_batches_arrive(chapter):
    shown = chapter.shown("side_stream_copy.py", "train")
    if CUDA:
        device = chapter.run("side_stream_copy.py")["device"]
        assert shown == "".join(f"step {i}: batch on {torch.device(device.type, 0)}, arrived whole: True\n"
                                for i in range(3))
    else:
        assert shown == "No CUDA GPU: CUDA streams need one, so this block ran nothing here.\n"


def test_on_device_queues_copies_on_a_side_stream_and_keeps_the_streams_in_step(chapter):
    """The order the page describes: pin, copy under `torch.cuda.stream(side)` with non_blocking,
    the current stream waits for the side stream, then record_stream, then the next copy."""
    import ast
    import inspect

    on_device = chapter.run("prefetch.py")["on_device"]
    source = inspect.getsource(on_device)
    calls = [ast.unparse(node.func) for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call)]
    for call in ("torch.cuda.Stream", "batch.pin_memory", "torch.cuda.stream", "pinned.to",
                 "current.wait_stream", "batch.record_stream", "torch.cuda.current_stream"):
        assert call in calls, call
    assert "pinned.to(device, non_blocking=True)" in source
    assert "with torch.cuda.stream(copy_stream):" in source
    order = [source.index(text) for text in ("ahead = queue_copy(batches[0])", "current.wait_stream(copy_stream)",
                                              "batch.record_stream(current)", "ahead = queue_copy(batches[i + 1])",
                                              "yield batch")]
    assert order == sorted(order)


def test_pin_memory_pins_where_there_is_a_gpu_and_a_pinned_tensor_is_kept():
    batch = torch.randn(4, 4)
    if CUDA:
        pinned = batch.pin_memory()
        assert pinned.is_pinned() and not batch.is_pinned() and pinned.pin_memory() is pinned
    else:
        with pytest.raises(RuntimeError, match="Cannot access accelerator device"):
            batch.pin_memory()


@pytest.mark.cuda
def test_on_device_delivers_every_batch_whole_while_computing(chapter):
    on_device = chapter.run("prefetch.py")["on_device"]
    device = torch.device("cuda")
    torch.manual_seed(0)
    batches = [torch.randn(1024, 1024) for _ in range(5)]
    weight = torch.randn(1024, 1024, device=device)
    results = [(batch @ weight).sum() for batch in on_device(batches, device)]
    expected = [(batch.to(device) @ weight).sum() for batch in batches]
    assert all(torch.allclose(r, e) for r, e in zip(results, expected))
    with torch.cuda.stream(torch.cuda.Stream()):
        assert torch.cuda.current_stream() != torch.cuda.default_stream(), "a block changes the current stream"


DETERMINISM_RUN = {
    "settings": {"weight": [1024, 256], "rows": 1 << 20, "dtype": "float32"}, "baseline": {"deterministic": False},
    "rows": [{"operation": op, "deterministic": flag, "median_ms": ms}
             for op, flag, ms in [("index_select", False, 0.5), ("index_select", True, 1.5),
                                  ("gather", False, 0.4), ("gather", True, 0.6)]]}


def run_stream_results(chapter, worker, tmp_path, data, name="stream_results.py"):
    folder = tmp_path / "project" / "snippets" / "gpu"
    folder.mkdir(parents=True)
    shutil.copy(chapter.path(name), folder / name)
    path = tmp_path / "project" / "bench" / "results" / "gpu_benchmarks.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(data))
    result = sharing(worker, tmp_path / "project").run(folder / name)
    assert result.error is None, result.error
    return result.stdout


def test_the_page_shows_the_streams_measurement_only_from_a_cuda_run(chapter, worker, tmp_path, trial):
    recorded = json.loads(RESULTS.read_text())
    if not recorded.get("streams"):
        assert chapter.shown("stream_results.py", "measured") == (
            "No CUDA run of bench/gpu_benchmarks.py is recorded: nothing measured to show.\n")
    cpu = run_stream_results(chapter, worker, tmp_path / "cpu", trial)
    assert cpu == "No CUDA run of bench/gpu_benchmarks.py is recorded: nothing measured to show.\n"
    medians = {"copy only": 10.0, "compute only": 20.0, "one stream": 31.0, "side stream": 22.0}
    cuda_run = {**as_cuda_run(trial), "streams": {
        "settings": {"batches": 8, "size": 4096, "dtype": "float32"}, "baseline": "one stream",
        "rows": [{"variant": v, "median_ms": m} for v, m in medians.items()]},
        "determinism": DETERMINISM_RUN}
    check_schema(cuda_run, "cuda")
    shown = run_stream_results(chapter, worker, tmp_path / "cuda", cuda_run).splitlines()
    assert shown[0].startswith("8 pinned float32 batches of 4096 x 4096")
    assert shown[1] == f"measured on NVIDIA H200, {trial['provenance']['date']}"
    table = {line[:14].strip(): line[14:].split() for line in shown[4:]}
    assert table == {v: [f"{m:.3f}", f"{m / 31.0:.2f}"] for v, m in medians.items()}


# Deterministic algorithms

DETERMINISTIC = "deterministic_algorithms.py"


def test_the_flag_is_read_back_and_an_operation_without_a_deterministic_kernel_raises(chapter):
    lines = chapter.shown(DETERMINISTIC, "flag").splitlines()
    assert lines[:2] == ["enabled: False", "enabled: True"]
    assert lines[2].startswith("RuntimeError: put_ does not have a deterministic implementation")
    assert len(lines) == 3
    assert not torch.are_deterministic_algorithms_enabled()
    try:
        torch.use_deterministic_algorithms(True, warn_only=True)
        with pytest.warns(UserWarning, match="put_ does not have a deterministic implementation"):
            torch.zeros(4).put_(torch.tensor([0, 0]), torch.tensor([1.0, 2.0]))
        torch.zeros(4).put_(torch.tensor([0, 0]), torch.tensor([1.0, 2.0]), accumulate=True)  # no warning
    finally:
        torch.use_deterministic_algorithms(False)


def test_the_list_on_the_page_is_the_references(chapter):
    doc = " ".join(torch.use_deterministic_algorithms.__doc__.split())
    switched, raising = doc.split("will throw a :class:`RuntimeError` when ``mode=True``")
    for entry in (":func:`torch.index_add` when called on CUDA tensor",
                  ":func:`torch.Tensor.scatter_add_` when called on a CUDA tensor",
                  ":func:`torch.repeat_interleave` when attempting to differentiate a CUDA tensor",
                  ":class:`torch.nn.ReplicationPad1d` when attempting to differentiate a CUDA tensor",
                  ":class:`torch.nn.MaxPool3d` when attempting to differentiate a CUDA tensor",
                  ":class:`torch.nn.Conv2d` when called on CUDA tensor",
                  ":func:`torch.Tensor.index_put` with ``accumulate=True`` when called on a CPU tensor"):
        assert entry in switched, entry
    for entry in ("AvgPool3d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool2d", "ReflectionPad1d",
                  "grid_sample", "CTCLoss"):
        assert re.search(rf"{entry}` when attempting to differentiate a CUDA tensor", raising), entry
    assert "``bicubic``" in raising and "``trilinear``" in raising
    assert ":func:`torch.Tensor.put_` when ``accumulate=False``" in raising, "on any device"
    assert "deterministic operations tend to have worse performance" in doc
    entries = re.findall(r"\* :(?:class|func):`[^`]+`[^*]*", switched + raising)
    on_cuda = [e for e in entries if "CUDA" in e]
    assert len(on_cuda) > len(entries) / 2, "most of the operations the flag affects are CUDA kernels"
    assert sum("differentiate" in e for e in on_cuda) >= 10, "many of them run in backward"


def test_the_adaptive_pool_backward_runs_on_the_cpu_and_not_on_cuda(chapter):
    shown = chapter.shown(DETERMINISTIC, "backward")
    if CUDA:
        assert shown.startswith("RuntimeError: adaptive_avg_pool2d_backward_cuda does not have a deterministic")
    else:
        assert shown == "backward on cpu: gradient of shape (1, 1, 5, 5)\n"
    starts = [math.floor(i * 5 / 3) for i in range(3)]
    ends = [math.ceil((i + 1) * 5 / 3) for i in range(3)]
    assert any(end > start for end, start in zip(ends, starts[1:])), "overlapping windows"


def test_indexing_backward_accumulates_with_index_put_and_the_flag_keeps_the_result(chapter):
    lines = chapter.shown(DETERMINISTIC, "same_gradient").splitlines()
    assert lines == ["[1.0, 0.0, 3.0, 0.0, 0.0, 1.0]", "same as without the flag: True"]
    from torch.utils._python_dispatch import TorchDispatchMode

    calls = []

    class Record(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            calls.append((func.overloadpacket.__name__, args, kwargs or {}))
            return func(*args, **(kwargs or {}))

    w = torch.randn(6, 3, requires_grad=True)
    out = w[torch.tensor([0, 2, 2])]
    assert out.grad_fn.name() == "IndexBackward0"
    with Record():
        out.sum().backward()
    (put,) = [(args, kwargs) for name, args, kwargs in calls if name == "index_put"]
    assert put == (put[0], {}) and put[0][3] is True, "index_put(grad_input, indices, grad, accumulate=True)"


def test_under_the_flag_empty_memory_is_filled_with_nan_unless_turned_off(chapter):
    lines = chapter.shown(DETERMINISTIC, "fill").splitlines()
    if not CUDA:
        assert lines[0] == "tensor([nan, nan, nan])"
    assert lines[1] == "fill_uninitialized_memory: True"
    try:
        torch.use_deterministic_algorithms(True)
        assert torch.empty(1000).isnan().all()
        torch.utils.deterministic.fill_uninitialized_memory = False
        block = torch.full((1000,), 7.0)
        del block
        assert not torch.empty(1000).isnan().all()
    finally:
        torch.utils.deterministic.fill_uninitialized_memory = True
        torch.use_deterministic_algorithms(False)


def test_the_flag_no_longer_asks_cublas_for_a_workspace_config():
    """Earlier releases raised in a cuBLAS matrix product with the flag on unless
    CUBLAS_WORKSPACE_CONFIG was set; 2.13's reference no longer names cuBLAS, and its library
    holds neither the check nor its message (test_with_the_flag_cublas_runs_without_a_workspace_config
    runs one where a GPU is)."""
    doc = torch.use_deterministic_algorithms.__doc__
    assert "cublas" not in doc.lower() and "CUBLAS_WORKSPACE_CONFIG" not in doc
    assert torch_libraries_holding(b"CUBLAS_WORKSPACE_CONFIG") == []
    page = (ROOT / "docs" / "gpu.md").read_text()
    assert "PyTorch 2.13 no longer checks the variable" in page and "2.13 does not ask for" in page


@pytest.mark.cuda
def test_with_the_flag_cublas_runs_without_a_workspace_config(tmp_path):
    script = ("import torch\ntorch.use_deterministic_algorithms(True)\n"
              "a = torch.randn(8, 8, device='cuda')\ntry:\n    a @ a\n    print('ok')\n"
              "except RuntimeError as err:\n    print(err)\n")
    import os

    env = {k: v for k, v in os.environ.items() if k != "CUBLAS_WORKSPACE_CONFIG"}
    unset = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert unset.stdout == "ok\n", unset.stdout + unset.stderr
    assert "CUBLAS_WORKSPACE_CONFIG" not in unset.stderr


def test_solution_backward_kernels(chapter):
    lines = chapter.shown("solution_backward_kernels.py").splitlines()
    runs = {line.split()[0]: line.split("backward runs: ")[1].split(", ") for line in lines}
    assert runs == {"gather": ["ones_like", "expand", "new_zeros", "scatter_add", "detach"],
                    "index_select": ["ones_like", "expand", "new_zeros", "index_add", "detach"],
                    "w[rows]": ["ones_like", "expand", "new_zeros", "index_put", "detach"]}
    w = torch.ones(2, requires_grad=True)
    (w * 2).sum().backward()
    assert w.grad is not None


def test_the_page_shows_the_determinism_measurement_only_from_a_cuda_run(chapter, worker, tmp_path, trial):
    none = "No CUDA run of bench/gpu_benchmarks.py is recorded: nothing measured to show.\n"
    if not json.loads(RESULTS.read_text()).get("determinism"):
        assert chapter.shown("determinism_results.py", "measured") == none
    assert run_stream_results(chapter, worker, tmp_path / "cpu", trial, "determinism_results.py") == none
    cuda_run = {**as_cuda_run(trial), "streams": {"settings": {"batches": 1, "size": 8, "dtype": "float32"},
                                                  "baseline": "one stream", "rows": [
        {"variant": v, "median_ms": 1.0} for v in ("copy only", "compute only", "one stream", "side stream")]},
        "determinism": DETERMINISM_RUN}
    check_schema(cuda_run, "cuda")
    shown = run_stream_results(chapter, worker, tmp_path / "cuda", cuda_run, "determinism_results.py").splitlines()
    assert shown[0] == "backward of 1,048,576 rows taken from a 1024 x 256 float32 parameter (indices repeat)"
    assert shown[1] == f"measured on NVIDIA H200, {trial['provenance']['date']}"
    table = {line[:14].strip(): line[14:].split() for line in shown[4:]}
    assert table == {"index_select": ["0.500", "1.500", "3.00"], "gather": ["0.400", "0.600", "1.50"]}


def test_the_determinism_measurement_times_both_settings_and_restores_the_flag(monkeypatch):
    """Its function runs on any device: here on the CPU, tiny."""
    import argparse

    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    module = script(BENCH)
    measured = module.deterministic_backward(torch.device("cpu"),
                                             argparse.Namespace(index_rows=512, warmup=1, repeats=3))
    assert not torch.are_deterministic_algorithms_enabled()
    assert measured["settings"] == {"weight": [1024, 256], "rows": 512, "dtype": "float32"}
    assert [(r["operation"], r["deterministic"]) for r in measured["rows"]] == [
        ("index_select", False), ("index_select", True), ("gather", False), ("gather", True)]
    assert all(r["median_ms"] > 0 for r in measured["rows"])
