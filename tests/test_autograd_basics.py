"""Claims of the chapter 'Autograd basics' (docs/autograd_basics.md)."""

import math
import re
from collections import Counter
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
import torchgen
import yaml
from conftest import ROOT, graphs, kind, warnings_in

PAGE = ROOT / "docs" / "autograd_basics.md"
NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5}

NON_LEAF_WARNING = "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed"


def warned_lines(chapter, name):
    """The lines of a snippet whose output shows the non-leaf .grad warning."""
    return [line for line, output in chapter.lines(name) for w in warnings_in([output])
            if NON_LEAF_WARNING in w["message"]]


def test_out_is_27_and_every_entry_of_x_grad_is_4_5(chapter):
    ns = chapter.run("first_gradient.py")
    assert ns["out"].item() == 27.0
    assert ns["out"].grad_fn.name() == "MeanBackward0"
    assert torch.equal(ns["x"].grad, torch.full((2, 2), 4.5))
    assert torch.equal(ns["x"].grad, 1.5 * (ns["x"].detach() + 2)), "the derivation's closed form"
    assert (ns["x"].grad != 0).all(), "none of the entries is zero"


def test_the_page_shows_the_printed_gradient_and_the_graph(chapter):
    assert "tensor([[4.5000, 4.5000],\n        [4.5000, 4.5000]])" in chapter.shown("first_gradient.py")
    (graph,) = graphs(chapter.outputs("first_gradient.py"))
    # The prose reads the picture top down as the forward pass: arrows run from x to out.
    chain = ["x (2, 2)", "AccumulateGrad", "AddBackward0", "PowBackward0", "MulBackward0", "MeanBackward0", "()"]
    assert sorted(graph["edges"]) == sorted(map(list, zip(chain, chain[1:])))


def test_the_number_of_operations_is_the_number_of_operation_nodes(chapter):
    (graph,) = graphs(chapter.outputs("first_gradient.py"))
    operations = [node for node in graph["nodes"] if node.endswith("Backward0")]
    assert sorted(operations) == ["AddBackward0", "MeanBackward0", "MulBackward0", "PowBackward0"]
    (word,) = re.findall(r"tensor of ones, and (\w+) operations", " ".join(PAGE.read_text().split()))
    assert NUMBERS[word] == len(operations)


def saves_a_tensor(node):
    """Whether a built-in node holds a tensor saved for backward (its `_saved_*` attributes)."""
    return any(isinstance(getattr(node, name), torch.Tensor) for name in dir(node) if name.startswith("_saved_"))


def test_a_second_backward_works_where_no_node_saved_a_tensor(chapter):
    ns = chapter.run("retain_graph.py")
    assert torch.equal(ns["t"].grad, torch.full((2, 2), 2.0)), "two passes of 1 each, no error"
    assert chapter.shown("retain_graph.py", "nothing_saved") == f"{torch.full((2, 2), 2.0)}\n"
    t = torch.ones(2, 2, requires_grad=True)
    nodes = list(walk((t + 2).sum().grad_fn))
    assert [n.name() for n in nodes] == ["SumBackward0", "AddBackward0", "torch::autograd::AccumulateGrad"]
    assert not any(saves_a_tensor(n) for n in nodes)
    pow_graph = list(walk((3 * (t + 2) ** 2).mean().grad_fn))
    assert any(saves_a_tensor(n) for n in pow_graph if n.name() == "PowBackward0"), "the graph that fails saved y"
    # What backward() frees is the saved tensors, not the nodes.
    ns = chapter.run("retain_graph.py")
    assert ns["total"].grad_fn.name() == "SumBackward0"
    out = (3 * (t + 2) ** 2).mean()
    out.backward()
    (power,) = [n for n in walk(out.grad_fn) if n.name() == "PowBackward0"]
    with pytest.raises(RuntimeError, match="after they have already been freed"):
        _ = power._saved_self


def backward_node_names():
    """The name PyTorch's code generator gives the node of each overload listed in derivatives.yaml:
    the operation's name in CamelCase (in-place `_` dropped), `Backward`, and how many earlier
    entries had that name."""
    listed = yaml.safe_load((Path(torchgen.__file__).parent / "packaged/autograd/derivatives.yaml").read_text())
    counter, names = Counter(), {}
    for entry in listed:
        overload = entry["name"].split("(")[0]
        prefix = "".join(part.title() for part in overload.split(".")[0].split("_")) + "Backward"
        names[overload] = f"{prefix}{counter[prefix]}"
        counter[prefix] += 1
    return names


def test_the_suffix_of_a_node_name_is_the_overload_it_was_made_for(chapter):
    names = backward_node_names()
    overloads = {"a.sum()": "sum", "a.sum(0)": "sum.dim_IntList", "a ** 2": "pow.Tensor_Scalar",
                 "a ** p": "pow.Tensor_Tensor", "2 ** a": "pow.Scalar", "row.squeeze()": "squeeze",
                 "row.squeeze(0)": "squeeze.dim", "row.clone().squeeze_(0)": "squeeze_.dim"}
    shown = (chapter.shown("node_name_suffixes.py", "sum_and_pow")
             + chapter.shown("node_name_suffixes.py", "squeeze")).splitlines()
    printed_names = dict(line.rsplit(None, 1) for line in shown)
    printed_names = {code.strip(): name for code, name in printed_names.items()}
    for code, overload in overloads.items():
        assert printed_names[code] == names[overload], code
    assert len({printed_names[c] for c in ("a.sum()", "a.sum(0)")}) == 2, "one operation, two suffixes"
    squeezes = [o for o in names if o.split(".")[0] in ("squeeze", "squeeze_")]
    assert squeezes == ["squeeze", "squeeze.dim", "squeeze.dims", "squeeze_", "squeeze_.dim", "squeeze_.dims"]
    assert squeezes.index("squeeze_.dim") == 4, "the fifth entry"
    assert printed_names["torch.ones(8) @ M"] == names["squeeze_.dim"] == "SqueezeBackward4"
    (graph,) = graphs(chapter.outputs("one_layer_network.py"))
    assert ["MmBackward0", "SqueezeBackward4"] in graph["edges"], "the node of the page's graph"


def test_leaves_have_no_grad_fn_and_only_tracked_leaves_get_a_grad(chapter):
    ns = chapter.run("leaf_tensors.py")
    x, c, y = ns["x"], ns["c"], ns["y"]
    assert (x.is_leaf, x.requires_grad, x.grad_fn) == (True, True, None)
    assert (c.is_leaf, c.requires_grad, c.grad_fn) == (True, False, None)
    assert (y.is_leaf, y.requires_grad, y.grad_fn.name()) == (False, True, "AddBackward0")
    assert torch.equal(x.grad, torch.ones(2, 2)) and c.grad is None
    assert chapter.shown("leaf_tensors.py", "kinds") == "True True None\nTrue False None\nFalse True AddBackward0\n"
    shown = chapter.shown("leaf_tensors.py", "grad").splitlines()
    assert shown[0] == "None", ".grad is None before backward()"


def test_a_non_leaf_gets_a_grad_only_when_asked():
    def forward():
        x = torch.ones(2, requires_grad=True)
        h = x * 3
        return x, h, (h**2).sum()  # d loss / d h = 2h = 6

    x, h, loss = forward()
    loss.backward()
    with pytest.warns(UserWarning, match="not a leaf Tensor"):
        assert h.grad is None, "a plain backward() fills only the leaves"
    assert torch.equal(x.grad, torch.full((2,), 18.0))
    x, h, loss = forward()
    h.retain_grad()
    loss.backward()
    assert torch.equal(h.grad, torch.full((2,), 6.0)), "retain_grad()"
    x, h, loss = forward()
    loss.backward(inputs=[h])
    assert not h.is_leaf and torch.equal(h.grad, torch.full((2,), 6.0)), "named in inputs="
    assert x.grad is None

def test_reading_a_non_leaf_grad_warns_and_retain_grad_keeps_it(chapter):
    with pytest.warns(UserWarning, match="not a leaf Tensor"):
        ns = chapter.run("non_leaf_grad.py")
    assert torch.equal(ns["z"].grad, torch.full((2, 2), 0.25)), "d out / d z = 1/4"
    ((line, output),) = [(line, o) for line, o in chapter.lines("non_leaf_grad.py") if kind(o) == "warning"]
    (warning,) = warnings_in([output])
    assert warning["category"] == "UserWarning" and NON_LEAF_WARNING in warning["message"]
    assert line == chapter.line_of("non_leaf_grad.py", "print(y.grad)")
    assert "retain_grad()" in warning["message"]


def test_gradients_accumulate_until_zeroed(chapter):
    ns = chapter.run("gradient_accumulation.py")
    assert ns["x"].grad is None, "optimizer.zero_grad() sets .grad to None"
    once, twice = torch.full((2, 2), 4.5), torch.full((2, 2), 9.0)
    assert chapter.shown("gradient_accumulation.py", "accumulate") == f"{once}\n{twice}\n"
    assert chapter.shown("gradient_accumulation.py", "zero") == f"{once}\nNone\n"


def test_a_second_backward_needs_retain_graph(chapter):
    ns = chapter.run("retain_graph.py")
    assert torch.equal(ns["x"].grad, torch.full((2, 2), 9.0)), "both passes add 4.5"
    shown = chapter.shown("retain_graph.py", "twice")
    assert shown.startswith("RuntimeError: Trying to backward through the graph a second time")
    assert "retain_graph=True" in shown
    assert "PowBackward0" in {f.name() for f in walk(ns["out"].grad_fn)}, "the node the prose names"


def walk(node):
    yield node
    for child, _ in node.next_functions:
        if child is not None:
            yield from walk(child)


def test_no_grad_records_nothing_and_detach_shares_storage(chapter):
    ns = chapter.run("no_grad_and_detach.py")
    assert ns["y"].requires_grad is False and ns["y"].grad_fn is None
    assert ns["x"].requires_grad, "the input was tracked"
    d, x = ns["d"], ns["x"]
    assert (d.requires_grad, d.is_leaf) == (False, True)
    assert d.data_ptr() == x.data_ptr() and x[0, 0].item() == 5.0


def test_autograd_grad_returns_and_backward_accumulates(chapter):
    ns = chapter.run("grad_versus_backward.py")
    assert torch.equal(ns["dout_dx"], torch.full((2, 2), 4.5))
    assert torch.equal(ns["dout_dz"], torch.full((2, 2), 0.25)), "a gradient with respect to a non-leaf"
    assert ns["returned"] is None
    assert torch.equal(ns["x"].grad, ns["dout_dx"]), "x.grad holds only the backward() pass"
    assert chapter.shown("grad_versus_backward.py", "grad").splitlines()[-1] == "None"
    assert not warnings_in(chapter.outputs("grad_versus_backward.py")), "no warning for the non-leaf z"


# pytest.warns re-emits the warnings it does not match, and that loses pyproject's torchviz filter.
@pytest.mark.filterwarnings("ignore:distutils Version classes are deprecated:DeprecationWarning")
def test_one_layer_network_gradients(chapter):
    with pytest.warns(UserWarning, match="not a leaf Tensor"):
        ns = chapter.run("one_layer_network.py")
    x, target, W, b, z, loss = (ns[k] for k in ("x", "target", "W", "b", "z", "loss"))
    assert x.shape == (8,) and (x == 1).all() and target.shape == (10,) and (target == 0).all()
    assert torch.allclose(loss, F.softplus(z).mean()), "BCE with a zero target is the mean softplus"
    assert W.grad.shape == (8, 10) and b.grad.shape == (10,)
    assert torch.allclose(b.grad, (torch.sigmoid(z) - target).detach() / 10)
    assert ((b.grad > 0) & (b.grad <= 0.1)).all()
    assert all(torch.equal(row, b.grad) for row in W.grad), "every row of W.grad equals b.grad"
    assert x.grad is None and target.grad is None
    assert not z.is_leaf and not loss.is_leaf


def test_one_layer_network_page_shows_graph_and_warnings(chapter):
    name = "one_layer_network.py"
    assert chapter.shown(name, "backward").splitlines()[-1] == "True"
    assert warned_lines(chapter, name) == [chapter.line_of(name, "print(z.grad)"),
                                           chapter.line_of(name, "print(loss.grad)")]
    assert chapter.shown(name, "others") == "None None\nNone\nNone\n"
    (graph,) = graphs(chapter.outputs(name))
    assert sorted(graph["nodes"]) == sorted([
        "W (8, 10)", "b (10)", "AccumulateGrad", "AccumulateGrad", "MmBackward0", "SqueezeBackward4",
        "AddBackward0", "BinaryCrossEntropyWithLogitsBackward0", "()"]), "x and target are not in the graph"
    edges = {tuple(e) for e in graph["edges"]}
    assert {("W (8, 10)", "AccumulateGrad"), ("AccumulateGrad", "MmBackward0"),
            ("MmBackward0", "SqueezeBackward4"), ("SqueezeBackward4", "AddBackward0"),
            ("b (10)", "AccumulateGrad"), ("AccumulateGrad", "AddBackward0"),
            ("AddBackward0", "BinaryCrossEntropyWithLogitsBackward0"),
            ("BinaryCrossEntropyWithLogitsBackward0", "()")} == edges


def test_solution_three_backward_calls(chapter):
    ns = chapter.run("solution_three_backward_calls.py")
    assert torch.equal(ns["x"].grad, 3 * 2 * ns["x"].detach())
    assert ns["x"].grad.tolist() == [6.0, 12.0, 18.0]


def test_solution_who_gets_grad(chapter):
    name = "solution_who_gets_grad.py"
    with pytest.warns(UserWarning, match="not a leaf Tensor"):
        ns = chapter.run(name)
    assert ns["a"].grad.item() == ns["b"].item() + 1 == 4.0, "two paths: slope b through c, slope 1 directly"
    assert ns["b"].grad is None
    assert ns["c"].grad.item() == 1.0
    assert warned_lines(chapter, name) == [chapter.line_of(name, "print(d.grad)")]


def test_solution_sine_derivative(chapter):
    ns = chapter.run("solution_sine_derivative.py")
    x, dsin = ns["x"], ns["dsin"]
    assert x.shape == (5,) and x[0] == 0 and math.isclose(x[-1].item(), math.pi, rel_tol=1e-6)
    assert torch.equal(dsin, torch.cos(x.detach()))
    assert 0 < abs(dsin[2].item()) < 1e-7, "float32's pi/2 is not exactly pi/2"
    assert x.grad is None
