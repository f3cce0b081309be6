"""Claims of the chapter 'Backpropagation and the computation graph' (docs/computation_graph.md)."""

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
