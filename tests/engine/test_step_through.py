"""The step-through records PyTorch's real engine: every snippet whose page asks for one, as the
build runs it (`autograd_steps.recorded`), checked against a plain run of the same snippet
observed with hooks of the test's own."""

import builtins
import collections
import contextlib
import functools
import io
import runpy
import textwrap

import pytest
import torch
from conftest import RECORDED, SNIPPETS, STEP_THROUGH, forget_snippet_modules, printed

from autograd_steps import recording
from snippet_engine.kinds.steps import STEPS

EXAMPLES = sorted(p.relative_to(SNIPPETS).as_posix() for p in RECORDED)

# The code on the line that created each node (the innermost line in the snippet's folder);
# for a leaf's AccumulateGrad, by the leaf's name, the line that made the leaf.
CREATED_BY = {
    "autograd_basics/watch_first_gradient.py": {
        "AddBackward0": "y = x + 2", "PowBackward0": "z = 3 * y**2", "MulBackward0": "z = 3 * y**2",
        "MeanBackward0": "out = z.mean()", "x": "x = torch.ones(2, 2, requires_grad=True)"},
    "autograd_basics/watch_used_twice.py": {
        "MulBackward0": "y = x * x", "SumBackward0": "out = y.sum()",
        "x": "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)"},
    "computation_graph/watch_regression.py": {
        "MmBackward0": "prediction = torch.tanh(x @ w + b)", "TanhBackward0": "prediction = torch.tanh(x @ w + b)",
        "SubBackward0": "loss = ((prediction - target) ** 2).sum()",
        "w": "w = torch.randn(3, 1, requires_grad=True)", "b": "b = torch.zeros(1, requires_grad=True)"},
    "custom_functions/watch_elu_mlp.py": {
        "ELUFunctionBackward": "return ELUFunction.apply(z, self.alpha)", "MeanBackward0":
        "loss = ((prediction - target) ** 2).mean()",
        "hidden.weight": "hidden, elu, output = nn.Linear(3, 4), ELUCustom(alpha=0.5), nn.Linear(4, 1)"},
    "debugging_gradients/watch_vanishing_sigmoid.py": {
        "SigmoidBackward": "h = Sigmoid.apply(z)", "SubBackward0": "loss = ((output(h) - target) ** 2).mean()",
        "PowBackward0": "loss = ((output(h) - target) ** 2).mean()",
        "hidden.weight": "hidden, output = nn.Linear(3, 4), nn.Linear(4, 1)"},
    "debugging_gradients/watch_vanishing_layers.py": {
        "AddmmBackward0": "loss = nn.functional.mse_loss(model(x), target)",
        "MseLossBackward0": "loss = nn.functional.mse_loss(model(x), target)", "model.0.weight": "model = nn.Sequential("},
    "debugging_gradients/watch_nan.py": {
        "SqrtBackward0": "return squared.sqrt()", "PowBackward0": "squared = (diff**2).sum(dim=-1)",
        "SumBackward0": "loss = dist.sum()",
        "points": "points = torch.tensor([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]], requires_grad=True)"},
    "debugging_gradients/watch_forward_nan.py": {
        "LogBackward0": "return torch.log(self.rate(x))", "ExpBackward0": "loss = (log_rate.exp() - counts * log_rate).mean()",
        "model.0.weight": "model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), PoissonHead(8))"},
    "debugging_gradients/watch_detached.py": {
        "AddmmBackward0": "return self.decoder(memory)", "MeanBackward0": "loss = model(torch.randn(5, 4)).pow(2).mean()",
        "model.decoder.weight": "model = Seq2Seq()"},
    "higher_order/watch_second_derivative.py": {
        "PowBackward0": "(dy_dx,) = torch.autograd.grad(y, x, create_graph=True)",
        "x": "x = torch.tensor(2.0, requires_grad=True)"},
}


@functools.cache
def recorded(runner, name):
    """The steps the build recorded for a snippet (the engine's result, from its cache)."""
    result = runner.run(SNIPPETS / name, STEP_THROUGH)
    assert not result.error, result.describe()
    (steps,) = [o["output"]["data"][STEPS] for o in result.outputs if STEPS in o["output"].get("data", {})]
    return result, steps


class Observed:
    """A plain run of a snippet in which its backward() on one tensor is watched by hooks of the test's own."""

    def __init__(self, name, monkeypatch, tmp_path):
        self.order, self.saved = [], {}
        self.real = torch.autograd.backward
        monkeypatch.setattr(torch.autograd, "backward", self.backward)
        monkeypatch.chdir(tmp_path)
        monkeypatch.syspath_prepend(str((SNIPPETS / name).parent))
        monkeypatch.delattr(builtins, "display", raising=False)
        forget_snippet_modules()
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.variables = runpy.run_path(str(SNIPPETS / name), run_name="__main__")
        self.printed = out.getvalue()

    def backward(self, output, *args, **kwargs):
        """torch.autograd.backward, which Tensor.backward calls: the snippet's own call runs unchanged."""
        if not isinstance(output, torch.Tensor) or output.grad_fn is None:
            return self.real(output, *args, **kwargs)
        nodes, stack, handles = {}, [output.grad_fn], []
        while stack:
            fn = stack.pop()
            if fn is None or id(fn) in nodes:
                continue
            nodes[id(fn)] = fn
            handles.append(fn.register_prehook(lambda grads, fn=fn: self.order.append(type(fn).__name__)))
            if hasattr(fn, "_forward_cls"):
                self.saved[type(fn).__name__] = [t.clone() for t in fn.saved_tensors]
            stack += [next_fn for next_fn, _ in fn.next_functions]
        try:
            self.real(output, *args, **kwargs)
        finally:
            for handle in handles:
                handle.remove()

    def leaf(self, label):
        """The tensor a leaf's label names: `x`, or `hidden.bias` for a parameter of `hidden`."""
        owner, _, attribute = label.partition(".")
        value = self.variables[owner]
        return value.get_parameter(attribute) if attribute else value


@pytest.fixture
def observed(monkeypatch, tmp_path):
    yield functools.partial(Observed, monkeypatch=monkeypatch, tmp_path=tmp_path)
    forget_snippet_modules()


def test_every_example_has_its_lines_checked():
    assert EXAMPLES == sorted(CREATED_BY)


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_order_is_the_engines(name, runner, observed):
    _, steps = recorded(runner, name)
    plain = observed(name)
    assert [steps["nodes"][s["node"]]["name"] for s in steps["steps"]] == plain.order


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_order_is_a_reverse_topological_order(name, runner):
    _, steps = recorded(runner, name)
    position = {s["node"]: i for i, s in enumerate(steps["steps"])}
    assert len(position) == len(steps["steps"])  # each node runs once
    for edge in steps["edges"]:
        if edge["to"] in position:  # a node runs after every node that sends it a gradient
            assert position[edge["from"]] < position[edge["to"]], edge


@pytest.mark.parametrize("name", EXAMPLES)
def test_leaves_receive_their_grad(name, runner, observed):
    _, steps = recorded(runner, name)
    plain = observed(name)
    leaves = [s for s in steps["steps"] if steps["nodes"][s["node"]]["kind"] == "leaf"]
    assert leaves
    for step in leaves:
        grad = plain.leaf(steps["nodes"][step["node"]]["label"]).grad
        got = step["received"]
        assert got["shape"] == list(grad.shape)
        finite = grad[grad.isfinite()]  # the norm and range are of the finite entries
        assert (got["nan"], got["inf"]) == (grad.isnan().sum().item(), grad.isinf().sum().item())
        assert got["norm"] == pytest.approx(finite.norm().item(), rel=1e-5)
        if finite.numel():
            assert got["min"] == pytest.approx(finite.min().item(), rel=1e-5, abs=1e-7)
        if got["values"] is not None:
            assert torch.allclose(torch.tensor(got["values"], dtype=grad.dtype), grad, equal_nan=True)


@pytest.mark.parametrize("name", EXAMPLES)
def test_contributions_add_up_to_what_arrives(name, runner):
    _, steps = recorded(runner, name)
    for step in steps["steps"][1:]:  # the first step receives the output's own gradient
        parts = [torch.tensor(c["grad"]["values"]) for c in step["contributions"] if c["grad"]["values"] is not None]
        assert step["contributions"]
        if len(parts) == len(step["contributions"]) and step["received"]["values"] is not None:
            assert torch.allclose(sum(parts), torch.tensor(step["received"]["values"], dtype=parts[0].dtype),
                                  equal_nan=True)


def test_a_value_used_twice_receives_the_sum_of_both_uses(runner):
    _, steps = recorded(runner, "autograd_basics/watch_used_twice.py")
    last = steps["steps"][-1]
    assert steps["nodes"][last["node"]]["label"] == "x"
    assert [c["grad"]["values"] for c in last["contributions"]] == [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]
    assert last["received"]["values"] == [2.0, 4.0, 6.0]
    assert "[1, 2, 3] + [1, 2, 3] = [2, 4, 6]" in last["description"]
    sends = steps["steps"][-2]["description"]
    assert "sends [1, 2, 3] along each of its two edges to x's AccumulateGrad." in sends
    assert sends.count("[1, 2, 3]") == 1, "said once"


@pytest.mark.parametrize("name", EXAMPLES)
def test_a_step_names_each_node_it_sends_to_once(name, runner):
    _, steps = recorded(runner, name)
    def name(n):
        return n["label"] if n["kind"] != "leaf" else f"{n['label']}'s AccumulateGrad"

    for step in steps["steps"]:
        _, _, sent = step["description"].partition(" sends ")
        # once per node it sends to (two nodes may have one name: two UnsqueezeBackward0)
        targets = collections.Counter(name(steps["nodes"][t]) for t in {steps["edges"][s["edge"]]["to"]
                                                                         for s in step["sent"]})
        for node in {name(n) for n in steps["nodes"]}:
            assert sent.count(f" {node}") <= targets[node], step["description"]


@pytest.mark.parametrize("name", EXAMPLES)
def test_forward_mode_goes_line_by_line_from_the_leaves(name, runner):
    _, steps = recorded(runner, name)
    forward = steps["forward"]
    assert len(forward) > 1 and [f["line"] for f in forward] == sorted({f["line"] for f in forward})
    assert {i for f in forward for i in f["nodes"]} == {n["id"] for n in steps["nodes"]}, "every node once"
    leaves = {n["id"] for n in steps["nodes"] if n["kind"] == "leaf"}
    assert set(forward[0]["nodes"]) <= leaves, "the leaves are made before anything uses them"


def code(line):
    """A line of source as the recording names it: stripped, without a comment at its end."""
    return line.split("  #")[0].strip()


@pytest.mark.parametrize("name", EXAMPLES)
def test_each_node_names_the_line_that_created_it(name, runner):
    _, steps = recorded(runner, name)
    source = (SNIPPETS / name).read_text(encoding="utf-8").splitlines()
    for node in steps["nodes"]:
        if node["kind"] == "leaf":  # the line that made the leaf: its name is bound there
            (made,) = node["where"]
            assert node["line"] == made["line"] and code(source[made["line"] - 1]) == made["code"]
            assert made["code"] == CREATED_BY[name].get(node["label"], made["code"])
            assert node["label"].split(".")[0] in made["code"].split("=")[0]
            continue
        innermost = node["where"][-1]
        assert code((SNIPPETS / name).parent.joinpath(innermost["file"]).read_text().splitlines()[
            innermost["line"] - 1]) == innermost["code"]
        assert node["line"] is None or code(source[node["line"] - 1]) in [f["code"] for f in node["where"]]
        if node["name"] in CREATED_BY[name]:
            assert innermost["code"] == CREATED_BY[name][node["name"]], node["name"]
    assert {n["label"] if n["kind"] == "leaf" else n["name"] for n in steps["nodes"]} >= set(CREATED_BY[name])


def test_a_node_made_inside_a_helper_module_names_both_lines(runner):
    _, steps = recorded(runner, "custom_functions/watch_elu_mlp.py")
    (elu,) = [n for n in steps["nodes"] if n["kind"] == "custom"]
    assert [(f["file"], f["code"]) for f in elu["where"]] == [
        ("watch_elu_mlp.py", "h = elu(z)"),
        ("elu.py", "return ELUFunction.apply(z, self.alpha)")]


def test_the_custom_node_shows_what_its_forward_saved(runner, observed):
    _, steps = recorded(runner, "custom_functions/watch_elu_mlp.py")
    plain = observed("custom_functions/watch_elu_mlp.py")
    (elu,) = [n for n in steps["nodes"] if n["kind"] == "custom"]
    (saved_z,) = plain.saved["ELUFunctionBackward"]
    assert torch.equal(saved_z, plain.variables["z"].detach())  # forward saved its input, z
    (saved,) = elu["saved"]
    assert {k: saved[k] for k in ("name", "shape", "dtype", "bytes", "error")} == {
        "name": "0", "shape": list(saved_z.shape), "dtype": "float32", "bytes": saved_z.numel() * 4, "error": None}
    assert saved["summary"]["values"] == saved_z.tolist()
    assert elu["attributes"] == [{"name": "alpha", "value": "0.5"}]
    (step,) = [s for s in steps["steps"] if s["node"] == elu["id"]]
    assert "saved tensor 0 (2×4 float32, 32 bytes), ctx.alpha = 0.5" in step["description"]


@pytest.mark.parametrize("name", EXAMPLES)
def test_recording_does_not_change_what_the_snippet_prints(name, runner, observed):
    result, _ = recorded(runner, name)
    assert printed([o["output"] for o in result.outputs]) == observed(name).printed


def test_a_plain_run_prints_the_steps_as_a_table(monkeypatch, tmp_path, capsys):
    """The reader's own use: step_through(out) where the code would call out.backward()."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delattr(builtins, "display", raising=False)
    (tmp_path / "mine.py").write_text(textwrap.dedent("""\
        import torch
        from autograd_steps import step_through

        with torch.autograd.set_detect_anomaly(True, check_nan=False):
            x = torch.ones(2, 2, requires_grad=True)
            out = (3 * (x + 2) ** 2).mean()
        step_through(out)
        print(x.grad)
        """))
    runpy.run_path(str(tmp_path / "mine.py"), run_name="__main__")
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["Step", "Node", "Line", "Gradient", "received", "Gradients", "sent"]
    rows = [line for line in lines if line[:1].isdigit()]  # each row's first line
    assert rows[0].split()[:3] == ["1", "MeanBackward0", "6"]
    assert rows[4].split()[:4] == ["5", "AccumulateGrad", "(x)", "5"]
    assert rows[4].endswith("[[4.5, 4.5], [4.5, 4.5]]")
    assert lines[-2:] == ["tensor([[4.5000, 4.5000],", "        [4.5000, 4.5000]])"]
    assert max(map(len, lines)) <= 100


def test_a_path_that_carries_no_gradient_adds_none(monkeypatch, tmp_path, capsys):
    """A custom Function's backward that returns None for an input, which gets its gradient along
    another path too: what arrives there is the sum with None in it."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delattr(builtins, "display", raising=False)
    (tmp_path / "mine.py").write_text(textwrap.dedent("""\
        import torch
        from autograd_steps import step_through

        class Twice(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a * 2 + b

            @staticmethod
            def backward(ctx, grad):
                return grad * 2, None

        with torch.autograd.set_detect_anomaly(True, check_nan=False):
            x = torch.tensor(1.0, requires_grad=True)
            y = x * 3
            out = Twice.apply(x, y) + y
        step_through(out)
        """))
    runpy.run_path(str(tmp_path / "mine.py"), run_name="__main__")
    rows = table_rows(capsys.readouterr().out)
    assert rows[1][:2] == ["2", "Twice"] and rows[1][-3:] == ["None", "→", "MulBackward0"]
    assert rows[2][:3] == ["3", "MulBackward0", "15"] and rows[2][3:8] == ["None", "+", "1", "=", "1"]
    assert rows[3][-5:] == ["3", "+", "2", "=", "5"]


def table_rows(printed):
    """The words of each row of a printed table of steps, its wrapped lines included (where only
    its last cell wraps, in their order)."""
    rows = []
    for line in printed.splitlines()[1:]:
        if line[:1].isdigit():
            rows.append(line.split())
        elif line.startswith(" "):
            rows[-1] += line.split()
    return rows


# What the chapters say about the recorded steps

def step_values(steps):
    """(node name, values received, values sent) of each step."""
    return [(steps["nodes"][s["node"]]["name"], s["received"]["values"],
             [sent["grad"]["values"] for sent in s["sent"]]) for s in steps["steps"]]


def test_the_first_gradient_step_by_step(runner):
    _, steps = recorded(runner, "autograd_basics/watch_first_gradient.py")
    quarter, three_quarters, four_and_a_half = ([[v, v], [v, v]] for v in (0.25, 0.75, 4.5))
    assert step_values(steps) == [
        ("MeanBackward0", 1.0, [quarter]),
        ("MulBackward0", quarter, [three_quarters]),
        ("PowBackward0", three_quarters, [four_and_a_half]),
        ("AddBackward0", four_and_a_half, [four_and_a_half]),
        ("AccumulateGrad", four_and_a_half, []),
    ]


def test_accumulate_grad_runs_as_soon_as_it_is_ready(runner):
    _, steps = recorded(runner, "computation_graph/watch_regression.py")
    order = [steps["nodes"][s["node"]]["label"] for s in steps["steps"]]
    assert order[4:8] == ["AddBackward0", "b", "MmBackward0", "w"]  # steps 5 to 8
    b = torch.zeros(1, requires_grad=True)
    assert (b * 2).grad_fn.next_functions[0][0]._sequence_nr() == 2**64 - 1


def test_the_elu_node_in_the_small_mlp(runner, observed):
    _, steps = recorded(runner, "custom_functions/watch_elu_mlp.py")
    plain = observed("custom_functions/watch_elu_mlp.py")
    number, step = next((i, s) for i, s in enumerate(steps["steps"], 1)
                        if steps["nodes"][s["node"]]["kind"] == "custom")
    assert number == 8 and steps["nodes"][step["node"]]["label"] == "ELUFunction (custom)"
    z = plain.variables["z"].detach()
    assert (z > 0).any() and (z <= 0).any()  # both cases of the prose happen
    received, (sent,) = torch.tensor(step["received"]["values"]), step["sent"]
    local = torch.where(z > 0, 1.0, 0.5 * torch.exp(z))
    assert torch.allclose(torch.tensor(sent["grad"]["values"]), received * local)
    assert (local[z <= 0] < 0.5).all()
    names = {n["name"] for n in steps["nodes"]}
    assert {"AddmmBackward0", "TBackward0"} <= names


def test_backward_through_a_backward(runner):
    result, steps = recorded(runner, "higher_order/watch_second_derivative.py")
    line = next(n for n, text in enumerate((SNIPPETS / "higher_order/watch_second_derivative.py").read_text()
                                           .splitlines(), 1) if "torch.autograd.grad(" in text)
    ops = [n for n in steps["nodes"] if n["kind"] != "leaf"]
    assert {n["line"] for n in ops} == {line}
    assert [name for name, *_ in step_values(steps)] == ["MulBackward0", "MulBackward1", "PowBackward0",
                                                         "AccumulateGrad"]
    assert [sent for *_, sent in step_values(steps)] == [[1.0], [3.0], [12.0], []]
    assert printed([o["output"] for o in result.outputs]) == "tensor(12., grad_fn=<MulBackward0>)\ntensor(12.)\n"


def test_a_gradient_vanishes_in_the_custom_sigmoid(runner, observed):
    name = "debugging_gradients/watch_vanishing_sigmoid.py"
    result, steps = recorded(runner, name)
    plain = observed(name)
    hidden, output = plain.variables["hidden"], plain.variables["output"]
    assert output.weight.grad.abs().max() == pytest.approx(1.2, abs=0.05)
    assert hidden.weight.grad.abs().max() == pytest.approx(0.009, abs=0.0005)
    assert sorted(row.abs().max().item() <= 1e-11 for row in hidden.weight.grad) == [False, True, True, True]
    sizes = [max(abs(v) for v in torch.tensor(s["received"]["values"]).flatten().tolist()) for s in steps["steps"][:7]]
    assert min(sizes) > 0.03, "up to step 8 the gradient keeps its size"
    step = steps["steps"][7]  # step 8
    assert steps["nodes"][step["node"]]["label"] == "Sigmoid (custom)"
    received = torch.tensor(step["received"]["values"]).abs()
    assert 0.03 <= received.min() and received.max() <= 0.36
    (sent,) = step["sent"]
    sent_values = torch.tensor(sent["grad"]["values"])
    assert sent_values.abs().max() < 0.0002 and (sent_values == 0).sum() == 3
    z = plain.variables["z"].detach()
    y = torch.sigmoid(z)
    assert ((y < 1e-10) | (1 - y < 1e-10)).sum() == 7
    assert round(z.min().item()) == -50 and round(z.max().item()) == 31
    assert steps["nodes"][steps["steps"][8]["node"]]["name"] == "AddmmBackward0"
    assert printed([o["output"] for o in result.outputs]) == plain.printed


def test_the_gradient_fades_over_four_sigmoid_layers_and_the_marks_start_at_model_2(runner, observed):
    """Debugging gradients, "A gradient that fades over layers"."""
    name = "debugging_gradients/watch_vanishing_layers.py"
    result, steps = recorded(runner, name)
    plain = observed(name)
    model = plain.variables["model"]
    norms = [f"{model[i].weight.grad.norm():.2g}" for i in range(0, 9, 2)]
    assert norms == ["0.00031", "0.0011", "0.0093", "0.063", "0.54"]
    assert printed([o["output"] for o in result.outputs]) == plain.printed
    nodes = [steps["nodes"][s["node"]] for s in steps["steps"]]
    marked = [i for i, node in enumerate(nodes) if node["marks"]]
    assert marked == list(range(16, len(nodes))) and all(nodes[i]["marks"] == ["vanishing"] for i in marked)
    assert (nodes[16]["name"], nodes[16]["module"]) == ("AddmmBackward0", "model.2")
    assert (nodes[1]["name"], nodes[1]["module"]) == ("AddmmBackward0", "model.8")
    received = [f'{s["received"]["norm"]:.2g}' for s in steps["steps"]]
    assert (received[16], received[1]) == ("0.00067", "0.37")
    assert (nodes[-1]["label"], nodes[-1]["marks"]) == ("model.0.weight", ["vanishing"])
    assert 10 ** recording.STEP == pytest.approx(3.16, abs=0.005) and 10 ** recording.ORDERS == 100
    assert "Vanishing: followed down its paths from the loss" in steps["steps"][16]["description"]


def test_the_custom_sigmoid_passes_gradcheck(observed):
    sigmoid = observed("debugging_gradients/watch_vanishing_sigmoid.py").variables["Sigmoid"]
    z = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(sigmoid.apply, (z,))


def test_the_first_non_finite_gradient_is_sqrts_inf_and_the_nan_comes_two_nodes_later(runner, observed):
    """Debugging gradients, "The same NaN, stepped through"."""
    name = "debugging_gradients/watch_nan.py"
    _, steps = recorded(runner, name)
    plain = observed(name)
    assert torch.isnan(plain.variables["points"].grad).all()
    assert torch.equal(plain.variables["dist"].diagonal(), torch.zeros(3))  # each point's distance to itself
    first = steps["jumps"]["nonfinite"]
    assert first == 1  # step 2
    label = [steps["nodes"][s["node"]]["label"] for s in steps["steps"]]
    assert label[1:4] == ["SqrtBackward0", "SumBackward1", "PowBackward0"]
    sqrt = steps["steps"][1]
    assert sqrt["received"]["values"] is None and (sqrt["received"]["min"], sqrt["received"]["max"]) == (1.0, 1.0)
    assert sqrt["received"]["nan"] == sqrt["received"]["inf"] == 0
    counts = [[(s["grad"]["inf"], s["grad"]["nan"]) for s in step["sent"]] for step in steps["steps"][1:4]]
    assert counts == [[(3, 0)], [(6, 0)], [(0, 6)]]
    marked = [steps["nodes"][s["node"]]["marks"] for s in steps["steps"]]
    assert marked[0] == [] and all(m == ["nonfinite"] for m in marked[1:]), marked
    assert all(steps["nodes"][s["node"]]["marks"] == [] or "vanishing" not in steps["nodes"][s["node"]]["marks"]
               for s in steps["steps"])


def test_the_smallest_gradient_and_the_norms_find_the_vanishing_layer(runner):
    """Debugging gradients, the end of "Watching a gradient vanish, step by step"."""
    _, steps = recorded(runner, "debugging_gradients/watch_vanishing_sigmoid.py")
    smallest = steps["jumps"]["smallest"]
    assert smallest == 8  # step 9
    node = steps["nodes"][steps["steps"][8]["node"]]
    assert (node["name"], node["module"]) == ("AddmmBackward0", "hidden")
    assert steps["steps"][8]["received"]["norm"] == pytest.approx(1e-4, rel=0.05)
    assert steps["nodes"][steps["steps"][7]["node"]]["label"] == "Sigmoid (custom)"
    assert steps["steps"][7]["received"]["norm"] == pytest.approx(0.57, abs=0.005)
    by_module = {}
    for step in steps["steps"]:
        module = steps["nodes"][step["node"]]["module"]
        by_module.setdefault(module, []).append(step["received"]["norm"])
    assert sorted(by_module["hidden"]) == [pytest.approx(1e-4, rel=0.05), pytest.approx(0.011, abs=0.0005)]
    fell = steps["steps"][7]["received"]["norm"] / steps["steps"][8]["received"]["norm"]
    assert round(fell, -2) == 5600, "in one operation, the sigmoid's backward"
    assert not any(node["marks"] for node in steps["nodes"]), "which no mark counts as vanishing"
    assert len(by_module["output"]) == 2 and min(by_module["output"]) > 1


def test_a_nan_made_in_the_forward_pass_is_found_at_the_operation_that_made_it(runner, observed):
    """Debugging gradients, "A NaN made in the forward pass"."""
    name = "debugging_gradients/watch_forward_nan.py"
    _, steps = recorded(runner, name)
    plain = observed(name)
    model, x = plain.variables["model"], plain.variables["x"]
    assert int((model[2].rate(model[:2](x)) < 0).sum()) == 2 and torch.isnan(plain.variables["loss"])
    assert all(p.grad.isnan().all() for p in model.parameters())
    first = steps["jumps"]["nonfinite"]
    assert (first, steps["jumps"]["origin"]) == (4, "forward")  # step 5
    node = steps["nodes"][steps["steps"][first]["node"]]
    assert (node["label"], node["module"], node["marks"]) == ("LogBackward0", "model.2", ["nonfinite"])
    assert node["where"][-1]["code"] == "return torch.log(self.rate(x))"
    assert "The forward pass made the first NaN or inf here: this node's operation, in model.2, returned it." \
        in steps["steps"][first]["description"]
    sent_nan = [i for i, s in enumerate(steps["steps"]) if any(g["grad"] and g["grad"]["nan"] for g in s["sent"])]
    assert sent_nan[0] == 3 and steps["nodes"][steps["steps"][3]["node"]]["label"] == "ExpBackward0"  # step 4
    assert steps["steps"][first]["sent"][0]["grad"]["nan"] == 2


def test_a_gradient_that_never_arrives_is_named_under_the_viewer(runner, observed):
    """Debugging gradients, "A gradient that never arrives"."""
    name = "debugging_gradients/watch_detached.py"
    result, steps = recorded(runner, name)
    plain = observed(name)
    model = plain.variables["model"]
    assert model.encoder[0].weight.grad is None and model.decoder.weight.grad.shape == (2, 8)
    assert printed([o["output"] for o in result.outputs]) == "None\ntorch.Size([2, 8])\n"
    assert steps["missing"] == [{"name": "model.encoder.0.weight", "shape": "8×4"},
                                {"name": "model.encoder.0.bias", "shape": "8"}]
    assert {n["module"] for n in steps["nodes"]} == {"", "model.decoder"}  # none of the encoder
