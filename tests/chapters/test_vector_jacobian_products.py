"""Claims of the chapter 'Vector-Jacobian products' (docs/vector_jacobian_products.md)."""

import inspect
import math

import pytest
import torch
from conftest import ROOT, graphs
from torch.autograd.functional import jacobian

from snippet_engine.chapter import line_range
from snippet_engine.releases import ReleaseCheck

LOG_GRAD = torch.tensor([[3.0, 1.0, 0.0], [1.0, 0.0, 1 / 6]])  # v / x, worked out by hand


def test_backward_on_a_non_scalar_output_fails(chapter):
    shown = chapter.shown("add_two.py", "fails")
    assert shown == "RuntimeError: grad can be implicitly created only for scalar outputs\n"


def test_add_two_vjp_is_v_and_the_jacobian_is_the_identity(chapter):
    ns = chapter.run("add_two.py")
    x, v, J = ns["x"], ns["v"], ns["J"]
    assert x.shape == v.shape == (3,)
    assert torch.equal(J, torch.eye(3))
    assert torch.equal(x.grad, v) and torch.equal(v @ J, x.grad)
    assert (x.grad != 0).all(), "no zeros in this gradient"
    again = chapter.run("add_two.py")
    assert torch.equal(again["x"], x) and torch.equal(again["v"], v), "seeded: the page and a reader agree"


def test_three_outputs_vjp_is_4_23(chapter):
    ns = chapter.run("three_outputs_vjp.py")
    x, y, v, J = ns["x"], ns["y"], ns["v"], ns["J"]
    x1, x2 = x.tolist()
    assert (x1, x2) == (1.0, 2.0) and v.tolist() == [1.0, 1.0, 1.0]
    assert y.tolist() == [x1**2, x1**2 + 5 * x2**2, 3 * x2] == [1.0, 21.0, 6.0]
    assert J.tolist() == [[2 * x1, 0.0], [2 * x1, 10 * x2], [0.0, 3.0]] == [[2, 0], [2, 20], [0, 3]]
    assert x.grad.tolist() == [4.0, 23.0]
    assert torch.equal(v @ J, x.grad) and torch.equal(J.sum(0), x.grad), "v = ones adds up each column"


def test_log_of_a_2x3_matrix(chapter):
    ns = chapter.run("log_matrix.py")
    x, y, v, J = ns["x"], ns["y"], ns["v"], ns["J"]
    assert x.shape == y.shape == v.shape == (2, 3), "a 2x3 matrix, not 2x2"
    assert torch.allclose(x.grad, LOG_GRAD)
    assert torch.allclose(x.grad, v * (1 / x.detach())), "v ⊙ (1/x)"
    assert jacobian(torch.log, x).shape == (2, 3, 2, 3) and J.shape == (6, 6)
    assert torch.count_nonzero(J - torch.diag(J.diagonal())) == 0, "diagonal"
    assert torch.allclose(J.diagonal(), 1 / torch.arange(1.0, 7.0)), "1, 1/2, ..., 1/6"
    assert torch.allclose((v.reshape(6) @ J).reshape(2, 3), x.grad)


def test_v_times_one_over_v_is_not_the_gradient(chapter):
    ns = chapter.run("log_matrix.py")
    wrong = ns["v"] * (1 / ns["v"])
    assert torch.equal(torch.isnan(wrong), ns["v"] == 0), "nan exactly where v = 0"
    assert (wrong[ns["v"] != 0] == 1).all()
    assert not torch.allclose(wrong.nan_to_num(), ns["x"].grad)
    assert chapter.shown("log_matrix.py", "not_this") == str(wrong) + "\n"


def test_three_apis_give_the_same_vjp(chapter):
    ns = chapter.run("three_apis.py")
    assert torch.equal(ns["by_backward"], ns["by_grad"]) and torch.equal(ns["by_grad"], ns["by_func"])
    assert torch.allclose(ns["by_func"], LOG_GRAD)
    assert ns["by_func"].grad_fn is None and ns["by_grad"].grad_fn is None
    assert ns["x"].grad is ns["by_backward"], "backward() filled x.grad; the other two left it alone"
    assert chapter.shown("three_apis.py", "same") == "True\nTrue\n"


def test_the_page_shows_the_three_apis_side_by_side_in_tabs():
    tabs = (ROOT / "docs" / "vector_jacobian_products.md").read_text().split('\n=== "')[1:]
    assert [tab.split('"', 1)[0] for tab in tabs] == ["`y.backward(v)`", "`torch.autograd.grad`", "`torch.func.vjp`"]
    for tab, section in zip(tabs, ["backward", "grad", "func"]):
        assert f'    --8<-- "vector_jacobian_products/three_apis.py:{section}"' in tab


def test_the_scalar_case_is_v_equal_1(chapter):
    ns = chapter.run("mean_revisited.py")
    full = torch.full((2, 2), 4.5)
    assert torch.equal(ns["implicit"], full) and torch.equal(ns["J"], full)
    assert torch.equal(ns["dout_dy"], full), "6 y / 4 with y = 3"
    assert torch.equal(ns["x"].grad, full), "two VJPs by hand give out.backward()'s gradient"
    assert chapter.shown("mean_revisited.py", "implicit") == "True\n"


def test_solution_sum_is_ones(chapter):
    ns = chapter.run("solution_sum_is_ones.py")
    x = ns["x"]
    assert torch.allclose(ns["by_sum"], 1 / x.detach()) and torch.equal(x.grad, ns["by_sum"])


def test_solution_matrix_vector(chapter):
    ns = chapter.run("solution_matrix_vector.py")
    A, x, v = ns["A"], ns["x"], ns["v"]
    assert A.shape == (3, 2)
    assert torch.allclose(x.grad, A.T @ v)
    assert torch.allclose(jacobian(lambda t: A @ t, x), A), "the Jacobian is A"


def test_solution_jacobian_from_vjps(chapter):
    ns = chapter.run("solution_jacobian_from_vjps.py")
    assert ns["J"].tolist() == [[2.0, 0.0], [2.0, 20.0], [0.0, 3.0]]
    assert len(ns["rows"]) == 3


def test_writing_into_an_empty_tensor_records_a_chain_of_copy_slices(chapter):
    ns = chapter.run("three_outputs_written_in.py")
    x, y = ns["x"], ns["y"]
    assert x.grad.tolist() == [4.0, 23.0], "the same VJP as with torch.stack"
    assert torch.equal(y.detach(), chapter.run("three_outputs_vjp.py")["y"].detach())
    shown = chapter.shown("three_outputs_written_in.py", "write").splitlines()
    assert shown[:2] == ["False None", "True CopySlices"], "empty: untracked; after one write: a CopySlices"
    assert shown[2] == "tensor([ 1., 21.,  6.], grad_fn=<CopySlices>)"
    (graph,) = graphs(chapter.outputs("three_outputs_written_in.py", "graph"))
    assert graph["nodes"].count("CopySlices") == 3
    assert graph["edges"].count(["CopySlices", "CopySlices"]) == 2, "three writes, chained"
    assert chapter.shown("three_outputs_written_in.py", "backward") == "tensor([ 4., 23.])\n"


def test_copy_slices_sends_entry_i_to_the_value_and_the_rest_to_the_write_before():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.empty(3)
    y[0] = x[0] ** 2
    first = y.grad_fn
    y[1] = x[0] ** 2 + 5 * x[1] ** 2
    y[2] = 3 * x[1]
    last = y.grad_fn
    sent = {}
    last.register_hook(lambda grad_inputs, grad_outputs: sent.update(last=grad_inputs))
    first.register_hook(lambda grad_inputs, grad_outputs: sent.update(first=grad_inputs))
    assert type(last).__name__ == "CopySlices"
    assert [n.name() for n, _ in last.next_functions] == ["torch::autograd::CopySlices", "MulBackward0"]
    assert first.next_functions[0][0] is None, "the empty tensor is not tracked"
    y.backward(torch.tensor([1.0, 2.0, 3.0]))
    to_before, to_value = sent["last"]
    assert to_before.tolist() == [1.0, 2.0, 0.0] and to_value.item() == 3.0
    assert sent["first"][1].item() == 1.0


def test_torch_autograd_backward_is_behind_backward_and_adds_several_vjps(chapter):
    assert "torch.autograd.backward(" in inspect.getsource(torch.Tensor.backward)
    assert list(inspect.signature(torch.autograd.backward).parameters)[:2] == ["tensors", "grad_tensors"]
    one = chapter.shown("functional_backward.py", "one")
    assert one == chapter.shown("three_apis.py", "backward"), "the same as y.backward(v)"
    ns = chapter.run("functional_backward.py")
    x, v, w = ns["x"].detach(), ns["v"], ns["w"]
    by_parts = [torch.autograd.functional.vjp(f, x, u)[1] for f, u in ((torch.log, v), (torch.square, w))]
    assert torch.allclose(ns["x"].grad, by_parts[0] + by_parts[1]), "the sum of the two VJPs"
    assert torch.allclose(by_parts[1], 2 * x)
    assert chapter.shown("functional_backward.py", "two").endswith("True\n")


# Complex numbers


def test_complex_grad_is_the_derivatives_along_x_and_y(chapter):
    ns = chapter.run("complex_gradient.py")
    z, loss = ns["z"], ns["loss"]
    assert z.dtype == torch.complex128 and loss(z).dtype == torch.float64, "a real loss"
    # the loss over the real pairs, differentiated as real: d/dx + i d/dy
    x = z.detach().real.clone().requires_grad_()
    y = z.detach().imag.clone().requires_grad_()
    loss(torch.complex(x, y)).backward()
    assert torch.allclose(z.grad, torch.complex(x.grad, y.grad), rtol=0, atol=1e-12)
    assert torch.allclose(ns["numerical"], z.grad, rtol=1e-7, atol=1e-7)
    lines = chapter.shown("complex_gradient.py", "finite_differences").splitlines()
    assert lines[-1] == f"largest difference: {(z.grad - ns['numerical']).abs().max():.1e}"
    assert float(lines[-1].split()[-1]) < 1e-7
    assert torch.autograd.gradcheck(loss, (z.detach().clone().requires_grad_(),))
    assert chapter.shown("complex_gradient.py", "real_pairs") == "True\n"


def test_complex_grad_is_twice_the_conjugate_wirtinger_derivative(chapter):
    ns = chapter.run("complex_gradient.py")
    z, loss, h = ns["z"], ns["loss"], 1e-6
    wirtinger_conj = []
    with torch.no_grad():
        for e in torch.eye(3, dtype=z.dtype):
            d_x = (loss(z + h * e) - loss(z - h * e)) / (2 * h)
            d_y = (loss(z + 1j * h * e) - loss(z - 1j * h * e)) / (2 * h)
            wirtinger_conj.append(0.5 * (d_x + 1j * d_y))
    assert torch.allclose(z.grad, 2 * torch.stack(wirtinger_conj), atol=1e-7)


def test_the_vjp_of_a_holomorphic_function_conjugates_its_derivative(chapter):
    ns = chapter.run("complex_gradient.py")
    c = ns["c"]
    assert c == 2 + 3j
    assert torch.equal(ns["grad_of_real_part"], torch.full((3,), c.conj(), dtype=torch.complex128))
    assert chapter.shown("complex_gradient.py", "vjp").splitlines()[-1] == "True"
    z = ns["z"].detach()
    assert torch.allclose(ns["vjp"], ns["v"] * torch.exp(z).conj())
    assert not torch.allclose(ns["vjp"], ns["v"] * torch.exp(z)), "the conjugate matters"


def test_minus_the_complex_grad_is_the_steepest_descent(chapter):
    ns = chapter.run("complex_gradient.py")
    z, loss = ns["z"].detach(), ns["loss"]
    g = ns["z"].grad
    decrease, first_order = ns["decrease"], ns["first_order"]
    assert decrease > 0 and abs(decrease / first_order - 1) < 1e-3
    lines = chapter.shown("complex_gradient.py", "descent").splitlines()
    assert lines == [f"loss decrease: {decrease:.6e}", f"step * |grad|^2: {first_order:.6e}"]
    # no unit direction has a steeper first-order slope than -g / |g|, whose slope is |g|
    eps = 1e-7
    norm = g.abs().pow(2).sum().sqrt()
    steepest = (loss(z) - loss(z - eps * g / norm)) / eps
    assert abs(steepest - norm) < 1e-3 * norm
    torch.manual_seed(1)
    for _ in range(100):
        d = torch.randn(3, dtype=torch.complex128)
        d = d / d.abs().pow(2).sum().sqrt()
        assert (loss(z) - loss(z + eps * d)) / eps < steepest
    # a step of -lr * grad on z is the real gradient step on (x, y)
    xy = torch.view_as_real(z).clone().requires_grad_()
    loss(torch.view_as_complex(xy)).backward()
    assert torch.equal(torch.view_as_complex(xy.detach() - 0.1 * xy.grad), z - 0.1 * g)


def test_solution_complex_squared_modulus(chapter):
    ns = chapter.run("solution_complex_squared_modulus.py")
    z = ns["z"].detach()
    assert torch.allclose(ns["z"].grad, 2 * z, rtol=0, atol=1e-15)
    lines = chapter.shown("solution_complex_squared_modulus.py").splitlines()
    assert lines[2] == "True" and len(lines) == 6
    for k, line in enumerate(lines[3:]):
        numbers = line.split("central differences ")[1].split(", 2 z = ")
        real, imag = numbers[0].split()
        assert complex(float(real), float(imag.removesuffix("i"))) == pytest.approx(complex(numbers[1]), abs=2e-6)
        assert numbers[1] == f"{2 * z[k]:.6f}"
    # dL/d(conj z) of z * conj(z) is z: half of z.grad
    h = 1e-6
    e = torch.eye(3, dtype=z.dtype)[0]
    d_x = (ns["loss"](z + h * e) - ns["loss"](z - h * e)) / (2 * h)
    d_y = (ns["loss"](z + 1j * h * e) - ns["loss"](z - 1j * h * e)) / (2 * h)
    assert abs(0.5 * (d_x + 1j * d_y) - z[0]) < 1e-6


def test_an_optimizer_steps_a_complex_parameter_as_its_real_pairs(chapter):
    ns = chapter.run("complex_gradient.py")
    loss = ns["loss"]
    z = ns["z"].detach().clone().requires_grad_()
    xy = torch.view_as_real(z.detach()).clone().requires_grad_()
    for params, closure in (([z], lambda: loss(z)), ([xy], lambda: loss(torch.view_as_complex(xy)))):
        optimizer = torch.optim.Adam(params, lr=0.01)
        for _ in range(3):
            optimizer.zero_grad()
            closure().backward()
            optimizer.step()
    assert torch.allclose(torch.view_as_real(z.detach()), xy.detach(), atol=1e-12)


# Gradients where a function has no derivative

# The source of the notes' section (docs.pytorch.org/docs/stable/notes/autograd.html), at a fixed commit.
NOTES = ("https://github.com/pytorch/pytorch/blob/3b5cdd4f472f28ef44038ccee2007539f7624abf/docs/source/notes/autograd.md"
         "#gradients-for-non-differentiable-functions")


def one_sided_derivatives(f, at, h=1e-6):
    """The left and right derivatives of a scalar function at a point, in float64."""
    at = torch.tensor(at, dtype=torch.float64)
    return ((f(at) - f(at - h)) / h).item(), ((f(at + h) - f(at)) / h).item()


def shown_lines(chapter, section):
    """{label: tensor text} of a block of non_differentiable_points.py."""
    lines = chapter.shown("non_differentiable_points.py", section).splitlines()
    return {label.strip(): value.strip() for label, value in (line.split(":", 1) for line in lines)}


def test_the_page_quotes_the_rules_of_the_autograd_notes():
    page = " ".join((ROOT / "docs" / "vector_jacobian_products.md").read_text().split())
    assert f"]({NOTES})" in page
    assert '"a subgradient of minimum norm"' in page and '"note that `inf` is possible here"' in page


def test_relu_and_abs_at_0_take_the_subgradient_of_minimum_norm(chapter):
    ns = chapter.run("non_differentiable_points.py")
    gradient = ns["gradient"]
    shown = shown_lines(chapter, "kinks")
    assert shown == {"relu": str(torch.tensor([0.0, 0.0, 1.0])), "abs": str(torch.tensor([-1.0, 0.0, 1.0]))}
    for f, interval in ((torch.relu, (0.0, 1.0)), (torch.abs, (-1.0, 1.0))):
        left, right = one_sided_derivatives(f, 0.0)
        assert (left, right) == pytest.approx(interval), "the subgradients at 0: [left, right]"
        minimum_norm = min(max(0.0, left), right)  # the point of [left, right] closest to 0
        assert gradient(f, [0.0]).item() == minimum_norm == 0.0
    x = torch.tensor([-1.0, 0.0, 1.0], requires_grad=True)
    (by_vjp,) = torch.autograd.grad(torch.relu(x), x, grad_outputs=torch.ones(3))
    assert torch.equal(by_vjp, gradient(torch.relu, [-1.0, 0.0, 1.0])), "the VJP with v all ones"


def test_ties_split_the_gradient_evenly_the_minimum_norm_subgradient(chapter):
    ns = chapter.run("non_differentiable_points.py")
    gradient, scores = ns["gradient"], ns["scores"]
    shown = shown_lines(chapter, "ties")
    half, third = torch.tensor([0.0, 0.5, 0.5, 0.0]), torch.tensor([1 / 3, 1 / 3, 0.0, 1 / 3])
    assert shown["max"] == shown["amax"] == str(half)
    assert shown["min"] == shown["amin"] == str(third)
    assert shown["maximum"] == str(torch.tensor([0.5, 0.5]))
    assert scores == [1.0, 3.0, 3.0, 2.0]
    # The subgradients of max at a tie of k entries: weights >= 0 on the tied entries, summing to 1.
    torch.manual_seed(0)
    for grad, tied in ((gradient(torch.max, scores), [1, 2]), (gradient(torch.min, [1.0, 1.0, 3.0, 1.0]), [0, 1, 3])):
        assert torch.allclose(grad[tied], torch.full((len(tied),), 1 / len(tied))) and grad.sum().item() == pytest.approx(1)
        others = torch.distributions.Dirichlet(torch.ones(len(tied))).sample((1000,))
        assert (others.norm(dim=1) >= grad.norm() - 1e-6).all(), "no subgradient is shorter"


def test_max_along_a_dimension_sends_the_gradient_to_the_first_tied_index(chapter):
    shown = chapter.shown("non_differentiable_points.py", "max_dim").splitlines()
    assert shown == ["tensor(3.) tensor(1)", f"max(dim): {torch.tensor([0.0, 1.0, 0.0, 0.0])}"]
    ns = chapter.run("non_differentiable_points.py")
    first_tied = ns["scores"].index(max(ns["scores"]))
    assert ns["indices"].item() == first_tied == 1


def test_norm_at_0_is_0_and_sqrt_at_0_is_inf(chapter):
    shown = shown_lines(chapter, "norm_sqrt")
    assert shown == {"norm": str(torch.zeros(3)), "sqrt": str(torch.tensor([math.inf, 0.25]))}
    # every u with |u| <= 1 is a subgradient of the norm at 0: |y| >= u . y for all y
    torch.manual_seed(0)
    u = torch.randn(100, 3)
    u = u / u.norm(dim=1, keepdim=True) * torch.rand(100, 1)
    y = torch.randn(100, 3)
    assert (y.norm(dim=1) >= (u * y).sum(dim=1)).all()
    gradient = chapter.run("non_differentiable_points.py")["gradient"]
    slopes = gradient(torch.sqrt, [1e-2, 1e-6, 1e-12]).tolist()
    assert slopes == pytest.approx([5.0, 500.0, 5e5], rel=1e-4), "1 / (2 sqrt(x)), without bound towards 0"
    assert gradient(torch.sqrt, [0.0]).item() == math.inf, "the limit"


def test_clamp_computes_relu_but_passes_the_gradient_at_0(chapter):
    ns = chapter.run("non_differentiable_points.py")
    points = torch.tensor(ns["points"])
    assert 0.0 in ns["points"]
    assert torch.equal(points.clamp(min=0.0), torch.relu(points)), "the same values"
    shown = shown_lines(chapter, "clamp")
    assert shown == {"relu": str(torch.tensor([0.0, 0.0, 1.0])), "clamp(min)": str(torch.tensor([0.0, 1.0, 1.0]))}
    # On the release the site was checked on, clamp gives 0 at the bound (bench/results/release_check.json).
    check = ReleaseCheck.load(ROOT / "bench" / "results" / "release_check.json")
    path = chapter.path("non_differentiable_points.py")
    assert check.other == "2.14.1"
    (line,) = check.differs("vector_jacobian_products/non_differentiable_points.py", path, *line_range(path, "clamp"))
    assert line["theirs"] == f"clamp(min): {torch.tensor([0.0, 0.0, 1.0])}\n"


def test_solution_three_way_tie(chapter):
    lines = chapter.shown("solution_three_way_tie.py").splitlines()
    values = {line[:11].strip(): line[11:].strip() for line in lines}
    third = torch.tensor([0.0, 1 / 3, 1 / 3, 1 / 3])
    assert values == {"max()": str(third), "amax()": str(third), "max(dim=0)": str(torch.tensor([0.0, 1.0, 0.0, 0.0])),
                      "abs(x - 5)": str(torch.tensor([-1.0, 0.0, 0.0, 0.0]))}
    assert third.norm() < torch.tensor([0.0, 1.0, 0.0, 0.0]).norm(), "(0, 1, 0, 0) is longer"
