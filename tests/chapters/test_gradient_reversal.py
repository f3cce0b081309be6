"""Claims of the chapter 'Gradient reversal' (docs/gradient_reversal.md)."""

import inspect
import math

import pytest
import torch
from torch.autograd import gradcheck


def test_identity_forward_and_negated_scaled_backward(chapter):
    ns = chapter.run("reversal_basics.py")
    x, y, w = ns["x"], ns["y"], ns["weights"]
    assert torch.equal(y, x) and y is not x and y.data_ptr() == x.data_ptr(), "a view with the same values"
    assert y.grad_fn.name() == "GradReverseBackward" and x.grad_fn is None
    assert torch.equal(ns["plain"], w)
    assert torch.allclose(ns["reversed_"], -0.3 * w)
    assert "same values: True" in chapter.shown("reversal_basics.py", "basics")


def test_gradcheck_reports_the_mismatch_by_design(chapter):
    GradReverse = chapter.run("grad_reverse.py")["GradReverse"]
    x = torch.randn(4, dtype=torch.float64, requires_grad=True)
    assert not gradcheck(GradReverse.apply, (x, 0.3), raise_exception=False)
    assert gradcheck(GradReverse.apply, (x, -1.0), raise_exception=False), "lambda = -1 is the identity"
    assert chapter.shown("reversal_basics.py", "gradcheck") == "gradcheck: False\n"


def test_feature_extractor_gradient_flips_and_domain_head_does_not(chapter):
    ns = chapter.run("domain_adversarial.py")
    assert torch.equal(ns["reversed_features"], -ns["plain_features"])
    assert (ns["plain_features"] != 0).any(), "a flip of zeros would prove nothing"
    assert torch.equal(ns["reversed_head"], ns["plain_head"])
    assert torch.allclose(ns["total"], ns["label_part"] - ns["lambd"] * ns["plain_features"])
    assert not torch.allclose(ns["total"], ns["label_part"] + ns["lambd"] * ns["plain_features"])
    assert ns["x"].shape == (6, 4) and ns["domain"].tolist() == [0, 0, 0, 1, 1, 1]
    text = chapter.shown("domain_adversarial.py", "compare")
    assert "flipped: True\ndomain head unchanged: True\n" in text
    assert chapter.shown("domain_adversarial.py", "total").endswith("True\n")


def test_solution_hook_reversal(chapter):
    ns = chapter.run("solution_hook_reversal.py")
    assert torch.equal(ns["by_hook"], ns["by_function"])
    assert torch.allclose(ns["by_hook"], -0.3 * ns["weights"])


def test_solution_lambda_schedule(chapter):
    ns = chapter.run("solution_lambda_schedule.py")
    schedule = ns["dann_lambda"]
    assert schedule(0.0) == 0.0 and schedule(math.log(3) / 10) == pytest.approx(0.5)
    assert 0 < 1 - schedule(1.0) < 1e-4
    assert ns["reversal"].lambd == schedule(1.0)
    lines = chapter.shown("solution_lambda_schedule.py", None).splitlines()
    assert lines[0] == "step    0: lambda = 0.0000" and lines[-1] == "step  999: lambda = 0.9999"


def test_grad_reverse_is_written_in_the_pytorch_2_style(chapter):
    GradReverse = chapter.run("grad_reverse.py")["GradReverse"]
    assert list(inspect.signature(GradReverse.forward).parameters) == ["x", "lambd"], "forward takes no ctx"
    assert "setup_context" in vars(GradReverse)
    assert vars(GradReverse)["generate_vmap_rule"] is True and "vmap" not in vars(GradReverse)
    assert "jvp" not in vars(GradReverse)
    y = GradReverse.apply(torch.ones(2, requires_grad=True), 0.3)
    assert y.grad_fn.saved_tensors == (), "lambda alone is kept: no tensor is saved"


def torch_func_results(GradReverse):
    """What grad, vjp, jacrev, vmap, vmap of grad, jacfwd and jvp do with GradReverse:
    a tensor, or the exception they raise."""
    from torch.func import grad, jacfwd, jacrev, jvp, vjp, vmap

    def reverse(x):
        return GradReverse.apply(x, 0.3)

    x = torch.tensor([1.0, -2.0, 3.0])
    rows = torch.tensor([[1.0, -2.0], [3.0, 0.5]])
    weights = torch.tensor([[0.5, 1.0], [2.0, 4.0]])
    transforms = {
        "grad": lambda: grad(lambda x: reverse(x).sum())(x),
        "vjp": lambda: vjp(reverse, x)[1](torch.ones(3))[0],
        "jacrev": lambda: jacrev(reverse)(x),
        "vmap": lambda: vmap(reverse)(rows),
        "vmap of grad": lambda: vmap(grad(lambda x, w: (reverse(x) * w).sum()))(rows, weights),
        "jacfwd": lambda: jacfwd(reverse)(x),
        "jvp": lambda: jvp(reverse, (x,), (torch.ones(3),))[1],
    }
    results = {}
    for name, transform in transforms.items():
        try:
            results[name] = transform()
        except Exception as err:  # what it raised is the result
            results[name] = err
    return results


def test_under_torch_func_reverse_mode_and_vmap_work_forward_mode_raises(chapter):
    GradReverse = chapter.run("grad_reverse.py")["GradReverse"]
    got = torch_func_results(GradReverse)
    assert torch.equal(got["grad"], torch.full((3,), -0.3))
    assert torch.equal(got["vjp"], torch.full((3,), -0.3))
    assert torch.equal(got["jacrev"], -0.3 * torch.eye(3))
    rows, weights = torch.tensor([[1.0, -2.0], [3.0, 0.5]]), torch.tensor([[0.5, 1.0], [2.0, 4.0]])
    assert torch.equal(got["vmap"], rows)
    assert torch.allclose(got["vmap of grad"], -0.3 * weights)
    for name in ("jacfwd", "jvp"):
        assert isinstance(got[name], NotImplementedError), name
        assert "must implement the jvp function" in str(got[name])

    # Without the class attribute: grad, vjp and jacrev still work, vmap raises.
    WithoutRule = type("WithoutRule", (GradReverse,), {"generate_vmap_rule": False})
    without = torch_func_results(WithoutRule)
    for name in ("grad", "vjp", "jacrev"):
        assert torch.equal(without[name], got[name]), name
    for name in ("vmap", "vmap of grad"):
        assert isinstance(without[name], RuntimeError), name
        assert "does not have vmap support" in str(without[name])

    # The backward pass batches: gradcheck's batched-gradient check (vmap over backward) passes
    # where gradcheck does, at lambda = -1.
    x = torch.randn(4, dtype=torch.float64, requires_grad=True)
    assert gradcheck(GradReverse.apply, (x, -1.0), check_batched_grad=True, raise_exception=False)
    assert not gradcheck(GradReverse.apply, (x, 0.3), check_batched_grad=True, raise_exception=False)

    text = chapter.shown("func_transforms.py", "transforms")
    assert text.startswith("grad: tensor([-0.3000, -0.3000, -0.3000])\njacrev:\n")
    assert "vmap of grad:\ntensor([[-0.1500, -0.3000],\n        [-0.6000, -1.2000]])\n" in text
    assert text.endswith("NotImplementedError: You must implement the jvp function for custom "
                         "autograd.Function to use it with forward mode AD.\n")
    ns = chapter.run("func_transforms.py")
    assert torch.equal(ns["per_row"], got["vmap of grad"])
