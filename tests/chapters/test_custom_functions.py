"""Claims of the chapter 'Custom autograd Functions' (docs/custom_functions.md)."""

import copy
import inspect
import math
from collections import Counter

import pytest
import torch
import torch.nn.functional as F
from conftest import SNIPPETS, graphs, kind, printed


@pytest.fixture
def elu(chapter):
    return chapter.run("elu.py")


def test_elu_and_its_derivative_follow_the_formulas(elu):
    z = torch.tensor([-3.0, -0.5, 0.0, 0.5, 2.0], dtype=torch.float64, requires_grad=True)
    expected = torch.where(z > 0, z, 0.5 * torch.expm1(z))
    expected_grad = torch.where(z > 0, 1.0, 0.5 * torch.exp(z))
    for out in (elu["elu_forward"](z, 0.5), elu["ELUFunction"].apply(z, 0.5), F.elu(z, alpha=0.5)):
        assert torch.allclose(out, expected)
        (grad,) = torch.autograd.grad(out.sum(), z)
        assert torch.allclose(grad, expected_grad)
        assert grad[2] == 0.5, "at z = 0 the derivative is alpha (the z <= 0 branch)"


def test_the_plot_is_a_figure_made_at_build_time(chapter):
    assert [kind(o) for o in chapter.outputs("elu_plot.py")] == ["figure"]


def test_the_composite_graph_has_where_exp_mul_sub_and_no_comparison(chapter):
    assert "grad_fn=<WhereBackward0>" in chapter.shown("composite_elu_graph.py")
    (graph,) = graphs(chapter.outputs("composite_elu_graph.py"))
    assert sorted(graph["nodes"]) == sorted(
        ["(6)", "z (6)", "AccumulateGrad", "WhereBackward0", "ExpBackward0", "SubBackward0", "MulBackward0"])
    for edge in (["AccumulateGrad", "WhereBackward0"], ["AccumulateGrad", "ExpBackward0"],
                 ["ExpBackward0", "SubBackward0"], ["SubBackward0", "MulBackward0"], ["MulBackward0", "WhereBackward0"]):
        assert edge in graph["edges"]


def test_at_100_the_composite_gradient_is_nan_and_the_custom_one_is_1(chapter):
    ns = chapter.run("elu_overflow.py")
    assert torch.isinf(torch.exp(torch.tensor(100.0)))
    assert ns["out"].item() == ns["out_custom"].item() == 100.0
    assert torch.isnan(ns["z"].grad).all()
    assert ns["z_custom"].grad.tolist() == [1.0]
    stdout = chapter.shown("elu_overflow.py")
    assert "gradient: tensor([nan])" in stdout and "gradient: tensor([1.])" in stdout


def test_exp_backward_turns_the_zero_of_the_unused_branch_into_nan():
    z = torch.tensor([100.0], requires_grad=True)
    (grad,) = torch.autograd.grad(torch.exp(z), z, torch.zeros(1))  # 0 * exp(100) = 0 * inf
    assert torch.isnan(grad).all()


def test_forward_records_no_nodes_and_backward_returns_one_value_per_input(elu):
    z = torch.tensor([-1.0, 2.0], requires_grad=True)
    out = elu["ELUFunction"].apply(z, 0.5)
    assert out.grad_fn.name() == "ELUFunctionBackward"
    assert [node.name() for node, _ in out.grad_fn.next_functions] == ["torch::autograd::AccumulateGrad"]
    grads = elu["ELUFunction"].backward(out.grad_fn, torch.ones(2))
    assert len(grads) == 2 and grads[1] is None


def test_a_saved_tensor_modified_in_place_is_refused(elu):
    z = torch.tensor([-1.0, 2.0], requires_grad=True)
    hidden = z * 1
    out = elu["ELUFunction"].apply(hidden, 0.5)
    hidden.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_a_missing_none_gives_the_error_shown(chapter):
    stdout = chapter.shown("wrong_number_of_gradients.py")
    assert stdout == ("RuntimeError: function ELUForgetsAlphaBackward returned an incorrect number of "
                      "gradients (expected 2, got 1)\n")


def test_the_custom_graph_is_one_node_with_the_input_as_its_saved_tensor(chapter):
    outputs = chapter.outputs("custom_elu_graph.py")
    assert "grad_fn=<ELUFunctionBackward>" in printed(outputs)
    (graph,) = graphs(outputs)
    assert sorted(graph["nodes"]) == sorted(["(6)", "z (6)", "AccumulateGrad", "ELUFunctionBackward"])
    assert ["z (6)", "ELUFunctionBackward"] in graph["edges"], "the saved tensor, linked to its node"
    (drawing,) = [o for o in outputs if kind(o) == "graph"]
    assert 'fill="orange"' in drawing["data"]["image/svg+xml"]


def test_same_values_as_the_composite(chapter):
    composite = chapter.run("composite_elu_graph.py")["out"]
    custom = chapter.run("custom_elu_graph.py")["out"]
    assert torch.equal(composite, custom)


def test_gradcheck_and_gradgradcheck_pass_in_float64_and_gradcheck_fails_in_float32(chapter, elu):
    ns = chapter.run("check_elu_function.py")
    z64 = ns["z64"]
    assert z64.dtype == torch.float64 and z64.abs().min() >= 0.1, "the checked inputs are pushed off the kink at 0"
    shown = chapter.shown("check_elu_function.py", "gradcheck")
    assert shown == f"smallest |z|: {z64.abs().min().item():.3f}\ngradcheck: True\ngradgradcheck: True\n"
    assert float(shown.split()[2]) >= 0.1
    assert inspect.signature(torch.autograd.gradcheck).parameters["eps"].default == 1e-6, "the step on the page"
    at_the_kink = torch.zeros(1, dtype=torch.float64, requires_grad=True)
    assert not torch.autograd.gradcheck(ns["elu"], (at_the_kink,), raise_exception=False), \
        "finite differences straddling z = 0 measure neither slope"
    assert torch.autograd.gradcheck(ns["elu"], (at_the_kink + 0.1,), raise_exception=False)
    z32 = torch.randn(20, requires_grad=True)
    with pytest.warns(UserWarning, match="not a double precision"):
        assert not torch.autograd.gradcheck(ns["elu"], (z32,), raise_exception=False)


def test_exact_agreement_with_the_composite_and_last_bits_with_f_elu(chapter):
    ns = chapter.run("check_elu_function.py")
    outs, grads = ns["results"], ns["grads"]
    assert torch.equal(outs["composite"], outs["ELUFunction"])
    assert torch.equal(grads["composite"], grads["ELUFunction"])
    out_diff = (outs["F.elu"] - outs["ELUFunction"]).abs().max()
    grad_diff = (grads["F.elu"] - grads["ELUFunction"]).abs().max()
    assert 0 < out_diff < 1e-6 and 0 < grad_diff < 1e-6


def test_the_gradients_agree_exactly_only_because_alpha_is_a_power_of_two(chapter):
    ns = chapter.run("check_elu_function.py")
    z, grad_output, ELUFunction, elu_forward = ns["z"], ns["grad_output"], ns["ELUFunction"], ns["elu_forward"]
    exp = torch.exp(z.detach())
    for alpha in (0.3, 0.01):
        ours, composite = ELUFunction.apply(z, alpha), elu_forward(z, alpha)
        assert torch.equal(ours, composite), "the same forward code"
        (our_grad,) = torch.autograd.grad(ours, z, grad_output)
        (composite_grad,) = torch.autograd.grad(composite, z, grad_output)
        assert 0 < (our_grad - composite_grad).abs().max() < 1e-6, "the last bits of float32"
        # The two orders of the multiplication, as the two backward passes do them:
        assert not torch.equal((grad_output * alpha) * exp, grad_output * (alpha * exp))
    assert torch.equal((grad_output * 0.5) * exp, grad_output * (0.5 * exp)), "a power of two rounds nothing"
    lines = chapter.shown("check_elu_function.py", "other_alpha").splitlines()
    assert [line.split(":")[0] for line in lines] == ["alpha =  0.5", "alpha =  0.3", "alpha = 0.01"]
    assert lines[0].endswith("outputs differ by 0.0e+00, gradients by 0.0e+00")
    assert all("outputs differ by 0.0e+00" in line and not line.endswith("gradients by 0.0e+00") for line in lines[1:])


def test_saved_bytes_are_1_25_the_input_for_the_composite_and_1_for_the_others(chapter):
    ns = chapter.run("saved_memory.py")
    saved_bytes, z = ns["saved_bytes"], ns["z"]
    elu = chapter.run("elu.py")
    assert saved_bytes(lambda z: elu["elu_forward"](z, 0.5), z) == (5_000_000, ["float32", "bool"])
    assert saved_bytes(lambda z: elu["ELUFunction"].apply(z, 0.5), z) == (4_000_000, ["float32"])
    assert saved_bytes(lambda z: F.elu(z, alpha=0.5), z) == (4_000_000, ["float32"])
    stdout = chapter.shown("saved_memory.py")
    assert "composite    saves 5,000,000 bytes = 1.25 x the input (float32 + bool)" in stdout
    assert "ELUFunction  saves 4,000,000 bytes = 1.00 x the input" in stdout
    assert "F.elu        saves 4,000,000 bytes = 1.00 x the input" in stdout


@pytest.fixture(scope="module")
def mlp_step(tmp_path_factory):
    """The MLP snippet's variables, with the softmax-sum gradients kept before the training step."""
    ns, folder = {}, SNIPPETS / "custom_functions"
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(tmp_path_factory.mktemp("mlp"))
        mp.syspath_prepend(str(folder))
        source = (folder / "mlp_training_step.py").read_text()
        before, after = source.split("# --8<-- [start:cross_entropy]")
        exec(compile(before, "mlp_training_step.py", "exec"), ns)
        ns["softmax_sum_grads"] = {name: p.grad.norm().item() for name, p in ns["mlp"].named_parameters()}
        ns["softmax_sum_loss"] = ns["loss"].item()
        exec(compile(after, "mlp_training_step.py", "exec"), ns)
    return ns


def test_the_softmax_sum_is_the_batch_size_and_its_gradients_are_noise(mlp_step):
    assert mlp_step["x"].shape[0] == 10
    assert mlp_step["softmax_sum_loss"] == pytest.approx(10, abs=1e-5)
    assert len(mlp_step["softmax_sum_grads"]) == 6
    assert all(1e-9 < norm < 1e-6 for norm in mlp_step["softmax_sum_grads"].values())
    assert (mlp_step["probabilities"].sum(dim=1) - 1).abs().max() < 1e-6


def test_in_float64_the_softmax_sum_gradient_shrinks_with_the_rounding_error(mlp_step):
    mlp = copy.deepcopy(mlp_step["mlp"]).double()
    mlp.zero_grad()
    mlp(mlp_step["x"].double()).sum().backward()
    assert all(p.grad.norm() < 1e-13 for p in mlp.parameters())


def test_cross_entropy_gives_real_gradients_and_one_step_lowers_the_loss(mlp_step, chapter):
    stdout = chapter.shown("mlp_training_step.py")
    before = float(stdout.split("cross-entropy before the step: ")[1].split()[0])
    after = float(stdout.split("cross-entropy after one step:  ")[1].split()[0])
    assert before == pytest.approx(math.log(10), abs=0.05)
    assert after < before - 0.1
    for name, param in mlp_step["mlp"].named_parameters():
        norm = param.grad.norm().item()
        assert 0.05 <= round(norm, 2) and norm < 2
        assert norm > 1e6 * mlp_step["softmax_sum_grads"][name], "millions of times larger"


def test_the_mlp_graph_is_the_one_of_the_sum_that_is_run(chapter):
    (graph,) = graphs(chapter.outputs("mlp_training_step.py"))
    nodes = Counter(graph["nodes"])
    assert nodes["AddmmBackward0"] == nodes["TBackward0"] == 3
    assert nodes["ELUFunctionBackward"] == 2 and nodes["(10, 1024)"] == 2, "two ELU nodes, each with its input saved"
    assert nodes["SoftmaxBackward0"] == nodes["SumBackward0"] == 1 and "MeanBackward0" not in nodes
    assert ["(10, 1024)", "ELUFunctionBackward"] in graph["edges"]


def test_exercise_softplus(chapter):
    ns = chapter.run("exercise_softplus.py")
    z = ns["z"]
    assert torch.allclose(ns["out"], F.softplus(z)) and torch.isfinite(ns["out"]).all()
    assert torch.allclose(z.grad, torch.sigmoid(z))
    assert torch.isinf(torch.log1p(torch.exp(torch.tensor(100.0)))), "the formula as written overflows"
    assert torch.autograd.gradcheck(ns["SoftplusFunction"].apply, (torch.randn(5, dtype=torch.float64, requires_grad=True),))


def test_exercise_straight_through(chapter):
    ns = chapter.run("exercise_straight_through.py")
    assert ns["z"].grad.tolist() == [1.0, 1.0, 1.0, 1.0]
    stdout = chapter.shown("exercise_straight_through.py")
    assert "torch.clamp gradient:      tensor([0., 1., 1., 0.])" in stdout
    assert stdout.endswith("gradcheck: False\n")


def test_exercise_elu_saves_output(chapter):
    ns = chapter.run("exercise_elu_saves_output.py")
    assert "exp" not in ns["ELUFromOutput"].backward.__code__.co_names
    assert 0 < (ns["ours"] - ns["reference"]).abs().max() < 1e-6
    z = torch.tensor([-1.0, 2.0], requires_grad=True)
    saved = ns["ELUFromOutput"].apply(z, 0.5).grad_fn.saved_tensors
    assert torch.equal(saved[0], ns["elu_forward"](z, 0.5))
