"""Claims of the page 'Errors about the graph and requires_grad' (docs/errors_graph.md)."""

import inspect
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import ROOT, kind, warnings_in
from torch import nn

PAGE = ROOT / "docs" / "errors_graph.md"


def headings():
    """{id: heading text} of the page's sections."""
    found = re.findall(r"^##+ (.+?) \{ #([\w-]+) \}$", PAGE.read_text(), re.M)
    return {anchor: text for text, anchor in found}


def numbers(text, pattern):
    """The floats that `pattern` (one group) captures in `text`, in order."""
    return [float(n) for n in re.findall(pattern, text)]


def error_block(chapter, name, anchor, section="error"):
    """The text under a block that shows a section's message: it holds the heading."""
    text = chapter.shown(name, section)
    assert headings()[anchor] in text, f"the heading of #{anchor} is what PyTorch printed"
    return text


def test_every_section_is_there():
    assert list(headings()) == [
        "backward-twice", "truncated-bptt", "compile-backward-twice", "does-not-require-grad", "scalar-outputs",
        "complex-scalar-outputs", "mismatch-in-shape", "allow-unused", "integer-requires-grad",
        "requires-grad-flags", "hook-on-tensor-without-grad", "numpy-requires-grad", "tensor-to-scalar",
        "inference-tensors",
        "non-differentiable-ops"]


def section_text(anchor):
    """The Markdown of one section, from its heading to the next heading of level 2."""
    return PAGE.read_text().split(f"{{ #{anchor} }}")[1].split("\n## ")[0]


def quotes(anchor):
    """The lines the section quotes (Markdown's `> `): the older wordings of its message."""
    return [line[2:] for line in section_text(anchor).splitlines() if line.startswith("> ")]


# Trying to backward through the graph a second time


def test_gan_without_detach_fails_in_the_generator_step(chapter):
    text = error_block(chapter, "gan_without_detach.py", "backward-twice")
    assert text.startswith("RuntimeError: Trying to backward through the graph a second time")
    assert "Specify retain_graph=True" in text, "the message suggests retain_graph"


def test_gan_retain_graph_runs_and_fills_the_generator_gradients(chapter):
    text = chapter.shown("gan_without_detach.py", "retain")
    assert "RuntimeError" not in text
    (norm,) = numbers(text, r"discriminator's loss: ([\d.]+)")
    assert norm > 0, "the discriminator's backward reached the generator"
    assert "generator step done, g_loss = " in text


def test_gan_with_detach_trains_the_generator_towards_the_data(chapter):
    text = chapter.shown("gan_without_detach.py", "fix")
    assert "Error" not in text
    before, after = numbers(text, r"(?:points|steps): +(-?[\d.]+)")
    assert abs(before) < 0.5, "around 0"
    assert 2.5 < after < 3.5, "towards the data"
    ns = chapter.run("gan_without_detach.py")
    assert abs(ns["real"].mean().item() - 3) < 0.2, "the data lies around 3"


def test_discriminator_step_with_detach_leaves_the_generator_alone(chapter):
    ns = chapter.run("gan_without_detach.py")
    generator, discriminator, criterion = ns["generator"], ns["discriminator"], ns["criterion"]
    generator.zero_grad()
    fake = generator(torch.randn(64, 8))
    loss = criterion(discriminator(fake.detach()), ns["zeros"])
    loss.backward()
    assert all(p.grad is None for p in generator.parameters())


def test_value_outside_the_loop_fails_at_the_second_step(chapter):
    text = error_block(chapter, "value_outside_loop.py", "backward-twice")
    first, second = text.splitlines()
    assert first.startswith("step 0: loss "), "the first step trains"
    assert second.startswith("step 1: RuntimeError: Trying to backward through the graph a second time")


def test_retain_graph_keeps_the_stale_scale_while_log_scale_moves(chapter):
    text = chapter.shown("value_outside_loop.py", "retain")
    (moved,) = numbers(text, r"log_scale.exp\(\) = ([\d.]+)")
    (used,) = numbers(text, r"scale used += ([\d.]+)")
    assert used == 1.0, "its first value, 1"
    assert moved > 10, "far away"
    ns = chapter.run("value_outside_loop.py")
    assert ns["scale"].item() != 1.0, "the fix's scale is recomputed"


def test_value_inside_the_loop_trains_and_learns_the_scale(chapter):
    text = chapter.shown("value_outside_loop.py", "fix")
    assert "Error" not in text
    losses = numbers(text, r"loss ([\d.]+)")
    scales = numbers(text, r"scale ([\d.]+)")
    assert losses[-1] < 0.01 * losses[0], "the loss goes down"
    assert scales[0] == 1.0 and scales[-1] > 2, "the scale is learned"


def test_retain_graph_is_right_for_several_grads_of_one_output():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    (first,) = torch.autograd.grad(y[0], x, retain_graph=True)
    (second,) = torch.autograd.grad(y[1], x)  # the last call needs no retain_graph
    assert torch.allclose(first + second, x.exp())
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        torch.autograd.grad(y[0], x)


def test_lstm_state_fails_at_the_second_batch(chapter):
    text = error_block(chapter, "lstm_hidden_state.py", "backward-twice")
    first, second = text.splitlines()
    assert first.startswith("batch 0: loss ")
    assert second.startswith("batch 1: RuntimeError: Trying to backward through the graph a second time")


def test_lstm_state_returned_holds_the_graph(chapter):
    ns = chapter.run("lstm_hidden_state.py")
    model = ns["Forecaster"]()
    x, _ = ns["chunks"][0]
    _, (h, c) = model(x)
    assert h.grad_fn is not None and c.grad_fn is not None


def test_lstm_with_retain_graph_fails_at_the_second_batch_with_the_inplace_error(chapter):
    ns = chapter.run("lstm_hidden_state.py")
    torch.manual_seed(0)
    model = ns["Forecaster"]()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    hidden, failed = None, None
    for batch, (x, y) in enumerate(ns["chunks"]):
        optimizer.zero_grad()
        prediction, hidden = model(x, hidden)
        try:
            ns["criterion"](prediction, y).backward(retain_graph=True)
        except RuntimeError as err:
            failed = batch, str(err)
            break
        optimizer.step()
    assert failed is not None and failed[0] == 1
    assert "modified by an inplace operation" in failed[1]


def test_lstm_detached_state_trains(chapter):
    text = chapter.shown("lstm_hidden_state.py", "fix")
    assert "Error" not in text
    losses = numbers(text, r"batches ([\d.e+-]+)")
    assert len(losses) == 4
    assert losses == sorted(losses, reverse=True) and losses[-1] < 0.01 * losses[0]
    ns = chapter.run("lstm_hidden_state.py")
    h, c = ns["hidden"]
    assert h.grad_fn is None and c.grad_fn is None and not h.requires_grad


# element 0 of tensors does not require grad and does not have a grad_fn

NO_GRAD_CAUSES = ["loss_under_no_grad.py", "loss_from_item.py", "accuracy_as_loss.py", "frozen_model.py"]


@pytest.mark.parametrize("name", NO_GRAD_CAUSES)
def test_each_cause_produces_the_message(chapter, name):
    text = error_block(chapter, name, "does-not-require-grad")
    assert text.rstrip().endswith(f"RuntimeError: {headings()['does-not-require-grad']}")


def test_element_0_is_the_first_tensor_passed_to_backward():
    recorded = (torch.ones(2, requires_grad=True) * 2).sum()
    with pytest.raises(RuntimeError, match="^element 1 of tensors does not require grad"):
        torch.autograd.backward([recorded, torch.ones(2).sum()])


def test_loss_under_no_grad_has_no_graph_and_the_fix_trains(chapter):
    assert chapter.shown("loss_under_no_grad.py", "error").startswith("requires_grad: False grad_fn: None\n")
    text = chapter.shown("loss_under_no_grad.py", "fix")
    assert "Error" not in text
    losses = numbers(text, r"validation loss ([\d.]+)")
    assert losses == sorted(losses, reverse=True) and losses[-1] < losses[0] / 4


def test_loss_from_item_has_the_value_and_no_history(chapter):
    ns = chapter.run("loss_from_item.py")
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 1)
    loss = ns["criterion"](model(ns["inputs"]), ns["targets"])
    copy = torch.tensor(loss.item())
    assert copy.item() == loss.item() and copy.grad_fn is None and not copy.requires_grad
    losses = numbers(chapter.shown("loss_from_item.py", "fix"), r"loss ([\d.]+)")
    assert losses == sorted(losses, reverse=True) and losses[-1] < 0.01


def test_accuracy_as_loss_has_no_graph_and_cross_entropy_trains(chapter):
    ns = chapter.run("accuracy_as_loss.py")
    accuracy = ns["accuracy"](ns["model"](ns["inputs"]), ns["labels"])
    assert not accuracy.requires_grad and accuracy.grad_fn is None
    text = chapter.shown("accuracy_as_loss.py", "fix")
    losses = numbers(text, r"loss ([\d.]+)")
    accuracies = numbers(text, r"accuracy ([\d.]+)")
    assert losses == sorted(losses, reverse=True)
    assert accuracies == sorted(accuracies) and accuracies[-1] > accuracies[0]


def test_frozen_backbone_stays_and_head_trains(chapter):
    text = chapter.shown("frozen_model.py", "fix")
    (backbone,) = numbers(text, r"backbone moved by ([\d.]+)")
    (head,) = numbers(text, r"head moved by +([\d.]+)")
    assert backbone == 0 and head > 0
    ns = chapter.run("frozen_model.py")
    assert all(p.requires_grad for p in ns["model"].head.parameters())


def test_requires_grad_true_silences_the_error_and_trains_nothing(chapter):
    text = chapter.shown("requires_grad_true.py", "silenced")
    assert "Error" not in text
    losses = numbers(text, r"loss ([\d.]+)")
    assert len(losses) == 4 and len(set(losses)) == 1, "the loss stays where it was"
    assert "model.weight.grad: None\n" in text
    assert text.rstrip().endswith("weight moved by: 0.0")
    ns = chapter.run("requires_grad_true.py")
    loss = ns["loss"]
    assert loss.is_leaf and loss.grad is not None and loss.grad.item() == 1.0, "a leaf of its own, with its gradient"
    assert all(p.grad is None for p in ns["model"].parameters())


# grad can be implicitly created only for scalar outputs


def test_unreduced_loss_and_its_fixes(chapter):
    text = error_block(chapter, "loss_per_sample.py", "scalar-outputs")
    assert text.startswith("loss shape: (8, 1)\n")
    fix = chapter.shown("loss_per_sample.py", "fix")
    by_gradient = chapter.shown("loss_per_sample.py", "gradient")
    assert "Error" not in fix + by_gradient
    assert fix.split("weight gradient ")[1] == by_gradient.split("weight gradient ")[1], "same as .mean()"
    ns = chapter.run("loss_per_sample.py")
    assert len(ns["per_sample"]) == 8
    assert ns["model"].weight.grad.abs().sum() > 0


# The differentiated Tensor at index 2 appears to not have been used in the graph


def test_unused_head_is_the_input_at_that_index(chapter):
    text = error_block(chapter, "unused_parameter.py", "allow-unused")
    assert "Set allow_unused=True" in text
    index = int(re.search(r"at index (\d+)", headings()["allow-unused"]).group(1))
    ns = chapter.run("unused_parameter.py")
    assert ns["weights"][index] is ns["model"].classification.weight, "the position in inputs"


def test_allow_unused_gives_none_and_materialize_gives_zeros(chapter):
    lines = chapter.shown("unused_parameter.py", "allow_unused").splitlines()
    assert lines[2].split() == ["classification", "None"]
    assert all("norm" in line for line in lines[:2])
    lines = chapter.shown("unused_parameter.py", "materialize").splitlines()
    assert lines[2].split() == ["classification", "shape", "(3,", "8),", "norm", "0.0000"]
    ns = chapter.run("unused_parameter.py")
    zeros = ns["grads"][2]
    assert zeros.shape == ns["model"].classification.weight.shape and not zeros.any()


# Only Tensors of floating point and complex dtype can require gradients


def test_integer_tensors_refuse_and_floats_work(chapter):
    error_block(chapter, "integer_tensor.py", "integer-requires-grad")
    assert torch.tensor([1, 2, 3]).dtype == torch.int64
    numpy_text = chapter.shown("integer_tensor.py", "numpy")
    assert numpy_text.startswith("torch.uint8\nRuntimeError: ")
    assert headings()["integer-requires-grad"] not in numpy_text, "requires_grad_() words it differently"
    assert "floating point dtype can require gradients" in numpy_text
    fix = chapter.shown("integer_tensor.py", "fix")
    assert fix.startswith("tensor([2., 4., 6.])\ntorch.float32 ")
    labels = torch.tensor([0, 2])
    loss = torch.nn.functional.cross_entropy(torch.zeros(2, 3, requires_grad=True), labels)
    loss.backward()  # class labels as integers are fine: they are not differentiated
    assert labels.dtype == torch.int64


# you can only change requires_grad flags of leaf variables


def test_requires_grad_flag_of_a_computed_tensor_and_detach(chapter):
    error_block(chapter, "requires_grad_on_output.py", "requires-grad-flags")
    text = chapter.shown("requires_grad_on_output.py", "fix")
    assert text.startswith("encoder.weight.grad: None\n")
    (norm,) = numbers(text, r"decoder.weight.grad norm: ([\d.]+)")
    assert norm > 0
    ns = chapter.run("requires_grad_on_output.py")
    codes = ns["encoder"](ns["inputs"])
    assert codes.requires_grad and not codes.is_leaf, "requires_grad from its inputs"
    assert torch.equal(codes.detach(), ns["codes"]) and ns["codes"].grad_fn is None


# Can't call numpy() on Tensor that requires grad


def test_numpy_during_training_and_the_fix(chapter):
    error_block(chapter, "numpy_during_training.py", "numpy-requires-grad")
    detached, under_no_grad = chapter.shown("numpy_during_training.py", "fix").splitlines()
    assert detached == under_no_grad and detached.startswith("[")
    ns = chapter.run("numpy_during_training.py")
    with torch.no_grad():
        assert not ns["model"](ns["inputs"]).requires_grad


# Inference tensors cannot be saved for backward


def test_inference_features_fail_at_the_forward_call(chapter):
    text = error_block(chapter, "inference_mode_features.py", "inference-tensors")
    assert "torch.no_grad()" in text and "clone" in text
    ns = chapter.run("inference_mode_features.py")
    with torch.inference_mode():
        features = ns["encoder"](ns["images"])
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        ns["head"](features)  # the forward call raises, before any backward
    assert (features + ns["head"].bias[0]).requires_grad, "an op that saves nothing is fine"


def test_no_grad_features_train_the_head_and_clone_works(chapter):
    text = chapter.shown("inference_mode_features.py", "fix")
    losses = numbers(text, r"loss ([\d.]+)")
    assert losses == sorted(losses, reverse=True) and losses[-1] < losses[0]
    clone = chapter.shown("inference_mode_features.py", "clone")
    assert clone.startswith("is_inference: True -> False\n")
    (norm,) = numbers(clone, r"grad norm: ([\d.]+)")
    assert norm > 0
    ns = chapter.run("inference_mode_features.py")
    with torch.no_grad():
        features = ns["encoder"](ns["images"])
    assert not features.requires_grad and not features.is_inference()


# A gradient is None or zero after argmax, round or a cast to an integer


def test_argmax_and_cast_cut_the_graph(chapter):
    text = chapter.shown("non_differentiable_ops.py", "argmax")
    assert "argmax: torch.int64 False None\n" in text
    assert "long(): torch.int64 False None\n" in text
    assert "model.weight.grad: None\n" in text
    (scale,) = numbers(text, r"scale.grad: (-?[\d.]+)")
    assert scale != 0, "backward ran: scale still reaches the loss"


def test_round_gives_zero_gradients(chapter):
    """As the section's title says: None after argmax or a cast (above), zeros after round."""
    assert "## A gradient is None or zero after argmax, round" in (ROOT / "docs" / "errors_graph.md").read_text()
    text = chapter.shown("non_differentiable_ops.py", "round")
    assert text == "requires_grad: True\nmodel.weight.grad: tensor([[0., 0., 0., 0.]])\n"
    x = torch.linspace(-2, 2, 9, requires_grad=True)
    torch.round(x * 4).sum().backward()
    assert not x.grad.any()


def test_softmax_and_straight_through_give_gradients(chapter):
    (soft,) = numbers(chapter.shown("non_differentiable_ops.py", "softmax"), r"norm: ([\d.]+)")
    assert soft > 0
    text = chapter.shown("non_differentiable_ops.py", "straight_through")
    assert text.startswith("same values: True\n")
    ns = chapter.run("non_differentiable_ops.py")
    inputs, targets, rounded = ns["inputs"], ns["targets"], ns["rounded"].detach()
    # the gradient of the loss at the rounded values, passed through the rounding unchanged
    expected = (2 / len(inputs)) * ((rounded - targets) @ inputs)
    assert torch.allclose(ns["model"].weight.grad.squeeze(0), expected, atol=1e-6)
    (straight,) = numbers(text, r"norm: ([\d.]+)")
    assert straight == pytest.approx(expected.norm().item(), abs=1e-4)


# Older wordings of the messages, quoted on their sections


def test_backward_twice_quotes_its_two_older_wordings():
    assert quotes("backward-twice") == [
        "Trying to backward through the graph a second time, but the buffers have already been freed. "
        "Specify retain_graph=True when calling backward the first time.",
        "Trying to backward through the graph a second time, but the saved intermediate results have already "
        "been freed. Specify retain_graph=True when calling backward the first time."]
    text = section_text("backward-twice")
    assert "PyTorch 0.4" in text and "PyTorch 1.7.1" in text


def test_numpy_quotes_the_variable_wording():
    assert quotes("numpy-requires-grad") == [
        "Can't call numpy() on Variable that requires grad. Use var.detach().numpy() instead."]
    assert "1.3.1" in section_text("numpy-requires-grad")
    with pytest.raises(RuntimeError) as raised:
        (torch.ones(2, requires_grad=True) * 2).numpy()
    assert str(raised.value) == "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."


# This backward function was compiled with non-empty donated buffers

TORCH = Path(torch.__file__).parent


def test_compiled_model_fails_when_the_adversarial_loss_starts(chapter):
    text = error_block(chapter, "compiled_adaptive_weight.py", "compile-backward-twice")
    lines = text.splitlines()
    assert lines[0].startswith("step 0: ") and lines[1].startswith("step 1: "), "the first steps train"
    assert lines[2].startswith("RuntimeError: This backward function was compiled with non-empty donated buffers")
    assert "torch._functorch.config.donated_buffer=False" in lines[2], "the message names the setting"
    ns = chapter.run("compiled_adaptive_weight.py")
    assert "retain_graph=True" in inspect.getsource(ns["adaptive_weight"])
    assert 'backend="aot_eager"' in inspect.getsource(ns["train"])


def test_the_check_is_in_aot_autograd_which_inductor_uses():
    wrappers = (TORCH / "_functorch" / "_aot_autograd" / "runtime_wrappers.py").read_text()
    assert "This backward function was compiled with non-empty donated" in wrappers
    assert "aot_autograd" in (TORCH / "_inductor" / "compile_fx.py").read_text()


def test_a_second_backward_through_a_compiled_model_gives_the_eager_message(chapter):
    text = chapter.shown("compiled_adaptive_weight.py", "twice")
    assert text.startswith(f"RuntimeError: {headings()['backward-twice']}")


def test_donated_buffer_off_lets_the_adversarial_loss_start(chapter):
    text = chapter.shown("compiled_adaptive_weight.py", "fix")
    assert "Error" not in text
    losses = numbers(text, r"reconstruction loss ([\d.]+)")
    assert len(losses) == 4 and losses == sorted(losses, reverse=True)
    with torch._functorch.config.patch(donated_buffer=False):
        assert torch._functorch.config.donated_buffer is False
    assert torch._functorch.config.donated_buffer is True, "patch restores it: other snippets keep the default"


# LoRA adapters under a reentrant checkpoint


def test_lora_with_reentrant_checkpoint_has_no_graph(chapter):
    error_block(chapter, "lora_reentrant_checkpoint.py", "does-not-require-grad")
    ns = chapter.run("lora_reentrant_checkpoint.py")
    torch.manual_seed(0)
    model = ns["TinyLM"](use_reentrant=True)
    trainable = [name for name, p in model.named_parameters() if p.requires_grad]
    assert trainable and all("lora" in name for name in trainable), "only the adapters train"
    assert not model.embedding(ns["tokens"]).requires_grad
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        logits = model(ns["tokens"])
    assert not logits.requires_grad and logits.grad_fn is None


def test_non_reentrant_and_input_require_grads_train_the_adapters_alike(chapter):
    fix = chapter.shown("lora_reentrant_checkpoint.py", "fix")
    hooked = chapter.shown("lora_reentrant_checkpoint.py", "input_grads")
    losses = numbers(fix, r"loss ([\d.]+)")
    assert len(losses) == 4 and losses == sorted(losses, reverse=True) and losses[-1] < losses[0]
    assert numbers(hooked, r"loss ([\d.]+)") == losses, "the same losses"


# nn.DataParallel's gathered losses


def test_data_parallel_losses_as_the_gather_makes_them(chapter):
    text = error_block(chapter, "data_parallel_losses.py", "scalar-outputs")
    assert text.startswith("loss: tensor([") and "grad_fn=<CatBackward0>" in text
    gather = (TORCH / "nn" / "parallel" / "_functions.py").read_text()
    assert "input tensors were scalars; will instead unsqueeze" in gather
    assert "t.view(1) for t in inputs" in gather, "each scalar becomes a tensor of shape [1]"
    ns = chapter.run("data_parallel_losses.py")
    assert ns["model"](ns["inputs"], ns["targets"]).shape == (), "each copy's loss is a scalar"
    if not torch.cuda.is_available():  # without GPUs, DataParallel runs the model as it is
        wrapped = nn.DataParallel(ns["model"])
        assert not wrapped.device_ids and wrapped(ns["inputs"], ns["targets"]).shape == ()


def test_the_mean_of_the_gathered_losses_is_the_whole_batch_loss(chapter):
    text = chapter.shown("data_parallel_losses.py", "fix")
    mean, whole = numbers(text, r"(?:two|batch): ([\d.]+)")
    assert mean == whole
    (norm,) = numbers(text, r"gradient norm: ([\d.]+)")
    assert norm > 0


# grad can be implicitly created only for real scalar outputs


def test_a_complex_loss_and_its_real_fix(chapter):
    text = error_block(chapter, "complex_loss.py", "complex-scalar-outputs")
    assert text.startswith("loss: torch.complex64 torch.Size([])\n"), "a single number, complex"
    (minimum,) = numbers(chapter.shown("complex_loss.py", "real_part"), r"min: (-?[\d.]+)")
    assert minimum < 0, "the real part of a square can be negative"
    fix = chapter.shown("complex_loss.py", "fix")
    losses = numbers(fix, r"loss ([\d.]+)")
    assert losses == sorted(losses, reverse=True) and losses[-1] < 0.01 * losses[0]
    assert fix.count("(torch.float32)") == len(losses)
    z = torch.tensor([1 + 1j, 2 - 1j])
    assert torch.allclose(z.abs().pow(2), (z * z.conj()).real), "|z|^2 is real, zero only at 0"


# Mismatch in shape


def test_wgan_one_has_shape_one_and_the_loss_none(chapter):
    text = error_block(chapter, "wgan_backward_one.py", "mismatch-in-shape")
    assert text.startswith("d_real: () mone: (1,)\n")
    assert torch.FloatTensor([1]).shape == (1,)
    fix = chapter.shown("wgan_backward_one.py", "fix")
    assert fix == "same gradients as (-d_real).backward(): True\n"
    estimates = numbers(chapter.shown("wgan_backward_one.py", "train"), r"d_fake = (-?[\d.]+)")
    assert len(estimates) == 4 and estimates == sorted(estimates), "the estimate grows"


# you can only change requires_grad flags of leaf variables: an adversarial attack


def test_pgd_fails_at_its_second_step_and_detach_fixes_it(chapter):
    text = error_block(chapter, "adversarial_requires_grad.py", "requires-grad-flags")
    first, second = text.splitlines()
    assert first.startswith("step 0: loss ") and first.endswith("x_adv is a leaf: False")
    assert second.startswith("RuntimeError: ")
    fix = chapter.shown("adversarial_requires_grad.py", "fix")
    losses = numbers(fix, r"loss ([\d.]+)")
    assert len(losses) == 4 and losses == sorted(losses) and losses[-1] > losses[0], "the loss goes up"
    assert numbers(fix, r"largest change: ([\d.]+)") == [0.1], "within epsilon"
    ns = chapter.run("adversarial_requires_grad.py")
    assert numbers(text, r"loss ([\d.]+)")[0] == losses[0], "the same first step"
    leaf = (ns["x_adv"] * 1).detach().requires_grad_()
    assert leaf.is_leaf and leaf.requires_grad


# cannot register a hook on a tensor that doesn't require gradient


def test_grad_cam_hook_on_a_frozen_model_and_under_no_grad(chapter):
    text = error_block(chapter, "hook_on_frozen_model.py", "hook-on-tensor-without-grad")
    assert text == f"RuntimeError: {headings()['hook-on-tensor-without-grad']}\n"
    assert chapter.shown("hook_on_frozen_model.py", "no_grad") == text
    ns = chapter.run("hook_on_frozen_model.py")
    assert not any(p.requires_grad for p in ns["model"].parameters()), "frozen"


def test_grad_cam_with_an_input_that_requires_grad(chapter):
    text = chapter.shown("hook_on_frozen_model.py", "fix")
    assert "gradient of the activation: (1, 8, 16, 16) norm" in text
    (norm,) = numbers(text, r"norm ([\d.]+)")
    (peak,) = numbers(text, r"max ([\d.e+-]+)")
    assert norm > 0 and peak > 0
    assert text.rstrip().endswith("parameters still frozen: True")
    param = nn.Linear(2, 2).weight.requires_grad_(False)
    with pytest.raises(RuntimeError, match=re.escape(headings()["hook-on-tensor-without-grad"])):
        param.register_hook(lambda grad: grad)  # a frozen parameter: skip the hook


# tensor-to-scalar

SCALAR = "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n" \
         "Consider using tensor.detach() first."


def test_the_first_conversion_warns_and_the_later_one_that_cuts_the_graph_does_not(chapter):
    outputs = chapter.outputs("tensor_to_scalar.py", "error")
    assert warnings_in(outputs) == [{"category": "UserWarning", "message": SCALAR}], "once, for two conversions"
    assert SCALAR.split("\n")[0] == headings()["tensor-to-scalar"] + "."
    log = chapter.line_of("tensor_to_scalar.py", 'print(f"first prediction: {float(pred[0, 0]):.4f}")  # for the log')
    (warned,) = [line for line, output in chapter.lines("tensor_to_scalar.py", "error") if kind(output) == "warning"]
    assert warned == log, "at the log line, the first conversion"
    assert chapter.shown("tensor_to_scalar.py", "error") == (
        "first prediction: -0.0865\nloss: tensor(2.7212, grad_fn=<SumBackward0>)\nmodel.weight.grad: None\n")
    ns = chapter.run("tensor_to_scalar.py")
    leaf = ns["two_task_loss"](ns["pred"], ns["targets"]).grad_fn.next_functions[0][0]
    assert type(leaf).__name__ == "AccumulateGrad" and leaf.variable.is_leaf, "the graph ends at a new leaf"


def test_warn_always_names_the_line_that_cut_the_graph(chapter):
    assert warnings_in(chapter.outputs("tensor_to_scalar.py", "every")) == [{"category": "UserWarning", "message": SCALAR}]
    ns = chapter.run("tensor_to_scalar.py")
    assert not torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ns["two_task_loss"](ns["pred"], ns["targets"])
    finally:
        torch.set_warn_always(False)
    cut = chapter.line_of("tensor_to_scalar.py",
                          "return torch.tensor(per_task, requires_grad=True).sum()  # numbers, in a new tensor")
    assert {(Path(w.filename).name, w.lineno) for w in caught} == {("tensor_to_scalar.py", cut)}, "the line that cut it"


@pytest.mark.parametrize(("convert", "warns"), [
    (float, True), (math.sqrt, True), (lambda t: np.float64(t), True), (lambda t: torch.tensor([t, t]), True),
    (lambda t: t.item(), False), (int, False), (lambda t: t.tolist(), False), (lambda t: float(t.detach()), False),
])
def test_which_conversions_warn(convert, warns):
    t = torch.tensor(2.0, requires_grad=True) * 3
    torch.set_warn_always(True)  # the warning is once per process otherwise
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            convert(t)
    finally:
        torch.set_warn_always(False)
    assert bool(caught) == warns and all(str(w.message).startswith(SCALAR) for w in caught)


def test_stack_keeps_the_graph_and_gives_the_per_column_mse(chapter):
    assert chapter.shown("tensor_to_scalar.py", "fix") == (
        "first prediction: -0.0865\nloss: tensor(2.7212, grad_fn=<SumBackward0>)\nmodel.weight.grad is None: False\n")
    ns = chapter.run("tensor_to_scalar.py")
    pred = ns["model"](ns["inputs"])  # the model as the fix left it: no step was taken
    reference = nn.functional.mse_loss(pred, ns["targets"], reduction="none").mean(0).sum()
    assert torch.allclose(ns["loss"], reference)
    (weight_grad,) = torch.autograd.grad(reference, ns["model"].weight)
    assert torch.allclose(ns["model"].weight.grad, weight_grad)
