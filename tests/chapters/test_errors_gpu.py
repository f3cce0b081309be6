"""Claims of the page 'Errors of mixed precision and GPUs' (docs/errors_gpu.md)."""

import inspect
import json
import os
import re
import sys
from pathlib import Path

import pytest
import torch
from conftest import ROOT, script, soup, warnings_in
from torch import nn

PAGE = ROOT / "docs" / "errors_gpu.md"
RECORDED = ROOT / "bench" / "results" / "gpu_errors.json"


def heading(anchor):
    """The text of the page's heading `## text { #anchor }`."""
    (text,) = re.findall(rf"^## (.+) \{{ #{anchor} \}}$", PAGE.read_text(), re.M)
    return text


def rows(text):
    """The lines `step N: ...` of a training loop's output, as {N: line}."""
    return {int(m[1]): m[2] for m in re.finditer(r"^step (\d+): (.*)$", text, re.M)}


def losses(text):
    return [float(m) for m in re.findall(r"loss (\S+)", text)]


# Detected call of lr_scheduler.step() before optimizer.step()

def test_the_scheduler_warns_after_the_scaler_skipped_the_first_step(chapter):
    outputs = chapter.outputs("scheduler_after_skipped_step.py", "error")
    (warning,) = warnings_in(outputs)
    assert warning["category"] == "UserWarning"
    first_clause = warning["message"].split(". ")[0]
    assert first_clause.replace("`", "") == heading("lr-scheduler-before-step"), "the heading is the message"
    steps = rows(chapter.shown("scheduler_after_skipped_step.py", "error"))
    assert list(steps) == [1, 2, 3, 4]
    assert re.match(r"scale 65536 +gradients inf +lr 0\.00100 +skipped", steps[1]), "overflow at the initial scale"
    assert re.match(r"scale 32768 +gradients finite +lr 0\.00325 +taken", steps[2]), "halved; the 2nd value"
    assert all(re.match(r"scale 32768 +gradients finite .* taken", steps[n]) for n in (3, 4)), "every later step"
    loss = losses("\n".join(steps.values()))
    assert loss[0] == loss[1] and loss[1] > loss[2] > loss[3], "the skipped step left the weights alone"


def test_with_standardised_targets_the_first_step_does_not_overflow(chapter):
    ns = chapter.run("scheduler_after_skipped_step.py")
    assert ns["y"].std() > 3, "targets several times larger than standardised ones"

    def first_gradients_finite(standardise):
        torch.manual_seed(0)  # as the page's block: the same batch, the same initial weights
        x, y = ns["regression_batch"]()
        targets = (y - y.mean()) / y.std() if standardise else y
        model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 1))
        with torch.autocast("cpu", dtype=torch.float16):
            loss = nn.functional.mse_loss(model(x), targets)
        torch.amp.GradScaler("cpu").scale(loss).backward()
        return all(p.grad.isfinite().all() for p in model.parameters())

    assert not first_gradients_finite(standardise=False), "the page's first step"
    assert first_gradients_finite(standardise=True), "the large targets make the overflow"


def test_when_every_step_is_skipped_the_warning_still_appears_once(chapter):
    outputs = chapter.outputs("every_step_skipped.py", "error")
    (warning,) = warnings_in(outputs)
    assert warning["message"].replace("`", "").startswith(heading("lr-scheduler-before-step"))
    text = chapter.shown("every_step_skipped.py", "error")
    assert re.findall(r"^step (\d+): loss nan ", text, re.M) == ["10", "20", "30"]
    assert text.rstrip().endswith("parameters unchanged after 30 steps: True")
    ns = chapter.run("every_step_skipped.py")
    assert ns["y"].isnan().sum() == 1, "one missing target"
    assert ns["scaler"].get_scale() == 65536 / 2**30
    assert "step 30: loss nan  scale 6.1e-05" in text
    assert r"\(65536 / 2^{30} \approx 6 \cdot 10^{-5}\)" in PAGE.read_text(), "the page's figure"


def test_stepping_the_scheduler_only_when_the_optimizer_stepped_removes_the_warning(chapter):
    outputs = chapter.outputs("scheduler_step_when_stepped.py", "fix")
    assert warnings_in(outputs) == []
    steps = rows(chapter.shown("scheduler_step_when_stepped.py", "fix"))
    assert re.match(r"scale 65536 +lr 0\.00100 +skipped", steps[1])
    assert re.match(r"scale 32768 +lr 0\.00100 +taken", steps[2]), "the first step taken gets the first value"
    assert re.match(r"scale 32768 +lr 0\.00325 +taken", steps[3])
    loss = losses("\n".join(steps.values()))
    assert loss[1:] == sorted(loss[1:], reverse=True) and loss[-1] < loss[1], "the loss goes down"
    text = PAGE.read_text()
    assert "2000 by default" in text and torch.amp.GradScaler("cpu").get_growth_interval() == 2000


# expected m1 and m2 to have the same dtype

def test_a_custom_linear_layer_fails_in_backward_under_cpu_autocast(chapter):
    text = chapter.shown("autocast_custom_linear.py", "error")
    assert "logits: torch.bfloat16, weight: torch.float32" in text
    error = "RuntimeError: expected m1 and m2 to have the same dtype, but got: c10::BFloat16 != float"
    assert error in text
    assert f"RuntimeError: {heading('autocast-backward-dtype')}," in text
    assert torch.get_autocast_dtype("cpu") == torch.bfloat16, "the CPU's autocast computes in bfloat16"


def test_autocast_runs_the_forward_addmm_in_bfloat16(chapter):
    ns = chapter.run("custom_linear.py")
    layer = ns["CustomLinear"](4, 2)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = layer(torch.randn(3, 4))
    assert out.dtype == torch.bfloat16


def test_custom_fwd_and_custom_bwd_train_and_backward_computes_in_bfloat16(chapter):
    text = chapter.shown("autocast_custom_linear.py", "fix")
    assert "Error" not in text
    steps = rows(text)
    assert all("weight.grad of the custom layer: torch.float32" in line for line in steps.values())
    loss = losses(text)
    assert len(loss) == 3 and loss[0] > loss[1] > loss[2]
    ns = chapter.run("custom_linear.py")
    seen = []

    class Probe(ns["LinearFunctionAMP"]):
        @staticmethod
        @torch.amp.custom_bwd(device_type="cpu")
        def backward(ctx, grad_output):
            grads = ns["LinearFunction"].backward(ctx, grad_output)
            seen.extend(g.dtype for g in grads[:2])
            return grads

    weight = torch.randn(2, 4, requires_grad=True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = Probe.apply(torch.randn(3, 4), weight, torch.zeros(2, requires_grad=True))
    out.float().sum().backward()
    assert seen == [torch.bfloat16, torch.bfloat16], "the products in backward autocast"
    assert weight.grad.dtype == torch.float32, "autograd casts the gradient to the weight's dtype"


# The messages only the CUDA build raises: recorded, or quoted

@pytest.mark.parametrize("section, case", [("lstm", "cudnn-rnn-backward-eval"), ("dtype", "cuda-dtype-mismatch"),
                                           ("device", "backward-device-mismatch")])
def test_the_gpu_block_prints_the_recorded_message_or_the_quote_linked_on_the_page(chapter, section, case):
    quote = chapter.run("gpu_only_messages.py")["QUOTED"][case]
    run = json.loads(RECORDED.read_text()) if RECORDED.exists() else None
    text = chapter.shown("gpu_only_messages.py", section)
    assert text.startswith(f"RuntimeError: {heading(case)}"), "the heading is the message's first clause"
    if run and case in run["errors"]:
        assert text.startswith(f"RuntimeError: {run['errors'][case]['message']}\n(recorded on ")
    else:
        assert text.startswith(f"RuntimeError: {quote['message']}\n")
        assert f"quoted, no GPU run is recorded: raised in {quote['function']}, {quote['file']}" in text
    section = PAGE.read_text().split(f"{{ #{case} }}")[1].split("\n## ")[0]
    assert f"`{quote['function']}`" in section
    assert re.search(rf"\[{re.escape(quote['file'])}\]\(https://github\.com/pytorch/pytorch/blob/[0-9a-f]{{40}}/"
                     rf"{re.escape(quote['file'])}\)", section)
    assert "needs a GPU" in section


def test_a_recorded_gpu_run_takes_the_place_of_the_quote(chapter, tmp_path):
    ns = chapter.run("gpu_only_messages.py")
    run = {
        "provenance": {"gpu": "NVIDIA H200", "torch": "2.13.0+cu130"},
        "errors": {"cudnn-rnn-backward-eval": {
            "error": "RuntimeError", "message": "cudnn RNN backward can only be called in training mode",
            "function": "_cudnn_rnn_backward_input", "file": "aten/src/ATen/native/cudnn/RNN.cpp", "line": 1234}},
    }
    assert ns["message"]("cudnn-rnn-backward-eval", run) == (
        "RuntimeError: cudnn RNN backward can only be called in training mode\n"
        "(recorded on NVIDIA H200, torch 2.13.0+cu130: raised in _cudnn_rnn_backward_input, "
        "aten/src/ATen/native/cudnn/RNN.cpp, line 1234)")
    quoted = ns["message"]("cuda-dtype-mismatch", run)  # a case the run did not record keeps its quote
    assert quoted == ns["message"]("cuda-dtype-mismatch", None)
    assert quoted.startswith(f"RuntimeError: {ns['QUOTED']['cuda-dtype-mismatch']['message']}\n(quoted, ")
    # recorded_run reads the file where bench/gpu_errors.py writes it, and is None without it
    assert ns["RECORDED"] == RECORDED, "where bench/gpu_errors.py writes"
    assert ns["recorded_run"](tmp_path / "gpu_errors.json") is None
    (tmp_path / "gpu_errors.json").write_text(json.dumps(run))
    assert ns["recorded_run"](tmp_path / "gpu_errors.json") == run


def test_the_benchmark_records_what_the_snippet_prints(chapter, monkeypatch):
    """bench/gpu_errors.py turns a C++ error (its message followed by where it was raised,
    with TORCH_SHOW_CPP_STACKTRACES=1) into the fields gpu_messages.show prints."""
    # the module sets two variables for the torch it imports: here, in a copy of the environment
    monkeypatch.setattr(os, "environ", os.environ.copy())
    monkeypatch.syspath_prepend(str(ROOT / "bench"))  # sys.path is restored after the test
    imported = set(sys.modules)
    try:
        bench = script(ROOT / "bench" / "gpu_errors.py")
    finally:
        for module in set(sys.modules) - imported:  # its `common` and `custom_linear`
            del sys.modules[module]
    err = RuntimeError("expected mat1 and mat2 to have the same dtype, but got: c10::Half != float\n"
                       "Exception raised from addmm_out_cuda_impl at /__w/pytorch/pytorch/aten/src/ATen/native/"
                       "cuda/Blas.cpp:321 (most recent call first):\nframe #0: ...")
    assert bench.raised(err) == {
        "error": "RuntimeError", "message": "expected mat1 and mat2 to have the same dtype, but got: c10::Half != float",
        "function": "addmm_out_cuda_impl", "file": "aten/src/ATen/native/cuda/Blas.cpp", "line": 321}
    assert set(bench.CASES) == set(chapter.run("gpu_only_messages.py")["QUOTED"])
    assert bench.run("cudnn-rnn-backward-eval", torch.device("cpu")) is None, "the CPU computes it"


# cudnn RNN backward can only be called in training mode

def test_on_the_cpu_the_eval_model_gives_an_input_gradient_that_raises_the_loss(chapter):
    ns = chapter.run("lstm_eval_backward.py")
    text = chapter.shown("lstm_eval_backward.py", "cpu")
    assert f"on the CPU: loss {ns['loss'].item():.4f}, input gradient norm {ns['x'].grad.norm():.3e}" in text
    assert ns["x"].grad.norm() > 0
    assert ns["loss_adv"] > ns["loss"], "a step of 0.5 along the gradient's sign raises the loss"
    assert f"loss on the adversarial sequences: {ns['loss_adv'].item():.4f}" in text


def test_training_mode_lstm_with_dropout_zero_gives_the_eval_gradient(chapter):
    assert chapter.shown("lstm_eval_backward.py", "train_lstm") == "same gradient as in eval(): True\n"
    assert chapter.shown("lstm_eval_backward.py", "no_cudnn") == "same gradient as in eval(): True\n"
    ns = chapter.run("lstm_eval_backward.py")
    model, sequences = ns["model"], ns["sequences"]
    assert not model.training and model.lstm.dropout == 0.3, "the snippet puts the model back as it was"
    with torch.no_grad():
        evaluated = model(sequences)
        model.lstm.train()
        torch.manual_seed(0)
        with_dropout = model(sequences)
        model.eval()
    assert not torch.allclose(evaluated, with_dropout), "training mode would switch the LSTM's dropout on"


# expected mat1 and mat2 to have the same dtype

def test_the_cpu_says_m1_and_m2_for_the_float16_mismatch_and_the_fix_runs(chapter):
    text = chapter.shown("cuda_dtype_mismatch.py", "cpu")
    assert text == "RuntimeError: expected m1 and m2 to have the same dtype, but got: c10::Half != float\n"
    assert chapter.shown("cuda_dtype_mismatch.py", "fix").startswith("weight.grad: torch.float32, norm ")
    ns = chapter.run("cuda_dtype_mismatch.py")
    assert ns["grad"].dtype == torch.float32 and ns["grad"].norm() > 0


# .grad is None after .to(device)

def test_a_converted_tensor_is_a_non_leaf_whose_grad_stays_none_and_warns(chapter):
    text = chapter.shown("grad_none_after_to.py", "error")
    assert "to('cpu'): is_leaf=True\n" in text
    assert "to(float64): is_leaf=False, grad_fn=ToCopyBackward0\n" in text
    assert "w.grad: None\n" in text
    warnings = warnings_in(chapter.outputs("grad_none_after_to.py", "error"))
    assert [w["category"] for w in warnings] == ["UserWarning"]
    assert "not a leaf Tensor is being accessed" in warnings[0]["message"]
    t = torch.randn(3, requires_grad=True)
    assert t.to("cpu") is t, "on the CPU, .to('cpu') returns the tensor itself"


def test_creating_on_the_device_or_requires_grad_after_the_move_gives_leaves_with_grads(chapter):
    text = chapter.shown("grad_none_after_to.py", "fix")
    assert "w: is_leaf=True, grad tensor(" in text and "v: is_leaf=True, grad tensor(" in text
    ns = chapter.run("grad_none_after_to.py")
    assert ns["w"].grad is not None and ns["v"].grad is not None
    assert ns["w"].dtype == ns["v"].dtype == torch.float64


def test_model_to_keeps_the_same_parameters_as_leaves_and_they_train(chapter):
    text = chapter.shown("grad_none_after_to.py", "module")
    assert text.startswith("same Parameter: True  leaves: True\n")
    ns = chapter.run("grad_none_after_to.py")
    model = ns["model"]
    assert model.weight.dtype == torch.float64
    moved = model.weight.detach() - ns["before"]
    assert moved.abs().min() > 0 and torch.allclose(moved, -0.1 * model.weight.grad)


# No inf checks were recorded for this optimizer

def test_a_loss_rebuilt_from_numbers_reaches_no_parameter_and_the_scaler_asserts(chapter):
    text = chapter.shown("scaler_no_inf_checks.py", "error")
    assert text == f"AssertionError: {heading('no-inf-checks')}.\ngradient of the first layer: None\n"
    ns = chapter.run("scaler_no_inf_checks.py")
    model = ns["classifier"]()
    with torch.autocast("cpu", dtype=torch.float16):
        logits = model(ns["x"])
    loss = torch.tensor([1.0, 2.0], requires_grad=True).mean()
    assert loss.grad_fn.next_functions[0][0].variable is not None, "a new leaf: the graph starts there"
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    before = [p.detach().clone() for p in model.parameters()]
    loss.backward()
    optimizer.step()  # without a scaler: nothing moves, nothing is said
    assert all(p.grad is None for p in model.parameters())
    assert all(torch.equal(a, p) for a, p in zip(before, model.parameters()))
    assert logits.requires_grad


def test_the_frozen_parts_optimizer_raises_and_the_other_steps(chapter):
    assert chapter.shown("scaler_no_inf_checks.py", "frozen") == (
        f"model[0]: AssertionError: {heading('no-inf-checks')}.\nmodel[2]: stepped\n")


def test_zero_grad_before_the_step_sets_the_gradients_to_none(chapter):
    assert chapter.shown("scaler_no_inf_checks.py", "zero_grad") == f"AssertionError: {heading('no-inf-checks')}.\n"
    assert inspect.signature(torch.optim.Optimizer.zero_grad).parameters["set_to_none"].default is True
    assert "By default it sets every `.grad` to `None`" in PAGE.read_text()


def test_without_scaler_scale_the_step_asserts_before_any_inf_check(chapter):
    text = chapter.shown("scaler_no_inf_checks.py", "not_scaled")
    assert text.startswith("AssertionError: Attempted step but _scale is None.")
    assert torch.amp.GradScaler("cpu")._scale is None, "no scale until scale() is called"


def test_the_fix_trains_the_trainable_part(chapter):
    text = chapter.shown("scaler_no_inf_checks.py", "fix")
    loss = losses(text)
    assert len(loss) == 5 and all(a > b for a, b in zip(loss, loss[1:]))
    ns = chapter.run("scaler_no_inf_checks.py")
    assert ns["model"][0].weight.grad is None and ns["model"][2].weight.grad is not None
    assert len(ns["trainable"]) == 2


# unscale_() has already been called on this optimizer since the last update()

def test_clipping_after_every_micro_batch_raises_at_the_second(chapter):
    text = chapter.shown("scaler_unscale_twice.py", "error")
    assert text == f"micro-batch 2: RuntimeError: {heading('unscale-called-twice')}.\n"


def test_a_second_unscale_would_mix_scaled_and_unscaled_gradients(chapter):
    ns = chapter.run("scaler_unscale_twice.py")
    model = ns["regressor"]()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    (x1, x2), (y1, y2) = ns["x"].split(8)[:2], ns["y"].split(8)[:2]
    scaler.scale(ns["micro_batch_loss"](model, x1, y1)).backward()
    scaler.unscale_(optimizer)
    first = model[0].weight.grad.clone()
    scaler.scale(ns["micro_batch_loss"](model, x2, y2)).backward()  # no step was taken in between
    model_b = ns["regressor"]()
    ns["micro_batch_loss"](model_b, x2, y2).backward()
    assert torch.allclose(model[0].weight.grad, first + 65536 * model_b[0].weight.grad, rtol=1e-2, atol=1e-3)
    with pytest.raises(RuntimeError, match=re.escape(heading("unscale-called-twice"))):
        scaler.unscale_(optimizer)


def test_two_helpers_that_each_unscale_raise_and_one_unscale_for_both_works(chapter):
    text = chapter.shown("scaler_unscale_twice.py", "helpers")
    assert re.fullmatch(rf"gradient norm: [\d.]+\nRuntimeError: {re.escape(heading('unscale-called-twice'))}\.\n", text)
    ns = chapter.run("scaler_unscale_twice.py")
    model = ns["regressor"]()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    scaler.scale(ns["micro_batch_loss"](model, ns["x"], ns["y"]) * ns["accumulate"]).backward()
    scaler.unscale_(optimizer)  # once, in the training step; the helpers do not unscale
    norm = torch.cat([p.grad.flatten() for p in model.parameters()]).norm()
    nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    scaler.step(optimizer)
    scaler.update()
    assert f"gradient norm: {norm:.4f}" in text


def test_one_unscale_per_step_trains(chapter):
    text = chapter.shown("scaler_unscale_twice.py", "fix")
    loss = losses(text)
    assert len(loss) == 3 and loss[0] > loss[1] > loss[2]
    norms = [float(n) for n in re.findall(r"gradient norm before clipping (\S+)", text)]
    helpers = chapter.shown("scaler_unscale_twice.py", "helpers")
    (logged,) = re.findall(r"gradient norm: (\S+)", helpers)
    assert abs(norms[0] - float(logged)) < 1e-3, "the accumulated gradient is the whole batch's"


# Attempting to unscale FP16 gradients

def test_half_parameters_have_float16_gradients_that_the_scaler_refuses(chapter):
    text = chapter.shown("scaler_fp16_parameters.py", "error")
    assert text == f"gradient dtype: torch.float16\nValueError: {heading('unscale-fp16')}.\n"
    ns = chapter.run("scaler_fp16_parameters.py")
    model = ns["classifier"]().half()
    scaler = torch.amp.GradScaler("cpu")
    scaler.scale(model(ns["x"].half()).float().sum()).backward()
    with pytest.raises(ValueError, match=heading("unscale-fp16")):
        scaler.unscale_(torch.optim.SGD(model.parameters(), lr=0.1))  # unscale_ refuses too


def test_a_frozen_float16_part_is_let_be_and_an_unfrozen_one_refused(chapter):
    assert chapter.shown("scaler_fp16_parameters.py", "part") == (
        "model[0] frozen:   stepped\n"
        f"model[0] unfrozen: ValueError: {heading('unscale-fp16')}.\n")
    assert chapter.shown("scaler_fp16_parameters.py", "fix_part") == "model[0] unfrozen, float32: stepped\n"


def test_float32_parameters_under_autocast_train_with_float32_gradients(chapter):
    text = chapter.shown("scaler_fp16_parameters.py", "fix")
    assert text.count("logits torch.float16  gradients torch.float32") == 5
    loss = losses(text)
    assert all(a > b for a, b in zip(loss, loss[1:]))
    ns = chapter.run("scaler_fp16_parameters.py")
    assert all(p.dtype == torch.float32 for p in ns["model"].parameters())
    assert "(gpu.md#exercises)" in PAGE.read_text() and "float16 master weights" in (ROOT / "docs" / "gpu.md").read_text()


# Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!

def test_the_quote_is_the_message_torch_formats(chapter):
    quote = chapter.run("gpu_only_messages.py")["QUOTED"]["backward-device-mismatch"]
    library = (Path(torch.__file__).parent / "lib" / "libtorch_cpu.so").read_bytes()
    assert b"Expected all tensors to be on the same device, but found at least two devices, " in library
    assert quote["message"] == heading("backward-device-mismatch")
    # PyTorch's fake tensors, which simulate a device, check devices as TensorIterator does
    from torch._subclasses.fake_tensor import FakeTensorMode

    ns = chapter.run("sum_function.py")
    with FakeTensorMode():
        grad_output = torch.empty((), device="cuda")
        with pytest.raises(RuntimeError) as raised:
            ns["SumAll"].backward(type("ctx", (), {"input_shape": (3, 4)}), grad_output)
        assert str(raised.value) == quote["message"]
        assert ns["SumAllOnDevice"].backward(type("ctx", (), {"input_shape": (3, 4)}), grad_output).device.type == "cuda"
        assert (torch.empty(3, 4, device="cuda") * torch.ones(())).device.type == "cuda", "a 0-dim CPU tensor may join"


def test_on_the_cpu_the_broken_function_is_right_and_passes_gradcheck(chapter):
    assert chapter.shown("backward_device_mismatch.py", "cpu") == "on the CPU: cpu gradcheck: True\n"


def test_on_the_meta_device_the_ones_are_on_the_cpu_and_backward_raises(chapter):
    assert chapter.shown("backward_device_mismatch.py", "meta") == (
        "torch.ones in backward: cpu  gradient: meta\n"
        "RuntimeError: Tensor on device cpu is not on the expected device meta!\n")


def test_the_fixed_function_gives_the_gradient_on_its_device_and_passes_gradcheck(chapter):
    assert chapter.shown("backward_device_mismatch.py", "fix") == (
        "on the meta device: meta (3, 4)\ngradcheck on the CPU: True\n")
    ns = chapter.run("sum_function.py")
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradgradcheck(ns["SumAllOnDevice"].apply, x)
    g = torch.tensor(2.0, dtype=torch.float64)
    assert torch.equal(ns["SumAllOnDevice"].backward(type("ctx", (), {"input_shape": (3, 4)}), g), g.expand(3, 4))


# Links

def test_the_linked_anchors_exist(built_site):
    links = re.findall(r"\]\((\w+)\.md#([\w-]+)\)", PAGE.read_text())
    assert len(links) >= 6
    for page, anchor in links:
        assert soup(built_site / page / "index.html").find(id=anchor) is not None, f"{page}.md#{anchor}"
    for anchor in re.findall(r"\]\(#([\w-]+)\)", PAGE.read_text()):
        assert soup(built_site / "errors_gpu" / "index.html").find(id=anchor) is not None, anchor
