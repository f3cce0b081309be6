"""Claims of the page 'Errors of mixed precision and GPUs' (docs/errors_gpu.md)."""

import importlib.util
import json
import os
import re
import sys

import pytest
import torch
from conftest import ROOT, soup, warnings_in
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

@pytest.mark.parametrize("section, case", [("lstm", "cudnn-rnn-backward-eval"), ("dtype", "cuda-dtype-mismatch")])
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
    spec = importlib.util.spec_from_file_location("gpu_errors", ROOT / "bench" / "gpu_errors.py")
    bench = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(bench)
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


# Links

def test_the_linked_anchors_exist(built_site):
    links = re.findall(r"\]\((\w+)\.md#([\w-]+)\)", PAGE.read_text())
    assert len(links) >= 6
    for page, anchor in links:
        assert soup(built_site / page / "index.html").find(id=anchor) is not None, f"{page}.md#{anchor}"
    for anchor in re.findall(r"\]\(#([\w-]+)\)", PAGE.read_text()):
        assert soup(built_site / "errors_gpu" / "index.html").find(id=anchor) is not None, anchor
