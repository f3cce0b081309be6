"""Claims of the page 'Training loops: missing, stale and NaN gradients' (docs/errors_training.md)."""

import inspect
import json
import re
import warnings

import pytest
import torch
from conftest import ROOT, kind, warnings_in
from torch import nn

PAGE = (ROOT / "docs" / "errors_training.md").read_text()


def heading(anchor):
    """The text of the page's heading with the id `anchor`."""
    (text,) = re.findall(rf"^## (.*?) \{{ #{anchor} \}}$", PAGE, re.M)
    return text


def numbers(line):
    """The numbers in a line of output, in order."""
    return [float(n) for n in re.findall(r"-?\d+\.?\d*(?:e[-+]?\d+)?", line)]


def reachable(tensor):
    """The autograd nodes reachable from tensor.grad_fn."""
    seen, todo = [], [tensor.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None and node not in seen:
            seen.append(node)
            todo.extend(n for n, _ in node.next_functions)
    return seen


def test_every_section_has_its_id_and_links_a_chapter():
    ids = re.findall(r"^## .* \{ #([\w-]+) \}$", PAGE, re.M)
    assert ids == ["non-leaf-grad", "non-leaf-optimizer", "zero-grad-forgotten", "total-loss-memory",
                   "eval-is-not-no-grad", "frozen-parameters-move", "dtype-double-in-backward",
                   "nan-sqrt-norm", "nan-where", "returned-nan", "anomaly-warning"]
    sections = re.split(r"^## ", PAGE, flags=re.M)[1:]
    assert all(re.search(r"\]\(\w+\.md#[\w-]+\)", section) for section in sections)


def test_intro_counts_the_problems_without_a_message():
    messages = {"non-leaf-grad", "non-leaf-optimizer", "dtype-double-in-backward", "returned-nan", "anomaly-warning"}
    silent = [a for a in re.findall(r"\{ #([\w-]+) \}", PAGE) if a not in messages]
    assert "Six of the problems raise nothing" in PAGE and len(silent) == 6


# The .grad of a non-leaf tensor


def test_non_leaf_weight_warns_and_its_grad_is_none(chapter):
    outputs = chapter.outputs("non_leaf_grad.py", "error")
    (warning,) = warnings_in(outputs)
    assert warning["category"] == "UserWarning"
    assert warning["message"].startswith(heading("non-leaf-grad") + ".")
    assert "retain_grad()" in warning["message"]
    assert chapter.shown("non_leaf_grad.py", "error") == (
        "w.is_leaf: False  w.grad_fn: MulBackward0\nw.grad: None\n")
    activation = chapter.outputs("non_leaf_grad.py", "activation")
    assert [w["message"] for w in warnings_in(activation)] == [warning["message"]]
    assert chapter.shown("non_leaf_grad.py", "activation") == "hidden.grad: None\n"


def test_the_leaf_got_the_gradient_only_the_graph_holds_it_and_no_optimizer_takes_w():
    leaf = torch.randn(3, 3, requires_grad=True)
    w = leaf * 0.01
    (torch.randn(4, 3) @ w).pow(2).sum().backward()
    assert leaf.grad is not None and w.grad_fn.name() == "MulBackward0"
    assert w.grad_fn.next_functions[0][0].variable is leaf  # the page's way back to it
    page = " ".join((ROOT / "docs" / "errors_training.md").read_text().split())
    assert "Only the graph still refers to the leaf: it is `w.grad_fn.next_functions[0][0].variable`" in page
    with pytest.raises(ValueError, match="non-leaf"):
        torch.optim.SGD([w], lr=0.1)


def test_non_leaf_fixes_give_the_gradient_without_warning(chapter):
    ns = chapter.run("non_leaf_grad.py")
    assert ns["w"].is_leaf and ns["w"].grad is not None
    fixed = chapter.shown("non_leaf_grad.py", "fix_leaf")
    assert fixed.startswith("w.is_leaf: True\n") and numbers(fixed.splitlines()[1])[0] > 0
    retained = chapter.shown("non_leaf_grad.py", "retain_grad").splitlines()
    assert retained[0] == "hidden.grad shape: (16, 8)"
    hooked = chapter.shown("non_leaf_grad.py", "hook")
    assert numbers(retained[1])[-1] == numbers(hooked)[-1] > 0, "the same gradient"
    for section in ("fix_leaf", "retain_grad", "hook"):
        assert not warnings_in(chapter.outputs("non_leaf_grad.py", section))


def test_hook_and_retain_grad_see_the_same_gradient(chapter):
    ns = chapter.run("non_leaf_grad.py")
    model, x, y = ns["model"], ns["x"], ns["y"]
    hidden = model[1](model[0](x))
    hidden.retain_grad()
    ((model[2](hidden) - y) ** 2).mean().backward()
    assert torch.equal(hidden.grad, ns["grads"]["hidden"])


# zero_grad forgotten


def steps(text):
    """[(loss, grad norm)] from lines 'step k: loss L  weight grad norm N'."""
    return [tuple(numbers(line)[1:]) for line in text.splitlines()]


def test_without_zero_grad_gradients_pile_up_and_the_loss_turns_back_up(chapter):
    broken = steps(chapter.shown("zero_grad_forgotten.py", "error"))
    fixed = steps(chapter.shown("zero_grad_forgotten.py", "fix"))
    assert len(broken) == len(fixed) == 10 and broken[0] == fixed[0]
    norms = [n for _, n in broken]
    assert all(a < b for a, b in zip(norms[:6], norms[1:6])), "grows for the first six steps"
    losses = [loss for loss, _ in broken]
    assert losses.index(min(losses)) == 5
    assert all(a < b for a, b in zip(losses[5:], losses[6:])), "rises again, step after step"
    assert all(a[0] > b[0] and a[1] > b[1] for a, b in zip(fixed, fixed[1:])), "loss and norm go down"
    assert fixed[-1][0] < broken[-1][0]


def test_accumulated_micro_batches_give_the_whole_batch_gradient(chapter):
    ns = chapter.run("zero_grad_forgotten.py")
    assert chapter.shown("zero_grad_forgotten.py", "accumulation").endswith("same gradient: True\n")
    assert ns["micro_batches"] == 4 and len(ns["x"]) == 32
    assert torch.allclose(ns["accumulated"], ns["model"].weight.grad)


# total_loss += loss


def test_total_loss_graph_grows_by_seven_nodes_a_batch(chapter):
    lines = chapter.shown("total_loss_memory.py", "error").splitlines()
    counts = [int(numbers(line)[1]) for line in lines]
    assert counts == [11, 74, 704]
    assert all(count == 11 + 7 * (i - 1) for i, count in zip((1, 10, 100), counts))


def test_backward_freed_the_saved_tensors_of_the_training_graphs(chapter):
    ns = chapter.run("total_loss_memory.py")
    model, (x, y) = ns["model"], ns["batches"][0]
    total = 0
    with torch.autograd.graph.saved_tensors_hooks(ns["Saved"], lambda saved: saved.tensor):
        for _ in range(3):
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            total += loss
    assert ns["graph_size"](total) > 0 and ns["saved_megabytes"]() == 0


def test_validation_loop_holds_saved_tensors_in_proportion_to_batches(chapter):
    lines = chapter.shown("total_loss_memory.py", "validation").splitlines()
    nodes = [int(numbers(line)[1]) for line in lines]
    megabytes = [numbers(line)[-1] for line in lines]
    assert nodes == [11, 74, 704]
    assert abs(megabytes[2] / megabytes[1] - 10) < 0.1, "in proportion to the batches"
    assert abs(megabytes[1] / megabytes[0] - 10) < 0.5, "(0.18 is rounded)"
    # mostly the batch's input and the ReLU's output
    ns = chapter.run("total_loss_memory.py")
    x = ns["batches"][0][0]
    main = (x.numel() + len(x) * ns["model"][0].out_features) * 4 / 1e6
    assert abs(megabytes[0] - main) < 0.01


def test_item_fixes_total_and_validation(chapter):
    assert chapter.shown("total_loss_memory.py", "fix").startswith("total_loss is a float; mean loss ")
    lines = chapter.shown("total_loss_memory.py", "fix_validation").splitlines()
    assert [numbers(line)[-1] for line in lines[:3]] == [0.0, 0.0, 0.0]
    assert lines[3].startswith("mean validation loss ")
    ns = chapter.run("total_loss_memory.py")
    assert isinstance(ns["total_loss"], float) and isinstance(ns["val_loss"], float)
    assert ns["saved_megabytes"]() == 0
    loss = nn.functional.mse_loss(ns["model"](ns["x"]), ns["y"])
    assert ns["graph_size"](loss) > 0 and ns["graph_size"](loss.detach()) == 0


# model.eval() is not no_grad


def test_eval_still_records_and_keeps_every_batch_graph(chapter):
    assert chapter.shown("eval_is_not_no_grad.py", "error") == (
        "requires_grad: True  grad_fn: CatBackward0\ngraph nodes kept alive: 307\n")
    ns = chapter.run("eval_is_not_no_grad.py")
    model, batches = ns["model"], ns["val_batches"]
    model.eval()
    one = reachable(model(batches[0]))
    per_batch = [n for n in one if "AccumulateGrad" not in n.name()]
    assert len(per_batch) == 6 and len(one) - len(per_batch) == 6 == len(list(model.parameters()))
    assert 1 + len(batches) * 6 + 6 == 307
    model.train()
    assert len(reachable(model(batches[0]))) == len(one) + 1, "dropout adds a node in training mode only"


def test_no_grad_and_inference_mode_record_nothing_and_give_the_same_logits(chapter):
    assert chapter.shown("eval_is_not_no_grad.py", "fix") == (
        "requires_grad: False  grad_fn: None\ngraph nodes kept alive: 0\nsame logits: True\n")
    assert chapter.shown("eval_is_not_no_grad.py", "inference_mode") == (
        "requires_grad: False  inference tensor: True\nsame logits: True\n")
    ns = chapter.run("eval_is_not_no_grad.py")
    with pytest.raises(RuntimeError, match="[Ii]nference tensor"):
        ns["logits_inference"] * torch.ones(2, requires_grad=True)


# Frozen parameters


def moved(text):
    return [tuple(numbers(line)) for line in text.splitlines()]


def test_frozen_weights_move_with_a_zero_grad_and_stay_with_none_or_a_new_optimizer(chapter):
    error = moved(chapter.shown("frozen_parameters.py", "error"))
    default = moved(chapter.shown("frozen_parameters.py", "fix_default"))
    trainable = moved(chapter.shown("frozen_parameters.py", "fix_trainable"))
    assert all(frozen > 0.01 and head > 0 for frozen, head in error)
    assert all(frozen == 0 and head > 0 for frozen, head in default + trainable)
    assert trainable[0][1] != default[0][1], "a new optimizer: the head moves differently"
    ns = chapter.run("frozen_parameters.py")
    fine_tune = ns["fine_tune"]
    for make in (ns["sgd_momentum"], ns["adamw"]):
        assert fine_tune(make, set_to_none=True)[0] == 0.0
        assert fine_tune(make, set_to_none=False, only_trainable=True)[0] == 0.0
        assert fine_tune(make, set_to_none=False)[0] > 0


def test_which_optimizers_move_a_zero_gradient(chapter):
    ns = chapter.run("frozen_parameters.py")
    fine_tune = ns["fine_tune"]
    assert fine_tune(lambda p: torch.optim.SGD(p, lr=0.1), set_to_none=False)[0] == 0.0, "plain SGD"
    assert fine_tune(lambda p: torch.optim.Adam(p, lr=0.01), set_to_none=False)[0] > 0, "Adam, no decay"
    # weight decay alone moves a weight whose gradient is zeros (fresh state: no average yet)
    weight = nn.Parameter(torch.ones(3))
    weight.grad = torch.zeros(3)
    torch.optim.AdamW([weight], lr=0.1, weight_decay=0.01).step()
    assert (weight < 1).all()


def test_a_gradient_from_before_the_freeze_stays_and_is_applied():
    layer = nn.Linear(2, 1)
    optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
    layer(torch.ones(1, 2)).sum().backward()
    layer.requires_grad_(False)
    before = layer.weight.clone()
    assert layer.weight.grad is not None
    optimizer.step()
    assert not torch.equal(layer.weight, before)


def test_zero_grad_sets_none_by_default_and_a_frozen_weight_gets_no_grad():
    assert inspect.signature(torch.optim.Optimizer.zero_grad).parameters["set_to_none"].default is True
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model(torch.ones(1, 2)).sum().backward()
    model[0].requires_grad_(False)
    optimizer.zero_grad()
    model(torch.ones(1, 2)).sum().backward()
    assert model[0].weight.grad is None and model[1].weight.grad is not None


# NaN from sqrt or norm at zero


def test_sqrt_distance_between_equal_embeddings_makes_every_gradient_nan(chapter):
    lines = chapter.shown("nan_sqrt_norm.py", "error").splitlines()
    assert lines[0].startswith("distances: tensor([0.0000,")
    loss = numbers(lines[1])[0]
    assert 0 < loss < float("inf")
    assert lines[2] == "NaN entries in encoder.weight.grad: 32 of 32"


def test_sqrt_returns_inf_and_pow_two_nodes_back_makes_the_nan():
    d = torch.zeros(1, 4, requires_grad=True)
    squares = (d**2).sum(dim=1)
    distance = torch.sqrt(squares)
    (grad_squares,) = torch.autograd.grad(distance.sum(), squares, retain_graph=True)
    assert grad_squares.isinf().all()
    node = distance.grad_fn
    names = [node.name()]
    for _ in range(2):
        node = node.next_functions[0][0]
        names.append(node.name())
    assert names == ["SqrtBackward0", "SumBackward1", "PowBackward0"]
    (grad,) = torch.autograd.grad(distance.sum(), d)
    assert grad.isnan().all()


def test_which_distances_give_nan_at_zero(chapter):
    rows = {line.split("  value")[0].strip(): line for line in chapter.shown("nan_sqrt_norm.py", "which").splitlines()}
    assert list(rows) == ["torch.sqrt((d**2).sum(1))", "(d**2).sum(1) ** 0.5", "d.norm(dim=1)",
                          "torch.linalg.vector_norm", "F.pairwise_distance", "torch.sqrt((d**2).sum(1) + eps)"]
    for name in ("torch.sqrt((d**2).sum(1))", "(d**2).sum(1) ** 0.5"):
        assert rows[name].endswith("gradient [nan, nan, nan, nan]")
    for name in ("d.norm(dim=1)", "torch.linalg.vector_norm"):
        assert rows[name].endswith("value 0.0e+00  gradient [0.0, 0.0, 0.0, 0.0]")
    assert rows["F.pairwise_distance"].endswith("value 2.0e-06  gradient [0.5, 0.5, 0.5, 0.5]")
    assert rows["torch.sqrt((d**2).sum(1) + eps)"].endswith("value 1.0e-06  gradient [0.0, 0.0, 0.0, 0.0]")


def test_vector_norm_keeps_the_distance_and_the_encoder_trains(chapter):
    lines = chapter.shown("nan_sqrt_norm.py", "fix").splitlines()
    assert all("NaN in grad: False" in line for line in lines) and len(lines) == 3
    losses = [numbers(line)[1] for line in lines]
    assert losses[0] == numbers(chapter.shown("nan_sqrt_norm.py", "error").splitlines()[1])[0], "the same loss"
    assert losses[0] > losses[1] > losses[2]


# NaN through torch.where


def test_where_on_log_and_on_division_gives_nan(chapter):
    assert chapter.shown("nan_where.py", "error").endswith("NaN in model.weight.grad: True\n")
    division = chapter.shown("nan_where.py", "division")
    assert division.startswith("counts: [4.0, 4.0, 0.0]") and division.endswith("NaN in model.weight.grad: True\n")


def test_padded_probabilities_are_zero_and_softmax_spreads_the_nan_over_the_row(chapter):
    ns = chapter.run("nan_where.py")
    model, x, padding = ns["model"], ns["x"], ns["padding"]
    scores = model(x).masked_fill(padding, float("-inf"))
    scores.retain_grad()
    p = torch.softmax(scores, dim=1)
    p.retain_grad()
    assert (p[padding] == 0).all() and (p[~padding] > 0).all()
    (-(p * torch.where(p > 0, torch.log(p), 0.0)).sum(dim=1).mean()).backward()
    assert torch.equal(p.grad.isnan(), padding), "0 / 0 at the discarded entries"
    padded_rows = padding.any(dim=1)
    assert scores.grad[padded_rows].isnan().all() and scores.grad[~padded_rows].isfinite().all()


def test_double_where_keeps_the_values_and_the_gradient_finite(chapter):
    error, fix = (chapter.shown("nan_where.py", s).splitlines() for s in ("error", "fix"))
    assert fix[0] == error[0]
    assert fix[1].startswith("NaN in model.weight.grad: False") and numbers(fix[1])[-1] > 0
    division, fixed = (chapter.shown("nan_where.py", s).splitlines() for s in ("division", "fix_division"))
    assert fixed[0] == division[0].split("  ")[1]
    assert fixed[1].startswith("NaN in model.weight.grad: False") and numbers(fixed[1])[-1] > 0


# Function 'LogBackward0' returned nan values


def test_anomaly_mode_names_log_backward_and_the_line_of_the_log(chapter):
    text = chapter.shown("anomaly_returned_nan.py", "error")
    assert text == "loss: nan\nRuntimeError: " + heading("returned-nan") + ".\n"
    (warning,) = warnings_in(chapter.outputs("anomaly_returned_nan.py", "error"))
    call = chapter.line_of("anomaly_returned_nan.py", "loss = binary_cross_entropy(model(x).squeeze(1), y)")
    line = chapter.line_of("anomaly_returned_nan.py", "log_not_p = torch.log(1 - p)")
    assert warning == {"category": "UserWarning", "message": (
        "Error detected in LogBackward0. Traceback of forward call that caused the error:\n"
        f'  File "anomaly_returned_nan.py", line {call}, in <module>\n'
        "    loss = binary_cross_entropy(model(x).squeeze(1), y)\n"
        f'  File "anomaly_returned_nan.py", line {line}, in binary_cross_entropy\n'
        "    log_not_p = torch.log(1 - p)")}, "the whole warning, from the script's own line"
    chapter.run("anomaly_returned_nan.py")
    assert not torch.is_anomaly_enabled()


def test_without_anomaly_mode_backward_just_gives_nan(chapter):
    ns = chapter.run("anomaly_returned_nan.py")
    model, x, y = ns["model"], ns["x"], ns["y"]
    model.zero_grad()
    ns["binary_cross_entropy"](model(x).squeeze(1), y).backward()
    assert model.weight.grad.isnan().any()


def test_the_zero_gradient_reaching_the_log_at_p_equal_to_one(chapter):
    lines = chapter.shown("anomaly_returned_nan.py", "probabilities").splitlines()
    targets, ones, zeros = (json.loads(line.split(":", 1)[1]) for line in lines)
    assert sum(o or z for o, z in zip(ones, zeros)) == 7, "most of them rounded to exactly 0 or 1"
    both = [i for i, (t, o) in enumerate(zip(targets, ones)) if t == 1 and o == 1]
    assert both
    ns = chapter.run("anomaly_returned_nan.py")
    x, y = ns["x"], ns["y"]
    # the model as it was before the fix trained it
    torch.manual_seed(0)
    fresh = nn.Linear(4, 1)
    with torch.no_grad():
        fresh.weight.mul_(10)
    p = torch.sigmoid(fresh(x).squeeze(1))
    one_minus = 1 - p
    log_not_p = torch.log(one_minus)
    log_not_p.retain_grad()
    one_minus.retain_grad()
    (-(y * torch.log(p) + (1 - y) * log_not_p).mean()).backward()
    assert (log_not_p.grad[both] == 0).all() and (one_minus[both] == 0).all()
    assert one_minus.grad[both].isnan().all()


def test_bce_with_logits_trains_with_finite_gradients(chapter):
    lines = chapter.shown("anomaly_returned_nan.py", "fix").splitlines()
    assert len(lines) == 3 and all(line.endswith("weight grad finite: True") for line in lines)
    losses = [numbers(line)[1] for line in lines]
    assert losses[0] > losses[1] > losses[2]


# can't optimize a non-leaf Tensor


def section(anchor):
    """The Markdown of the section with the id `anchor`."""
    start = PAGE.index(f"{{ #{anchor} }}")
    end = PAGE.find("\n## ", start)
    return PAGE[start:] if end < 0 else PAGE[start:end]


def test_an_optimizer_refuses_a_converted_or_scaled_tensor(chapter):
    assert chapter.shown("non_leaf_optimizer.py", "error") == (
        f"weight: ValueError: {heading('non-leaf-optimizer')}\nscale: ValueError: {heading('non-leaf-optimizer')}\n")
    ns = chapter.run("non_leaf_optimizer.py")
    assert ns["initial"].dtype.name == "float64"
    converted = torch.tensor(ns["initial"], requires_grad=True).float()
    assert not converted.is_leaf and converted.grad_fn.name() == "ToCopyBackward0"


def test_the_section_links_the_non_leaf_explanation_and_the_gpu_case():
    text = section("non-leaf-optimizer")
    assert "(#non-leaf-grad)" in text and "(errors_gpu.md#grad-none-after-to)" in text
    assert "{ #grad-none-after-to }" in (ROOT / "docs" / "errors_gpu.md").read_text()


def test_a_leaf_is_accepted_and_the_loss_goes_down(chapter):
    lines = chapter.shown("non_leaf_optimizer.py", "fix").splitlines()
    losses = [numbers(line)[1] for line in lines]
    assert len(losses) == 3 and losses[0] > losses[1] > losses[2]
    ns = chapter.run("non_leaf_optimizer.py")
    assert ns["weight"].is_leaf and ns["weight"].dtype == torch.float32


# Found dtype Double but expected Float


def test_a_float64_target_fails_huber_in_backward(chapter):
    assert chapter.shown("dtype_double.py", "error") == (
        "loss: torch.float32\nRuntimeError: " + heading("dtype-double-in-backward") + "\n")
    ns = chapter.run("dtype_double.py")
    model, x = ns["model"], ns["x"]
    y = torch.from_numpy(ns["prices"]).unsqueeze(1)
    assert y.dtype == torch.float64
    nn.HuberLoss()(model(x), y)  # the forward pass runs
    with pytest.raises(RuntimeError, match=heading("dtype-double-in-backward")):
        nn.BCELoss()(torch.sigmoid(model(x)), torch.rand(64, 1, dtype=torch.float64))


def test_mse_promotes_silently_and_the_gradient_keeps_the_weights_dtype(chapter):
    assert chapter.shown("dtype_double.py", "mse") == "MSELoss: torch.float64\nweight.grad: torch.float32\n"


def test_a_float32_target_trains(chapter):
    lines = chapter.shown("dtype_double.py", "fix").splitlines()
    assert all(line.endswith("(torch.float32)") for line in lines) and len(lines) == 3
    losses = [numbers(line)[1] for line in lines]
    assert losses[0] > losses[1] > losses[2]


# Frozen parameters: the attribute


def test_requires_grad_attribute_on_a_module_freezes_nothing(chapter):
    lines = chapter.shown("frozen_attribute.py", "error").splitlines()
    assert lines[:2] == ["backbone.requires_grad: False", "backbone.weight.requires_grad: True"]
    assert numbers(lines[2])[0] > 0
    fixed = chapter.shown("frozen_attribute.py", "fix").splitlines()
    assert fixed == ["backbone.weight.requires_grad: False", "backbone moved by 0.0000"]
    layer = nn.Linear(2, 2)
    layer.requires_grad = False
    assert "requires_grad" in vars(layer) and all(p.requires_grad for p in layer.parameters())
    assert "`module.requires_grad = False`" in section("frozen-parameters-move")


# Function 'LogBackward0' returned nan values: the usual causes


def test_returned_nan_links_the_two_usual_causes():
    text = section("returned-nan")
    for anchor in ("nan-sqrt-norm", "nan-where"):
        assert f"(#{anchor})" in text
        assert f"{{ #{anchor} }}" in PAGE


# Error detected in SigmoidBackward0: anomaly mode's warning

ENABLED = ("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
           "enabled for debugging.")


def in_place_error(chapter, section):
    """The error the block prints, after the warnings it shows, in that order."""
    outputs = chapter.outputs("anomaly_warning.py", section)
    assert [kind(o) for o in outputs] == ["warning", "warning", "stdout"], "the warnings come first"
    (line,) = chapter.shown("anomaly_warning.py", section).splitlines()
    return line, warnings_in(outputs)


def test_switched_on_for_backward_only_the_warning_names_the_node_and_no_line(chapter):
    error, warnings = in_place_error(chapter, "backward_only")
    assert warnings == [{"category": "UserWarning", "message": ENABLED}, {"category": "UserWarning", "message": (
        "Error detected in SigmoidBackward0. No forward pass information available. "
        "Enable detect anomaly during forward pass for more information.")}]
    assert error.startswith("RuntimeError: one of the variables needed for gradient computation has been "
                            "modified by an inplace operation: [torch.FloatTensor [8, 3]], which is output 0 "
                            "of Sigmoid, is at version 1; expected version 0 instead.")
    assert "Hint: the backtrace further above shows the operation that failed" in error
    assert "Traceback" not in warnings[1]["message"], "the backtrace the hint points at is not there"


def test_switched_on_for_the_forward_pass_the_warning_names_the_line_that_made_the_node(chapter):
    error, warnings = in_place_error(chapter, "traceback")
    call = chapter.line_of("anomaly_warning.py", "with torch.autograd.detect_anomaly():  # on for the forward pass too") + 1
    made = chapter.line_of("anomaly_warning.py", "def forward(x):") + 1
    assert warnings == [{"category": "UserWarning", "message": ENABLED}, {"category": "UserWarning", "message": (
        heading("anomaly-warning") + ":\n"
        f'  File "anomaly_warning.py", line {call}, in <module>\n'
        "    loss = forward(x)\n"
        f'  File "anomaly_warning.py", line {made}, in forward\n'
        "    h = torch.sigmoid(x @ w)")}]
    assert chapter.line_of("anomaly_warning.py", "h.mul_(2)  # in place: sigmoid's backward needs the output it saved") == made + 1
    assert error == in_place_error(chapter, "backward_only")[0], "the same error after either warning"


def test_the_in_place_error_asks_for_anomaly_mode_and_only_the_context_manager_warns():
    w = torch.randn(4, 3, requires_grad=True)
    h = torch.sigmoid(torch.randn(8, 4) @ w)
    h.mul_(2)
    with pytest.raises(RuntimeError) as raised:
        h.sum().backward()
    assert "Hint: enable anomaly detection to find the operation that failed to compute its gradient" in str(raised.value)
    assert '"enable anomaly detection to find the operation that failed to compute its\ngradient"' in PAGE
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"), torch.autograd.detect_anomaly():
        pass
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        torch.autograd.set_detect_anomaly(True)
        torch.autograd.set_detect_anomaly(False)


def test_fixed_the_step_runs_under_anomaly_mode_which_ends_with_its_block(chapter):
    outputs = chapter.outputs("anomaly_warning.py", "fix")
    assert warnings_in(outputs) == [{"category": "UserWarning", "message": ENABLED}]
    assert chapter.shown("anomaly_warning.py", "fix") == "w.grad finite: True\nanomaly mode still on: False\n"
