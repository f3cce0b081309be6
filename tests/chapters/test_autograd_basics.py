"""Claims of the chapter 'Autograd basics' (docs/autograd_basics.md)."""

import inspect
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


# torch.autograd.grad's allow_unused, materialize_grads and is_grads_batched


def test_an_unused_input_is_an_error_none_or_zeros(chapter):
    name = "grad_unused_inputs.py"
    ns = chapter.run(name)
    x, w = ns["x"], ns["w"]
    assert w.requires_grad and w.shape == (3,)
    leaves = [node.variable for node in walk(ns["out"].grad_fn) if hasattr(node, "variable")]
    assert any(leaf is x for leaf in leaves) and not any(leaf is w for leaf in leaves), "out uses x alone"
    assert w.grad is None and x.grad is None, "torch.autograd.grad writes no .grad"
    shown = chapter.shown(name, "error")
    assert shown.startswith("RuntimeError: ") and "index 1" in shown and "allow_unused=True" in shown
    assert "torch.autograd.grad(out, [x, w])" in chapter.path(name).read_text(), "w is the input at index 1"
    assert chapter.shown(name, "allow_unused") == f"{torch.full((2, 2), 4.5)}\nNone\n"
    assert chapter.shown(name, "materialize") == f"{torch.zeros(3)}\n"
    assert torch.equal(ns["dout_dw"], torch.zeros_like(w)), "zeros of the input's shape"
    # allow_unused defaults to materialize_grads: passing False with it is refused
    out = (x * 2).sum()
    with pytest.raises(ValueError, match="allow_unused"):
        torch.autograd.grad(out, [x, w], materialize_grads=True, allow_unused=False)
    assert "Defaults to the value of ``materialize_grads``" in torch.autograd.grad.__doc__


def test_is_grads_batched_gives_the_jacobian_that_torch_func_gives(chapter):
    name = "grad_batched_jacobian.py"
    ns = chapter.run(name)
    A, x, J = ns["A"], ns["x"].detach(), ns["J"]
    assert A.shape == (3, 4) and J.shape == (3, 4), "three outputs of four inputs"
    expected = (1 - torch.tanh(A @ x) ** 2)[:, None] * A  # d tanh(Ax) / dx, by hand
    assert torch.allclose(J, expected, atol=1e-6)
    for i, row in enumerate(torch.eye(3)):  # each row is one VJP with a unit vector
        (vjp,) = torch.autograd.grad(ns["f"](ns["x"]), ns["x"], grad_outputs=row)
        assert torch.allclose(J[i], vjp)
    assert torch.equal(J, ns["J_vmap"]) and torch.equal(J, ns["J_jacrev"])
    assert chapter.shown(name, "func") == "True\nTrue\n"
    assert chapter.shown(name, "batched").startswith("torch.Size([3, 4])\n")
    assert "vmap" in torch.autograd.grad.__doc__.split("is_grads_batched")[1].split("materialize_grads")[0]


# The layout of .grad, zero_grad and in-place accumulation


def test_backward_accumulates_into_the_same_grad_tensor(chapter):
    name = "zero_grad_set_to_none.py"
    assert chapter.shown(name, "in_place") == "True True\n"
    assert chapter.shown(name, "keep") == f"True True\n{torch.zeros(2, 4)}\n"
    assert chapter.shown(name, "none") == "None\nFalse False\n"
    ns = chapter.run(name)
    assert ns["model"].weight.grad is not ns["first"]
    assert torch.equal(ns["first"], torch.zeros(2, 4)), "the old tensor, zeroed, kept by `first`"
    assert torch.equal(ns["model"].weight.grad, torch.ones(2, 4)), "a new gradient: d sum(Wx) / dW = x = 1"
    assert inspect.signature(torch.optim.Optimizer.zero_grad).parameters["set_to_none"].default is True


def test_grad_gets_the_parameters_strides(chapter):
    name = "grad_layout.py"
    assert chapter.shown(name, "transposed") == "gradient computed: (3, 1)\nw:      (1, 4) False\nw.grad: (1, 4) False\n"
    assert torch.empty(4, 3).stride() == (3, 1), "row-major (3, 1) for a new 4 x 3 tensor"
    ns = chapter.run(name)
    w, c = ns["w"], ns["c"]
    assert w.shape == (4, 3) and torch.equal(w.grad, c), "d sum(w * c) / dw = c"
    lines = chapter.shown(name, "channels_last").splitlines()
    assert lines[0].endswith("True") and lines[1].endswith("True")
    weight, grad = ns["conv"].weight, ns["conv"].weight.grad
    assert lines == [f"weight: {weight.stride()} True", f"grad:   {grad.stride()} True"]
    assert grad.stride() == weight.stride() == (27, 1, 9, 3), "the same strides"
    assert grad.is_contiguous(memory_format=torch.channels_last) and not grad.is_contiguous()
    every_other_column = torch.randn(4, 6)[:, ::2].detach().requires_grad_()
    (every_other_column * torch.randn(4, 3)).sum().backward()
    assert every_other_column.stride() == (6, 2) and every_other_column.grad.stride() == (3, 1), "gaps: row-major"


# AccumulateGrad warns (once a process) that such a .grad does not match its parameter's layout.
@pytest.mark.filterwarnings("ignore:grad and param do not obey the gradient layout contract:UserWarning")
def test_an_existing_grad_keeps_its_layout_and_zero_grad_lays_it_out_again():
    w = torch.randn(3, 4).t().detach().requires_grad_()
    w.grad = torch.zeros(4, 3)  # row-major, not w's layout
    (w * 2).sum().backward()
    assert w.grad.stride() == (3, 1) and torch.equal(w.grad, torch.full((4, 3), 2.0)), "accumulated in place"
    optimizer = torch.optim.SGD([w], lr=0.1)
    optimizer.zero_grad(set_to_none=False)
    (w * 2).sum().backward()
    assert w.grad.stride() == (3, 1), "zeroing kept it"
    optimizer.zero_grad()
    (w * 2).sum().backward()
    assert w.grad.stride() == w.stride() == (1, 4), "laid out again from the parameter"


# Sparse gradients


def test_a_sparse_embedding_gradient_holds_one_row_per_lookup(chapter):
    name = "sparse_embedding_gradient.py"
    ns = chapter.run(name)
    tokens, grad = ns["tokens"], ns["grad"]
    assert chapter.shown(name, "grad").splitlines()[0] == "torch.sparse_coo (10, 3) (10, 3)"
    assert "nnz=4" in chapter.shown(name, "grad") and tokens.tolist() == [1, 4, 4, 7], "four rows, token 4 twice"
    # grad is the tensor of the page's blocks: after the "accumulate" block it also holds token 2
    dense, looked_up = grad.to_dense(), [1, 2, 4, 7]
    assert torch.equal(dense[looked_up], torch.tensor([1.0, 1.0, 2.0, 1.0])[:, None].expand(4, 3))
    assert (dense[[i for i in range(10) if i not in looked_up]] == 0).all(), "zero in every other row"
    embedding = torch.nn.Embedding(10, 3)  # the dense gradient of the same lookups has the same values
    embedding(tokens).sum().backward()
    assert torch.equal(embedding.weight.grad, ns["grad"].to_dense() - torch.eye(10)[2][:, None].expand(10, 3))
    coalesced = chapter.shown(name, "coalesce")
    assert "indices=tensor([[1, 4, 7]])" in coalesced and "nnz=3" in coalesced
    assert "[2., 2., 2.]" in coalesced, "token 4's gradient is 2"
    accumulated = chapter.shown(name, "accumulate")
    assert accumulated.startswith("True\n"), "the same tensor"
    assert "indices=tensor([[1, 4, 4, 7, 2]])" in accumulated and "nnz=5" in accumulated, "appended, not added up"
    assert ns["embedding"].weight.grad.is_sparse and not ns["embedding"].weight.grad.is_coalesced()


def test_sgd_and_sparse_adam_take_a_sparse_gradient_and_adam_refuses_it(chapter):
    shown = chapter.shown("sparse_embedding_gradient.py", "optimizers").splitlines()
    assert shown[:2] == ["SGD: rows changed [1, 4, 7]", "SparseAdam: rows changed [1, 4, 7]"]
    assert shown[2] == "Adam: RuntimeError: Adam does not support sparse gradients, please consider SparseAdam instead"
    # SparseAdam takes only sparse gradients: a model with dense layers too needs two optimizers
    torch.manual_seed(0)
    embedding, linear = torch.nn.Embedding(10, 3, sparse=True), torch.nn.Linear(3, 1)
    dense_only = torch.optim.SparseAdam(linear.parameters())
    linear(embedding(torch.tensor([1, 4]))).sum().backward()
    with pytest.raises(RuntimeError, match="SparseAdam does not support dense gradients"):
        dense_only.step()
    optimizers = [torch.optim.SparseAdam(embedding.parameters()), torch.optim.Adam(linear.parameters())]
    before = [p.detach().clone() for p in (embedding.weight, linear.weight)]
    for optimizer in optimizers:
        optimizer.step()
    assert not torch.equal(before[0], embedding.weight) and not torch.equal(before[1], linear.weight)


def test_solution_sparse_rows(chapter):
    name = "solution_sparse_rows.py"
    ns = chapter.run(name)
    shown = chapter.shown(name)
    assert "indices=tensor([[0, 5, 0, 5]])" in shown and "nnz=4" in shown
    assert "indices=tensor([[0, 5]])" in shown and "nnz=2" in shown
    step = ns["embedding"].weight.detach() - ns["before"]
    expected = torch.zeros(6, 2)
    expected[[0, 5]] = -0.5 * 2
    assert torch.allclose(step, expected, atol=1e-6)
    assert (step[1:5] == 0).all(), "the other four rows are left alone"
