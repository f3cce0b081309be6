"""The recorder as a gradient debugger: its statistics, its marks, what it keeps when backward()
raises, its limit, its messages; on real models, with the gradients left as plain backward() leaves them."""

import builtins
import copy
import math
import re
import runpy
import subprocess
import sys
import textwrap
import warnings

import pytest
import torch
from recorded_models import RNN, Seq2Seq, ViT, mlp
from torch import nn

from autograd_steps import compare, save_html, show_backward, show_grad, step_through, view, watch_forward
from autograd_steps.recording import MAX_NODES, SHOWN_PER_LINE, Recording, node_label, recorded, summary


def data(shown):
    last = shown[-1]
    return last.data() if isinstance(last, Recording) else last.data


def step_of(steps, name):
    (index,) = [i for i, s in enumerate(steps["steps"]) if steps["nodes"][s["node"]]["name"] == name]
    return index


# Statistics

def test_a_summary_counts_nan_and_inf_and_gives_the_range_of_the_finite_values():
    grad = torch.arange(16.0).reshape(4, 4) - 5
    grad[:2] = math.nan
    grad[3, 3] = -math.inf
    found = summary(grad)
    finite = grad[grad.isfinite()]
    assert (found["nan"], found["inf"], found["min"], found["max"]) == (8, 1, 3.0, 9.0)
    assert found["norm"] == pytest.approx(finite.norm().item())
    assert found["text"] == f"4×4, 8 NaN, 1 inf, norm {finite.norm().item():.4g} (of the 7 finite), from 3 to 9"
    assert (found["dtype"], found["layout"]) == ("float32", "strided")


def test_a_gradient_with_no_finite_value_has_no_range():
    found = summary(torch.full((3, 3), math.nan))
    assert found["text"] == "3×3, 9 NaN, no finite values" and found["min"] is found["max"] is None
    small = summary(torch.tensor([math.nan, math.inf]))
    assert (small["nan"], small["inf"], small["min"], small["norm"]) == (1, 1, None, 0.0)


def test_a_summary_is_computed_in_the_tensors_dtype_with_one_transfer(monkeypatch):
    """No float64 copy of the tensor; one tolist() of the few results (a second where it has NaN)."""
    calls = []
    real = torch.Tensor.tolist
    monkeypatch.setattr(torch.Tensor, "tolist", lambda t: calls.append(t.numel()) or real(t))
    made = []

    class Watch(torch.utils._python_dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            made.extend(o for o in (out if isinstance(out, (tuple, list)) else [out]) if isinstance(o, torch.Tensor))
            return out

    grad = torch.randn(64, 64, dtype=torch.float16)
    with Watch():
        summary(grad)
    assert calls == [3] and not [t for t in made if t.numel() > 8 and t.dtype != torch.float16]
    grad[0, 0] = math.nan
    calls.clear()
    summary(grad)
    assert calls == [3, 5]


# Gradients at the edges of their dtype's range, where squaring overflows or underflows: fp16
# from 256 up (a loss scaler's gradients), bf16 and fp32 from 1e19 up and under 1e-19, fp64 at 1e±154.
EDGES = [(torch.float16, 60000.0), (torch.float16, 300.0), (torch.float16, 1e-6), (torch.bfloat16, 1e30),
         (torch.bfloat16, 1e-30), (torch.float32, 1e-24), (torch.float32, 1.6e-22), (torch.float32, 1e30),
         (torch.float64, 1e-200), (torch.float64, 1e200)]


@pytest.mark.parametrize(("dtype", "value"), EDGES, ids=[f"{d}-{v:g}".removeprefix("torch.") for d, v in EDGES])
def test_a_norm_is_right_at_the_edges_of_its_dtypes_range(dtype, value):
    grad = torch.full((1000,), value, dtype=dtype)
    grad[::2] *= -0.5
    true = math.hypot(*grad.tolist())
    found = summary(grad)
    shown = found["text"].split(", ")[1]  # "norm 6e+05"
    assert found["norm"] == pytest.approx(true, rel=1e-2) and float(shown.removeprefix("norm ")) == pytest.approx(true, rel=1e-2)
    several = summary(torch.cat([grad, grad.new_tensor([math.nan, math.inf])]))
    assert several["norm"] == pytest.approx(true, rel=1e-2) and (several["nan"], several["inf"]) == (1, 1)
    small = summary(grad[:4])
    assert small["norm"] == pytest.approx(math.hypot(*grad[:4].tolist()))


def test_a_model_on_the_meta_device_is_recorded_with_shapes_only_as_plain_backward_runs_it():
    """Meta tensors have a shape and no values: the recording reads none (it used to fail with
    "Cannot copy out of meta tensor"), gives no norm to rank, and backward runs as it does plain."""
    model = nn.Sequential(nn.Linear(4, 8, device="meta"), nn.Tanh(), nn.Linear(8, 1, device="meta"))
    x = torch.randn(3, 4, device="meta")
    plain = nn.Sequential(nn.Linear(4, 8, device="meta"), nn.Tanh(), nn.Linear(8, 1, device="meta"))
    plain(x).square().mean().backward()
    recording, marks = recorded_model(model, x, loss=lambda out: out.square().mean())
    assert recording.error is None and marks == {"vanishing": 0, "exploding": 0}
    for p, q in zip(model.parameters(), plain.parameters()):
        assert p.grad.is_meta and p.grad.shape == q.grad.shape == p.shape
    texts = [s["received"]["text"] for s in recording.steps]
    assert texts and all(t.endswith("on the meta device, no values") for t in texts), texts
    assert recording.jumps["largest"] is None and recording.jumps["smallest"] is None, "no norm to rank"
    assert recording.jumps["nonfinite"] is None


def test_a_sparse_gradient_is_summarized_by_its_values_and_leaves_the_same_gradients(shown):
    torch.manual_seed(0)
    emb, head = nn.Embedding(10, 3, sparse=True), nn.Linear(3, 1)
    plain_emb, plain_head = copy.deepcopy(emb), copy.deepcopy(head)
    words = torch.tensor([1, 2, 1])
    plain_head(plain_emb(words)).sum().backward()
    step_through(head(emb(words)).sum())
    steps = data(shown)
    last = steps["steps"][-1]
    assert steps["nodes"][last["node"]]["label"] == "emb.weight"
    values = emb.weight.grad.coalesce().values()
    assert last["received"]["layout"] == "sparse_coo" and last["received"]["norm"] == pytest.approx(values.norm().item())
    assert last["received"]["text"].startswith("10×3 sparse (6 stored values), norm ")
    assert torch.equal(emb.weight.grad.to_dense(), plain_emb.weight.grad.to_dense())
    assert torch.equal(head.weight.grad, plain_head.weight.grad)


def test_a_nested_gradient_is_summarized_by_its_components(shown):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nested tensors are a prototype
        nested = torch.nested.nested_tensor([torch.ones(2, 3), torch.ones(4, 3)], requires_grad=True)
    step_through(torch.nested.to_padded_tensor(nested * 2, 0).sum())
    steps = data(shown)
    leaf = steps["steps"][-1]["received"]
    assert leaf["layout"] == "nested" and leaf["shape"] is None
    assert leaf["text"] == f"nested, two components (2×3, 4×3), norm {math.sqrt(18 * 4):.4g}, from 2 to 2"


def test_a_complex_gradient_is_shown_as_complex_without_a_warning(shown):
    z = torch.tensor([1 + 2j, 3 - 1j, 0.5j], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        show_backward((z * z).abs().sum())
        page = shown[0]._repr_mimebundle_()["text/html"]
    last = data(shown)["steps"][-1]["received"]
    assert last["text"] == "[2+4j, 6-2j, 0+1j]" and last["dtype"] == "complex64" and last["values"] is None
    assert last["norm"] == pytest.approx(z.grad.abs().norm().item()) and last["max"] == pytest.approx(6.325, 1e-3)
    assert "[2+4j, 6-2j, 0+1j]" in page
    big = summary(torch.full((3, 4), 3 + 4j))
    assert big["text"] == "3×4 complex64, norm 17.32, |z| from 5 to 5"


def test_a_builtin_nodes_saved_tensors_have_the_same_statistics(shown):
    x = torch.randn(5, 3)
    layer = nn.Linear(3, 2)
    step_through(layer(x).sum())
    (addmm,) = [n for n in data(shown)["nodes"] if n["name"] == "AddmmBackward0"]
    mat1 = next(t for t in addmm["saved"] if t["name"] == "mat1")
    assert mat1["summary"] == summary(x) and mat1["error"] is None and mat1["shape"] == [5, 3]


# When backward() raises

def inplace_bug():
    x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        y = x.relu()
        y.mul_(2)  # relu saved its output, which this changes
        return x, (y * 3).sum()


def test_an_inplace_bug_is_recorded_up_to_the_node_that_raises(monkeypatch, capsys):
    monkeypatch.delattr(builtins, "display", raising=False)
    _, loss = inplace_bug()
    with pytest.raises(RuntimeError) as plain:
        loss.backward(retain_graph=True)
    x, loss = inplace_bug()
    with pytest.raises(RuntimeError) as recorded:
        step_through(loss)
    assert str(recorded.value) == str(plain.value) and "modified by an inplace operation" in str(recorded.value)
    printed = capsys.readouterr().out
    assert re.search(r"^4 +ReluBackward0 ", printed, re.M) and x.grad is None  # after sum, * 3 and mul_
    assert "backward() raised at step 4, ReluBackward0: one of the variables" in printed
    assert "y = x.relu()" in printed.split("anomaly mode's traceback):")[1]


def test_a_saved_tensor_modified_in_place_is_kept_with_its_error(shown):
    x, loss = inplace_bug()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        step_through(loss)
    steps = data(shown)
    (relu,) = [n for n in steps["nodes"] if n["name"] == "ReluBackward0"]
    (result,) = relu["saved"]
    assert result["summary"] is None and "modified by an inplace operation" in result["error"]
    error = steps["error"]
    assert (error["node"], error["step"]) == (relu["id"], 3) and "y = x.relu()" in error["forward"]


def test_anomaly_modes_nan_check_keeps_the_recording_and_marks_the_node(shown):
    """A norm of zero, written out: sqrt sends inf, which becomes NaN (inf * 0) at w * w."""
    w = torch.tensor([0.0, 0.0], requires_grad=True)
    with torch.autograd.set_detect_anomaly(True):
        loss = (w * w).sum().sqrt() * 2
        with pytest.raises(RuntimeError, match="^Function 'MulBackward0' returned nan values in its 0th output"):
            show_backward(loss)
    steps = data(shown)
    error = steps["error"]
    order = [steps["nodes"][s["node"]]["name"] for s in steps["steps"]]
    assert order == ["MulBackward0", "SqrtBackward0", "SumBackward0", "MulBackward0"] and error["step"] == 3
    assert error["node"] == steps["steps"][3]["node"] and "loss = (w * w).sum().sqrt() * 2" in error["forward"]
    assert steps["jumps"]["nonfinite"] == 1 and "nonfinite" in steps["nodes"][error["node"]]["marks"]
    assert steps["steps"][3]["sent"][0]["grad"]["nan"] == 2 and w.grad is None
    assert "Here backward() raised: Function 'MulBackward0' returned nan values" in steps["steps"][3]["description"]


# Marks and jumps

def test_marks_name_the_nodes_with_nan_and_not_a_jump_between_neighbours(shown):
    """A saturated sigmoid (its derivative under 1e-13) and an exp of a large value (over 2e4)
    change the gradient in one operation each: neither is marked vanishing or exploding, which
    build up over layers. The inf that sqrt sends is marked where it appears."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    z = torch.tensor([0.0, 1.0], requires_grad=True)
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        b = (x * 30).sigmoid()
        c = (x * 10).exp()
        e = z.sqrt()  # sends inf to z
        loss = b.sum() + c.sum() + e.sum()
    step_through(loss)
    steps = data(shown)
    marked = {(n["label"], n["detail"]): n["marks"] for n in steps["nodes"] if n["marks"]}
    line = test_marks_name_the_nodes_with_nan_and_not_a_jump_between_neighbours.__code__.co_firstlineno + 9
    assert marked == {("SqrtBackward0", f"line {line}"): ["nonfinite"], ("z", "2"): ["nonfinite"]}
    order = [steps["nodes"][s["node"]]["name"] for s in steps["steps"]]
    assert order[steps["jumps"]["nonfinite"]] == "SqrtBackward0"
    norms = [s["received"]["norm"] for s in steps["steps"]]
    assert norms[steps["jumps"]["largest"]] == max(norms) and norms[steps["jumps"]["smallest"]] == min(norms)
    assert max(norms) > 1e9 and min(norms) < 1e-11


# Vanishing and exploding, judged along the path: models where a practitioner sees the gradient
# fade or blow up layer by layer, and models whose gradient only looks small or large somewhere.

def recorded_model(model, x, loss=lambda out: out.pow(2).mean()):
    """The recording of the model's loss (watched forward pass) and its nodes' marks, counted."""
    with watch_forward():
        value = loss(model(x))
    recording = Recording(value, {}, __file__, params=[(f"model.{n}", p) for n, p in model.named_parameters()])
    recording.run(value.backward)
    return recording, {mark: sum(mark in n["marks"] for n in recording.nodes) for mark in ("vanishing", "exploding")}


def marks_of(recording, parameter):
    """The marks of a parameter's AccumulateGrad."""
    (node,) = [n for n in recording.nodes if n["kind"] == "leaf" and n["fn"].variable is parameter]
    return node["marks"]


def sigmoid_stack(layers):
    return nn.Sequential(*[m for _ in range(layers) for m in (nn.Linear(16, 16), nn.Sigmoid())], nn.Linear(16, 1))


def test_a_sigmoid_stack_losing_500_times_is_vanishing_from_where_it_has_lost_100_times():
    torch.manual_seed(0)
    model = sigmoid_stack(4)
    target = torch.randn(32, 1)
    recording, counts = recorded_model(model, torch.randn(32, 16), lambda out: nn.functional.mse_loss(out, target))
    first, last = model[0].weight.grad.norm(), model[-1].weight.grad.norm()
    assert last / first > 500
    assert counts["vanishing"] and not counts["exploding"]
    assert marks_of(recording, model[0].weight) == ["vanishing"] and marks_of(recording, model[-1].weight) == []
    step = next(s for s in recording.steps if recording.nodes[s["node"]]["marks"])
    assert "Vanishing: followed down its paths from the loss" in step["description"]


def test_a_1000_layer_mlp_whose_gradient_reaches_0_is_vanishing():
    torch.manual_seed(0)
    model = nn.Sequential(*[m for _ in range(1000) for m in (nn.Linear(8, 8, bias=False), nn.Sigmoid())])
    target = torch.randn(4, 8)
    recording, counts = recorded_model(model, torch.randn(4, 8), lambda out: nn.functional.mse_loss(out, target))
    assert model[0].weight.grad.abs().max() == 0 and model[-2].weight.grad.norm() > 1e-3
    assert marks_of(recording, model[0].weight) == ["vanishing"] and marks_of(recording, model[-2].weight) == []
    assert counts["vanishing"] > 3000 and not counts["exploding"]


@pytest.mark.parametrize(("gain", "marked"), [(1.6, "exploding"), (0.9, None)])
def test_a_recurrent_gain_of_1_6_explodes_and_one_of_0_9_and_its_zero_initial_state_are_unmarked(gain, marked):
    """Gain 0.9: the gradient reaching each step stays the size of what its own output sends (a sum
    of 0.9^k). The first step's product with the zero initial state sends its weight's node a
    gradient of exactly 0: no size to judge, so no mark, with the same gain 1.6 too."""
    torch.manual_seed(0)
    model = RNN(gain)
    recording, counts = recorded_model(model, torch.rand(30, 3, 4))
    zeros = [s for s in recording.steps if s["received"] and s["received"]["norm"] == 0]
    assert zeros and not any(recording.nodes[s["node"]]["marks"] for s in zeros)
    if marked:
        assert counts == {"vanishing": 0, "exploding": counts["exploding"]} and counts["exploding"] > 50
        assert marks_of(recording, model.rec.weight) == ["exploding"]
    else:
        assert counts == {"vanishing": 0, "exploding": 0}


class LayerScaleBlock(nn.Module):
    """A transformer block whose two branches are scaled by 1e-5 at the start (LayerScale, CaiT)."""

    def __init__(self, dim=16):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, 2, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.gamma1, self.gamma2 = nn.Parameter(1e-5 * torch.ones(dim)), nn.Parameter(1e-5 * torch.ones(dim))

    def forward(self, x):
        y = self.norm1(x)
        x = x + self.gamma1 * self.attn(y, y, y, need_weights=False)[0]
        return x + self.gamma2 * self.mlp(self.norm2(x))


def test_layerscale_a_loss_scale_and_a_loss_near_its_minimum_are_not_marked():
    """Each makes a gradient far smaller or larger in one operation, by design: LayerScale's
    branches get 1e-5 of the residual stream's gradient, a loss scale of 65536 multiplies every
    gradient, and a loss near its minimum sends its model a tiny one."""
    torch.manual_seed(0)
    vit = nn.Sequential(nn.Linear(8, 16), *[LayerScaleBlock() for _ in range(4)], nn.LayerNorm(16), nn.Linear(16, 10))
    labels = torch.randint(0, 10, (2 * 6,))
    recording, counts = recorded_model(vit, torch.randn(2, 6, 8),
                                       lambda out: nn.functional.cross_entropy(out.reshape(-1, 10), labels))
    branch = vit[1].mlp[0].weight.grad.norm() / vit[0].weight.grad.norm()
    assert branch < 1e-3 and counts == {"vanishing": 0, "exploding": 0}
    mlp, x = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1)), torch.randn(200, 8)
    with torch.no_grad():
        near = mlp(x) + 1e-4 * torch.randn(200, 1)
    for loss in (lambda out: nn.functional.mse_loss(out, torch.zeros_like(out)) * 65536.0,
                 lambda out: nn.functional.mse_loss(out, near)):
        _, counts = recorded_model(mlp, x, loss)
        assert counts == {"vanishing": 0, "exploding": 0}


@pytest.mark.parametrize("name", ["transformer layer", "cnn", "lstm", "6-layer encoder", "12-block ViT"])
def test_healthy_real_models_are_not_marked(name):
    """The ViT's attention: a softmax's gradient falls far in one operation (counted as half an
    order), then grows back over the next few; counted in full, that growth marked its first
    blocks exploding."""
    torch.manual_seed(0)
    model, x = MODELS[name]()
    _, counts = recorded_model(model, x)
    assert counts == {"vanishing": 0, "exploding": 0}


def test_a_small_step_in_the_norm_is_not_marked(shown):
    x = torch.ones(1000, requires_grad=True)
    step_through((x * 0.01).mean())  # the mean over 1000 divides the norm by about 30, the 0.01 by 100
    assert not any(n["marks"] for n in data(shown)["nodes"])


# Limits and messages

CHAIN = """\
import sys, time
import torch
sys.path.insert(0, {src!r})
from autograd_steps.recording import recorded
from autograd_steps.notebook import show_backward

x = torch.ones(3, requires_grad=True)
loss = x
for _ in range(100_000):
    loss = loss * 1.0
loss = loss.sum()
start = time.perf_counter()
try:
    {call}
except ValueError as error:
    print(f"{{time.perf_counter() - start:.2f}}", error)
print(x.grad)
del loss
"""


@pytest.mark.parametrize("call", ["show_backward(loss)", "with recorded(__file__):\n        loss.backward()"])
def test_a_100000_node_chain_is_refused_at_once_and_freed_without_a_crash(call, tmp_path):
    script = tmp_path / "chain.py"
    src = str(__import__("autograd_steps").__path__[0].rsplit("/", 1)[0])
    script.write_text(CHAIN.format(src=src, call=call))
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    seconds, message = run.stdout.split(" ", 1)
    assert f"it has more than {MAX_NODES:,} nodes (max_nodes={MAX_NODES})" in message
    assert "Pass a larger max_nodes=, or record a part of the model" in message and "batch" not in message
    assert message.rstrip().endswith("None") and float(seconds) < 5  # backward() did not run; the count stopped


def test_a_training_loop_shows_its_first_recordings_then_a_note_and_every_step_runs(tmp_path, shown):
    """A backward() in a loop of 10 steps: the first SHOWN_PER_LINE are recorded and shown, a note
    says so once, and the other steps run plain, with the same gradients."""
    snippet = tmp_path / "loop.py"
    snippet.write_text("import torch\n\nw = torch.ones(3, requires_grad=True)\n"
                       "for step in range(10):\n    (w * step).sum().backward()\n")
    with recorded(str(snippet)):
        ns = runpy.run_path(str(snippet), run_name="__main__")
    assert ns["w"].grad.tolist() == [45.0] * 3, "every step ran: 0 + 1 + ... + 9"
    recordings = [s for s in shown if isinstance(s, Recording)]
    notes = [s for s in shown if not isinstance(s, Recording)]
    assert len(recordings) == SHOWN_PER_LINE == 3 and shown[:3] == recordings
    assert [repr(n) for n in notes] == ["backward() on line 5 runs again: the step-through shows its first 3 calls, "
                                        "and lets the ones that follow run without recording them."]


def test_the_limit_stops_the_visit(shown, monkeypatch):
    described = []
    real = Recording.describe
    monkeypatch.setattr(Recording, "describe", lambda self, fn, names: described.append(fn) or real(self, fn, names))
    x = torch.ones(2, requires_grad=True)
    loss = x
    for _ in range(50):
        loss = loss * 1.0
    with pytest.raises(ValueError, match=r"step_through refuses this graph: it has more than 10 nodes"):
        step_through(loss.sum(), max_nodes=10)
    assert len(described) == 10 and x.grad is None and not shown


@pytest.mark.parametrize("call", [show_backward, step_through])
def test_the_no_grad_fn_error_names_the_function_called(call):
    with pytest.raises(ValueError, match=rf"^{call.__name__} needs a tensor computed from tensors that require grad"):
        call(torch.ones(2))


def test_the_printed_table_wraps_its_rows_and_notes_the_lines_outside_anomaly_mode(monkeypatch, capsys):
    monkeypatch.delattr(builtins, "display", raising=False)
    model = nn.Sequential(nn.Linear(6, 6), nn.Tanh(), nn.Linear(6, 6))
    loss = model(torch.ones(2, 6)).pow(2).mean()
    show_backward(loss)
    lines = capsys.readouterr().out.splitlines()
    assert max(map(len, lines)) <= 100 and len(lines) > 14  # some rows wrap
    note = " ".join(lines[lines.index("") + 1:])
    assert note == ("7 of the graph's operations were made outside anomaly mode, so the line that made each is "
                    "unknown: run the forward pass under autograd_steps.watch_forward() (or "
                    "torch.autograd.set_detect_anomaly(True, check_nan=False)).")


def test_plain_python_names_the_innermost_line_of_the_readers_file(monkeypatch, tmp_path, capsys):
    monkeypatch.delattr(builtins, "display", raising=False)
    script = tmp_path / "mine.py"
    script.write_text(textwrap.dedent("""\
        import torch
        from autograd_steps import step_through

        def double(t):
            return t * 2

        with torch.autograd.set_detect_anomaly(True, check_nan=False):
            x = torch.ones(2, requires_grad=True)
            loss = double(x).sum()
        step_through(loss)
        """))
    shown: list = []
    monkeypatch.setattr(builtins, "display", shown.append, raising=False)
    exec(compile(script.read_text(), str(script), "exec"), {"__name__": "__main__"})
    (mul,) = [n for n in shown[0].data()["nodes"] if n["name"] == "MulBackward0"]
    assert (mul["detail"], mul["line"], mul["lines"]) == ("line 5", 9, [9, 5])
    row = next(r for r in shown[0].rows() if r[1] == "MulBackward0")
    assert row[2] == "5"


def test_save_html_writes_the_viewer_of_the_last_backward_pass(monkeypatch, tmp_path, capsys):
    monkeypatch.delattr(builtins, "display", raising=False)
    from autograd_steps import notebook

    monkeypatch.setattr(notebook, "shown", [])
    with pytest.raises(ValueError, match=r"call show_backward\(loss\) first"):
        save_html(tmp_path / "none.html")
    x = torch.ones(2, requires_grad=True)
    show_backward((x * 3).sum())
    save_html(tmp_path / "steps.html")
    page = (tmp_path / "steps.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<script>" in page and 'data-node="0"' in page
    assert "AccumulateGrad (x)" in page and "src=" not in page and "href=" not in page  # nothing fetched
    assert capsys.readouterr().out.startswith("Step")


# Real models

class Poison(torch.autograd.Function):
    """The identity, whose backward puts a NaN into the gradient it sends."""

    @staticmethod
    def forward(ctx, x):
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        grad = grad.clone()
        grad.view(-1)[0] = math.nan
        return grad


def transformer_layer():
    return nn.TransformerEncoderLayer(16, 2, 32, batch_first=True), torch.randn(3, 5, 16)


def cnn():
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.Dropout(0.2),
                          nn.Conv2d(8, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4))
    return model, torch.randn(4, 3, 8, 8)


class LSTMHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm, self.head = nn.LSTM(4, 8, batch_first=True), nn.Linear(8, 1)

    def forward(self, x):
        return self.head(self.lstm(x)[0][:, -1])


def encoder():
    layer = nn.TransformerEncoderLayer(16, 2, 32, batch_first=True)
    return nn.TransformerEncoder(layer, 6, enable_nested_tensor=False), torch.randn(2, 4, 16)


MODELS = {"transformer layer": transformer_layer, "cnn": cnn, "lstm": lambda: (LSTMHead(), torch.randn(3, 6, 4)),
          "6-layer encoder": encoder, "12-block ViT": lambda: (ViT(), torch.randn(4, 3, 16, 16))}
POISONED = {"transformer layer": "linear1", "cnn": "4", "lstm": "lstm", "6-layer encoder": "layers.2.linear2",
            "12-block ViT": "blocks.5.mlp.0"}


def gradients(model):
    return {name: p.grad for name, p in model.named_parameters()}


@pytest.mark.parametrize("name", MODELS)
def test_recording_a_real_model_leaves_its_gradients_bitwise_equal(name, shown):
    torch.manual_seed(0)
    model, x = MODELS[name]()
    twin = copy.deepcopy(model)
    torch.manual_seed(1)
    model(x).pow(2).mean().backward()
    torch.manual_seed(1)  # the same dropout
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        loss = twin(x).pow(2).mean()
    show_backward(loss)
    plain, recorded = gradients(model), gradients(twin)
    assert all(torch.equal(plain[k], recorded[k]) for k in plain) and plain.keys() == recorded.keys()
    steps = data(shown)
    assert steps["jumps"]["nonfinite"] is None and not any("nonfinite" in n["marks"] for n in steps["nodes"])
    assert steps["missing"] == []
    if name == "6-layer encoder":
        assert len(steps["nodes"]) == 455 <= MAX_NODES


@pytest.mark.parametrize("name", MODELS)
def test_the_first_nan_of_a_real_model_is_found(name, shown):
    """A NaN put into the gradient in the middle of the model: the first step that has one is its node's."""
    torch.manual_seed(0)
    model, x = MODELS[name]()
    model.get_submodule(POISONED[name]).register_forward_hook(lambda module, args, out: Poison.apply(out) if isinstance(out, torch.Tensor)
                                 else (Poison.apply(out[0]), *out[1:]))
    step_through(model(x).pow(2).mean())
    steps = data(shown)
    first = steps["jumps"]["nonfinite"]
    assert first is not None and steps["nodes"][steps["steps"][first]["node"]]["label"] == "Poison (custom)"
    assert steps["jumps"]["origin"] == "backward"
    assert all(s["received"]["nan"] == 0 for s in steps["steps"][:first + 1])
    assert steps["steps"][first]["sent"][0]["grad"]["nan"] == 1


class Syncs(torch.utils._python_dispatch.TorchDispatchMode):
    """The operations that copy a value to Python (and wait for the device to compute it)."""

    def __init__(self):
        super().__init__()
        self.found = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func in (torch.ops.aten._local_scalar_dense.default, torch.ops.aten.is_nonzero.default):
            self.found.append(func)
        return func(*args, **(kwargs or {}))


def test_a_nan_made_in_the_forward_pass_of_a_real_model_is_found_where_it_was_made(shown):
    """The square root of a negative in the third layer of a 6-layer encoder: First NaN/inf goes
    to its SqrtBackward0, in that layer, not to the loss; watch_forward's checks wait for nothing
    in the forward pass and are read in one transfer."""
    torch.manual_seed(0)
    model, x = encoder()
    model.layers[2].linear2.register_forward_hook(lambda module, args, out: torch.sqrt(out))
    with Syncs() as syncs, watch_forward():
        loss = model(x).pow(2).mean()
    assert syncs.found == [] and torch.isnan(loss)
    step_through(loss)
    steps = data(shown)
    first, origin = steps["jumps"]["nonfinite"], steps["jumps"]["origin"]
    node = steps["nodes"][steps["steps"][first]["node"]]
    assert (origin, node["label"], node["made_nonfinite"]) == ("forward", "SqrtBackward0", True)
    assert node["module"].startswith("model.layers.2") and first > 10
    made_before = [n for n in steps["nodes"] if n["made_nonfinite"] is not None and n["id"] < node["id"]]
    assert len(made_before) > 20 and not any(n["made_nonfinite"] for n in made_before)
    assert all(n["made_nonfinite"] is None for n in steps["nodes"] if n["kind"] == "leaf")


def test_a_model_without_nan_has_every_checked_result_finite(shown):
    torch.manual_seed(0)
    model, x = cnn()
    with watch_forward():
        loss = model(x).pow(2).mean()
    step_through(loss)
    steps = data(shown)
    checked = [n["made_nonfinite"] for n in steps["nodes"] if n["made_nonfinite"] is not None]
    assert len(checked) > 10 and not any(checked) and steps["jumps"]["origin"] is None


def test_the_parameters_that_get_no_gradient_are_named(shown):
    """An encoder detached by mistake: its parameters that require grad are listed (a frozen one
    is not, nor another model in scope), in the data and under the printed table."""
    torch.manual_seed(0)
    model, other = Seq2Seq(), nn.Linear(3, 3)
    model.encoder[2].bias.requires_grad_(False)
    step_through(model(torch.randn(5, 4)).pow(2).mean())
    assert all(p.grad is None for p in model.encoder.parameters()) and other.weight.grad is None
    steps = data(shown)
    assert steps["missing"] == [{"name": "model.encoder.0.weight", "shape": "8×4"},
                                {"name": "model.encoder.0.bias", "shape": "8"},
                                {"name": "model.encoder.2.weight", "shape": "8×8"}]
    assert " ".join(shown[-1].table().split()).endswith(
        "Three parameters that require grad receive no gradient: this backward pass does not reach them "
        "(detached, or not used): model.encoder.0.weight (8×4), model.encoder.0.bias (8), model.encoder.2.weight (8×8).")


class Checkpointed(nn.Module):
    """Residual MLP blocks, each under activation checkpointing (reentrant or not), counting the
    runs of its blocks' forward: the forward pass's, and each recomputation."""

    def __init__(self, reentrant, blocks=4):
        super().__init__()
        self.blocks = nn.ModuleList(nn.Sequential(nn.Linear(16, 64), nn.GELU(), nn.Linear(64, 16))
                                    for _ in range(blocks))
        self.reentrant, self.runs = reentrant, 0

    def block(self, i, x):
        self.runs += 1
        return x + self.blocks[i](x)

    def forward(self, x):
        for i in range(len(self.blocks)):
            x = torch.utils.checkpoint.checkpoint(self.block, i, x, use_reentrant=self.reentrant)
        return x


def test_show_grad_records_torch_autograd_grad_and_returns_its_gradients(shown):
    """The same gradients as torch.autograd.grad, bitwise, .grad left alone, a second derivative's
    graph kept with create_graph; the last node that sends to an input shows what the engine
    handed back, and no parameter is said to get no gradient."""
    torch.manual_seed(0)
    model, x = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1)), torch.randn(5, 3, requires_grad=True)
    with watch_forward():
        loss = model(x).pow(2).mean()
    (plain,) = torch.autograd.grad(loss, x, retain_graph=True)
    (recorded,) = show_grad(loss, x, create_graph=True)
    assert torch.equal(recorded, plain) and recorded.requires_grad
    assert x.grad is None and all(p.grad is None for p in model.parameters())
    steps = data(shown)
    assert steps["missing"] == [] and not any(steps["nodes"][s["node"]]["kind"] == "leaf" for s in steps["steps"])
    (edge,) = [e for e in steps["edges"] if steps["nodes"][e["to"]]["label"] == "x"]
    (sent,) = [c["grad"] for s in steps["steps"] for c in s["sent"] if c["edge"] == edge["id"]]
    assert sent["norm"] == pytest.approx(plain.norm().item())


def test_a_checkpointed_model_is_recomputed_once_per_block_as_plain_backward_does(shown):
    """What a non-reentrant checkpoint's nodes saved is packed by its saved-tensor hooks: reading
    it before backward would run each block again for each tensor read (and keep what it
    recomputed); the recording leaves it to backward, and says so."""
    torch.manual_seed(0)
    model, x = Checkpointed(reentrant=False), torch.randn(8, 16, requires_grad=True)
    twin = copy.deepcopy(model)
    twin(x).pow(2).mean().backward()
    with watch_forward():
        loss = model(x).pow(2).mean()
    step_through(loss)
    assert model.runs == twin.runs == 2 * len(model.blocks)
    plain, recorded = gradients(twin), gradients(model)
    assert all(torch.equal(plain[k], recorded[k]) for k in plain) and plain.keys() == recorded.keys()
    steps = data(shown)
    unread = [s for node in steps["nodes"] for s in node["saved"] if s["error"] and "packed it" in s["error"]]
    assert len(unread) > len(model.blocks) and not any(s["summary"] for s in unread)


class Square(torch.autograd.Function):
    """x², which saves x, counting the runs of its forward."""
    runs = 0

    @staticmethod
    def forward(ctx, x):
        Square.runs += 1
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return 2 * x * grad


def test_a_custom_function_inside_a_checkpoint_is_left_to_backward_and_one_outside_is_read(shown):
    """A custom Function's node, which the forward's watch sees only through what its forward
    runs: inside a non-reentrant checkpoint its saved input is left unread (reading it would run
    the block again), outside one it is read."""
    x = torch.randn(4, requires_grad=True, dtype=torch.float64)
    assert torch.autograd.gradcheck(Square.apply, (x,))
    Square.runs = 0
    with watch_forward():
        inner = torch.utils.checkpoint.checkpoint(lambda t: Square.apply(t).sin(), x, use_reentrant=False)
        loss = (Square.apply(inner) * 3).sum()
    step_through(loss)
    assert Square.runs == 3, "two in the forward pass, one when backward recomputes the block"
    saved = [node["saved"] for node in data(shown)["nodes"] if node["name"] == "SquareBackward"]
    assert [[s["error"] is not None and "packed it" in s["error"] for s in kept] for kept in saved] == [[True], [False]]


def test_a_reentrant_checkpoint_says_what_it_hides_and_its_parameters_are_not_missing(shown):
    """Its node runs the block's forward and a backward pass of its own: the graph holds neither,
    and the parameters that inner pass reaches are not reported as getting no gradient."""
    torch.manual_seed(0)
    model = Checkpointed(reentrant=True, blocks=2)
    head = model.blocks[1]
    model.forward = lambda x: head(torch.utils.checkpoint.checkpoint(model.block, 0, x, use_reentrant=True))
    step_through(model(torch.randn(8, 16, requires_grad=True)).pow(2).mean())
    steps = data(shown)
    assert steps["missing"] == [] and all(p.grad is not None for p in model.parameters())
    (step,) = [s for s in steps["steps"] if steps["nodes"][s["node"]]["name"] == "CheckpointFunctionBackward"]
    assert "a reentrant activation checkpoint: its backward runs the block's forward again" in step["description"]
    assert {n["label"] for n in steps["nodes"] if n["kind"] == "leaf"} >= {"head.0.weight", "head.2.weight"}
    assert not {n["label"] for n in steps["nodes"]} & {"model.blocks.0.0.weight", "model.blocks.0.2.weight"}


def test_the_default_limit_admits_a_resnet_style_cnn(shown):
    class Block(nn.Module):
        def __init__(self, width):
            super().__init__()
            self.body = nn.Sequential(nn.Conv2d(width, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(),
                                      nn.Conv2d(width, width, 3, padding=1), nn.BatchNorm2d(width))

        def forward(self, x):
            return (x + self.body(x)).relu()

    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), *(Block(4) for _ in range(150)),
                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 2))
    twin = copy.deepcopy(model)
    x = torch.randn(2, 3, 6, 6)
    model(x).sum().backward()
    step_through(twin(x).sum())
    assert 2000 < len(data(shown)["nodes"]) <= MAX_NODES
    plain, recorded = gradients(model), gradients(twin)
    assert all(torch.equal(plain[k], recorded[k]) for k in plain)


def test_quiet_prints_a_summary_not_the_table(monkeypatch, capsys, tmp_path):
    """A script's show_backward(loss, quiet=True) prints a few lines, not a 455-node model's table;
    save_html writes the recording it is given."""
    monkeypatch.delattr(builtins, "display", raising=False)
    torch.manual_seed(0)
    model, x = encoder()
    recording = show_backward(model(x).pow(2).mean(), quiet=True)
    out = capsys.readouterr().out
    assert out == recording.summary_text() + "\n" and len(out.splitlines()) == 4
    assert out.startswith("backward() ran 455 steps through 455 nodes.\nNo NaN or inf.\n")
    assert len(recording.table()) > 50 * len(out)
    save_html(tmp_path / "steps.html", recording)
    assert "model.layers.5.linear2.weight" in (tmp_path / "steps.html").read_text()


def test_a_node_made_in_a_models_forward_in_another_file_names_that_line(monkeypatch, tmp_path):
    """The model in models.py beside the script: each of its nodes names the line of its forward
    there, in the step's text and the graph, and the panel gives the call that led there."""
    (tmp_path / "models.py").write_text(textwrap.dedent("""\
        import torch
        from torch import nn


        class Scaled(nn.Module):
            def __init__(self):
                super().__init__()
                self.weight = nn.Parameter(torch.ones(3))

            def forward(self, x):
                return (x * self.weight).sum()
        """))
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent("""\
        import torch
        from autograd_steps import step_through, watch_forward
        from models import Scaled

        model = Scaled()
        with watch_forward():
            loss = model(torch.arange(3.0))
        step_through(loss)
        """))
    monkeypatch.syspath_prepend(str(tmp_path))
    shown: list = []
    monkeypatch.setattr(builtins, "display", shown.append, raising=False)
    exec(compile(script.read_text(), str(script), "exec"), {"__name__": "__main__"})
    steps = shown[0].data()
    (mul,) = [n for n in steps["nodes"] if n["name"] == "MulBackward0"]
    assert mul["detail"] == "models.py, line 11" and mul["line"] == 7
    (step,) = [s for s in steps["steps"] if s["node"] == mul["id"]]
    assert "(made by models.py, line 11: return (x * self.weight).sum())" in step["description"]
    from autograd_steps import view

    rows = view.panel_rows(steps, step)
    assert rows[:2] == [["made", "Made by", "models.py, line 11: return (x * self.weight).sum()", ""],
                        ["made", "Called from", "line 7: loss = model(torch.arange(3.0))", ""]]


class Poisson(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.body, self.rate, self.fixed = nn.Sequential(nn.Linear(3, 8), nn.Tanh()), nn.Linear(8, 1), fixed

    def forward(self, x):
        rate = self.rate(self.body(x))
        return torch.log(nn.functional.softplus(rate) if self.fixed else rate)


def test_two_recordings_compare_parameter_by_parameter_and_module_by_module(monkeypatch, capsys):
    """A NaN made in the forward pass, before and after its fix: each parameter's gradient norm
    goes from NaN to a number; the table and the notes say so."""
    monkeypatch.delattr(builtins, "display", raising=False)
    recordings = []
    for fixed in (False, True):
        torch.manual_seed(0)
        model, x = Poisson(fixed), torch.randn(6, 3)
        with watch_forward():
            log_rate = model(x)
        recordings.append(show_backward((log_rate.exp() - log_rate).mean(), quiet=True))
    found = compare(*recordings)
    names = ["model.rate.weight", "model.rate.bias", "model.body.0.weight", "model.body.0.bias"]
    assert sorted(r["name"] for r in found.rows) == sorted(names)
    assert all(math.isnan(r["before"]) and math.isfinite(r["after"]) and r["ratio"] is None for r in found.rows)
    text = found.table()
    assert text.splitlines()[0].split() == ["Parameter", "Before", "After", "After", "/", "before"]
    assert "model.rate.weight" in text and "nan" in text
    notes = text.split("\n\n")[1].splitlines()
    assert notes[0].startswith("Before: The first NaN or inf was made in the forward pass")
    assert notes[1] == "After: No NaN or inf."
    assert notes[2].startswith("The second's nodes whose gradient grew or shrank 10 times or more, or became or")
    assert "  step 4, LogBackward0 in model: norm 0.165 and 3 NaN → norm 0.1194" in text, "where the NaN was made"
    assert "model.rate.weight's AccumulateGrad: 8 NaN → norm " in text
    by_module = compare(recordings[1], recordings[1], by="module")
    assert {r["name"]: r["ratio"] for r in by_module.rows} == {"model.rate": 1.0, "model.body.0": 1.0}
    assert by_module.table().endswith("NaN, inf or None: none.")
    assert "<table>" in found._repr_mimebundle_()["text/html"]


def sigmoid_or_relu(activation):
    """The recording of a 6-layer MLP with activations `activation`."""
    model, x = mlp(activation)
    with watch_forward():
        loss = model(x).pow(2).mean()
    return show_backward(loss, quiet=True)


def test_a_comparison_marks_node_by_node_what_changed_and_says_what_each_node_had_before(monkeypatch, capsys):
    monkeypatch.delattr(builtins, "display", raising=False)
    before, after = sigmoid_or_relu(nn.Sigmoid), sigmoid_or_relu(nn.ReLU)
    found = compare(before, after)
    data, names = found.data, [n["label"] for n in after.nodes]
    received = {s["node"]: s["received"]["norm"] for s in after.steps}
    old = {s["node"]: s["received"]["norm"] for s in before.steps}
    for node, there in zip(data["nodes"], data["before"]):
        if node["name"] == "ReluBackward0":
            assert there["node"] is None and "changed" not in node["marks"], "no node of the sigmoid net is a ReLU"
            continue
        same = before.nodes[there["node"]]
        assert (same["name"], same["module"], same["label"]) == (node["name"], node["module"], node["label"])
        ratio = received[node["id"]] / old[there["node"]]
        assert there["ratio"] == pytest.approx(ratio)
        assert ("changed" in node["marks"]) == (not 0.1 < ratio < 10), node_label(node)
    weight = names.index("model.0.weight")
    assert "changed" in data["nodes"][weight]["marks"] and data["before"][weight]["ratio"] > 100
    assert "changed" not in data["nodes"][names.index("model.12.weight")]["marks"]
    most = data["steps"][data["jumps"]["changed"]]["node"]
    assert abs(math.log10(data["before"][most]["ratio"])) == max(abs(math.log10(b["ratio"])) for b in data["before"]
                                                                 if b["ratio"]), "grown or shrunk, the most"
    step = next(s for s in data["steps"] if s["node"] == weight)
    (row,) = [r for r in view.panel_rows(data, step) if r[0] == "before"]
    assert row[1:] == ["Before", before.steps[[s["node"] for s in before.steps].index(data["before"][weight]["node"])]
                       ["received"]["text"] + f" (now {data['before'][weight]['ratio']:.3g}×)", "changed"]
    lines = found.table().splitlines()
    assert lines[next(i for i, line in enumerate(lines) if line.startswith("The second's nodes")) + 1].startswith(
        f"  step {data['jumps']['changed'] + 1}, "), "the most changed first"
    assert 'data-jump="changed"' in found._repr_mimebundle_()["text/html"]
