"""Claims of the chapter 'Backpropagation and the computation graph' (docs/computation_graph.md)."""

import pytest
import torch
from conftest import graphs

WALK = "walk_grad_fn.py"
MODES = "forward_vs_reverse.py"


def test_reverse_mode_takes_one_pass_and_forward_mode_one_per_parameter(chapter):
    ns = chapter.run(MODES)
    assert ns["n"] == 256 == ns["passes"] == ns["reverse_grad"].numel()
    assert torch.allclose(ns["forward_grad"], ns["reverse_grad"], rtol=1e-4, atol=1e-5)
    assert ns["reverse_grad"].abs().max() > 1e-2, "a gradient of zeros would agree trivially"


def test_the_page_shows_the_pass_counts(chapter):
    stdout = chapter.shown(MODES)
    assert "reverse mode: 1 backward pass -> 256 derivatives" in stdout
    assert "forward mode: 256 forward passes -> 256 derivatives" in stdout
    assert "same gradient: True" in stdout


def test_next_functions_have_none_for_x_and_target_and_accumulate_grad_for_w_and_b(chapter):
    ns = chapter.run(WALK)
    w, b = ns["w"], ns["b"]
    sub = ns["loss"].grad_fn.next_functions[0][0].next_functions[0][0]
    assert sub.name() == "SubBackward0"
    assert sub.next_functions[1][0] is None, "target, the second input of the subtraction"
    add = sub.next_functions[0][0].next_functions[0][0]
    mm, accumulate_b = (node for node, _ in add.next_functions)
    assert (mm.name(), accumulate_b.variable) == ("MmBackward0", b)
    assert mm.next_functions[0][0] is None, "x, the first input of the matrix product"
    assert mm.next_functions[1][0].variable is w
    assert mm.next_functions[1][0].name() == "torch::autograd::AccumulateGrad"


def test_the_walk_prints_the_nodes_that_torchviz_draws(chapter):
    walked = chapter.shown(WALK).split("SumBackward0\n", 1)[1].split("tensor(")[0]
    names = [line.strip() for line in ("SumBackward0\n" + walked).splitlines()]
    assert names == [
        "SumBackward0", "PowBackward0", "SubBackward0", "TanhBackward0", "AddBackward0", "MmBackward0",
        "None (an input that needs no gradient)", "torch::autograd::AccumulateGrad -> w",
        "torch::autograd::AccumulateGrad -> b", "None (an input that needs no gradient)",
    ]
    (graph,) = graphs(chapter.outputs(WALK))
    drawn_nodes = [n for n in graph["nodes"] if "(" not in n]  # without the tensor boxes
    printed_nodes = [n.replace("torch::autograd::", "").split(" -> ")[0] for n in names if not n.startswith("None")]
    assert sorted(drawn_nodes) == sorted(printed_nodes)
    assert sorted(n for n in graph["nodes"] if "(" in n) == ["()", "b (1)", "w (3, 1)"], "no box for x or target"
    # Arrows run the way of the forward pass: from the parameters to the loss.
    for edge in (["w (3, 1)", "AccumulateGrad"], ["b (1)", "AccumulateGrad"], ["MmBackward0", "AddBackward0"],
                 ["SumBackward0", "()"]):
        assert edge in graph["edges"]


def test_the_chain_rule_by_hand_gives_what_backward_gives(chapter):
    ns = chapter.run(WALK)
    assert ns["w"].grad.shape == ns["grad_w"].shape == (3, 1)
    assert torch.allclose(ns["w"].grad, ns["grad_w"])
    assert torch.allclose(ns["b"].grad, ns["grad_b"])
    assert ns["grad_w"].abs().min() > 0.1


# Exercises


def test_solution_backward_walker_gives_what_backward_gives(chapter):
    ns = chapter.run("solution_backward_walker.py")
    w, b, v = ns["w"], ns["b"], ns["v"]
    assert torch.equal(ns["x"], chapter.run(WALK)["x"]), "the regression loss of this chapter"
    walker = ns["my_backward"]
    assert walker.__module__ == "backward_walker"
    lines = chapter.shown("solution_backward_walker.py").splitlines()
    assert lines[1].strip() == lines[2].strip() and lines[1].strip().startswith("tensor([")
    first, second = lines[3].removeprefix("b: ").split(") ")
    assert first + ")" == second
    twice, reference = lines[4].removeprefix("used twice: ").split(") ")
    assert twice + ")" == reference
    assert torch.allclose(ns["mine"][v], v.grad)
    # the walk gives the same numbers on the chapter's own tensors, not just the same printout
    walk = chapter.run(WALK)
    w2, b2 = walk["w"].detach().requires_grad_(), walk["b"].detach().requires_grad_()
    loss = ((torch.tanh(walk["x"] @ w2 + b2) - walk["target"]) ** 2).sum()
    mine = walker(loss)
    loss.backward()
    assert torch.allclose(mine[w2], w2.grad) and torch.allclose(mine[b2], b2.grad)
    assert torch.allclose(mine[w2], walk["w"].grad), "the gradient printed in the chapter"
    assert w.grad is not None and b.grad.shape == (1,)


def test_a_node_returns_the_broadcast_shape_and_needs_its_saved_tensors(chapter):
    ns = chapter.run("solution_backward_walker.py")
    add = ns["loss"].grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0].next_functions[0][0]
    assert add.name() == "AddBackward0"
    _, for_b = add(torch.ones(4, 1))
    assert for_b.shape == (4, 1) and ns["b"].shape == (1,)
    x = torch.randn(3, requires_grad=True)
    y = (x.exp() * 2).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        ns["my_backward"](y)


def test_solution_breadth_first_loses_the_exp_path(chapter):
    ns = chapter.run("solution_breadth_first.py")
    lines = chapter.shown("solution_breadth_first.py").splitlines()
    assert lines[0].split(None, 1)[1] == str(["SumBackward0", "MulBackward0", "MulBackward0", "ExpBackward0",
                                              "torch::autograd::AccumulateGrad"])
    assert lines[1].split(None, 1)[1] == str(["SumBackward0", "MulBackward0", "ExpBackward0", "MulBackward0",
                                              "torch::autograd::AccumulateGrad"])
    a = ns["a"].detach()
    wrong = ns["my_backward"](ns["shared"], ns["breadth_first"])[ns["v"]]
    right = ns["my_backward"](ns["shared"])[ns["v"]]
    assert torch.allclose(wrong, 2 * a.exp()), "only the product's term"
    assert torch.allclose(right, 2 * (a.exp() + a * a.exp()))
    assert not torch.allclose(wrong, right)
    # on the regression loss every node receives gradients from one node only: breadth first works
    walk = chapter.run(WALK)
    w2, b2 = walk["w"].detach().requires_grad_(), walk["b"].detach().requires_grad_()
    loss = ((torch.tanh(walk["x"] @ w2 + b2) - walk["target"]) ** 2).sum()
    nodes = ns["reverse_topological"](loss.grad_fn)
    assert all(sum(nxt is node for other in nodes for nxt, _ in other.next_functions) == 1 for node in nodes[1:])
    mine = ns["my_backward"](loss, ns["breadth_first"])
    assert torch.allclose(mine[w2], walk["w"].grad) and torch.allclose(mine[b2], walk["b"].grad)
