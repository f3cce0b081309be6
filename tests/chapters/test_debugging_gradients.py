"""Claims of the chapter 'Debugging gradients' (docs/debugging_gradients.md)."""

import re

import torch
from conftest import warnings_in

INPLACE = "one of the variables needed for gradient computation has been modified by an inplace operation"


def lines_of(chapter, name, code):
    """The numbers of the lines of a snippet that read `code` (chapter.line_of wants exactly one)."""
    return [n for n, text in enumerate(chapter.path(name).read_text().splitlines(), 1) if text.strip() == code]


def test_distances_are_right_and_every_gradient_is_nan(chapter):
    ns = chapter.run("nan_gradient.py")
    expected = torch.tensor([[0.0, 5, 10], [5, 0, 5], [10, 5, 0]])
    assert torch.equal(ns["dist"].detach(), expected)
    assert ns["points"].grad is None, "the anomaly section set it to None and backward raised"
    points = ns["points"]
    ns["pairwise_distances"](points).sum().backward()
    assert points.grad.isnan().all()


def test_anomaly_mode_names_pow_and_points_at_the_square(chapter):
    text = chapter.shown("nan_gradient.py", "anomaly")
    assert text == "RuntimeError: Function 'PowBackward0' returned nan values in its 0th output.\n"
    (warning,) = warnings_in(chapter.outputs("nan_gradient.py", "anomaly"))
    message = warning["message"]
    assert message.startswith("Error detected in PowBackward0. Traceback of forward call that caused the error:\n")
    call = lines_of(chapter, "nan_gradient.py", "dist = pairwise_distances(points)")[-1]
    square = lines_of(chapter, "distances.py", "squared = (diff**2).sum(dim=-1)")[0]
    frames = re.findall(r'^  File "([^"]+)", line (\d+), in (\S+)$', message, re.M)
    assert frames[:2] == [("nan_gradient.py", str(call), "<module>"), ("distances.py", str(square), "pairwise_distances")]
    assert [file for file, *_ in frames[2:]] == ["…/site-packages/torch/_tensor.py"], "the last frame is inside torch"


def test_tensor_hooks_show_inf_from_sqrt_and_nan_in_diff(chapter):
    ns = chapter.run("tensor_hooks.py")
    text = chapter.shown("tensor_hooks.py", "hooks")
    names = [line for line in text.splitlines() if line.startswith("grad of")]
    assert names == ["grad of dist:", "grad of squared:", "grad of diff:"], "backward order"
    squared = ns["squared"].detach()
    grad_squared = 1 / (2 * squared.sqrt())
    assert grad_squared.diagonal().isinf().all()
    assert torch.allclose(grad_squared[0, 1:], torch.tensor([0.1, 0.05]))
    assert str(grad_squared) in text
    assert ns["points"].grad.isnan().all()
    assert all(not t._backward_hooks for t in (ns["dist"], ns["squared"], ns["diff"])), "handles removed"


def test_node_hooks_find_sqrt_as_first_non_finite_node_and_the_nan_two_nodes_later(chapter):
    lines = chapter.shown("node_hooks.py", "walk").splitlines()
    rows = [line.split() for line in lines]
    assert all(r[1] == "received" and r[3] == "returned" for r in rows)
    states = [(r[0], r[2], r[4]) for r in rows]
    first_bad = next(i for i, (_, _, returned) in enumerate(states) if returned != "finite")
    assert states[first_bad] == ("SqrtBackward0", "finite", "inf")
    first_nan = next(i for i, (_, _, returned) in enumerate(states) if returned == "nan")
    assert first_nan == first_bad + 2, "two nodes later"
    assert states[first_bad + 1] == ("SumBackward1", "inf", "inf")
    assert states[first_nan] == ("PowBackward0", "inf", "nan"), "the node anomaly mode names"
    assert chapter.shown("nan_gradient.py", "anomaly").startswith("RuntimeError: Function 'PowBackward0'")
    assert states[0][0] == "SumBackward0"
    assert not any("AccumulateGrad" in line for line in lines)


def test_where_alone_keeps_the_nan_and_masking_the_input_fixes_it(chapter):
    ns = chapter.run("where_trap.py")
    grad = ns["grad"]
    assert grad.diagonal().isnan().all() and (grad.fill_diagonal_(0) == 0).all(), "0 / 0 on the diagonal only"
    points = ns["points"]
    assert points.grad.isfinite().all()
    p = points.detach()
    expected = torch.stack([
        2 * sum((p[i] - p[j]) / (p[i] - p[j]).norm() for j in range(3) if j != i) for i in range(3)])
    assert torch.allclose(points.grad, expected)
    assert torch.allclose(points.grad, torch.tensor([[-2.4, -3.2], [0.0, 0.0], [2.4, 3.2]]))
    fresh = points.detach().requires_grad_()
    diff = fresh[:, None] - fresh[None]
    squared = (diff**2).sum(-1)
    torch.where(squared > 0, squared.sqrt(), 0.0).sum().backward()
    assert fresh.grad.isnan().all(), "the trap: where on the output alone"


def test_safe_distances_keep_the_values(chapter):
    ns = chapter.run("distances.py")
    torch.manual_seed(0)
    points = torch.randn(5, 3)
    assert torch.allclose(ns["safe_pairwise_distances"](points), ns["pairwise_distances"](points))


def test_inplace_error_reproduced_located_and_fixed(chapter):
    ns = chapter.run("inplace_error.py")
    x = ns["x"]
    text = chapter.shown("inplace_error.py", "error")
    assert text.startswith("version before: 0\nversion after:  1\nRuntimeError: " + INPLACE)
    assert "[torch.FloatTensor [2, 3]], which is output 0 of Tanh, is at version 1; expected version 0" in text
    assert "set_detect_anomaly(True" in text, "the hint the page mentions"
    (warning,) = warnings_in(chapter.outputs("inplace_error.py", "anomaly"))
    anomaly_tanh = lines_of(chapter, "inplace_error.py", "h = torch.tanh(x)")[-1]  # the one inside anomaly mode
    assert warning["message"] == ("Error detected in TanhBackward0. Traceback of forward call that caused the error:\n"
                                  f'  File "inplace_error.py", line {anomaly_tanh}, in <module>\n    h = torch.tanh(x)')
    expected = 1 - torch.tanh(x.detach()) ** 2
    expected[:, 0] = 0
    assert torch.allclose(x.grad, expected)


def test_solution_entropy(chapter):
    ns = chapter.run("solution_entropy.py")
    assert ns["naive"].isnan()
    assert torch.isclose(ns["masked"], torch.log(torch.tensor(2.0)))
    assert torch.isclose(ns["entropy"], torch.log(torch.tensor(2.0)))
    grad = ns["grad"]
    assert grad[2] == 0 and torch.allclose(grad[:2], -(torch.log(torch.tensor(0.5)) + 1).expand(2))
    p = ns["p"]
    (where_only,) = torch.autograd.grad(-torch.where(p > 0, p * p.log(), 0.0).sum(), p)
    assert where_only[2].isnan() and where_only[:2].isfinite().all()


def test_solution_inplace_dropout(chapter):
    lines = chapter.shown("solution_inplace_dropout.py").splitlines()
    assert lines[0].startswith(f"inplace=True: RuntimeError: {INPLACE}") and "output 0 of Tanh" in lines[0]
    assert lines[1].startswith("inplace=False: weight gradient norm")


# Hooks on modules, post-accumulate hooks, gradient norms


def test_module_backward_hook_sees_the_gradients_of_output_and_input(chapter):
    assert chapter.shown("module_hooks.py", "hook") == "Linear: grad_output [(4, 2)], grad_input [(4, 3)]\n"
    ns = chapter.run("module_hooks.py")
    layer, x = ns["layer"], ns["x"]
    assert (layer.in_features, layer.out_features) == (3, 2) and x.shape == (4, 3)
    assert len(ns["captured"]["inputs"]) == 1, "one tensor input, no parameter gradients"
    grad_out, grad_in = ns["grad_out"], ns["grad_in"]
    assert torch.equal(grad_out, torch.tensor([[1.0, -1.0]]).expand(4, 2))
    assert torch.allclose(grad_in, grad_out @ layer.weight.detach())
    shown = chapter.shown("module_hooks.py", "values")
    assert shown == "grad_output[0]: tensor([ 1., -1.])\ngrad_input[0] is grad_output[0] @ weight: True\n"
    outputs = chapter.outputs("module_hooks.py", "data")
    assert chapter.shown("module_hooks.py", "data") == "input without requires_grad: (None,)\n"
    assert any("no inputs require gradients" in w["message"] for w in warnings_in(outputs))
    assert not layer._backward_hooks, "handle removed"


def test_post_accumulate_hooks_step_each_parameter_in_backward(chapter):
    ns = chapter.run("post_accumulate_hook.py")
    lines = chapter.shown("post_accumulate_hook.py", "step_in_backward").splitlines()
    order = [line.split()[0] for line in lines[:4]]
    assert order == ["2.bias", "2.weight", "0.bias", "0.weight"], "last layer first"
    assert lines[4] == "grads left after backward: [None, None, None, None]"
    assert all(p.grad is None for p in ns["model"].parameters())
    # the hook saw the complete gradient: the reference's .grad after its backward()
    reference = dict(ns["reference"].named_parameters())
    for line in lines[:4]:
        name, norm = line.split()[0], float(line.split()[-1])
        assert abs(reference[name].grad.norm().item() - norm) < 1e-4
    assert chapter.shown("post_accumulate_hook.py", "same") == "same weights as optimizer.step(): True\n"


def norms_of(line):
    """{name: norm} from a line such as 'before: 0.weight 35.934  0.bias 25.654 ...'."""
    words = line.split(":", 1)[1].split()
    return {name: float(value) for name, value in zip(words[::2], words[1::2])}


def test_gradient_norms_jump_on_the_outlier_and_clipping_scales_them_together(chapter):
    ns = chapter.run("gradient_norms.py")
    monitored = [norms_of(line) for line in chapter.shown("gradient_norms.py", "monitor").splitlines()]
    assert len(monitored) == 3
    before = norms_of(chapter.shown("gradient_norms.py", "spike"))
    assert all(before[name] > 10 * max(step[name] for step in monitored) for name in before), "every norm jumps"
    model, x, y, outlier_y = ns["model"], ns["x"], ns["y"], ns["outlier_y"]
    with torch.no_grad():
        errors = (model(x) - outlier_y) ** 2  # the model now has the weights the spike section used
    assert errors[0] > 0.99 * errors.sum(), "the one sample dominates the loss"
    assert torch.equal(outlier_y[1:], y[1:]) and outlier_y[0] == 1000
    lines = chapter.shown("gradient_norms.py", "clip").splitlines()
    total = float(lines[0].split(": ")[1])
    assert abs(total - sum(v**2 for v in ns["before"].values()) ** 0.5) < 1e-3
    assert abs(ns["total"].item() - total) < 1e-3
    after = norms_of(lines[1])
    factor = 1.0 / (ns["total"].item() + 1e-6)
    for name, norm in ns["after"].items():
        assert abs(norm - ns["before"][name] * factor) < 1e-6, "every layer scaled by the same factor"
        assert abs(after[name] - norm) < 1e-3
    assert lines[2] == "total norm after: 1.0000"


def test_clipping_leaves_a_small_gradient_alone():
    layer = torch.nn.Linear(3, 2)
    layer(torch.randn(4, 3)).sum().mul(1e-3).backward()
    grads = [p.grad.clone() for p in layer.parameters()]
    total = torch.nn.utils.clip_grad_norm_(layer.parameters(), max_norm=1.0)
    assert total < 1.0
    assert all(torch.equal(g, p.grad) for g, p in zip(grads, layer.parameters()))


# One hook for several tensors


def test_multi_grad_hook_all_runs_once_with_none_for_a_tensor_not_reached(chapter):
    lines = chapter.shown("multi_grad_hook.py", "all").splitlines()
    assert lines == ["all: [tensor([1., 1.]), tensor([1., 1.])]", "all: [tensor([1., 1.]), None]"]
    ns = chapter.run("multi_grad_hook.py")
    a, b = ns["a"], ns["b"]
    assert a.grad_fn is not None and b.grad_fn is not None


def test_multi_grad_hook_any_runs_once_with_the_first_gradient(chapter):
    ns = chapter.run("multi_grad_hook.py")
    (grad,) = ns["calls"]
    assert torch.equal(grad, torch.ones(2)), "b's gradient: a's would be all threes"
    assert chapter.shown("multi_grad_hook.py", "any") == "any: tensor([1., 1.])\n"
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    a, b = 2 * x, x.exp()
    seen = []
    torch.autograd.graph.register_multi_grad_hook((a, b), seen.append, mode="any")
    (3 * a + b).sum().backward()
    assert len(seen) == 1


def test_retain_grad_stores_the_gradient_after_the_other_hooks_whatever_the_order(chapter):
    ns = chapter.run("multi_grad_hook.py")
    h, x = ns["h"], ns["x"]
    assert h.retains_grad and torch.equal(h.grad, torch.tensor([12.0, 24.0]))
    assert torch.equal(h.grad, 4 * h.detach()) and torch.equal(x.grad, 3 * h.grad)
    assert chapter.shown("multi_grad_hook.py", "retain_grad") == "True tensor([12., 24.])\n"
    for retain_first in (True, False):
        leaf = torch.tensor([1.0, 2.0], requires_grad=True)
        y = 3 * leaf
        if retain_first:
            y.retain_grad()
        y.register_hook(lambda g: 2 * g)
        if not retain_first:
            y.retain_grad()
        (y * y).sum().backward()
        assert torch.equal(y.grad, 4 * y.detach())


def test_solution_layer_gradient_norm(chapter):
    lines = chapter.shown("solution_layer_gradient_norm.py").splitlines()
    assert len(lines) == 4
    hooked = [line.split(":")[1].strip() for line in lines[0::2]]
    after = [line.split(":")[1].strip() for line in lines[1::2]]
    assert lines[0].startswith("first layer's gradient norm") and lines[1].startswith("from .grad")
    assert hooked == after and hooked[0] != hooked[1]


def test_two_runs_side_by_side_show_the_gradient_no_longer_fading_with_relus(chapter):
    text = chapter.shown("compare_two_runs.py")
    rows = {line.split()[0]: line.split()[1:] for line in text.splitlines() if line.startswith("model.")}
    assert list(rows) == ["model.8", "model.6", "model.4", "model.2", "model.0"]
    assert rows["model.0"] == ["0.0003134", "0.04731", "151×"]
    assert rows["model.8"] == ["0.5948", "0.225", "0.378×"]
    assert text.count("No NaN or inf.") == 4, "each run's summary, and the comparison's two notes"
    changed = text.split("NaN, inf or None: ")[1].splitlines()
    assert changed[0] == "8:" and all("in model.0" in line or "model.0." in line or "model.2" in line
                                       for line in changed[1:]), "only the first two layers changed ten times"
