"""Claims of the chapter 'The PyTorch 2 Function API' (docs/function_api.md)."""

import importlib
import inspect
import json
import sys

import pytest
import torch
from conftest import ROOT, run_benchmark
from torch.func import functional_call, grad, jacrev, vjp, vmap


@pytest.fixture
def elu(chapter):
    return chapter.run("modern_elu.py")


def test_forward_takes_no_ctx_and_the_values_and_gradients_are_the_elu(elu):
    function = elu["ELUFunction"]
    assert list(function.forward.__code__.co_varnames[:2]) == ["z", "alpha"]
    z = torch.tensor([-3.0, -0.5, 0.0, 0.5, 2.0], dtype=torch.float64, requires_grad=True)
    out = function.apply(z, 0.5)
    assert torch.allclose(out, torch.where(z > 0, z, 0.5 * torch.expm1(z)))
    (g,) = torch.autograd.grad(out.sum(), z)
    assert torch.allclose(g, torch.where(z > 0, 1.0, 0.5 * torch.exp(z)))
    assert torch.autograd.gradcheck(lambda z: function.apply(z, 0.5), (torch.randn(8, dtype=torch.float64, requires_grad=True),))


def test_torch_func_refuses_the_old_style_and_accepts_the_new(chapter):
    lines = chapter.shown("old_style_with_torch_func.py").splitlines()
    assert lines[0].startswith("RuntimeError: In order to use an autograd.Function with functorch transforms")
    assert "it must override the setup_context staticmethod" in lines[0]
    assert lines[1] == "tensor([0.1839, 1.0000, 1.0000])"


def test_the_old_style_still_works_with_backward(chapter):
    ns = chapter.run("old_style_with_torch_func.py")
    z = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    ns["OldStyleELU"].apply(z, 0.5).sum().backward()
    assert torch.allclose(z.grad, torch.tensor([0.5 * torch.exp(torch.tensor(-1.0)).item(), 1.0, 1.0]))


def test_grad_vjp_and_jacrev_agree_exactly_with_the_composite(chapter, elu):
    ns = chapter.run("func_transforms.py")
    assert torch.equal(ns["grad_custom"], ns["grad_composite"])
    assert torch.equal(ns["vjp_custom_v"], ns["vjp_composite_v"])
    assert torch.equal(ns["vjp_custom_v"], ns["v"] * ns["grad_custom"]), "v times the derivatives"
    jacobian = ns["jacobian"]
    assert torch.equal(jacobian, torch.diag(torch.diagonal(jacobian))), "diagonal"
    assert torch.equal(torch.diagonal(jacobian), ns["grad_custom"])
    # on other inputs too, in float64
    z = torch.randn(50, dtype=torch.float64)
    custom = lambda z: elu["ELUFunction"].apply(z, 0.5)  # noqa: E731
    composite = lambda z: elu["elu_forward"](z, 0.5)  # noqa: E731
    assert torch.allclose(grad(lambda z: custom(z).sum())(z), grad(lambda z: composite(z).sum())(z))
    assert torch.allclose(vjp(custom, z)[1](z)[0], vjp(composite, z)[1](z)[0])
    assert torch.allclose(jacrev(custom)(z), jacrev(composite)(z))


def test_the_vjps_agree_because_alpha_is_a_power_of_two(elu):
    """The two backward passes multiply in different orders, (v alpha) e^z against v (alpha e^z):
    with alpha = 0.5 both round the same product, with alpha = 0.3 they differ in the last bits."""
    z = torch.randn(10_000, generator=torch.Generator().manual_seed(1), requires_grad=True)
    composite = elu["elu_forward"](z, 0.5)
    node = composite.grad_fn.next_functions[1][0]  # where's other branch: alpha * (exp(z) - 1)
    assert node.name() == "MulBackward0"
    assert node.next_functions[0][0].next_functions[0][0].name() == "ExpBackward0", "alpha first, then e^z"
    v = torch.randn(10_000, generator=torch.Generator().manual_seed(2))
    for alpha in (0.5, 0.3):
        (ours,) = torch.autograd.grad(elu["ELUFunction"].apply(z, alpha), z, v)
        (theirs,) = torch.autograd.grad(elu["elu_forward"](z, alpha), z, v)
        if alpha == 0.5:
            assert torch.equal(ours, theirs)
        else:
            assert not torch.equal(ours, theirs)
            assert ((ours - theirs).abs() <= 2 * torch.finfo(torch.float32).eps * theirs.abs()).all(), "last bits"


def test_grad_uses_our_backward_at_100(chapter):
    assert chapter.shown("func_transforms.py", "overflow") == (
        "at z = 100: custom tensor([1.])  composite tensor([nan])\n")


def test_every_check_printed_on_the_page_is_true(chapter):
    for name in ("func_transforms.py", "vmap_elu.py", "needs_input_grad.py", "inplace_elu.py",
                 "exercise_softplus_vmap.py", "exercise_inplace_relu.py"):
        out = chapter.shown(name)
        assert "True" in out and ": False" not in out, name


def test_vmap_needs_a_rule_and_with_it_matches_the_batch(chapter):
    shown = chapter.shown("vmap_elu.py", "no_rule")
    assert shown.startswith("RuntimeError: You tried to vmap over ELUWithoutVmapRule, but it does not have vmap support.")
    assert "generate_vmap_rule=True" in shown
    ns = chapter.run("vmap_elu.py")
    assert torch.equal(ns["per_row"], ns["ELUFunction"].apply(ns["rows"], 0.5))


def test_per_sample_gradients_have_a_batch_dimension_and_match_a_loop(chapter):
    ns = chapter.run("vmap_elu.py")
    per_sample, params, xs, ys = ns["per_sample"], ns["params"], ns["xs"], ns["ys"]
    assert {k: tuple(v.shape) for k, v in per_sample.items()} == {"w1": (8, 4, 3), "w2": (8, 4)}
    for i in range(8):  # against plain backward(), one sample at a time
        leaves = {k: v.clone().requires_grad_() for k, v in params.items()}
        ns["loss"](leaves, xs[i], ys[i]).backward()
        for k in params:
            assert torch.allclose(per_sample[k][i], leaves[k].grad, atol=1e-6)
    leaves = {k: v.clone().requires_grad_() for k, v in params.items()}
    vmap(ns["loss"], in_dims=(None, 0, 0))(leaves, xs, ys).sum().backward()
    assert torch.allclose(per_sample["w1"].sum(0), leaves["w1"].grad, atol=1e-5), "backward() sums over the batch"


def test_needs_input_grad_flags_and_skipped_gradients(chapter):
    ns = chapter.run("needs_input_grad.py")
    function = ns["ParametricELU"]
    z = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    out = function.apply(z, torch.tensor(0.5))
    assert out.grad_fn.needs_input_grad == (True, False)
    grads = function.backward(out.grad_fn, torch.ones(3))
    assert grads[1] is None and grads[0] is not None
    shown = chapter.shown("needs_input_grad.py", "calls").splitlines()
    assert shown[0].startswith("(True, False) -> z.grad: tensor([0.1839, 1.0000, 1.0000])  alpha.grad: None")
    assert shown[1].startswith("(False, True) -> z.grad: None")
    expected_alpha_grad = torch.expm1(torch.tensor(-1.0)).item()  # only z = -1 is negative
    assert shown[1].endswith(f"alpha.grad: tensor({expected_alpha_grad:.4f})")
    assert shown[2].startswith("(True, True) -> z.grad: tensor([0.1839")
    assert chapter.shown("needs_input_grad.py", "gradcheck") == "gradcheck: True\n"


def test_once_differentiable_first_derivative_and_the_error(chapter):
    ns = chapter.run("once_differentiable_elu.py")
    z = ns["z"].detach()
    elu = torch.where(z > 0, z, 0.5 * torch.expm1(z))
    assert torch.allclose(ns["grad_z"], elu * torch.where(z > 0, 1.0, 0.5 * torch.exp(z)))
    assert chapter.shown("once_differentiable_elu.py").splitlines()[1] == (
        "RuntimeError: trying to differentiate twice a function that was marked with @once_differentiable")


def test_the_elu_backward_is_differentiable_without_the_decorator(elu):
    z = torch.randn(6, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradgradcheck(lambda z: elu["ELUFunction"].apply(z, 0.5), (z,))


def test_mark_non_differentiable(chapter):
    assert chapter.shown("mark_non_differentiable.py") == (
        "ELUWithMask: active.requires_grad=False\n"
        "  RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn\n"
        "ELUWithUnmarkedMask: active.requires_grad=True\n"
        "  backward through the mask ran; z.grad: tensor([0., 0., 0.])\n"
        "fraction of active units: 0.667\n")


def test_integer_and_boolean_outputs_never_require_grad():
    class Outputs(torch.autograd.Function):
        @staticmethod
        def forward(z):
            return z * 2, z > 0, (z > 0).long()

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, *grads):
            return grads[0] * 2

    outputs = Outputs.apply(torch.ones(2, requires_grad=True))
    assert [o.requires_grad for o in outputs] == [True, False, False]


def test_the_in_place_elu_rewrites_h_history_and_its_gradient(chapter):
    ns = chapter.run("inplace_elu.py")
    assert ns["out"] is ns["h"] and ns["h"].grad_fn.name() == "InPlaceELUBackward"
    x = torch.tensor([-1.0, 0.5, 2.0])
    assert torch.allclose(ns["x"].grad, 2 * torch.where(2 * x > 0, 1.0, 0.5 * torch.exp(2 * x)))
    assert torch.allclose(ns["x"].grad, ns["x_copy"].grad)
    assert chapter.shown("inplace_elu.py", "use").splitlines()[:2] == [
        "h.grad_fn before: MulBackward0", "h.grad_fn after:  InPlaceELUBackward  out is h: True"]
    assert chapter.shown("inplace_elu.py", "leaf") == (
        "RuntimeError: a leaf Variable that requires grad has been used in an in-place operation.\n"
        "x after the error: tensor([-0.3161,  0.5000,  2.0000])\n")
    assert torch.allclose(ns["x"].detach(), torch.where(x > 0, x, 0.5 * torch.expm1(x))), "forward ran before the check"
    assert chapter.shown("inplace_elu.py", "not_dirty").startswith(
        "RuntimeError: An input that has been returned as-is as output is being saved for backward.")


def test_the_in_place_elu_allocates_no_output_and_passes_gradcheck(chapter):
    function = chapter.run("inplace_elu.py")["InPlaceELU"]
    x = torch.randn(10, dtype=torch.float64, requires_grad=True)
    h = x * 1
    pointer = h.data_ptr()
    assert function.apply(h, 0.5).data_ptr() == pointer
    assert torch.autograd.gradcheck(lambda x: function.apply(x * 1, 0.5), (x,))


def test_exercise_softplus_vmap(chapter):
    ns = chapter.run("exercise_softplus_vmap.py")
    assert ns["z"].tolist() == [-4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0]
    assert torch.allclose(ns["derivative"], torch.sigmoid(ns["z"]))
    assert torch.autograd.gradcheck(ns["Softplus"].apply, (torch.randn(5, dtype=torch.float64, requires_grad=True),))


def test_exercise_inplace_relu(chapter):
    ns = chapter.run("exercise_inplace_relu.py")
    assert (ns["x"] < 0).any() and (ns["x"] > 0).any(), "both branches are exercised"
    assert torch.equal(ns["ours"], ns["reference"])
    assert ns["out"] is ns["h"] and (ns["h"] >= 0).all()


# functional_call, per-sample gradients of a module, hessian

PER_SAMPLE_BENCH = ROOT / "bench" / "per_sample_gradients.py"
PER_SAMPLE_RESULTS = ROOT / "bench" / "results" / "per_sample_gradients.json"


def test_functional_call_uses_the_dict_for_one_call(chapter):
    ns = chapter.run("functional_call_module.py")
    lines = chapter.shown("functional_call_module.py", "call").splitlines()
    assert lines == ["['0.weight', '0.bias', '2.weight', '2.bias']", "same as model(x): True",
                     "with other parameters: tensor([0., 0.])", "the model's own are unchanged: True"]
    model, x, params = ns["model"], ns["x"], ns["params"]
    assert list(params) == [name for name, _ in model.named_parameters()]
    other = {name: torch.randn_like(p) for name, p in params.items()}
    out = functional_call(model, other, (x,))
    hidden = ns["ELU"]()(x @ other["0.weight"].T + other["0.bias"])
    assert torch.allclose(out, hidden @ other["2.weight"].T + other["2.bias"]), "the dict's tensors are used"
    assert all(torch.equal(p, params[n]) for n, p in model.named_parameters()), "for that one call only"


def test_per_sample_gradients_of_a_module_match_backward_per_sample(chapter):
    ns = chapter.run("functional_call_module.py")
    per_sample, model, x, y = ns["per_sample"], ns["model"], ns["x"], ns["y"]
    assert chapter.shown("functional_call_module.py", "per_sample") == (
        "{'0.weight': (8, 4, 3), '0.bias': (8, 4), '2.weight': (8, 1, 4), '2.bias': (8, 1)}\nsame as the loop: True\n")
    for i in range(8):
        model.zero_grad()
        ((model(x[i:i + 1]) - y[i]) ** 2).sum().backward()
        for name, p in model.named_parameters():
            assert per_sample[name].shape == (8, *p.shape)
            assert torch.allclose(per_sample[name][i], p.grad, atol=1e-6)


def test_vmap_calls_the_network_once_and_the_loop_once_per_sample():
    sys.path.insert(0, str(PER_SAMPLE_BENCH.parent))
    try:
        bench = importlib.import_module("per_sample_gradients")
    finally:
        sys.path.remove(str(PER_SAMPLE_BENCH.parent))
    model, x, y = bench.setup(64, [32, 128, 1])
    calls = []
    model.register_forward_hook(lambda *args: calls.append(1))
    bench.with_vmap(model, x, y)
    assert len(calls) == 1
    calls.clear()
    bench.with_loop(model, x, y)
    assert len(calls) == 64


def test_the_per_sample_benchmark_runs_and_writes_its_schema(tmp_path):
    output = tmp_path / "per_sample_gradients.json"
    data = run_benchmark(PER_SAMPLE_BENCH, output, "--batch", 3, "--sizes", 2, 4, 1, "--repeats", 2)
    assert {"cpu", "torch", "threads", "date", "command", "repeats", "statistic"} <= set(data["provenance"])
    assert data["provenance"]["torch"] == torch.__version__ and data["provenance"]["threads"] == 1
    assert data["provenance"]["command"].endswith("--output " + str(output))
    assert data["settings"] == {"batch": 3, "sizes": [2, 4, 1]} and data["same_gradients"] is True
    assert data["vmap_seconds"] > 0 and data["loop_seconds"] > 0
    assert data["loop_over_vmap"] == data["loop_seconds"] / data["vmap_seconds"]


def test_the_committed_per_sample_timings_and_what_the_page_says(chapter):
    data = json.loads(PER_SAMPLE_RESULTS.read_text())
    assert data["settings"] == {"batch": 64, "sizes": [32, 128, 1]}, "the sizes the prose names"
    assert data["provenance"]["command"] == "python bench/per_sample_gradients.py", "the default settings"
    assert data["same_gradients"] is True
    assert data["vmap_seconds"] < data["loop_seconds"], "vmap was faster in the recorded run"
    shown = chapter.shown("per_sample_timings.py")
    assert "64 samples, Linear(32, 128) -> ELU -> Linear(128, 1)\n" in shown
    assert f"{data['vmap_seconds'] * 1e3:7.2f} ms" in shown and f"{data['loop_seconds'] * 1e3:7.2f} ms" in shown
    assert f"loop / vmap:           {data['loop_over_vmap']:7.1f}" in shown
    assert "median" in data["provenance"]["statistic"] and "side by side" in shown


def test_hessian_matches_the_hand_derived_one_and_needs_a_jvp_for_our_elu(chapter):
    ns = chapter.run("hessian_elu.py")
    A, w = ns["A"], ns["w"]
    z = A @ w
    assert (z > 0).any() and (z <= 0).any(), "both branches of ELU''"
    expected = sum(0.5 * torch.exp(z[i]) * torch.outer(A[i], A[i]) for i in range(5) if z[i] <= 0)
    assert torch.allclose(ns["H"], expected) and torch.allclose(ns["by_hand"], expected)
    assert torch.allclose(ns["H_rev"], expected)
    lines = chapter.shown("hessian_elu.py", "custom").splitlines()
    assert lines[0] == ("NotImplementedError: You must implement the jvp function for custom autograd.Function"
                        " to use it with forward mode AD.")
    assert lines[1] == "jacrev(jacrev(...)): True"
    assert chapter.shown("hessian_elu.py", "composite").endswith("same as by hand: True\n")
    assert "jacfwd(jacrev(" in inspect.getsource(torch.func.hessian).replace(" ", "")
    assert not hasattr(ns["ELUFunction"], "jvp") or ns["ELUFunction"].jvp is torch.autograd.Function.jvp


def test_a_backward_that_computes_in_place_differentiates_correctly(chapter):
    ns = chapter.run("inplace_backward_twice.py")
    x = ns["x"].detach()
    assert torch.equal(ns["first"].detach(), 3 * x**2)
    assert torch.equal(ns["second"], 6 * x), "the second derivative of x**3, exactly"
    assert "mul_(" in chapter.path("inplace_backward_twice.py").read_text()
    assert chapter.shown("inplace_backward_twice.py").splitlines()[-1] == "True", "gradgradcheck passes"


# has_aux, a vmap staticmethod, set_materialize_grads


def test_has_aux_returns_the_second_value_undifferentiated(chapter):
    ns = chapter.run("has_aux.py")
    x, y, w = ns["x"], ns["y"], ns["w"]
    expected = 2 * x.T @ (x @ w - y) / len(y)
    assert torch.allclose(ns["gradient"], expected)
    assert torch.equal(ns["predictions"], x @ w)
    lines = chapter.shown("has_aux.py", "grad").splitlines()
    assert lines == [str(ns["gradient"]), str(ns["predictions"])]
    assert chapter.shown("has_aux.py", "vjp") == f"{ns['loss']!r} True\n"
    assert torch.allclose(ns["loss"], ((x @ w - y) ** 2).mean())
    for transform in (torch.func.grad, torch.func.vjp, torch.func.jacrev, torch.func.jacfwd):
        assert "has_aux" in inspect.signature(transform).parameters


def test_a_vmap_staticmethod_batches_the_function_by_hand(chapter):
    ns = chapter.run("vmap_staticmethod.py")
    zs = ns["zs"]
    assert ns["columns"].shape == (3, 4) and torch.equal(ns["columns"], ns["ELUBatched"].apply(zs, 0.5).T)
    assert torch.equal(ns["rows"], torch.where(zs > 0, 1.0, 0.5 * torch.exp(zs)))
    assert chapter.shown("vmap_staticmethod.py", "batched") == (
        "torch.Size([3, 4]) True\nTrue\n"
        "batch 3, in_dims (1, None), z (4, 3)\nbatch 4, in_dims (0, None), z (4, 3)\n")
    assert not getattr(ns["ELUBatched"], "generate_vmap_rule", False), "the rule is ours"

    class OldStyle(torch.autograd.Function):
        @staticmethod
        def forward(ctx, z):
            return 2 * z

        @staticmethod
        def backward(ctx, g):
            return 2 * g

        @staticmethod
        def vmap(info, in_dims, z):
            return OldStyle.apply(z), in_dims[0]

    with pytest.raises(RuntimeError, match="must override the setup_context"):
        vmap(OldStyle.apply)(torch.ones(3, 2))


def test_backward_gets_zeros_for_an_unused_output_or_none_when_not_materialized(chapter):
    assert chapter.shown("materialize_grads.py", "zeros") == (
        "backward got: tensor([1., 1., 1.]) tensor([0., 0., 0.])\n")
    assert chapter.shown("materialize_grads.py", "none") == (
        "backward got: tensor([1., 1., 1.]) None\ntensor([2., 2., 2.])\n")
    ns = chapter.run("materialize_grads.py")
    for function in (ns["DoubleAndTriple"], ns["DoubleAndTripleLazy"]):
        x = torch.ones(3, requires_grad=True)
        double, triple = function.apply(x)
        (double.sum() + triple.sum()).backward()
        assert torch.equal(x.grad, torch.full((3,), 5.0)), "both used: 2 + 3"


def test_solution_grad_and_value(chapter):
    lines = chapter.shown("solution_grad_and_value.py").splitlines()
    assert lines[0] == lines[1] and lines[2] == "True True"
    ns = chapter.run("solution_grad_and_value.py")
    assert torch.equal(ns["loss"], ns["loss_fn"](ns["w"]))
