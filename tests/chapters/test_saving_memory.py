"""Claims of the chapter 'Saving memory' (docs/saving_memory.md).

Timings are never measured here: the benchmark runs once on tiny sizes to check
that it works and writes its schema, and the prose's reading of the committed
data file is checked against that file. Byte counts are exact and are checked
against what the model's shapes predict.
"""

import json

import pytest
import torch
from conftest import ROOT, kind, printed, run_benchmark, warnings_in

BENCH = ROOT / "bench" / "saving_memory.py"
DATA = ROOT / "bench" / "results" / "saving_memory.json"
CHECKPOINTS = ["checkpoint each block", "checkpoint each block (reentrant)", "selective checkpoint"]
VARIANTS = ["plain", *CHECKPOINTS, "save_on_cpu", "pack to bfloat16", "pack to float16"]
COMPRESSED = ["pack to bfloat16", "pack to float16"]
# Stored besides the activations: cross_entropy's (batch, 10) float32 log-probabilities,
# saved by log_softmax and by nll_loss and counted once, and nll_loss's float32 total weight.
LOSS_BYTES = {128: 128 * 10 * 4 + 4, 8: 8 * 10 * 4 + 4}


def expected_bytes(depth, batch):
    """What the shapes predict: per block the Linear stores its input (the first one: the
    batch, not counted) and the ELU its input; the head stores its input. A checkpointed
    block stores its input only; the selective segment its input (the batch) and the
    Linears' outputs."""
    activation = batch * 1024 * 4
    plain = (2 * depth) * activation + LOSS_BYTES[batch]
    # Packed to 2 bytes a value, the log-probabilities are converted twice: two copies.
    half = depth * activation + 2 * (batch * 10 * 2) + 2
    checkpointed = plain - depth * activation
    return {"plain": plain, "checkpoint each block": checkpointed,
            "checkpoint each block (reentrant)": checkpointed,
            "selective checkpoint": checkpointed + activation,
            "save_on_cpu": plain, "pack to bfloat16": half, "pack to float16": half}


def check_schema(data):
    assert set(data["provenance"]) == {"cpu", "cores", "threads", "torch", "python", "date", "command"}
    assert data["provenance"]["command"].startswith("python bench/saving_memory.py")
    assert data["baseline"] == "plain" and data["dtype"] == "float32"
    assert data["activation_bytes"] == data["batch"] * 1024 * 4
    assert [v["name"] for v in data["variants"]] == VARIANTS
    saved = {v["name"]: v["saved_bytes"] for v in data["variants"]}
    assert saved == expected_bytes(data["model"]["depth"], data["batch"])
    for v in data["variants"]:
        assert v["saved_bytes_by_device"] == {"cpu": v["saved_bytes"]}
        assert len(v["round_medians"]) == data["rounds"]
        assert v["median_seconds"] > 0 and v["loss_equal"]
    exact = {v["name"]: v["gradients_equal"] for v in data["variants"]}
    assert exact == {name: name not in COMPRESSED for name in VARIANTS}
    plain = data["variants"][0]
    assert plain["median_ratio_to_plain"] == 1.0 and plain["max_relative_gradient_error"] == 0


def test_benchmark_runs_and_writes_its_schema(tmp_path):
    args = ["--depth", "2", "--batch", "8", "--rounds", "2", "--steps", "1"]
    output = tmp_path / "saving.json"
    data = run_benchmark(BENCH, output, *args)
    check_schema(data)
    assert data["model"]["depth"] == 2 and data["batch"] == 8 and data["rounds"] == 2
    assert data["provenance"]["threads"] == 1 and data["provenance"]["torch"] == torch.__version__
    assert data["provenance"]["command"].endswith(" ".join([*args, "--output", str(output)]))


def test_committed_data_file_has_the_schema_and_the_page_sizes():
    data = json.loads(DATA.read_text())
    check_schema(data)
    assert data["model"] == {"depth": 8, "inputs": 512, "width": 1024, "classes": 10,
                             "parameter_bytes": 31_531_048}
    assert data["batch"] == 128 and data["rounds"] == 41 and data["steps_per_round"] == 1
    assert data["provenance"]["threads"] == 1


def test_the_prose_reading_of_the_committed_data():
    data = json.loads(DATA.read_text())
    v = {x["name"]: x for x in data["variants"]}
    ratio = {name: x["median_ratio_to_plain"] for name, x in v.items()}
    memory = {name: x["saved_bytes"] / v["plain"]["saved_bytes"] for name, x in v.items()}
    activation = data["activation_bytes"] / v["plain"]["saved_bytes"]
    # "checkpointing each block halves the stored bytes and costs the most time: ...
    # a forward pass is about a third of the arithmetic; this run measured more than a third more"
    assert memory["checkpoint each block"] == pytest.approx(0.5, abs=0.005)
    assert ratio["checkpoint each block"] == max(ratio.values())
    assert ratio["checkpoint each block"] > 1 + 0.36
    # "the reentrant checkpoint stores the same tensors, gives the same gradients and took
    # about as long, within a tenth of a plain step"
    assert v["checkpoint each block (reentrant)"]["saved_bytes"] == v["checkpoint each block"]["saved_bytes"]
    assert v["checkpoint each block (reentrant)"]["gradients_equal"]
    assert abs(ratio["checkpoint each block (reentrant)"] - ratio["checkpoint each block"]) < 0.1
    # "selective checkpointing stores one activation more than checkpointing each block:
    # nine ...; the plain model stores sixteen"
    assert memory["selective checkpoint"] - memory["checkpoint each block"] == pytest.approx(activation)
    assert memory["plain"] - memory["selective checkpoint"] == pytest.approx(7 * activation)
    assert v["plain"]["saved_bytes"] // data["activation_bytes"] == 16
    # "its gradients are the plain model's, and in this run its step took longer than a plain
    # step and less than either checkpoint's"
    assert v["selective checkpoint"]["gradients_equal"]
    assert 1 < ratio["selective checkpoint"] < min(ratio[name] for name in CHECKPOINTS[:2])
    # "compression halves the bytes too ... in this run less than a fifth of a plain step
    # more, less than any checkpoint"
    assert all(memory[name] == pytest.approx(0.5, abs=0.005) for name in COMPRESSED)
    assert all(ratio[name] < min(1.2, *(ratio[c] for c in CHECKPOINTS)) for name in COMPRESSED)
    # "save_on_cpu saves nothing on a CPU, and took as long as a plain step, within 5 %"
    assert memory["save_on_cpu"] == 1.0
    assert abs(ratio["save_on_cpu"] - 1) < 0.05
    # "float16 errs about ten times less than bfloat16"
    error = {name: x["max_relative_gradient_error"] for name, x in v.items()}
    assert 7 < error["pack to bfloat16"] / error["pack to float16"] < 13
    assert error["pack to bfloat16"] < torch.finfo(torch.bfloat16).eps
    assert error["pack to float16"] < torch.finfo(torch.float16).eps


def test_results_snippet_prints_the_data_file(chapter):
    data = json.loads(DATA.read_text())
    table = chapter.shown("benchmark_results.py", "table").splitlines()
    assert len(table) == 4 + len(VARIANTS)
    assert f"one activation is {data['activation_bytes']:,} bytes" in table[0]
    for line, v in zip(table[4:], data["variants"]):
        assert line.startswith(v["name"]) and f"{v['saved_bytes']:,}" in line
        assert f"{v['median_ratio_to_plain']:.2f}" in line and f"{v['max_relative_gradient_error']:.1e}" in line
    provenance = chapter.shown("benchmark_results.py", "provenance")
    assert all(str(value) in provenance for value in data["provenance"].values())
    result = chapter.result("benchmark_results.py")
    assert [kind(o) for o in result.select()].count("figure") == 1
    assert str(DATA) in map(str, result.deps), "the page rebuilds when the data file changes"


def test_count_of_the_plain_model(chapter):
    lines = chapter.shown("count_saved.py", "count").splitlines()
    assert lines == [
        "pack hook calls: 29",
        "stored for backward, parameters and inputs not counted: 18 tensors, 8,393,732 bytes",
        "   16 x   524,288 bytes",
        "    1 x     5,120 bytes",
        "    1 x         4 bytes",
        "one activation, 128 x 1024 float32: 524,288 bytes",
        "the parameters, for comparison: 31,531,048 bytes",
    ]
    ns = chapter.run("count_saved.py")
    assert ns["saved"].nbytes() == expected_bytes(8, 128)["plain"]
    assert ns["parameter_bytes"] == sum(p.numel() * 4 for p in ns["model"].parameters())


def test_the_counter_counts_a_storage_once(chapter):
    ns = chapter.run("saved_bytes.py")
    t = torch.randn(10, 10, requires_grad=True)
    with ns["SavedBytes"]() as saved:
        (t * t).sum()  # mul saves t twice
        t.t().exp()  # exp saves its output; a view of t is not saved
        (t[:5] * 2.0).sum()  # mul by a number saves nothing
        t[:5].sin()  # sin saves its input, a view of t
    assert saved.packs == 4 and saved.nbytes() == 400 + 400


def test_checkpoint_stores_half_recomputes_and_gives_identical_gradients(chapter):
    assert chapter.shown("checkpoint_blocks.py", "checkpoint").splitlines() == [
        "stored: 10 tensors, 4,199,428 bytes (0.50 x plain)",
        "after forward:  8 block forwards started, 8 finished",
        "after backward: 16 block forwards started, 8 finished",
        "loss identical to the plain model's: True",
        "gradients identical to the plain model's: True",
    ]
    ns = chapter.run("checkpoint_blocks.py")
    assert all(torch.equal(g, p) for g, p in zip(ns["grads"], ns["plain_grads"]))
    assert ns["saved"].nbytes() == expected_bytes(8, 128)["checkpoint each block"]


def test_a_segment_is_recomputed_at_once_and_freed_tensor_by_tensor():
    """Non-reentrant checkpoint: all the recomputed tensors exist right after the recomputation,
    and each goes as soon as the node that saved it has run, before the segment's backward ends."""
    import weakref

    from torch.utils.checkpoint import checkpoint

    recomputed = []  # weak references to the storages of the tensors made in backward

    def segment(x):
        for _ in range(4):
            x = torch.tanh(x * 1.5)  # TanhBackward0 saves its output
            if recomputing:
                recomputed.append(weakref.ref(x.untyped_storage()))
        return x

    recomputing = False
    out = checkpoint(segment, torch.randn(1000, generator=torch.Generator().manual_seed(0), requires_grad=True),
                     use_reentrant=False)
    nodes, node = [], out.grad_fn
    while node.name() != "torch::autograd::AccumulateGrad":
        nodes.append(node)
        node = node.next_functions[0][0]
    assert [n.name() for n in nodes] == ["TanhBackward0", "MulBackward0"] * 4, "the segment's own nodes"
    alive = []
    for node in nodes:
        node.register_prehook(lambda grads: alive.append(sum(r() is not None for r in recomputed)))
    recomputing = True
    out.sum().backward()
    # The first node's unpack recomputes the segment (it stops once it has the last saved tensor).
    assert alive[0] == 0 and alive[1] == len(recomputed) == 3, "recomputed at once"
    assert alive[1:] == [3, 3, 2, 2, 1, 1, 0], "each freed once its TanhBackward0 has run"

def test_save_on_cpu_keeps_the_same_tensor_on_a_cpu(chapter):
    assert chapter.shown("offload_save_on_cpu.py", "hooks").splitlines() == [
        "stored on: cpu | the same tensor as t: True",
        "unpacked back to: cpu | still t: True",
    ]
    assert chapter.shown("offload_save_on_cpu.py", "model").splitlines() == [
        "stored on cpu: 8,393,732 bytes",
        "stored on cuda: 0 bytes",
        "plain model, for comparison: 8,393,732 bytes",
        "gradients identical to the plain model's: True",
    ]


def test_compression_halves_the_bytes_and_the_measured_error(chapter):
    lines = chapter.shown("compress_saved.py", "compress").splitlines()
    assert lines[0].split() == ["stored", "as", "bytes", "x", "plain", "same", "loss", "gradient", "error"]
    ns = chapter.run("compress_saved.py")
    half = expected_bytes(8, 128)["pack to bfloat16"]
    errors = {}
    for line, dtype in zip(lines[1:], ("bfloat16", "float16")):
        name, nbytes, ratio, same_loss, error = line.split()
        assert (name, nbytes, ratio, same_loss) == (dtype, f"{half:,}", "0.50", "True")
        errors[dtype] = float(error)
    # the same errors as the benchmark's run of the same model (to the printed digits)
    data = json.loads(DATA.read_text())
    measured = {v["name"]: v["max_relative_gradient_error"] for v in data["variants"]}
    assert errors["bfloat16"] == pytest.approx(measured["pack to bfloat16"], rel=0.05)
    assert errors["float16"] == pytest.approx(measured["pack to float16"], rel=0.05)
    roundoff = chapter.shown("compress_saved.py", "roundoff").splitlines()
    assert roundoff == ["bfloat16  relative rounding error at most 3.9e-03",
                        "float16   relative rounding error at most 4.9e-04"]
    # "of the order of each format's rounding error", "8 bits for bfloat16, 11 for float16"
    assert 2**-8 / 10 < errors["bfloat16"] <= 2**-8 * 1.1 and 2**-11 / 10 < errors["float16"] <= 2**-11 * 1.1
    assert torch.finfo(torch.bfloat16).eps == 2**-7 and torch.finfo(torch.float16).eps == 2**-10
    assert torch.finfo(torch.float16).max == 65504 and torch.finfo(torch.bfloat16).max > 3e38
    assert ns["relative_error"](ns["plain_grads"], ns["plain_grads"]) == 0


def test_compressing_hooks_leave_parameters_and_other_dtypes_alone(chapter):
    ns = chapter.run("compressed_saving.py")
    w = torch.randn(3, 3)
    pack, unpack = ns["compressing_hooks"](torch.bfloat16, exclude=[w])
    assert pack(w)[1] is w and pack(w.t())[1].data_ptr() == w.data_ptr()
    labels = torch.arange(3)
    assert pack(labels)[1] is labels
    a = torch.randn(3, 3)
    stored = pack(a)[1]
    assert stored.dtype == torch.bfloat16 and unpack(pack(a)).dtype == torch.float32


def test_solution_every_other_block(chapter):
    lines = chapter.shown("solution_every_other_block.py").splitlines()
    plain = expected_bytes(8, 128)["plain"]
    predicted = plain - 4 * 128 * 1024 * 4
    assert lines == [f"predicted {predicted:,} bytes, counted {predicted:,} bytes",
                     f"{predicted / plain:.2f} x plain",
                     "gradients identical to the plain model's: True"]


def test_solution_count_by_op(chapter):
    lines = chapter.shown("solution_count_by_op.py").splitlines()
    parameters = 7 * 1024 * 1024 * 4 + 1024 * 10 * 4  # weights the first layer's input needs none of
    linear_bytes = 128 * 512 * 4 + parameters + 8 * 128 * 1024 * 4
    assert [line.split() for line in lines] == [
        ["operation", "packs", "storages", "bytes"],
        ["linear", "17", "17", f"{linear_bytes:,}"],
        ["elu", "8", "8", f"{8 * 128 * 1024 * 4:,}"],
        ["cross_entropy", "4", "3", f"{128 * 10 * 4 + 128 * 8 + 4:,}"],
    ]


def test_parameters_are_almost_four_times_the_activations(chapter):
    ns = chapter.run("count_saved.py")
    assert 3.5 < ns["parameter_bytes"] / ns["saved"].nbytes() < 4


def test_a_forward_pass_is_about_a_third_of_the_arithmetic():
    """Multiply-adds of the Linear layers: forward x @ W.T; backward the weight's gradient,
    and the input's gradient for every layer but the first (the batch needs none)."""
    shapes = [(512, 1024)] + [(1024, 1024)] * 7 + [(1024, 10)]
    forward = sum(i * o for i, o in shapes)
    backward = forward + sum(i * o for i, o in shapes[1:])
    assert 0.3 < forward / (forward + backward) < 0.36


def test_pinned_save_on_cpu_copies_on_a_cpu():
    t = torch.randn(4, 4)
    device, stored = torch.autograd.graph.save_on_cpu(pin_memory=True).pack_hook(t)
    assert stored is not t and stored.data_ptr() != t.data_ptr() and torch.equal(stored, t)


def test_pinned_save_on_cpu_copies_without_waiting_but_on_the_current_stream():
    """With pin_memory=True both copies are non_blocking (pinned memory only where a GPU
    is), and the hooks queue them where they are called: no stream of their own."""
    import inspect

    source = inspect.getsource(torch.autograd.graph.save_on_cpu.__init__)
    assert "pin_memory=is_pinnable" in source, "pack copies into page-locked memory"
    assert "packed.copy_(tensor, non_blocking=is_pinnable)" in source, "the copy out"
    assert "tensor.to(device, non_blocking=pin_memory)" in source, "the copy back"
    assert "stream" not in source.lower(), "no side stream: the current stream's order"
    page = (ROOT / "docs" / "saving_memory.md").read_text()
    assert "gpu.md#pinned-memory-non_blocking-and-a-side-stream" in page
    assert "### Pinned memory, `non_blocking` and a side stream" in (ROOT / "docs" / "gpu.md").read_text()


def test_checkpoint_inputs_go_through_a_compressing_hook(chapter):
    ns = chapter.run("compress_saved.py")
    model, x, labels, exclude = ns["model"], ns["x"], ns["labels"], ns["exclude"]
    seen = []
    model[1].register_forward_pre_hook(lambda module, args: seen.append(args[0]))
    pack, unpack = ns["compressing_hooks"](torch.bfloat16, exclude=exclude)
    SavedBytes = chapter.run("saved_bytes.py")["SavedBytes"]
    with SavedBytes(pack, unpack, exclude=exclude) as saved:
        loss = ns["loss_of"](model, x, labels, checkpointed=range(8))
    ns["gradients"](model, loss)
    assert saved.nbytes() == 8 * 128 * 1024 * 2 + 2 * (128 * 10 * 2) + 2
    forward_input, recomputed_input = seen
    assert torch.equal(recomputed_input, forward_input.to(torch.bfloat16).float())
    assert not torch.equal(recomputed_input, forward_input)


# The reentrant checkpoint, dropout, selective checkpointing


def test_the_reentrant_checkpoint_needs_an_input_that_requires_grad(chapter):
    assert chapter.shown("reentrant_checkpoint.py", "needs_grad") == (
        "parameters with a gradient: 2 of 18\nwith an input that requires grad: True\n")
    warned = [w["message"] for w in warnings_in(chapter.outputs("reentrant_checkpoint.py", "needs_grad"))]
    assert warned == ["None of the inputs have requires_grad=True. Gradients will be None"]
    ns = chapter.run("reentrant_checkpoint.py")
    model, x = ns["model"], ns["x"]
    assert not x.requires_grad
    model.zero_grad()
    ns["reentrant_loss"](x).backward()
    with_grad = [name for name, p in model.named_parameters() if p.grad is not None]
    assert with_grad == ["8.weight", "8.bias"], "the head only"


def test_the_reentrant_checkpoint_refuses_autograd_grad_and_recomputes_to_the_end(chapter):
    shown = chapter.shown("reentrant_checkpoint.py", "autograd_grad")
    assert shown.startswith("RuntimeError: When use_reentrant=True, torch.utils.checkpoint is incompatible "
                            "with .grad() or passing an `inputs` parameter to .backward().")
    assert chapter.shown("reentrant_checkpoint.py", "recompute") == "block forwards: 16 started, 16 finished\n"
    plain = chapter.shown("checkpoint_blocks.py", "checkpoint")
    assert "after backward: 16 block forwards started, 8 finished" in plain, "non-reentrant: none finishes"


def test_without_use_reentrant_2_13_warns_and_runs_the_reentrant_checkpoint(chapter):
    outputs = chapter.outputs("reentrant_checkpoint.py", "default")
    messages = [w["message"] for w in warnings_in(outputs)]
    assert any("the use_reentrant parameter should be passed explicitly" in m
               and "Starting in PyTorch 2.9" in m for m in messages)
    assert printed(outputs) == "requires grad: False\n"
    assert torch.__version__.startswith("2.13.0")
    layer = torch.nn.Linear(3, 3)
    with pytest.warns(UserWarning):
        out = torch.utils.checkpoint.checkpoint(layer, torch.randn(2, 3, requires_grad=True))
    assert out.grad_fn.name() == "CheckpointFunctionBackward", "the reentrant Function"


def test_preserve_rng_state_makes_the_recomputed_dropout_mask_the_same(chapter):
    assert chapter.shown("checkpoint_options.py", "dropout") == (
        "preserve_rng_state=True   same gradient: True\n"
        "preserve_rng_state=False  same gradient: False\n")


def test_selective_checkpointing_keeps_the_matmuls_and_recomputes_the_elus(chapter):
    assert chapter.shown("checkpoint_options.py", "selective") == (
        "whole segment  recomputed in backward: {'addmm': 8, 'elu': 7}\n"
        "selective      recomputed in backward: {'addmm': 0, 'elu': 7}\n")
    ns = chapter.run("checkpoint_options.py")
    model, x, labels = ns["model"], ns["x"], ns["labels"]
    ckpt = torch.utils.checkpoint
    kept = []

    def recording(ctx, op, *args, **kwargs):
        decision = ns["save_matmuls"](ctx, op, *args, **kwargs)
        if not ctx.is_recompute and decision == ckpt.CheckpointPolicy.MUST_SAVE:
            kept.append(op)
        return decision

    plain = ns["gradients"](model, torch.nn.functional.cross_entropy(model(x), labels))
    h = ckpt.checkpoint(model[:-1], x, use_reentrant=False,
                        context_fn=lambda: ckpt.create_selective_checkpoint_contexts(recording))
    grads = ns["gradients"](model, torch.nn.functional.cross_entropy(model[-1](h), labels))
    assert kept == [torch.ops.aten.addmm.default] * 8
    assert all(torch.equal(g, p) for g, p in zip(grads, plain)), "the same gradients"
    assert 8 * 128 * 1024 * 4 == 4 * 2**20, "4 MiB of matmul outputs"
    # the plain model stores 16 activations of that size: the 8 kept are half
    count = chapter.shown("count_saved.py", "count")
    assert "16 x   524,288 bytes" in count


def test_selective_checkpointing_one_block_at_a_time_would_save_nothing(chapter):
    """The benchmark's selective segment and the same policy block by block, counted as the
    benchmark counts: the kept products go through the counter's pack hook."""
    ns = chapter.run("checkpoint_options.py")
    model, x, labels = ns["model"], ns["x"], ns["labels"]
    SavedBytes = chapter.run("saved_bytes.py")["SavedBytes"]
    ckpt = torch.utils.checkpoint

    def stored(segments):
        kept = []

        def keeping(ctx, op, *args, **kwargs):
            decision = ns["save_matmuls"](ctx, op, *args, **kwargs)
            if decision == ckpt.CheckpointPolicy.MUST_SAVE:
                kept.append(ctx.op_output)
            return decision

        with SavedBytes(exclude=[*model.parameters(), x, labels]) as saved:
            h = x
            for segment in segments:
                h = ckpt.checkpoint(segment, h, use_reentrant=False,
                                    context_fn=lambda: ckpt.create_selective_checkpoint_contexts(keeping))
            torch.nn.functional.cross_entropy(model[-1](h), labels)
            for t in kept:
                saved.pack_hook(t)
        return saved.nbytes()

    expected = expected_bytes(8, 128)
    assert stored([model[:-1]]) == expected["selective checkpoint"], "the benchmark's segment"
    assert stored(model[:-1]) == expected["plain"], "block by block: what the plain model stores"
    # "every operation of the segment also goes through the policy's dispatch mode"
    from torch.utils._python_dispatch import TorchDispatchMode
    contexts = ckpt.create_selective_checkpoint_contexts(ns["save_matmuls"])
    assert all(isinstance(c, TorchDispatchMode) for c in contexts), "forward, recomputation"


def test_the_benchmark_reentrant_input_shares_the_batch_memory():
    x = torch.randn(4, 3)
    alias = x.detach().requires_grad_()
    assert alias.requires_grad and alias.is_leaf and not x.requires_grad
    assert alias.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()


def test_solution_save_elu_outputs(chapter):
    lines = chapter.shown("solution_save_elu_outputs.py").splitlines()
    assert lines[0].split() == ["policy", "keeps", "storages", "bytes", "x", "plain", "recomputed", "in",
                                "backward"]
    counted = {}
    for line in lines[1:]:
        name, rest = line[:16].strip(), line[16:].split(maxsplit=3)
        counted[name] = (int(rest[0]), int(rest[1].replace(",", "")), rest[2], rest[3])
    activation = 128 * 1024 * 4
    expected = expected_bytes(8, 128)
    # "stored once, it makes eight activations against the nine of the policy above, 0.50 of the
    # plain model's bytes against 0.56, as much as checkpointing each block"; besides the
    # activations, cross_entropy's log-probabilities and total weight: two storages
    assert counted == {
        "matrix products": (9 + 2, 9 * activation + LOSS_BYTES[128], "0.56", "{'addmm': 0, 'elu': 7}"),
        "ELU outputs": (8 + 2, 8 * activation + LOSS_BYTES[128], "0.50", "{'addmm': 8, 'elu': 0}"),
    }
    assert counted["matrix products"][1] == expected["selective checkpoint"]
    assert counted["ELU outputs"][1] == expected["checkpoint each block"]
    assert f"{counted['ELU outputs'][1]:,} bytes" in chapter.shown("checkpoint_blocks.py", "checkpoint")
    # "the last one is the head's input, which the head stores anyway: stored once"
    ns = chapter.run("solution_save_elu_outputs.py")
    model = ns["model"]
    kept, head_input = [], []

    def keeping_elus(ctx, op, *args, **kwargs):
        if op == torch.ops.aten.elu.default:
            kept.append(ctx.op_output)
        return ns["save_elus"](ctx, op, *args, **kwargs)

    handle = model[-1].register_forward_pre_hook(lambda module, args: head_input.append(args[0]))
    try:
        saved, _ = ns["step"](keeping_elus)
    finally:
        handle.remove()
    assert len(kept) == 8 and len(saved.stored) == 10
    storage = kept[-1].untyped_storage().data_ptr()
    assert storage == head_input[0].untyped_storage().data_ptr() and storage in saved.stored
    assert all(t.untyped_storage().data_ptr() != storage for t in kept[:-1])
