"""Claims of the chapter 'Debugging gradients' (docs/debugging_gradients.md)."""

import torch

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
    assert text.startswith("RuntimeError: Function 'PowBackward0' returned nan values in its 0th output.\n")
    assert "Error detected in PowBackward0. Traceback of forward call that caused the error:" in text
    call = lines_of(chapter, "nan_gradient.py", "dist = pairwise_distances(points)")[-1]
    square = lines_of(chapter, "distances.py", "squared = (diff**2).sum(dim=-1)")[0]
    assert f'File "nan_gradient.py", line {call}' in text
    assert f'File "distances.py", line {square}' in text
    assert 'File "_tensor.py"' in text, "the page says the last frame is inside torch"
    assert "/" not in text.split("Traceback of forward call")[1], "folders are shortened"


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


def test_node_hooks_find_sqrt_as_first_non_finite_node(chapter):
    lines = chapter.shown("node_hooks.py", "walk").splitlines()
    first_bad = next(line for line in lines if "returned finite: False" in line)
    assert first_bad.split()[0] == "SqrtBackward0" and "received finite: True" in first_bad
    assert lines[0].split()[0] == "SumBackward0"
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
    located = chapter.shown("inplace_error.py", "anomaly")
    assert located.startswith("Error detected in TanhBackward0.")
    anomaly_tanh = lines_of(chapter, "inplace_error.py", "h = torch.tanh(x)")[-1]  # the one inside anomaly mode
    assert f'File "inplace_error.py", line {anomaly_tanh}, in <module>\n    h = torch.tanh(x)' in located
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
