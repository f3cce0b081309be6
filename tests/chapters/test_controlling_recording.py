"""Claims of the chapter 'Controlling what is recorded' (docs/controlling_recording.md)."""

import pytest
import torch
import torch.nn.functional as F
from conftest import graphs, warnings_in

SNIPPET_FILES = ["three_switches.py", "no_grad_tensors.py", "inference_tensors.py", "train_and_evaluate.py",
                 "graph_nodes.py", "freezing.py", "eval_is_not_no_grad.py", "define_by_run.py",
                 "graph_per_iteration.py", "backward_inputs.py", "create_graph.py", "solution_freeze_layers.py",
                 "solution_data_dependent_loop.py", "solution_inference_features.py"]


def saved_tensors_of(node):
    """The tensors a backward node keeps from the forward pass (its `_saved_*` attributes)."""
    return [getattr(node, a) for a in dir(node) if a.startswith("_saved_")
            and isinstance(getattr(node, a), torch.Tensor)]


def reachable(tensor):
    """Every node behind a tensor, found independently of the chapter's graph_nodes.py (recursive)."""
    found = []

    def visit(node):
        if node is None or any(node is seen for seen in found):
            return
        found.append(node)
        for child, _ in node.next_functions:
            visit(child)

    visit(tensor.grad_fn)
    return found


def names(nodes):
    return sorted(n.name().removeprefix("torch::autograd::") for n in nodes)


@pytest.mark.parametrize("name", SNIPPET_FILES)
def test_no_snippet_warns(chapter, name):
    assert not warnings_in(chapter.outputs(name))


# Three ways to switch recording off

def test_all_three_switches_record_nothing_and_only_inference_mode_makes_inference_tensors(chapter):
    ns = chapter.run("three_switches.py")
    assert ns["x"].requires_grad
    for t in (ns["a"], ns["b"], ns["c"]):
        assert t.requires_grad is False and t.grad_fn is None
    assert [t.is_inference() for t in (ns["a"], ns["b"], ns["c"])] == [False, True, False]
    shown = chapter.shown("three_switches.py", "compare").splitlines()
    assert len(shown) == 4 and all("requires_grad=False grad_fn=None" in line for line in shown[:3])
    assert [line.endswith("is_inference=True") for line in shown[:3]] == [False, True, False]
    assert shown[3] == "True False", "after the blocks: recording on, inference mode off"


def test_inference_mode_also_switches_off_forward_ad(chapter):
    import torch.autograd.forward_ad as fwAD

    tangents = {}
    with fwAD.dual_level():
        dual = fwAD.make_dual(torch.ones(2), torch.ones(2))
        for name, mode in (("no_grad", torch.no_grad), ("inference_mode", torch.inference_mode)):
            with mode():
                tangents[name] = fwAD.unpack_dual(dual * 3).tangent
    assert torch.equal(tangents["no_grad"], torch.tensor([3.0, 3.0])), "no_grad keeps forward-mode AD"
    assert tangents["inference_mode"] is None, "inference_mode switches it off"
    shown = chapter.shown("three_switches.py", "beyond_backward").splitlines()
    assert shown[0] == (
        f"tangent of dual * 3: no_grad {tangents['no_grad']}  inference_mode {tangents['inference_mode']}")
    # backward recording is the same under both: neither result has a grad_fn
    x = torch.ones(3, requires_grad=True)
    for mode in (torch.no_grad, torch.inference_mode):
        with mode():
            assert (x * 2).grad_fn is None


def test_inside_inference_mode_a_view_is_tracked_unless_its_base_is_an_inference_tensor(chapter):
    ns = chapter.run("three_switches.py")
    base, inference_base = ns["base"], ns["inference_base"]
    assert not base.is_inference() and inference_base.is_inference()
    # no_grad: a view of a normal tensor, tracked
    assert ns["view"]._is_view() and ns["view"]._base is base
    # inference_mode, a view of the inference tensor made in the block: not tracked, no _base at all
    assert not ns["view_of_inference"]._is_view() and ns["view_of_inference"]._base is None
    # inference_mode, a view of the normal tensor made under no_grad: tracked, as under no_grad
    assert ns["view_of_normal"]._is_view() and ns["view_of_normal"]._base is base
    # the same facts, independently of the snippet
    normal = torch.arange(4.0)
    with torch.inference_mode():
        inference = torch.arange(4.0)
        assert not inference[:2]._is_view() and inference[:2]._base is None
        assert normal[:2]._is_view() and normal[:2]._base is normal
    assert not inference[:2]._is_view(), "an inference tensor's views are untracked outside the block too"
    facts = [(base, ns["view"]), (inference_base, ns["view_of_inference"]), (base, ns["view_of_normal"])]
    shown = chapter.shown("three_switches.py", "beyond_backward").splitlines()
    assert shown[1:] == [
        f"{mode:15} base is_inference={b.is_inference()!s:5} view={v._is_view()!s:5} _base is base={v._base is b}"
        for mode, (b, v) in zip(("no_grad", "inference_mode", "inference_mode"), facts)]


def test_no_grad_allows_the_in_place_update_of_a_leaf(chapter):
    ns = chapter.run("no_grad_tensors.py")
    shown = chapter.shown("no_grad_tensors.py", "update").splitlines()
    assert shown[0] == "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation."
    # The snippet's w of this section is replaced by the next one: redo the arithmetic from the page's numbers.
    w0 = torch.tensor([1.0, 2.0])
    expected = w0 - 0.1 * 2 * w0
    assert torch.allclose(expected, 0.8 * w0)
    assert shown[1] == f"{expected.requires_grad_()} True 1", "still a leaf that requires a gradient, version 1"
    assert ns["w"].is_leaf and ns["w"].requires_grad


def test_version_counters(chapter):
    assert chapter.shown("three_switches.py", "version") == (
        "0\n1\nRuntimeError: Inference tensors do not track version counter.\n")
    shown = chapter.shown("no_grad_tensors.py", "guard")
    assert shown.startswith("RuntimeError: one of the variables needed for gradient computation has been modified")
    assert "is at version 1; expected version 0 instead" in shown


def test_mul_saves_its_other_factor_and_add_saves_nothing(chapter):
    ns = chapter.run("no_grad_tensors.py")
    # d(w*s)/dw = s: the product keeps s (the section's guard depends on it)
    w, s = torch.ones(2, requires_grad=True), torch.tensor([3.0, 4.0])
    assert any(t is s or torch.equal(t, s) for t in saved_tensors_of((w * s).grad_fn))
    assert ns["w"].grad is None, "the guarded backward() never filled w.grad"
    assert saved_tensors_of((w + s).grad_fn) == []


def test_an_inference_tensor_cannot_be_saved_but_can_be_added(chapter):
    ns = chapter.run("inference_tensors.py")
    shown = chapter.shown("inference_tensors.py", "saved").splitlines()
    assert shown[0] == "AddBackward0", "w + b is recorded"
    assert shown[1].startswith("RuntimeError: Inference tensors cannot be saved for backward.")
    assert "make a clone" in shown[1], "the message names the way out"
    assert ns["b"].is_inference()
    assert saved_tensors_of((ns["w"] + ns["b"]).grad_fn) == [], "the sum saves nothing"


def test_an_inference_tensor_changes_in_place_only_inside_inference_mode(chapter):
    ns = chapter.run("inference_tensors.py")
    shown = chapter.shown("inference_tensors.py", "inplace").splitlines()
    assert shown[0].startswith("RuntimeError: Inplace update to inference tensor outside InferenceMode is not allowed.")
    assert "make a clone" in shown[0]
    assert shown[1] == str(torch.arange(3.0) + 1), "the refused add_ changed b all the same"
    assert shown[2] == str(torch.arange(3.0) + 2), "and the add_ inside inference mode added 1 more"
    assert torch.equal(ns["b"], torch.arange(3.0) + 2)
    with torch.inference_mode():
        b = torch.arange(3.0)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside InferenceMode"):
        b.mul_(10)
    assert torch.equal(b, torch.arange(3.0) * 10), "the check comes after the operation ran"


def test_a_clone_is_an_ordinary_tensor_autograd_can_save(chapter):
    ns = chapter.run("inference_tensors.py")
    normal, w = ns["normal"], ns["w"]
    assert not normal.is_inference() and normal._version >= 0, "it has a version counter"
    assert torch.equal(w.grad, normal), "d sum(w * normal) / dw = normal"
    assert chapter.shown("inference_tensors.py", "clone") == f"False\n{normal}\n"


def test_the_table(chapter):
    ns = chapter.run("three_switches.py")
    # no_grad() and set_grad_enabled(False): results can be saved for a later backward and changed in place later
    for t in (ns["a"], ns["c"]):
        w = torch.ones(3, requires_grad=True)
        (w * t).sum().backward()
        assert torch.equal(w.grad, t)
        t.add_(1)
    # inference_mode(): neither, outside inference mode
    b = ns["b"]
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        torch.ones(3, requires_grad=True) * b
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside InferenceMode"):
        b.add_(1)
    with torch.inference_mode():
        b.add_(1)


# set_grad_enabled

def test_one_function_trains_and_evaluates(chapter):
    ns = chapter.run("train_and_evaluate.py")
    assert ns["train_loss"].requires_grad and ns["train_loss"].grad_fn.name() == "MseLossBackward0"
    assert not ns["eval_loss"].requires_grad and ns["eval_loss"].grad_fn is None
    assert chapter.shown("train_and_evaluate.py", "use") == "True MseLossBackward0\nFalse None\nTrue\n"
    model, run_step, x, y = ns["model"], ns["run_step"], ns["x"], ns["y"]
    assert not model.training, "the last call switched dropout off"
    assert any(isinstance(m, torch.nn.Dropout) for m in model)
    # The with block restores what was there before, not simply True.
    with torch.no_grad():
        run_step(model, x, y, train=True)
        assert not torch.is_grad_enabled()
    before = [p.detach().clone() for p in model.parameters()]
    run_step(model, x, y, train=True)
    assert any(not torch.equal(p, q) for p, q in zip(model.parameters(), before)), "the optimizer stepped"
    before = [p.detach().clone() for p in model.parameters()]
    run_step(model, x, y, train=False)
    assert all(torch.equal(p, q) for p, q in zip(model.parameters(), before)), "evaluation does not step"


# Freezing

def test_graph_nodes_lists_every_node_once(chapter):
    ns = chapter.run("freezing.py")
    full_model = ns["model"]
    for p in full_model.parameters():
        p.requires_grad_(True)
    loss = F.mse_loss(full_model(ns["x"]), ns["y"])
    from graph_nodes import graph_nodes, node_counts  # the chapter's folder is on sys.path after run()
    listed = graph_nodes(loss)
    assert len(listed) == len({id(n) for n in listed}) == len(reachable(loss))
    assert sorted(k for k, v in node_counts(loss).items() for _ in range(v)) == names(reachable(loss))


def test_freezing_shrinks_the_graph_and_only_the_last_layer_gets_grad(chapter):
    ns = chapter.run("freezing.py")
    model, x, y = ns["model"], ns["x"], ns["y"]
    frozen_loss = F.mse_loss(model(x), y)
    frozen = reachable(frozen_loss)
    for p in model.parameters():
        p.requires_grad_(True)
    full_loss = F.mse_loss(model(x), y)
    full = reachable(full_loss)
    assert (len(full), len(frozen)) == (15, 5)
    assert names(full).count("AccumulateGrad") == 6 == len(list(model.parameters())), "one per parameter"
    assert set(names(frozen)) < set(names(full))
    full_line, frozen_line = (chapter.shown("freezing.py", s).splitlines()[0] for s in ("full", "freeze"))
    assert full_line.startswith(f"{len(full)} ") and frozen_line.startswith(f"{len(frozen)} ")
    # the frozen graph accumulates into the last layer's parameters only
    accumulated = [n.variable for n in frozen if n.name().endswith("AccumulateGrad")]
    assert len(accumulated) == 2 and all(any(v is p for p in model[4].parameters()) for v in accumulated)
    assert [type(m).__name__ for m in model[:4]] == ["Linear", "ReLU", "Linear", "ReLU"]
    # the frozen layers still compute, but their output is not recorded
    for p in model[:4].parameters():
        p.requires_grad_(False)
    assert model[:4](x).requires_grad is False


def test_after_backward_only_the_last_layer_has_a_grad(chapter):
    shown = chapter.shown("freezing.py", "freeze").splitlines()[1:]
    assert [line.split()[0] for line in shown] == ["0.weight", "0.bias", "2.weight", "2.bias", "4.weight", "4.bias"]
    assert all("requires_grad=False grad=None" in line for line in shown[:4])
    assert shown[4].endswith("requires_grad=True  grad=(1, 16)") and shown[5].endswith("grad=(1,)")


def test_the_frozen_graph_drawing_holds_the_last_layer_only(chapter):
    (graph,) = graphs(chapter.outputs("freezing.py", "graph"))
    parameters = sorted(n for n in graph["nodes"] if n[0].isdigit())
    assert parameters == ["4.bias (1)", "4.weight (1, 16)"]
    assert sorted(graph["nodes"]) == sorted(parameters + ["AccumulateGrad", "AccumulateGrad", "TBackward0",
                                                          "AddmmBackward0", "MseLossBackward0", "()"])


def test_the_optimizer_skips_parameters_whose_grad_is_none(chapter):
    ns = chapter.run("freezing.py")
    optimizer = ns["optimizer"]
    (group,) = optimizer.param_groups
    assert len(group["params"]) == 6, "it was given all the parameters"
    assert group["momentum"] > 0 and group["weight_decay"] > 0
    changed = [line.split("changed=")[1] == "True" for line in chapter.shown("freezing.py", "optimizer").splitlines()]
    assert changed == [False, False, False, False, True, True]


def test_a_zero_gradient_still_moves_a_weight_with_weight_decay(chapter):
    ns = chapter.run("freezing.py")
    first, kept, optimizer = ns["first"], ns["kept"], ns["optimizer"]
    assert chapter.shown("freezing.py", "zero_grad") == "False False\n"
    decay = optimizer.param_groups[0]["weight_decay"]
    lr = optimizer.param_groups[0]["lr"]
    assert decay == 0.01
    # first step of this parameter: no momentum buffer yet, the step is lr * (0 + decay * w)
    assert torch.allclose(first.detach(), kept - lr * decay * kept)
    optimizer.zero_grad()
    assert all(p.grad is None for p in ns["model"].parameters()), "zero_grad() sets .grad to None"


# model.eval() is not no_grad

def test_dropout_depends_on_the_mode_and_recording_on_the_switch(chapter):
    ns = chapter.run("eval_is_not_no_grad.py")
    rows = [line.split() for line in chapter.shown("eval_is_not_no_grad.py", "dropout").splitlines()]
    table = {(r[0], r[1]): (int(r[2].removeprefix("zeros=")), r[3].removeprefix("grad_fn=")) for r in rows}
    assert table[("train", "recording=True")][0] == table[("train", "recording=False")][0] > 0
    assert table[("eval", "recording=True")][0] == table[("eval", "recording=False")][0] == 0
    assert table[("train", "recording=True")][1] == "MulBackward0"
    assert table[("eval", "recording=True")][1] == "AddmmBackward0", "still recorded in eval mode"
    assert table[("train", "recording=False")][1] == table[("eval", "recording=False")][1] == "None"
    model = ns["model"]
    model.eval()
    h = model[0](ns["x"])
    assert model[1](h) is h, "in eval mode dropout returns the Linear layer's output unchanged"
    assert model[1].p == 0.5


def test_batchnorm_updates_running_stats_under_no_grad_and_not_in_eval(chapter):
    ns = chapter.run("eval_is_not_no_grad.py")
    bn, batch, out = ns["bn"], ns["batch"], ns["out"]
    assert bn.momentum == 0.1
    assert bn.num_batches_tracked.item() == 1, "the no_grad call updated, the eval call did not"
    assert torch.allclose(bn.running_mean, 0.1 * batch.mean(dim=0)), "a tenth of the way from 0"
    assert ((batch.mean(dim=0) - 10).abs() < 1).all(), "the batch mean is about 10"
    lines = chapter.shown("eval_is_not_no_grad.py", "batchnorm").splitlines()
    assert lines[0].split()[0] == "1" and lines[1].split()[0] == "1"
    assert lines[1].endswith("NativeBatchNormBackward0") and out.grad_fn.name() == "NativeBatchNormBackward0"
    expected = (batch - bn.running_mean) / torch.sqrt(bn.running_var + bn.eps) * bn.weight + bn.bias
    assert torch.allclose(out, expected), "eval normalises with the running statistics"
    assert (out.mean(dim=0).abs() > 1).all(), "far from 0"
    batch_normalised = F.batch_norm(batch, None, None, training=True)
    assert torch.allclose(batch_normalised.mean(dim=0), torch.zeros(3), atol=1e-5), "the batch's own would give 0"


# Define-by-run

def test_an_if_records_only_the_branch_that_ran(chapter):
    ns = chapter.run("define_by_run.py")
    f = ns["f"]
    lines = chapter.shown("define_by_run.py", "branch").splitlines()
    assert "graph=['MulBackward0', 'AccumulateGrad']" in lines[0] and "dy/dx=4.0000" in lines[0]
    assert "graph=['ExpBackward0', 'AccumulateGrad']" in lines[1]
    x = torch.tensor(-2.0, requires_grad=True)
    f(x).backward()
    assert lines[1].endswith(f"dy/dx={x.grad.item():.4f}") and x.grad.item() == pytest.approx(torch.e ** -2)
    assert round(x.grad.item(), 4) == 0.1353
    for value in (2.0, -2.0):
        x = torch.tensor(value, requires_grad=True)
        assert len(reachable(f(x))) == 2, "no node for the comparison or the sum"


def test_a_data_dependent_loop_records_one_node_per_pass(chapter):
    ns = chapter.run("define_by_run.py")
    lines = chapter.shown("define_by_run.py", "loop").splitlines()
    assert len(lines) == 4
    for line, graph, values, passes in zip(lines[::2], lines[1::2], ([1.0, 1.0], [3.0, 4.0]), (3, 1)):
        x = torch.tensor(values)
        y = ns["double_until_large"](x)
        assert torch.equal(y, 2**passes * x) and y.abs().sum() >= 10 > (y / 2).abs().sum()
        assert line == f"x={values}  y={y.tolist()}  grad={[float(2**passes)] * 2}"
        assert graph == f"  graph={['MulBackward0'] * passes + ['AccumulateGrad']}"


def test_every_iteration_records_a_graph_of_its_own(chapter):
    ns = chapter.run("graph_per_iteration.py")
    lengths = [len(s) for s in ns["sequences"]]
    assert lengths == [3, 1, 5]
    lines = chapter.shown("graph_per_iteration.py", "loop").splitlines()
    assert len(lines) == 3
    for line, n in zip(lines, lengths):
        counts = {"AccumulateGrad": 1, "AddBackward0": n, "MulBackward0": n, "PowBackward0": 1, "TanhBackward0": n}
        assert line.endswith(f"length {n}, graph {counts}")
    # the three graphs differ
    assert len(set(lines)) == 3


# Choosing what backward() fills

def test_backward_inputs_fills_only_the_named_tensors(chapter):
    lines = chapter.shown("backward_inputs.py", "inputs").splitlines()
    w1, w2 = 2.0, 3.0
    assert lines == [f"None {torch.tensor(4 * w1)!s}"]
    assert chapter.shown("backward_inputs.py", "non_leaf") == f"None None {torch.tensor(w2)!s}\n"


def test_retain_grad_keeps_a_non_leaf_gradient(chapter):
    ns = chapter.run("backward_inputs.py")
    w1, w2, h = ns["w1"], ns["w2"], ns["h"]
    assert (w1.grad.item(), w2.grad.item(), h.grad.item()) == (4 * w2.item(), 4 * w1.item(), w2.item())
    assert chapter.shown("backward_inputs.py", "retain_grad") == f"{w1.grad!s} {w2.grad!s} {h.grad!s}\n"
    plain = w1 * 4
    (plain * w2).backward()
    with pytest.warns(UserWarning, match="not a leaf Tensor"):
        assert plain.grad is None, "without retain_grad() a non-leaf keeps nothing"


# create_graph=True

def test_create_graph_gives_a_differentiable_gradient(chapter):
    ns = chapter.run("create_graph.py")
    x, dy_dx, d2 = ns["x"], ns["dy_dx"], ns["d2y_dx2"]
    assert x.item() == 3.0
    assert dy_dx.item() == 3 * x.item() ** 2 == 27 and dy_dx.grad_fn is not None
    assert d2.item() == 6 * x.item() == 18
    assert chapter.shown("create_graph.py", "second") == "tensor(27., grad_fn=<MulBackward0>) MulBackward0\ntensor(18.)\n"


def test_a_gradient_penalty_needs_create_graph(chapter):
    ns = chapter.run("create_graph.py")
    shown = chapter.shown("create_graph.py", "without").splitlines()
    assert shown == ["False None",
                     "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"]
    critic, points, slopes, penalty = ns["critic"], ns["points"], ns["slopes"], ns["penalty"]
    assert slopes.grad_fn is not None and penalty.grad_fn is not None
    assert torch.allclose(penalty, ((slopes.norm(dim=1) - 1) ** 2).mean())
    grads = {name: p.grad for name, p in critic.named_parameters()}
    assert grads["2.bias"] is None and all(g is not None for n, g in grads.items() if n != "2.bias")
    assert chapter.shown("create_graph.py", "with").splitlines()[-1] == "2.bias   grad=None"
    # the slopes do not depend on the last bias
    with torch.no_grad():
        critic[2].bias += 5.0
    (moved,) = torch.autograd.grad(critic(points).sum(), points)
    assert torch.allclose(moved, slopes.detach())


# Exercises

def test_solution_freeze_layers(chapter):
    ns = chapter.run("solution_freeze_layers.py")
    last_only, middle = (chapter.shown("solution_freeze_layers.py", s).splitlines()
                         for s in ("last_only", "middle_frozen"))
    assert last_only[1] == str({n: n.startswith("4.") for n in ("0.weight", "0.bias", "2.weight", "2.bias",
                                                                 "4.weight", "4.bias")})
    assert middle[1] == str({n: not n.startswith("2.") for n in ("0.weight", "0.bias", "2.weight", "2.bias",
                                                                  "4.weight", "4.bias")})
    counts = eval(middle[0])  # the printed dict of node counts
    assert counts["AddmmBackward0"] == 3 and counts["AccumulateGrad"] == 4
    model = ns["model"]
    assert [p.requires_grad for p in model.parameters()] == [True, True, False, False, True, True]
    loss = F.mse_loss(model(ns["x"]), ns["y"])
    assert names(reachable(loss)).count("AddmmBackward0") == 3
    assert eval(last_only[0]) == {"AccumulateGrad": 2, "AddmmBackward0": 1, "MseLossBackward0": 1, "TBackward0": 1}


def test_solution_data_dependent_loop(chapter):
    ns = chapter.run("solution_data_dependent_loop.py")
    lines = chapter.shown("solution_data_dependent_loop.py").splitlines()
    # by hand: 3 -> 9 -> 81 -> 6561 is x**8; 20 -> 400 is x**2
    for line, x, power in zip(lines, (3.0, 20.0), (8, 2)):
        assert line == f"x={x}  y={x**power}  dy/dx={power * x ** (power - 1)}"
    for x, power in ((3.0, 8), (20.0, 2)):     # the loop's passes, counted in plain Python
        y, passes = x, 0
        while y < 100:
            y, passes = y * y, passes + 1
        assert 2**passes == power
    t = torch.tensor(3.0, requires_grad=True)
    assert names(reachable(ns["square_until_large"](t))) == ["AccumulateGrad", "MulBackward0", "MulBackward0",
                                                             "MulBackward0"]


def test_solution_inference_features(chapter):
    ns = chapter.run("solution_inference_features.py")
    shown = chapter.shown("solution_inference_features.py", "fails")
    assert shown.startswith("RuntimeError: Inference tensors cannot be saved for backward.")
    assert chapter.shown("solution_inference_features.py", "fixes") == "True None\nTrue None\n"
    head, features = ns["head"], ns["features"]
    assert not features.is_inference()
    # the head's weight gradient is built from its input: d sum(features @ W.T) / dW = column sums of features
    w = head.weight.detach().clone().requires_grad_()
    (features @ w.T).sum().backward()
    assert torch.allclose(w.grad, features.sum(dim=0, keepdim=True))


# Switching recording back on


def test_enable_grad_records_inside_no_grad_but_not_inside_inference_mode(chapter):
    lines = chapter.shown("nested_modes.py", "nested").splitlines()
    assert lines == ["False True False", "False True"]
    ns = chapter.run("nested_modes.py")
    assert ns["b"].grad_fn.name() == "MulBackward0" and ns["a"].grad_fn is None is ns["c"].grad_fn
    assert ns["d"].is_inference() and ns["d"].grad_fn is None
    with torch.inference_mode(), torch.enable_grad():
        assert torch.is_grad_enabled() and torch.is_inference_mode_enabled()


def test_an_enable_grad_function_computes_its_gradient_under_no_grad(chapter):
    ns = chapter.run("nested_modes.py")
    assert chapter.shown("nested_modes.py", "decorator") == "tensor([2., 4.])\n"
    with torch.no_grad():
        assert torch.equal(ns["squared_norm_gradient"](ns["x"]), 2 * ns["x"].detach())
        assert not torch.is_grad_enabled(), "the decorator restores the mode on return"


def test_forward_ad_runs_under_no_grad_and_set_grad_enabled_not_inference_mode(chapter):
    assert chapter.shown("nested_modes.py", "forward_ad") == (
        "no_grad                  tangent of dual * 3: tensor([3., 3.])\n"
        "set_grad_enabled(False)  tangent of dual * 3: tensor([3., 3.])\n"
        "inference_mode           tangent of dual * 3: None\n")
    for switch in (torch.no_grad(), torch.set_grad_enabled(False)):
        with switch:
            assert not torch.is_grad_enabled() and not torch.is_inference_mode_enabled()


def test_allow_mutation_on_saved_tensors_keeps_the_saved_value(chapter):
    ns = chapter.run("mutation_on_saved.py")
    assert torch.equal(ns["s"], torch.tensor([30.0, 40.0])) and torch.equal(ns["w"].grad, torch.tensor([3.0, 4.0]))
    assert chapter.shown("mutation_on_saved.py", "allow") == "tensor([30., 40.]) tensor([3., 4.])\n"
    w, s = torch.tensor([1.0, 2.0], requires_grad=True), torch.tensor([3.0, 4.0])
    y = (w * s).sum()
    s.mul_(10)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()
    # a copy is made when a saved tensor is changed, and only then
    w, s = torch.tensor([1.0, 2.0], requires_grad=True), torch.tensor([3.0, 4.0])
    with torch.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        y = (w * s).sum()
        assert not ctx.cloned
        s.mul_(10)
        assert len(ctx.cloned) == 1
    with pytest.raises(AssertionError, match="outside of the 'allow_mutation_on_saved_tensors' context"):
        y.backward()


def test_solution_gradient_under_no_grad(chapter):
    lines = chapter.shown("solution_gradient_under_no_grad.py").splitlines()
    assert lines[0] == "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"
    ns = chapter.run("solution_gradient_under_no_grad.py")
    with torch.no_grad():
        grad = torch.enable_grad()(ns["saliency"])(ns["model"], ns["batch"])
    assert torch.equal(grad, ns["model"].weight.detach().expand(2, 3))
