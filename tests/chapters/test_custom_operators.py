"""Claims of the chapter 'Custom operators for torch.compile' (docs/custom_operators.md).

Timings are never measured here: the benchmark runs once on tiny sizes to check
that it works and writes its schema, and the prose's reading of the committed
data file is checked against that file.
"""

import ast
import json
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F
from conftest import ROOT, run_benchmark
from torch import Tensor
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
from torch.autograd import gradcheck, gradgradcheck
from torch.testing._internal.optests.generate_tests import OpCheckError

BENCH = ROOT / "bench" / "custom_operators.py"
DATA = ROOT / "bench" / "results" / "custom_operators.json"
ELUS = ["custom op", "ELUFunction", "composite", "F.elu"]
OPCHECK_TESTS = ["test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic"]


def all_passed(line):
    """The opcheck report printed at the end of a line: every test, all passed."""
    report = ast.literal_eval(line[line.index("{"):])
    return list(report) == OPCHECK_TESTS and set(report.values()) == {"SUCCESS"}


def elu_reference(z, alpha):
    return torch.where(z > 0, z, alpha * torch.expm1(z))


@pytest.fixture
def op(chapter):
    """The namespace of elu_op.py, run as a reader does (registers the operator in this process)."""
    return chapter.run("elu_op.py")


# ---- the operator ---------------------------------------------------------------------------

def test_the_operator_schema_node_and_gradient(chapter):
    lines = chapter.shown("check_elu_op.py", "call").splitlines()
    assert lines[0] == "autograd_inside_out::elu(Tensor z, float alpha) -> Tensor", "schema from the type hints"
    ns = chapter.run("check_elu_op.py")
    z = torch.tensor([-2.0, -0.5, 0.0, 1.5], requires_grad=True)  # the inputs of the block
    y = ns["elu"](z, 1.0)
    assert torch.allclose(y, elu_reference(z.detach(), 1.0))
    assert torch.equal(torch.ops.autograd_inside_out.elu(z, 1.0), y), "the same operator under torch.ops"
    node = y.grad_fn
    assert "autograd_inside_out_elu" in type(node).__name__, "one node, named after the operator"
    assert [type(f).__name__ for f, _ in node.next_functions] == ["AccumulateGrad"]
    y.sum().backward()
    expected = torch.where(z > 0, 1.0, torch.exp(z.detach()))
    assert torch.allclose(z.grad, expected)
    assert lines[-1] == str(z.grad)
    assert "GeneratedBackwardFor_autograd_inside_out_elu_defaultBackward" in lines


def test_opcheck_passes_gradcheck_too_and_f_elu_differs_in_last_bits(chapter, op):
    shown = chapter.shown("check_elu_op.py", "opcheck").splitlines()
    assert len(shown) == 3 and all(all_passed(line) for line in shown)
    ns = chapter.run("check_elu_op.py")
    dtypes = {s.dtype for s in ns["samples"]}
    assert dtypes == {torch.float32, torch.float64}
    assert {s.requires_grad for s in ns["samples"]} == {True, False}
    assert len({s.dim() for s in ns["samples"]}) == 2, "two shapes"
    text = chapter.shown("check_elu_op.py", "gradcheck")
    assert "gradcheck: True\ngradgradcheck: True\n" in text
    elu = ns["elu"]
    z = torch.randn(30, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda z: elu(z, 1.3), (z,)) and gradgradcheck(lambda z: elu(z, 1.3), (z,))
    report = torch.library.opcheck(elu, (torch.randn(2, 3, 4, requires_grad=True), 2.0))
    assert set(report.values()) == {"SUCCESS"} and len(report) == 4, report
    for ours, theirs in ((ns["ours"], ns["theirs"]), (ns["our_grad"], ns["their_grad"])):
        assert not torch.equal(ours, theirs), "they differ"
        assert torch.allclose(ours, theirs, rtol=0, atol=4 * torch.finfo(torch.float32).eps), "in the last bits"


def test_opcheck_does_not_check_the_gradient_but_checks_schema_and_fake(op):
    """opcheck passes a wrong backward (gradcheck catches it); a mutation not declared fails
    test_schema; a fake kernel of the wrong shape fails test_faketensor."""
    @torch.library.custom_op("aio_test_chapter::wrong_grad", mutates_args=())
    def wrong_grad(z: Tensor) -> Tensor:
        return z * 3

    wrong_grad.register_fake(lambda z: torch.empty_like(z))
    wrong_grad.register_autograd(lambda ctx, g: 2 * g)  # the derivative is 3
    z = torch.randn(5, dtype=torch.float64, requires_grad=True)
    torch.library.opcheck(wrong_grad, (z,))
    with pytest.raises(RuntimeError, match="Jacobian mismatch"):
        gradcheck(wrong_grad, (z,))

    @torch.library.custom_op("aio_test_chapter::sneaky", mutates_args=())
    def sneaky(z: Tensor) -> Tensor:
        z.add_(1)
        return z.clone()

    sneaky.register_fake(lambda z: torch.empty_like(z))
    with pytest.raises(OpCheckError, match="test_schema"):
        torch.library.opcheck(sneaky, (torch.randn(3),))

    @torch.library.custom_op("aio_test_chapter::bad_fake", mutates_args=())
    def bad_fake(z: Tensor) -> Tensor:
        return z * 2

    bad_fake.register_fake(lambda z: z.new_empty(z.shape[0] + 1))
    with pytest.raises(OpCheckError, match="test_faketensor"):
        torch.library.opcheck(bad_fake, (torch.randn(3),))


def test_autograd_registration_checks_the_dispatch_key_of_the_autograd_support(chapter, op):
    """register_autograd puts the backward at the Autograd key; a Function applied inside the CPU
    kernel gives the same values and gradients, and fails test_autograd_registration."""
    has_kernel = torch._C._dispatch_has_kernel_for_dispatch_key
    assert has_kernel("autograd_inside_out::elu", "Autograd")
    function = chapter.run("elu_function.py")["ELUFunction"]
    z = torch.randn(4, requires_grad=True)
    for key in ("CPU", "Autograd"):
        namespace = f"aio_test_registration_{key.lower()}"
        with torch.library._scoped_library(namespace, "DEF") as library:
            library.define("elu(Tensor z) -> Tensor")
            library.impl("elu", lambda z: function.apply(z, 1.0), key)
            registered = getattr(torch.ops, namespace).elu.default
            assert has_kernel(registered.name(), "Autograd") == (key == "Autograd")
            assert registered(z).grad_fn is not None, "autograd records it either way"
            if key == "CPU":
                with pytest.raises(OpCheckError, match="test_autograd_registration"):
                    torch.library.opcheck(registered, (z,), test_utils="test_autograd_registration")
            else:
                assert torch.library.opcheck(registered, (z,), test_utils="test_autograd_registration") == {
                    "test_autograd_registration": "SUCCESS"}

# ---- the fake kernel ------------------------------------------------------------------------

def test_fake_tensors_have_a_shape_and_no_data(chapter):
    assert chapter.shown("fake_kernel.py", "fake_mode") == "FakeTensor (100000, 100000) torch.float32\n"
    ns = chapter.run("fake_kernel.py")
    assert ns["y"].shape == (100_000, 100_000) and ns["y"].dtype == torch.float32
    assert isinstance(ns["y"], FakeTensor)
    # a composite of PyTorch operations needs no fake kernel of its own
    composite = chapter.run("elu_function.py")["elu_forward"]
    with FakeTensorMode():
        assert composite(torch.empty(7, 3), 1.0).shape == (7, 3)


def test_without_a_fake_kernel_eager_works_compile_fails_and_opcheck_says_so(chapter):
    text = chapter.shown("fake_kernel.py", "missing")
    assert text.startswith("tensor([-0.6321,  1.0000])\nTorchRuntimeError: RuntimeError when making fake tensor call\n")
    assert "got RuntimeError('There was no fake impl registered for <CustomOpDef(autograd_inside_out::elu_no_fake)>." in text
    call = chapter.line_of("fake_kernel.py", "return elu_no_fake(z, 1.0) * 2")
    assert f'from user code:\n   File "fake_kernel.py", line {call}, in layer\n' in text, "printed whole, as a terminal shows it"
    assert '  File "…/site-packages/torch/_library/custom_ops.py", line' in text and ROOT.as_posix() not in text
    ns = chapter.run("fake_kernel.py")
    with pytest.raises(OpCheckError, match="test_faketensor failed with There was no fake impl"):
        torch.library.opcheck(ns["elu_no_fake"], (torch.randn(4), 1.0))


# ---- what the compiler sees ----------------------------------------------------------------

def test_all_four_elus_trace_into_one_graph_without_a_break(chapter):
    lines = chapter.shown("what_the_compiler_sees.py", "explain").splitlines()
    assert lines[0].split() == ["ELU", "graphs", "breaks"]
    rows = {line[:12].strip(): line[12:].split() for line in lines[1:]}
    assert rows == {name: ["1", "0"] for name in ELUS}
    assert torch.__version__.startswith("2.13.0")


def test_the_graphs_the_compiler_receives(chapter):
    text = chapter.shown("what_the_compiler_sees.py", "graphs").replace("\n" + " " * 12, " ").splitlines()
    assert all(len(line) <= 72 for line in chapter.shown("what_the_compiler_sees.py", "graphs").splitlines())
    graphs, name = {}, None
    for line in text:
        if not line.startswith(" "):
            name = line
        else:
            kind, ops = line.split(None, 1)
            graphs[name, kind] = ops.split(", ")
    assert set(graphs) == {(n, k) for n in ELUS for k in ("forward", "backward")}, "fullgraph=True compiled all four"
    composite_forward = ["aten.exp.default", "aten.gt.Scalar", "aten.mul.Tensor", "aten.sub.Tensor", "aten.where.self"]
    assert graphs["ELUFunction", "forward"] == composite_forward == graphs["composite", "forward"]
    assert "aten.ones_like.default" in graphs["ELUFunction", "backward"], "our backward, ones_like included"
    assert graphs["composite", "backward"] != graphs["ELUFunction", "backward"]
    assert graphs["custom op", "forward"] == ["autograd_inside_out.elu.default"], "one opaque node"
    assert {"aten.exp.default", "aten.where.self"} <= set(graphs["custom op", "backward"]), "its backward traced"
    assert graphs["F.elu", "forward"] == ["aten.elu.default"]
    assert graphs["F.elu", "backward"] == ["aten.elu_backward.default"]


def test_a_value_branch_breaks_a_function_but_not_an_operator(chapter):
    lines = chapter.shown("opaque_body.py", "function").splitlines()
    assert lines == ["graph breaks: 1", "Unsupported Tensor.item() call with capture_scalar_outputs=False",
                     "fullgraph=True: UserError, True"]
    lines = chapter.shown("opaque_body.py", "op").splitlines()
    assert lines[:2] == ["graph breaks: 0", "same as eager: True"] and all_passed(lines[2])
    ns = chapter.run("opaque_body.py")
    op = ns["elu_fast_path"]
    positive = torch.rand(6, dtype=torch.float64) + 0.1
    mixed = torch.randn(6, dtype=torch.float64)
    for z in (positive, mixed):
        z = (z + 0.1 * z.sign()).requires_grad_()
        assert gradcheck(lambda z: op(z, 0.7), (z,))
        torch.library.opcheck(op, (z, 0.7))
    # the compiled call runs the body, fast path included
    calls = []
    body = ns["elu_with_fast_path"]
    op.register_kernel("cpu")(lambda z, alpha: calls.append(bool((z > 0).all())) or body(z, alpha))
    torch._dynamo.reset()
    compiled = torch.compile(lambda z: op(z, 1.0), fullgraph=True, backend="aot_eager")
    assert torch.equal(compiled(positive), positive) and calls == [True]


# ---- the benchmark ---------------------------------------------------------------------------

def check_schema(data):
    assert set(data["provenance"]) == {"cpu", "cores", "threads", "torch", "python", "date", "command"}
    assert data["provenance"]["command"].startswith("python bench/custom_operators.py")
    assert data["baseline"] == "eager F.elu" and data["dtype"] == "float32"
    names = [f"{mode} {elu}" for mode in ("eager", "compiled") for elu in ELUS]
    assert [r["name"] for r in data["results"]] == names
    median = {r["name"]: r["median_seconds"] for r in data["results"]}
    assert all(t > 0 for t in median.values())
    for r in data["results"]:
        assert r["ratio"] == pytest.approx(r["median_seconds"] / median["eager F.elu"])
        assert r["compiled_graphs"] == (1 if r["mode"] == "compiled" else 0), "compiled: one graph, no break"


def test_benchmark_runs_and_writes_its_schema(tmp_path):
    args = ["--batch", "4", "--hidden", "32", "--repeats", "1", "--warmup", "1"]
    output = tmp_path / "ops.json"
    data = run_benchmark(BENCH, output, *args, timeout=900)
    check_schema(data)
    assert data["batch"] == 4 and data["hidden"] == 32 and data["repeats"] == 1
    assert data["provenance"]["command"].endswith(" ".join([*args, "--output", str(output)]))
    assert data["provenance"]["torch"] == torch.__version__


def test_committed_data_file_has_the_schema_and_the_page_sizes():
    data = json.loads(DATA.read_text())
    check_schema(data)
    assert (data["batch"], data["features"], data["hidden"]) == (256, 16, 4096)
    assert data["model"] == "Linear(16, 4096), ELU, Linear(4096, 10)"
    assert data["batch"] * data["hidden"] == 2**20, "2^20 activations"
    assert data["repeats"] == 31 and data["provenance"]["threads"] == 1
    assert data["provenance"]["torch"].startswith("2.13.0")


def test_the_prose_reading_of_the_committed_timings():
    data = json.loads(DATA.read_text())
    ratio = {r["name"]: r["ratio"] for r in data["results"]}
    median = {r["name"]: r["median_seconds"] for r in data["results"]}
    for elu in ("custom op", "ELUFunction", "composite"):
        assert 2.5 < ratio[f"eager {elu}"] < 3.5, "about three times as long as F.elu"
    others = ("ELUFunction", "composite", "F.elu")
    assert all(ratio[f"compiled {elu}"] < 1.1 for elu in others), "within 10% of eager F.elu or below"
    assert median["compiled custom op"] < median["eager custom op"], "the operator gains, less"
    assert all(median["compiled custom op"] > 1.5 * median[f"compiled {elu}"] for elu in others)


def test_results_snippet_prints_the_data_file(chapter):
    data = json.loads(DATA.read_text())
    table = chapter.shown("benchmark_results.py", "table").splitlines()
    assert table[0] == f"{data['model']}, batch 256, float32"
    assert table[1] == "median of 31 forward+backward steps; x = time / eager F.elu"
    rows = {line.split()[0] if not line.startswith("custom op") else "custom op": line for line in table[4:]}
    assert list(rows) == ELUS
    for r in data["results"]:
        assert f"{r['median_seconds'] * 1e3:.2f}" in rows[r["elu"]] and f"{r['ratio']:.2f}" in rows[r["elu"]]
    assert rows["F.elu"].split()[2] == "1.00"
    provenance = chapter.shown("benchmark_results.py", "provenance")
    assert all(str(value) in provenance for value in data["provenance"].values())
    assert str(DATA) in map(str, chapter.result("benchmark_results.py").deps), "rebuilds when the data changes"


# ---- exercises -------------------------------------------------------------------------------

def test_solution_softplus_operator(chapter):
    lines = chapter.shown("exercise_softplus_op.py").splitlines()
    assert all_passed(lines[0]) and all_passed(lines[1])
    assert lines[2] == "gradcheck: True" and lines[4] == "graph breaks: 0"
    ns = chapter.run("exercise_softplus_op.py")
    softplus, z = ns["softplus"], ns["z"].detach()
    assert z.abs().max() > 90, "inputs up to about 100"
    assert torch.isinf(torch.log(1 + torch.exp(z))).any(), "the naive formula overflows"
    assert torch.isfinite(softplus(z)).all()
    difference = (softplus(z) - F.softplus(z)).abs().max()
    assert float(lines[3].split()[-1]) == pytest.approx(float(f"{difference:.1e}"))
    assert difference <= torch.finfo(torch.float32).eps * z.abs().max(), "float32 rounding"
    x = torch.randn(9, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(softplus(x).sum(), x)
    assert torch.allclose(g, 1 / (1 + torch.exp(-x.detach()))), "the derivative is the sigmoid"


def test_solution_graph_break(chapter):
    lines = chapter.shown("exercise_graph_break.py").splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("graph breaks:"))
    assert int(lines[first].split()[-1]) > 0
    assert "Tensor.item() call with capture_scalar_outputs=False" in lines[first + 1], "the setting, named"
    assert "graph breaks after the fix: 0" in lines
    assert lines[-2] == "50% of the inputs are negative"
    # The break is Dynamo's default: with capture_scalar_outputs it traces .item(), and the
    # print of the number breaks the graph instead.
    ns = chapter.run("exercise_graph_break.py")

    def item_only(z):
        return z * (z <= 0).float().mean().item()

    def breaks(function):
        torch._dynamo.reset()
        explained = torch._dynamo.explain(function)(ns["z"].detach())
        return explained.graph_break_count, [r.reason for r in explained.break_reasons]

    with torch._dynamo.config.patch(capture_scalar_outputs=False):
        count, reasons = breaks(item_only)
        assert count == 1 and reasons[0].startswith("Unsupported Tensor.item() call")
    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        assert breaks(item_only) == (0, [])
        count, reasons = breaks(ns["layer"])
        assert count > 0 and not any("item()" in reason for reason in reasons)
        assert any("builtin operator `print`" in reason for reason in reasons)
    torch._dynamo.reset()
    z = ns["z"]
    assert torch.allclose(z.grad, 2 * torch.where(z > 0, 1.0, torch.exp(z.detach())))


# What an operator may do with its inputs


def test_an_operator_output_may_not_be_its_input(chapter):
    assert chapter.shown("mutating_op.py", "alias") == (
        "The output of this custom operator (1) must not also be an input to this custom operator and "
        "(2) may not alias any inputs to this custom operator or other returns.\n")
    ns = chapter.run("mutating_op.py")
    out = ns["relu_or_same"](torch.tensor([-1.0, 2.0]))
    assert torch.equal(out, torch.tensor([0.0, 2.0])), "the branch that computes a new tensor is fine"
    assert "return z.clone()" in chapter.path("opaque_body.py").read_text()


def test_a_declared_mutation_works_eager_and_compiled_and_passes_opcheck(chapter):
    lines = chapter.shown("mutating_op.py", "mutating").splitlines()
    expected = torch.nn.functional.elu(torch.tensor([-1.0, 2.0]))
    assert lines[0] == lines[1] == str(expected)
    assert lines[2] == str({name: "SUCCESS" for name in
                            ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic")})
    ns = chapter.run("mutating_op.py")
    assert "Tensor(a0!) z" in str(ns["elu_"]._opoverload._schema), "the schema marks z as written"
    from torch._dynamo.backends.common import aot_autograd
    codes = []

    def keep(gm, inputs):
        codes.append(gm.code)
        return gm

    z = torch.tensor([-1.0, 2.0])
    torch.compile(lambda z: ns["elu_"](z, 1.0), backend=aot_autograd(fw_compiler=keep), fullgraph=True)(z)
    assert "auto_functionalized" in codes[0] and "copy_" not in codes[0], "a new value in the graph"
    assert torch.equal(z, expected), "copied back into z"


def test_opcheck_finds_an_undeclared_mutation(chapter):
    assert chapter.shown("mutating_op.py", "undeclared") == (
        "OpCheckError: opcheck(op, ...): test_schema failed with Argument z is not defined as mutable "
        "but was mutated\n")


def test_a_kernel_registered_for_the_cpu_replaces_the_default_there(chapter):
    shown = chapter.shown("mutating_op.py", "by_device")
    ns = chapter.run("mutating_op.py")
    kernel = "the default kernel" if torch.cuda.is_available() else "the CPU kernel"
    assert shown.splitlines()[0] == kernel
    assert torch.allclose(ns["elu_by_device"](torch.tensor([-1.0, 2.0]), 1.0),
                          torch.nn.functional.elu(torch.tensor([-1.0, 2.0])))
    assert callable(torch.library.triton_op) and callable(torch.library.wrap_triton)
    assert "makes the implementation visible" in torch.library.triton_op.__doc__
    assert "treats\n    custom operators as opaque" in torch.library.triton_op.__doc__


def test_solution_view_output(chapter):
    assert chapter.shown("solution_view_output.py") == (
        "first_row: RuntimeError, aliasing: True\nfirst_row_copy: tensor([0., 1., 2.])\n")


# ---- compiled autograd -----------------------------------------------------------------------

MODEL_NODES = ["SumBackward0", "AddmmBackward0", "AccumulateGrad", "TBackward0", "AccumulateGrad",
               "EluBackward0", "AddmmBackward0", "AccumulateGrad", "TBackward0", "AccumulateGrad"]


@pytest.fixture
def compiled_autograd_off():
    """Running the snippet here turns the setting on: it is turned back off after the test."""
    with torch._dynamo.config.patch(compiled_autograd=False):
        yield
    torch._dynamo.reset()


def engine_order(model, x):
    """The class names of the nodes in the order the eager engine runs them (a pre-hook on each)."""
    loss, ran, seen, todo = model(x).sum(), [], set(), []
    todo.append(loss.grad_fn)
    while todo:
        node = todo.pop()
        if node is not None and node not in seen:
            seen.add(node)
            node.register_prehook(lambda grads, node=node: ran.append(type(node).__name__))
            todo += [n for n, _ in node.next_functions]
    loss.backward()
    return ran


def test_compiled_autograd_is_off_by_default_and_enable_is_private():
    done = subprocess.run([sys.executable, "-c", "import torch._dynamo.config as c; print(c.compiled_autograd)"],
                          capture_output=True, text=True, check=True)
    assert done.stdout == "False\n"
    assert not hasattr(torch._dynamo.compiled_autograd, "enable")
    assert hasattr(torch._dynamo.compiled_autograd, "_enable")


def test_compiled_autograd_captures_the_engine_s_nodes_and_the_gradients_are_eager_s(chapter, compiled_autograd_off):
    lines = chapter.shown("compiled_autograd.py", "enable").splitlines()
    assert lines == ["graph 1: linear, elu, linear, sum", "graph 2: " + ", ".join(MODEL_NODES),
                     "captured by compiled autograd: 1", "gradients as eager: True"]
    ns = chapter.run("compiled_autograd.py")
    model = ns["mlp"](ns["F"].elu)
    model.load_state_dict(ns["model"].state_dict())
    assert engine_order(model, ns["x"]) == MODEL_NODES, "the order the engine runs them"
    assert MODEL_NODES.count("AccumulateGrad") == len(list(model.parameters())) == 4


def test_compiled_autograd_leaves_a_backward_outside_the_compiled_function(chapter, compiled_autograd_off):
    assert chapter.shown("compiled_autograd.py", "outside") == "graphs: 1\ncaptured by compiled autograd: 0\n"


def test_a_hook_is_traced_into_the_captured_graph(chapter, compiled_autograd_off):
    lines = chapter.shown("compiled_autograd.py", "hook").splitlines()
    nodes = MODEL_NODES[:-1] + ["clamp", "AccumulateGrad"]
    assert lines == ["backward graph: " + ", ".join(nodes), "gradients as eager: True"]
    ns = chapter.run("compiled_autograd.py")
    torch.manual_seed(0)
    plain = ns["mlp"](ns["F"].elu)
    plain.load_state_dict(ns["model"].state_dict())
    plain(ns["x"]).sum().backward()
    assert plain[0].weight.grad.abs().max() > 0.01, "the hook clamps something"
    assert ns["model"][0].weight.grad.abs().max() <= 0.01
    assert torch.equal(ns["model"][0].weight.grad, plain[0].weight.grad.clamp(-0.01, 0.01))


def test_aot_autograd_s_backward_graph_has_no_accumulate_grad():
    from torch._dynamo.backends.common import aot_autograd
    from torch._functorch.aot_autograd import make_boxed_func

    sys.path.insert(0, str(ROOT / "snippets" / "custom_operators"))
    try:
        from elu_models import mlp
    finally:
        sys.path.pop(0)
    graphs = {}

    def keep(kind):
        def compiler(graph_module, example_inputs):
            graphs[kind] = [str(n.target) for n in graph_module.graph.nodes if n.op == "call_function"]
            return make_boxed_func(graph_module.forward)
        return compiler

    torch._dynamo.reset()
    model = torch.compile(mlp(F.elu), backend=aot_autograd(fw_compiler=keep("forward"), bw_compiler=keep("backward")))
    model(torch.randn(4, 64)).sum().backward()
    assert "aten.elu_backward.default" in graphs["backward"], "ATen operations"
    assert not any("accumulate" in op.lower() or "hook" in op.lower() for op in graphs["backward"])
    torch._dynamo.reset()


def test_with_inductor_the_captured_backward_graph_is_compiled_too(chapter, compiled_autograd_off):
    """The default backend: Dynamo's forward graph and compiled autograd's backward graph, both compiled
    by Inductor (from its cache when an earlier run compiled them)."""
    from torch._dynamo.utils import counters

    ns = chapter.run("compiled_autograd.py")
    torch._dynamo.reset()
    counters.clear()
    torch.manual_seed(0)
    model, x = ns["mlp"](ns["F"].elu), ns["x"]
    ns["train_step"](model, x)
    eager = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    torch._dynamo.config.compiled_autograd = True
    torch.compile(ns["train_step"])(model, x)
    assert counters["compiled_autograd"]["captures"] == 1
    assert counters["inductor"]["fxgraph_cache_miss"] + counters["inductor"]["fxgraph_cache_hit"] == 2
    assert all(torch.allclose(g, p.grad, atol=1e-6) for g, p in zip(eager, model.parameters()))


def test_solution_compiled_autograd_hook(chapter, compiled_autograd_off):
    lines = chapter.shown("solution_compiled_autograd_hook.py").splitlines()
    assert lines[:2] == ["graphs: 2  breaks: 1", "Unsupported Tensor.backward() call"]
    nodes = MODEL_NODES[:3] + ["mul"] + MODEL_NODES[3:]
    assert lines[2] == "backward graph: " + ", ".join(nodes), "the hook after the second layer's AddmmBackward0"
    assert lines[3] == "gradients as eager: True"
    ns = chapter.run("solution_compiled_autograd_hook.py")
    torch.manual_seed(0)
    plain = ns["mlp"](F.elu)
    plain.load_state_dict(ns["model"].state_dict())
    plain(ns["x"]).sum().backward()
    assert torch.allclose(ns["model"][0].weight.grad, 0.5 * plain[0].weight.grad), "halved below the hook"
    assert torch.equal(ns["model"][2].weight.grad, plain[2].weight.grad), "unchanged above it"


def test_the_setting_counts_when_torch_compile_is_called(chapter, compiled_autograd_off):
    """A function compiled while the setting is off does not capture, even called with it on; one compiled
    with it on does, even called with it off."""
    from torch._dynamo.utils import counters

    ns = chapter.run("compiled_autograd.py")
    step, model, x = ns["train_step"], ns["model"], ns["x"]
    captures = {}
    for compiled_on, called_on in ((False, True), (True, False)):
        torch._dynamo.reset()
        counters.clear()
        with torch._dynamo.config.patch(compiled_autograd=compiled_on):
            compiled = torch.compile(step, backend="eager")
        with torch._dynamo.config.patch(compiled_autograd=called_on):
            compiled(model, x)
        captures[compiled_on] = counters["compiled_autograd"]["captures"]
    assert captures == {False: 0, True: 1}
