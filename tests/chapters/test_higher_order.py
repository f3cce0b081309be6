"""Claims of the chapter 'Double backward and forward mode' (docs/higher_order.md)."""

import json
import math

import pytest
import torch
from conftest import ROOT, kind, printed, run_benchmark
from torch.autograd import gradcheck, gradgradcheck
from torch.func import grad, jacfwd, jacrev, jvp

BENCH = ROOT / "bench" / "jacobian_modes.py"
RESULTS = ROOT / "bench" / "results" / "jacobian_modes.json"


@pytest.fixture
def elu(chapter):
    return chapter.run("elu_with_jvp.py")


def elu_values(z, alpha=0.5):
    return torch.where(z > 0, z, alpha * torch.expm1(z))


def elu_first(z, alpha=0.5):
    return torch.where(z > 0, 1.0, alpha * torch.exp(z))


def elu_second(z, alpha=0.5):
    return torch.where(z > 0, 0.0, alpha * torch.exp(z))


def test_second_derivative_follows_the_formula(chapter):
    ns = chapter.run("second_derivative.py")
    z = ns["z"].detach()
    assert ns["first"].grad_fn.name() == "MulBackward0"
    assert torch.allclose(ns["first"], elu_first(z)) and torch.allclose(ns["second"], elu_second(z))
    negative = z <= 0
    assert negative.sum() == 3 and torch.allclose(ns["first"][negative], ns["second"][negative])
    assert chapter.shown("second_derivative.py", "check") == "gradcheck: True\ngradgradcheck: True\n"


def test_the_saved_input_is_connected_to_the_graph(elu):
    z = torch.tensor([-1.0, 2.0], requires_grad=True)
    (saved,) = elu["ELUFunction"].apply(z, 0.5).grad_fn.saved_tensors
    assert saved.requires_grad and torch.equal(saved, z)


def test_the_counter_example_passes_gradcheck_and_fails_gradgradcheck(chapter):
    ns = chapter.run("intermediate_on_ctx.py")
    z = torch.randn(10, dtype=torch.float64, requires_grad=True)
    assert gradcheck(ns["wrong"], (z,))
    assert not gradgradcheck(ns["wrong"], (z,), raise_exception=False)
    assert chapter.shown("intermediate_on_ctx.py", "checks") == (
        "gradcheck: True\nGradcheckError: Jacobian mismatch for output 0 with respect to input 0\n")
    assert chapter.shown("intermediate_on_ctx.py", "direct") == (
        "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn\n")


def test_the_counter_example_gives_a_silently_wrong_second_derivative(chapter):
    ns = chapter.run("intermediate_on_ctx.py")
    z = ns["z"].detach()
    right = elu_first(z) ** 2 + elu_values(z) * elu_second(z)
    only_first_term = elu_first(z) ** 2
    second = ns["second_derivative"]
    assert torch.allclose(second(ns["right"], ns["z"]), right)
    assert torch.allclose(second(ns["wrong"], ns["z"]), only_first_term)
    assert torch.allclose(ns["saved"], only_first_term), "save_for_backward does not help"
    # and the chapter on the Function API says so too, where it introduces once_differentiable
    api = " ".join((ROOT / "docs" / "function_api.md").read_text().split())
    assert "an intermediate result of `forward`, whether kept on `ctx` or saved with `save_for_backward`" in api
    assert right[0].item() == pytest.approx(-0.0243, abs=1e-4) and only_first_term[0].item() == pytest.approx(0.0338, abs=1e-4)
    assert elu_first(z)[0].item() == pytest.approx(0.1839, abs=1e-4) and elu_values(z)[0].item() == pytest.approx(-0.3161, abs=1e-4)
    assert torch.equal(right[1:], only_first_term[1:]), "where ELU'' = 0 both agree"
    shown = chapter.shown("intermediate_on_ctx.py", "silent").splitlines()
    assert shown == ["kept on ctx:   tensor([0.0338, 1.0000, 1.0000])",
                     "ELUFunction:   tensor([-0.0243,  1.0000,  1.0000])",
                     "composite ELU: tensor([-0.0243,  1.0000,  1.0000])"]


def test_returning_the_intermediate_fixes_the_second_derivative(chapter):
    ns = chapter.run("intermediate_as_output.py")
    z = torch.randn(10, dtype=torch.float64, requires_grad=True)
    assert gradcheck(ns["elu"], (z,)) and gradgradcheck(ns["elu"], (z,))
    assert torch.allclose(ns["elu"](z), elu_values(z))
    shown = chapter.shown("intermediate_as_output.py", "check").splitlines()
    assert shown[0] == "gradgradcheck: True"
    assert shown[1].split(": ", 1)[1] == shown[2].split(": ", 1)[1]


def test_dual_numbers_give_the_jvp_and_a_function_without_jvp_is_refused(chapter):
    ns = chapter.run("dual_numbers.py")
    z, v = ns["z"], ns["v"]
    assert torch.allclose(ns["tangent"], elu_first(z) * v)
    assert torch.allclose(ns["out"], elu_values(z))
    assert ns["out"].grad_fn is None, "no graph recorded"
    assert chapter.shown("dual_numbers.py", "no_jvp") == (
        "NotImplementedError: You must implement the jvp function for custom autograd.Function "
        "to use it with forward mode AD.\n")


def test_the_custom_jvp_passes_forward_gradcheck_and_a_wrong_one_is_caught(chapter):
    ns = chapter.run("custom_jvp.py")
    assert torch.equal(ns["tangent"], ns["composite_tangent"])
    z = torch.randn(10, dtype=torch.float64, requires_grad=True)
    assert gradcheck(ns["elu"], (z,), check_forward_ad=True)
    assert torch.allclose(jacfwd(ns["elu"])(z), torch.diag(elu_first(z.detach())))
    assert gradcheck(ns["wrong"], (z,))
    assert not gradcheck(ns["wrong"], (z,), check_forward_ad=True, raise_exception=False)
    assert chapter.shown("custom_jvp.py", "wrong_jvp") == (
        "backward only: True\nGradcheckError: Jacobian computed with forward mode mismatch "
        "for output 0 with respect to input 0\n")
    assert "True" in chapter.shown("custom_jvp.py", "gradcheck") and "False" not in chapter.shown("custom_jvp.py")


def test_jvp_gives_columns_and_vjp_rows(chapter):
    ns = chapter.run("columns_and_rows.py")
    J = ns["J"]
    assert J.shape == (5, 3)
    assert torch.allclose(J, jacrev(ns["f"])(ns["x"]))
    assert chapter.shown("columns_and_rows.py").count("True") == 2


def test_forward_over_reverse_needs_the_jvp(elu):
    loss = lambda z: (elu["ELUFunction"].apply(z, 0.5) ** 2).sum()  # noqa: E731
    with pytest.raises(NotImplementedError, match="jvp"):
        jvp(grad(loss), (torch.randn(3),), (torch.randn(3),))


def test_exercise_tanh_saves_output(chapter):
    ns = chapter.run("exercise_tanh_saves_output.py")
    t = torch.tanh(ns["z"].detach())
    assert torch.allclose(ns["second"], -2 * t * (1 - t**2))
    out = ns["Tanh"].apply(ns["z"])
    assert out.grad_fn.saved_tensors[0].grad_fn is out.grad_fn, "the saved output is part of the graph"


def test_exercise_hessian_vector_product(chapter):
    ns = chapter.run("exercise_hessian_vector_product.py")
    z, v = ns["z"].detach(), ns["v"]
    hessian_diagonal = elu_first(z) ** 2 + elu_values(z) * elu_second(z)  # L is a sum of functions of one z_i
    assert torch.allclose(ns["hvp_reverse"], hessian_diagonal * v, atol=1e-6)
    assert torch.allclose(ns["hvp_forward"], hessian_diagonal * v, atol=1e-6)
    assert (z < 0).any() and (z > 0).any()


def test_the_benchmark_runs_and_writes_its_schema(tmp_path):
    output = tmp_path / "jacobian_modes.json"
    data = run_benchmark(BENCH, output, "--small", 2, "--large", 6, "--hidden", 4, "--repeats", 2)
    assert {"cpu", "torch", "cuda", "date", "command", "threads", "repeats"} <= set(data["provenance"])
    assert data["provenance"]["torch"] == torch.__version__
    assert data["provenance"]["command"].endswith("--output " + str(output))
    assert [(r["function"], r["inputs"], r["outputs"]) for r in data["results"]] == [("tall", 2, 6), ("wide", 6, 2)]
    assert all(r["jacfwd_seconds"] > 0 and r["jacrev_seconds"] > 0 for r in data["results"])


def test_the_committed_data_and_what_the_page_says_about_it(chapter):
    """The prose reads the committed measurements: forward wins tall, reverse wins wide."""
    data = json.loads(RESULTS.read_text())
    rows = {r["function"]: r for r in data["results"]}
    assert (rows["tall"]["inputs"], rows["tall"]["outputs"], rows["tall"]["hidden"]) == (16, 4096, 512)
    assert (rows["wide"]["inputs"], rows["wide"]["outputs"]) == (4096, 16)
    assert rows["tall"]["jacfwd_seconds"] < rows["tall"]["jacrev_seconds"]
    assert rows["wide"]["jacrev_seconds"] < rows["wide"]["jacfwd_seconds"]
    for row in rows.values():
        assert not math.isclose(row["jacrev_seconds"] / row["jacfwd_seconds"], 256, rel_tol=0.2)
        assert not math.isclose(row["jacfwd_seconds"] / row["jacrev_seconds"], 256, rel_tol=0.2)
    outputs = chapter.outputs("jacobian_timings.py")
    assert [kind(o) for o in outputs][-1] == "figure"
    assert f"{rows['tall']['jacfwd_seconds'] * 1e3:7.1f} ms" in printed(outputs)
    assert data["provenance"]["command"] in printed(outputs)


# ---- torch.autograd.functional beside torch.func ---------------------------------------------

FUNCTIONAL_BENCH = ROOT / "bench" / "autograd_functional.py"
FUNCTIONAL_RESULTS = ROOT / "bench" / "results" / "autograd_functional.json"


def test_functional_and_func_give_the_same_values(chapter):
    ns = chapter.run("functional_and_func.py")
    layer, loss, x, u, v = ns["layer"], ns["loss"], ns["x"], ns["u"], ns["v"]
    z = ns["w1"] @ x
    assert (z < 0).any() and (z > 0).any(), "both branches of the ELU"
    J, H = ns["J"], ns["H"]
    assert J.shape == (2, 4) and H.shape == (4, 4)
    assert torch.allclose(J, jacrev(layer)(x)) and torch.allclose(J, jacfwd(layer)(x))
    assert torch.allclose(H, torch.func.hessian(loss)(x)) and torch.allclose(H, H.T)
    assert torch.allclose(ns["Hv"], H @ v) and torch.allclose(ns["vH"], v @ H)
    assert torch.allclose(ns["Hv"], ns["vH"]), "the same vector for a symmetric H"
    assert torch.allclose(ns["uJ"], u @ J) and torch.allclose(ns["Jv"], J @ v)
    assert callable(ns["vjp_fn"]) and torch.equal(ns["out"], ns["out_func"])
    assert chapter.shown("functional_and_func.py", "jacobian").splitlines()[-3:] == [
        "jacrev: True", "jacfwd: True", "vectorize=True: True"]
    assert chapter.shown("functional_and_func.py", "hessian").splitlines()[-2:] == [
        "torch.func.hessian: True", "symmetric: True"]
    assert chapter.shown("functional_and_func.py", "products") == (
        "vjp: True True\njvp: True True\nhvp: True  vhp: True\n")


def test_functional_jvp_needs_no_jvp_and_hvp_is_one_grad_call_more_than_vhp(elu, monkeypatch):
    """The double backward trick works through a Function without jvp, which torch.func.jvp
    refuses; vhp calls torch.autograd.grad twice, hvp three times."""
    f = lambda z: elu["ELUFunction"].apply(z, 0.5)  # noqa: E731
    z, v = torch.randn(6), torch.randn(6)
    _, Jv = torch.autograd.functional.jvp(f, z, v)
    assert torch.allclose(Jv, elu_first(z) * v)
    with pytest.raises(NotImplementedError, match="jvp"):
        jvp(f, (z,), (v,))
    calls = []
    original = torch.autograd.functional._autograd_grad
    monkeypatch.setattr(torch.autograd.functional, "_autograd_grad",
                        lambda *args, **kwargs: calls.append(1) or original(*args, **kwargs))
    loss = lambda z: 0.5 * (f(z) ** 2).sum()  # noqa: E731
    torch.autograd.functional.vhp(loss, z, v)
    assert len(calls) == 2
    calls.clear()
    torch.autograd.functional.hvp(loss, z, v)
    assert len(calls) == 3
    assert "significantly slower than `vhp`" in torch.autograd.functional.hvp.__doc__
    assert "experimental" in torch.autograd.functional.jacobian.__doc__


def test_functional_jacobian_and_hessian_have_a_forward_mode_that_needs_a_jvp(elu):
    """What the page says of `torch.autograd.functional`: its jvp does not use forward mode, its
    jacobian and hessian do with a strategy, and then refuse a Function without jvp."""
    f = lambda z: elu["ELUFunction"].apply(z, 0.5)  # noqa: E731
    z = torch.randn(6, dtype=torch.float64)
    J = torch.autograd.functional.jacobian(torch.sin, z, vectorize=True, strategy="forward-mode")
    H = torch.autograd.functional.hessian(lambda z: z.sin().sum(), z, vectorize=True,
                                          outer_jacobian_strategy="forward-mode")
    assert torch.allclose(J, torch.diag(z.cos())) and torch.allclose(H, torch.diag(-z.sin()))
    with pytest.raises(NotImplementedError, match="must implement the jvp function"):
        torch.autograd.functional.jacobian(f, z, vectorize=True, strategy="forward-mode")
    assert torch.allclose(torch.autograd.functional.jacobian(f, z), torch.diag(elu_first(z)))  # reverse mode
    page = " ".join((ROOT / "docs" / "higher_order.md").read_text().split())
    assert "`torch.autograd.functional.jvp` does not use forward mode" in page
    assert 'strategy="forward-mode")` and `hessian(f, x, vectorize=True, outer_jacobian_strategy="forward-mode")` use it' in page


def test_the_functional_benchmark_runs_and_writes_its_schema(tmp_path):
    output = tmp_path / "autograd_functional.json"
    data = run_benchmark(FUNCTIONAL_BENCH, output, "--inputs", 3, "--hidden", 4, "--outputs", 2,
                         "--repeats", 2, "--warmup", 1)
    assert {"cpu", "threads", "torch", "date", "command"} <= set(data["provenance"])
    assert data["provenance"]["torch"] == torch.__version__
    assert data["provenance"]["command"].endswith("--output " + str(output))
    assert (data["inputs"], data["hidden"], data["outputs"], data["repeats"]) == (3, 4, 2, 2)
    assert [r["group"] for r in data["results"]] == ["jacobian"] * 3 + ["hessian"] * 3 + ["hvp"] * 3 + ["jvp/vjp"] * 4
    for row in data["results"]:
        assert row["median_seconds"] > 0
        if row["name"] == row["baseline"]:
            assert row["ratio"] == 1.0


def functional_rows():
    data = json.loads(FUNCTIONAL_RESULTS.read_text())
    return data, {r["name"]: r for r in data["results"]}


def test_the_committed_functional_data_and_what_the_page_says_about_it(chapter):
    data, rows = functional_rows()
    assert (data["inputs"], data["hidden"], data["outputs"]) == (256, 256, 256)
    page = " ".join((ROOT / "docs" / "higher_order.md").read_text().split())
    assert "On this machine, for these 256-wide functions (not the small ones above):" in page
    assert "small function" not in page.split("On this machine, for these 256-wide")[1].split("## Exercises")[0]
    assert data["provenance"]["threads"] == 1
    ratio = {name: row["ratio"] for name, row in rows.items()}
    seconds = {name: row["median_seconds"] for name, row in rows.items()}
    for row in data["results"]:
        assert row["ratio"] == pytest.approx(row["median_seconds"] / seconds[row["baseline"]])
    old = "torch.autograd.functional."
    assert ratio[old + "jacobian"] > 10 and ratio[old + "jacobian(vectorize=True)"] > 10
    assert abs(seconds[old + "jacobian(vectorize=True)"] / seconds[old + "jacobian"] - 1) < 0.1
    hessians = [old + "hessian", old + "hessian(vectorize=True)", "torch.func.hessian"]
    assert min(hessians, key=seconds.get) == "torch.func.hessian"
    assert max(hessians, key=seconds.get) == old + "hessian"
    assert 1.5 < ratio[old + "hvp"] < 2.5, "about twice as long as vhp"
    products = [old + "hvp", old + "vhp", "torch.func.jvp(grad(loss))"]
    assert max(products, key=seconds.get) == "torch.func.jvp(grad(loss))"
    assert seconds[old + "vjp"] < seconds["torch.func.vjp"] and seconds[old + "jvp"] < seconds["torch.func.jvp"]
    shown = chapter.shown("functional_timings.py")
    for name, row in rows.items():
        assert f"  {name:50}{row['median_seconds'] * 1e3:7.2f} ms{row['ratio']:7.2f}x" in shown
    assert data["provenance"]["command"] in shown and f"{data['repeats']} repeats" in shown
    assert str(FUNCTIONAL_RESULTS) in map(str, chapter.result("functional_timings.py").deps)


def test_exercise_double_backward_trick(chapter, elu):
    ns = chapter.run("exercise_double_backward_trick.py")
    z, v = ns["z"].detach(), ns["v"]
    assert torch.allclose(ns["Jv"], elu_first(z) * v)
    assert (z < 0).any() and (z > 0).any()
    assert "jvp" not in vars(elu["ELUFunction"]) and "jvp" in vars(elu["ELUWithJvp"])
    assert chapter.shown("exercise_double_backward_trick.py").splitlines()[1:] == [
        "torch.autograd.functional.jvp: True", "torch.func.jvp with ELUWithJvp: True"]
