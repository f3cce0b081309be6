"""Claims of the chapter 'Autograd from scratch' (docs/autograd_from_scratch.md)."""

import importlib
import inspect
import math
import re
import sys

import pytest
import torch
import torch.nn.functional as F
from conftest import SNIPPETS
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

FOLDER = SNIPPETS / "autograd_from_scratch"


@pytest.fixture
def tiny(chapter, monkeypatch):
    """The engine module, imported as the snippets import it (forgotten again by `chapter`)."""
    monkeypatch.syspath_prepend(str(FOLDER))
    return importlib.import_module("tiny_autograd")


@pytest.fixture(scope="module")
def modules():
    """(tiny_autograd, random_graphs) for the property-based test, whose examples cannot use
    function-scoped fixtures. random_graphs.tiny is the engine that random_graphs builds with."""
    with pytest.MonkeyPatch.context() as mp:
        mp.syspath_prepend(str(FOLDER))
        for name in ("tiny_autograd", "random_graphs"):
            sys.modules.pop(name, None)
        random_graphs = importlib.import_module("random_graphs")
        yield random_graphs.tiny, random_graphs


def f64(*values):
    return torch.tensor(values, dtype=torch.float64)


# The engine


def test_the_engine_is_about_150_lines_and_never_calls_torch_autograd():
    source = (FOLDER / "tiny_autograd.py").read_text()
    assert 130 <= len(source.splitlines()) <= 170
    code = re.sub(r'""".*?"""|#.*', "", source, flags=re.S).replace("def backward(", "")  # no docstrings, comments
    for word in ("autograd", "requires_grad", "backward(", "grad_fn", "torch.func"):
        assert word not in code, word


def test_the_engine_runs_where_pytorch_records_nothing(tiny):
    x = tiny.Value(f64(0.5, -1.0))
    with torch.inference_mode():  # PyTorch's autograd cannot record anything here
        loss = (tiny.elu(x, 0.5) * x.tanh()).sum()
        tiny.backward(loss)
    expected = F.elu(x.data, 0.5) * (1 - x.data.tanh() ** 2) + torch.where(x.data > 0, 1.0, 0.5 * x.data.exp()) * x.data.tanh()
    assert torch.allclose(x.grad, expected)


OPS = {  # name: (tiny engine, PyTorch, shapes of the inputs)
    "add": (lambda a, b: a + b, lambda a, b: a + b, [(3, 4), (4,)]),
    "mul": (lambda a, b: a * b, lambda a, b: a * b, [(3, 1), (1, 4)]),
    "matmul": (lambda a, b: a @ b, lambda a, b: a @ b, [(3, 4), (4, 2)]),
    "sum": (lambda a: a.sum(), lambda a: a.sum(), [(3, 4)]),
    "sum dim": (lambda a: a.sum(dim=0), lambda a: a.sum(dim=0), [(3, 4)]),
    "sum dim keepdim": (lambda a: a.sum(dim=1, keepdim=True), lambda a: a.sum(dim=1, keepdim=True), [(3, 4)]),
    "mean": (lambda a: a.mean(), lambda a: a.mean(), [(3, 4)]),
    "mean dim": (lambda a: a.mean(dim=1), lambda a: a.mean(dim=1), [(3, 4)]),
    "pow": (lambda a: a**3, lambda a: a**3, [(3, 4)]),
    "tanh": (lambda a: a.tanh(), torch.tanh, [(3, 4)]),
    "exp": (lambda a: a.exp(), torch.exp, [(3, 4)]),
    "elu": (None, lambda a: F.elu(a, 0.3), [(3, 4)]),
    "neg": (lambda a: -a, lambda a: -a, [(3, 4)]),
    "sub": (lambda a, b: a - b, lambda a, b: a - b, [(3, 4), (3, 1)]),
    "rsub": (lambda a: 2 - a, lambda a: 2 - a, [(3, 4)]),
    "div": (lambda a, b: a / b, lambda a, b: a / b, [(3, 4), (4,)]),
}


@pytest.mark.parametrize("name", OPS)
def test_each_vjp_matches_torch_autograd_with_broadcasting(tiny, name):
    mine, theirs, shapes = OPS[name]
    mine = mine or (lambda a: tiny.elu(a, 0.3))
    gen = torch.Generator().manual_seed(0)
    values = [torch.rand(s, generator=gen, dtype=torch.float64) + 0.5 if name == "div" else
              torch.randn(s, generator=gen, dtype=torch.float64) for s in shapes]
    leaves = [tiny.Value(v) for v in values]
    out = mine(*leaves)
    weights = torch.randn(out.shape, generator=gen, dtype=torch.float64)  # a VJP with a random adjoint
    tiny.backward((out * weights).sum())
    refs = [v.clone().requires_grad_() for v in values]
    (theirs(*refs) * weights).sum().backward()
    for leaf, ref in zip(leaves, refs):
        assert leaf.grad.shape == ref.grad.shape
        torch.testing.assert_close(leaf.grad, ref.grad, rtol=1e-12, atol=1e-14)


def test_negation_subtraction_and_division_are_composites_with_no_vjp_of_their_own(tiny):
    a, b = tiny.Value(f64(1.0, 2.0)), tiny.Value(f64(3.0, 4.0))
    ops = {v.op for v in tiny.topological_order(((-a) - b / a).sum())}
    assert ops <= {"leaf", "constant", "add", "mul", "pow -1", "sum"}


def test_the_elu_slope_at_zero_is_alpha_like_f_elu(tiny):
    z = tiny.Value(f64(0.0))
    tiny.backward(tiny.elu(z, 0.3).sum())
    ref = f64(0.0).requires_grad_()
    F.elu(ref, 0.3).sum().backward()
    assert z.grad.item() == pytest.approx(0.3) and ref.grad.item() == pytest.approx(0.3)


def test_unbroadcast_sums_added_and_stretched_dimensions(tiny):
    grad = torch.arange(24.0).reshape(2, 3, 4)
    assert torch.equal(tiny.unbroadcast(grad, (4,)), grad.sum(dim=(0, 1)))
    assert torch.equal(tiny.unbroadcast(grad, (3, 1)), grad.sum(dim=0).sum(dim=1, keepdim=True))
    assert torch.equal(tiny.unbroadcast(grad, (2, 3, 4)), grad)


def test_a_long_chain_needs_no_recursion(tiny):
    x = tiny.Value(f64(0.1))
    y = x
    for _ in range(3 * sys.getrecursionlimit()):
        y = y * 1.0
    tiny.backward(y.sum())
    assert x.grad.item() == 1.0


def test_leaves_accumulate_and_constants_are_leaves_in_the_values_dtype(tiny):
    x = tiny.Value(f64(1.0, 2.0))
    for _ in range(2):
        tiny.backward((x * x).sum())
    assert torch.equal(x.grad, 2 * 2 * x.data)
    constant = tiny.lift(1.0 / 3, x)
    assert constant.op == "constant" and constant.parents == () and constant.data.dtype == torch.float64


def test_first_backward(chapter):
    ns = chapter.run("first_backward.py")
    x, b = ns["x"].data, ns["b"].data
    assert torch.equal(ns["x"].grad, 2 * x + b), "x is used three times: x * x and x * b"
    assert torch.equal(ns["b"].grad, x.sum(dim=0)), "column sums: the broadcast dimension summed"
    assert b.shape == (3,) and x.shape == (2, 3)
    stdout = chapter.shown("first_backward.py")
    assert "b.grad: tensor([5., 7., 9.])" in stdout and stdout.endswith("same as torch.autograd: True\n")


# Random graphs against torch.autograd


def test_the_random_check_on_the_page(chapter):
    ns = chapter.run("check_against_torch.py")
    assert ns["graphs"] == 500 and ns["compared"] > 1000
    assert ns["reused"] > ns["graphs"] / 2, "values are often used more than once"
    assert ns["broadcast"] > 50
    assert 1e-17 < ns["worst"] < 1e-15, "about the rounding error of float64"
    stdout = chapter.shown("check_against_torch.py")
    assert stdout.startswith("500 random graphs, ")
    assert re.search(r"relative to the largest gradient: \d\.\de-16\n$", stdout)


def test_every_operation_of_a_random_graph_is_on_the_path_to_the_loss(modules):
    tiny, random_graphs = modules
    import random

    rng = random.Random(1)
    for _ in range(50):
        values = [torch.randn(rng.choice(random_graphs.leaf_shapes(3)), dtype=torch.float64) for _ in range(3)]
        leaves, results, losses = random_graphs.random_graph(rng.choice, values, n_ops=6)
        in_graph = {id(v) for v in tiny.topological_order(losses[0])}
        assert all(id(v) in in_graph for v in results + [leaf for leaf, _ in leaves])


@settings(max_examples=300, deadline=None, derandomize=True,  # no time limit; the same examples each run
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_random_graphs_match_torch_autograd(modules, data):
    """Hypothesis draws the shapes, the values, the operations and their inputs; the tiny
    engine's leaf gradients must match torch.autograd's to float64 tolerance."""
    tiny, random_graphs = modules
    n = data.draw(st.integers(1, 4), label="n")
    values = []
    for _ in range(data.draw(st.integers(1, 4), label="leaves")):
        shape = data.draw(st.sampled_from(random_graphs.leaf_shapes(n)), label="shape")
        numbers = data.draw(st.lists(st.floats(-3, 3, allow_subnormal=False), min_size=math.prod(shape),
                                     max_size=math.prod(shape)), label="values")
        values.append(torch.tensor(numbers, dtype=torch.float64).reshape(shape))

    def choose(options):
        return data.draw(st.sampled_from(options))

    leaves, results, losses = random_graphs.random_graph(choose, values, data.draw(st.integers(1, 10), label="ops"))
    assume(torch.isfinite(losses[1]).item())

    order = tiny.topological_order(losses[0])
    position = {id(v): i for i, v in enumerate(order)}
    assert all(position[id(p)] < position[id(v)] for v in order for p in v.parents), "parents first"

    difference = random_graphs.gradient_difference(leaves, losses)
    assume(all(torch.isfinite(t.grad).all() for _, t in leaves if t.grad is not None))
    assert difference < 1e-12


def test_the_check_catches_a_float32_constant(modules, monkeypatch):
    tiny, random_graphs = modules
    monkeypatch.setattr(tiny, "lift", lambda x, like: x if isinstance(x, tiny.Value) else tiny.Value(
        torch.as_tensor(x, dtype=torch.float32), op="constant"))
    import random

    rng = random.Random(0)
    torch.manual_seed(0)
    worst = 0.0
    for _ in range(200):
        n = rng.choice([2, 3, 4])
        values = [torch.randn(rng.choice(random_graphs.leaf_shapes(n)), dtype=torch.float64)
                  for _ in range(rng.randint(1, 4))]
        leaves, _, losses = random_graphs.random_graph(rng.choice, values, n_ops=rng.randint(1, 8))
        if torch.isfinite(losses[1]):
            worst = max(worst, random_graphs.gradient_difference(leaves, losses))
    assert 1e-9 < worst < 1e-6, "about 1e-8"


def test_the_check_catches_a_missing_unbroadcast(modules, monkeypatch):
    tiny, random_graphs = modules
    monkeypatch.setattr(tiny, "unbroadcast", lambda grad, shape: grad)
    values = [torch.randn(2, 3, dtype=torch.float64), torch.randn(3, dtype=torch.float64)]
    picks = iter(["add", 0, 1])  # add the (2, 3) leaf and the (3,) leaf

    def choose(options):
        pick = next(picks)
        return pick if isinstance(pick, str) else options[pick]

    leaves, _, losses = random_graphs.random_graph(choose, values, n_ops=1)
    with pytest.raises(AssertionError):
        random_graphs.gradient_difference(leaves, losses)


# The MLP


def test_the_losses_agree_at_every_step_and_fall(chapter):
    ns = chapter.run("train_mlp.py")
    mine, theirs = ns["tiny_losses"], ns["torch_losses"]
    assert len(mine) == len(theirs) == ns["steps"] == 8
    assert all(abs(a - b) <= 1e-15 for a, b in zip(mine, theirs)), "the last digit or two of float64"
    assert all(later < earlier for earlier, later in zip(theirs, theirs[1:])), "the loss falls every step"
    for tiny_param, torch_param in zip(ns["params"], ns["mlp"].parameters()):
        expected = torch_param.detach().T if torch_param.dim() == 2 else torch_param.detach()
        torch.testing.assert_close(tiny_param.data, expected, rtol=1e-12, atol=1e-14)
    stdout = chapter.shown("train_mlp.py", "torch")
    assert len(stdout.splitlines()) == 9


def test_the_mlp_is_the_source_network_shrunk(chapter):
    ns = chapter.run("train_mlp.py")
    layers = [type(m).__name__ for m in ns["mlp"]]
    assert layers == ["Linear", "ELU", "Linear", "ELU", "Linear", "Softmax"]
    assert [(m.in_features, m.out_features) for m in ns["mlp"] if isinstance(m, torch.nn.Linear)] == [
        (8, 16), (16, 16), (16, 4)]
    assert all(p.dtype == torch.float64 for p in ns["mlp"].parameters())


def test_linear_is_x_times_w_transposed_and_sgd_is_plain_gradient_descent():
    torch.manual_seed(0)
    layer, x = torch.nn.Linear(3, 2), torch.randn(4, 3)
    assert torch.allclose(layer(x), x @ layer.weight.T + layer.bias)
    optimizer = torch.optim.SGD(layer.parameters(), lr=0.5)
    assert optimizer.param_groups[0]["momentum"] == 0
    layer(x).pow(2).sum().backward()
    expected = layer.weight.detach() - 0.5 * layer.weight.grad
    optimizer.step()
    assert torch.equal(layer.weight.detach(), expected)


# Scalars against tensors


def test_node_counts_of_one_layer(chapter):
    ns = chapter.run("scalar_vs_tensor_nodes.py")
    assert ns["same"]
    assert ns["tensor_nodes"] == 6
    assert ns["scalar_nodes"] == ns["scalar_node_count"](4, 8, 16) == 1264
    stdout = chapter.shown("scalar_vs_tensor_nodes.py")
    assert "tensor engine: 6 nodes\nscalar engine: 1264 nodes\n" in stdout
    assert f"{ns['scalar_node_count'](10, 512, 1024):,} scalar nodes" in stdout
    ops = [v.op for v in ns["tiny"].topological_order(tiny_root(ns))]
    n_in, n_out, batch = 8, 16, 4
    assert ops.count("mul") == ops.count("add") == batch * n_in * n_out, "2 n_in n_out calls per example"
    assert ops.count("elu") == batch * n_out


def tiny_root(ns):
    return ns["tiny"].Value(0.0, parents=tuple(ns["scalar_out"]))


@pytest.mark.parametrize("sizes", [(1, 1, 1), (2, 3, 5), (3, 2, 2)])
def test_tensor_nodes_stay_6_and_the_scalar_formula_counts(tiny, sizes):
    batch, n_in, n_out = sizes
    x, w, b = torch.randn(batch, n_in), torch.randn(n_in, n_out), torch.randn(n_out)

    def count(outputs):
        return len(tiny.topological_order(tiny.Value(0.0, parents=tuple(outputs)))) - 1

    assert count([tiny.elu(tiny.Value(x) @ tiny.Value(w) + tiny.Value(b))]) == 6
    xs = [[tiny.Value(v) for v in row] for row in x]
    ws = [[tiny.Value(v) for v in row] for row in w]
    bs = [tiny.Value(v) for v in b]
    outs = []
    for i in range(batch):
        for j in range(n_out):
            s = bs[j]
            for k in range(n_in):
                s = s + xs[i][k] * ws[k][j]
            outs.append(tiny.elu(s))
    assert count(outs) == batch * n_in + n_in * n_out + n_out + batch * n_out * (2 * n_in + 1)


# What PyTorch adds


def test_the_engine_is_cpp_and_runs_the_latest_ready_node_first(chapter):
    ns = chapter.run("what_pytorch_adds.py")
    assert type(torch.autograd.Variable._execution_engine).__module__ == "torch._C"
    assert "_execution_engine.run_backward" in inspect.getsource(torch.autograd.graph._engine_run_backward)
    assert type(ns["a"].grad_fn).__module__ == "builtins"
    assert ns["b"].grad_fn._sequence_nr() > ns["a"].grad_fn._sequence_nr()
    stdout = chapter.shown("what_pytorch_adds.py", "order")
    assert "PyTorch ran: SumBackward0 (#3), MulBackward0 (#2), TanhBackward0 (#1), ExpBackward0 (#0)" in stdout
    assert "tiny engine: sum, mul, exp, tanh" in stdout


def ran_order(*outputs):
    """Watch every node behind the outputs; the list fills with "name #n" as the engine runs them."""
    ran, seen = [], set()

    def visit(node):
        if node is None or node in seen:
            return
        seen.add(node)
        number = node._sequence_nr()
        node.register_prehook(lambda grads: ran.append(f"{node.name().split('::')[-1]} #{number}"))
        for child, _ in node.next_functions:
            visit(child)

    for output in outputs:
        visit(output.grad_fn)
    return ran


def test_accumulate_grad_has_the_largest_sequence_number_and_runs_once_ready():
    x = torch.tensor([0.5, -1.0], requires_grad=True)
    b = torch.tensor([1.0, 2.0], requires_grad=True)
    first_use = b * 1                 # makes b's AccumulateGrad, before ExpBackward0 exists
    (accumulate, _) = first_use.grad_fn.next_functions[0]
    assert accumulate._sequence_nr() == 2**64 - 1, "UINT64_MAX, not the order of creation"
    loss = (b * x.exp()).sum()        # MulBackward0 makes both ready: ExpBackward0, created later, waits
    assert loss.grad_fn.next_functions[0][0].next_functions[0][0] is accumulate
    ran = ran_order(loss)
    loss.backward()
    assert ran == [f"SumBackward0 #{loss.grad_fn._sequence_nr()}",
                   f"MulBackward0 #{loss.grad_fn._sequence_nr() - 1}",
                   f"AccumulateGrad #{2**64 - 1}", f"ExpBackward0 #{loss.grad_fn._sequence_nr() - 2}",
                   f"AccumulateGrad #{2**64 - 1}"]


def test_the_sequence_counter_is_per_thread():
    import threading

    torch.ones(1, requires_grad=True).exp()  # this thread has made nodes
    numbers = []

    def fresh():
        numbers.append(torch.ones(1, requires_grad=True).exp().grad_fn._sequence_nr())

    here = torch.ones(1, requires_grad=True).exp().grad_fn._sequence_nr()
    thread = threading.Thread(target=fresh)
    thread.start()
    thread.join()
    assert here > 0 and numbers == [0], "a new thread counts from 0"
    assert torch.ones(1, requires_grad=True).exp().grad_fn._sequence_nr() == here + 1, "this one goes on"


def test_a_nested_backward_runs_before_the_outer_pass_goes_on():
    """The ready queue compares the reentrant depth before the sequence numbers."""
    u = torch.ones(2, requires_grad=True)
    inner = (u.exp() * 2).sum()  # numbers below the outer pass's TanhBackward0

    class Nested(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            ran.append("nested backward starts")
            torch.autograd.grad(inner, u)
            ran.append("nested backward ends")
            return grad

    x = torch.ones(2, requires_grad=True)
    waiting = x.tanh()
    loss = (waiting + Nested.apply(x)).sum()
    ran = ran_order(loss, inner)
    loss.backward()
    tanh = ran.index(f"TanhBackward0 #{waiting.grad_fn._sequence_nr()}")
    inner_numbers = [int(r.split("#")[1]) for r in ran[ran.index("nested backward starts") + 1:
                                                         ran.index("nested backward ends")]]
    assert len(inner_numbers) == 3 and max(inner_numbers) < waiting.grad_fn._sequence_nr()
    assert ran.index("nested backward starts") < ran.index("nested backward ends") < tanh, \
        "ready before the nested pass, with a higher number, TanhBackward0 waits for all of it"

def test_saved_tensors_are_kept_by_the_tiny_engine_and_freed_by_pytorch(chapter):
    ns = chapter.run("what_pytorch_adds.py")
    x = ns["x"]
    y = x.exp()
    assert [n for n in dir(y.grad_fn) if n.startswith("_saved")] == ["_saved_result"]
    y.sum().backward()
    with pytest.raises(RuntimeError, match="already been freed"):
        _ = y.grad_fn._saved_result
    z = x.exp()
    z.sum().backward(retain_graph=True)
    z.sum().backward()  # retain_graph kept them
    stdout = chapter.shown("what_pytorch_adds.py", "saved")
    assert "ExpBackward0 saves its output: True" in stdout
    assert "second backward: Trying to backward through the graph a second time" in stdout
    tiny_twice = re.search(r"tiny engine, twice: (tensor\(.*\))", stdout).group(1)
    assert tiny_twice == str(2 * x.detach().exp())


def test_ctx_save_for_backward_is_checked_and_freed_the_same_way():
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, z):
            ctx.save_for_backward(z)
            return z * z

        @staticmethod
        def backward(ctx, g):
            (z,) = ctx.saved_tensors
            return 2 * z * g

    z = torch.randn(3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(Square.apply, (z,))
    out = Square.apply(z)
    out.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        out.sum().backward()
    hidden = z * 1
    out = Square.apply(hidden)
    hidden.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_version_counters(chapter):
    ns = chapter.run("what_pytorch_adds.py")
    stdout = chapter.shown("what_pytorch_adds.py", "version")
    assert "version before: 0\nversion after:  1\n" in stdout
    assert "PyTorch: one of the variables needed for gradient computation has been modified by an inplace" in stdout
    x = ns["x"].detach()
    assert torch.allclose(ns["X"].grad, x.exp() + 1), "the tiny engine returns e^x + 1"


def test_the_hook_clamps_the_gradient(chapter):
    ns = chapter.run("what_pytorch_adds.py")
    x = ns["x"].detach()
    assert x.tolist() == [0.5, -1.0]
    assert torch.equal(ns["x"].grad, 3 * torch.clamp(2 * 3 * x, max=1.0))
    assert torch.equal(18 * x, torch.tensor([9.0, -18.0])), "what x.grad would be without the hook"
    stdout = chapter.shown("what_pytorch_adds.py", "hooks")
    assert "gradient reaching h: tensor([ 3., -6.])" in stdout
    assert "x.grad, from the clamped gradient: tensor([  3., -18.])" in stdout


def test_higher_order_gradients(chapter):
    ns = chapter.run("what_pytorch_adds.py")
    t = ns["t"].detach()
    assert torch.allclose(ns["second"], -2 * t.tanh() * (1 - t.tanh() ** 2))
    assert ns["first"].grad_fn is not None
    assert type(ns["T"].grad) is torch.Tensor and not isinstance(ns["T"].grad, ns["tiny"].Value)


# Exercises


def test_exercise_log(chapter):
    ns = chapter.run("exercise_log.py")
    assert ns["loss"].data.item() == pytest.approx(ns["torch_loss"].item(), rel=1e-14)
    torch.testing.assert_close(ns["z"].grad, ns["reference"].grad, rtol=1e-12, atol=1e-15)
    a = ns["tiny"].Value(f64(0.5, 2.0))
    ns["tiny"].backward(ns["log"](a).sum())
    assert torch.allclose(a.grad, 1 / a.data)
    assert chapter.shown("exercise_log.py").endswith("same gradient: True\n")
    far = f64(0.0, 800.0)  # log of the softmax fails where log-softmax does not
    assert torch.isinf(torch.softmax(far, 0).log()).any() and torch.isfinite(torch.log_softmax(far, 0)).all()


def test_exercise_forward_mode(chapter):
    ns = chapter.run("exercise_forward_mode.py")
    assert ns["primals"][2].shape == (4,) and ns["primals"][0].shape == (5, 3), "b is broadcast"
    assert ns["tangent"].item() == pytest.approx(ns["torch_tangent"].item(), rel=1e-12)
    assert ns["value"].item() == pytest.approx(ns["torch_value"].item(), rel=1e-12)
    assert ns["dot"].item() == pytest.approx(ns["tangent"].item(), rel=1e-12)
    Dual = ns["Dual"]
    a = Dual(torch.ones(3, 2, dtype=torch.float64), torch.ones(3, 2, dtype=torch.float64))
    b = Dual(torch.ones(2, dtype=torch.float64), torch.ones(2, dtype=torch.float64))
    assert (a + b).tangent.shape == (a + b).primal.shape == (3, 2), "tangents broadcast like values"
