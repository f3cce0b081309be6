"""Claims of the page 'Errors of checkpoints and DistributedDataParallel'
(docs/errors_distributed.md)."""

import ast
import functools
import inspect
import os
import re
import warnings
from pathlib import Path

import torch
from conftest import ROOT, kind, warnings_in
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.checkpoint import checkpoint

PAGE = (ROOT / "docs" / "errors_distributed.md").read_text()


def heading(anchor):
    """The text of the page's `##` heading with id `anchor`."""
    (text,) = re.findall(rf"^## (.*) \{{ #{anchor} \}}$", PAGE, re.M)
    return text


DEFINITION = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef)


def definitions(chapter, name):
    """The namespace of a snippet's definitions (its imports, functions, classes and constants),
    without running any block (the DDP snippets' blocks start processes)."""
    path = chapter.path(name)
    tree = ast.parse(path.read_text())
    tree.body = [node for node in tree.body if isinstance(node, DEFINITION)
                 or isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)]
    chapter.monkeypatch.syspath_prepend(str(chapter.folder))
    namespace = {"__name__": "definitions"}
    exec(compile(tree, str(path), "exec"), namespace)
    return namespace


def rank_lines(text):
    """{(rank, label): value} of lines 'rank R, label: value' or 'rank R: value'; a
    value that is a dict is parsed, an error stays text (its first line)."""
    found = {}
    for line in text.splitlines():
        if m := re.match(r"rank (\d)(?:, (.*?))?: (.*)$", line):
            rank, label, value = int(m[1]), m[2], m[3]
            found[rank, label] = ast.literal_eval(value) if value.startswith("{") else value
    return found


def reachable_leaves(output):
    """The tensors whose AccumulateGrad node the graph of `output` reaches."""
    seen, stack, leaves = set(), [output.grad_fn], []
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if hasattr(node, "variable"):
            leaves.append(node.variable)
        stack.extend(next_node for next_node, _ in node.next_functions)
    return leaves


def decreasing(losses):
    return all(a > b for a, b in zip(losses, losses[1:]))


# checkpoint: use_reentrant not passed


def test_use_reentrant_warning_is_a_warning_naming_2_9(chapter):
    outputs = chapter.outputs("checkpoint_use_reentrant.py", "error")
    (warning,) = warnings_in(outputs)
    assert warning["category"] == "UserWarning"
    assert warning["message"].startswith(heading("checkpoint-use-reentrant") + ".")
    assert "Starting in PyTorch 2.9" in warning["message"], "it announces an exception from 2.9"
    assert torch.__version__.startswith("2.13"), "in 2.13 it is still a warning"
    assert chapter.shown("checkpoint_use_reentrant.py", "error") == "", "no error, nothing else"


def test_without_use_reentrant_the_reentrant_checkpoint_runs(chapter):
    ns = chapter.run("checkpoint_use_reentrant.py")
    model, x = ns["model"], ns["x"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        default = checkpoint(model[:2], x)
        reentrant = checkpoint(model[:2], x, use_reentrant=True)
    non_reentrant = checkpoint(model[:2], x, use_reentrant=False)
    assert not default.requires_grad and not reentrant.requires_grad, "the reentrant behaviour"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        checkpoint(model[:2], x)
    assert heading("checkpoint-no-input-grad") in {str(w.message).split(".")[0] for w in caught}
    assert non_reentrant.requires_grad


def test_checkpoint_sequential_warns_under_its_own_name(chapter):
    (warning,) = warnings_in(chapter.outputs("checkpoint_use_reentrant.py", "sequential"))
    assert warning["message"].startswith(
        "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed explicitly")
    assert heading("checkpoint-use-reentrant") not in warning["message"], "its own name, another text"


def test_use_reentrant_false_silences_it_and_gives_the_plain_gradient(chapter):
    outputs = chapter.outputs("checkpoint_use_reentrant.py", "fix")
    assert warnings_in(outputs) == []
    text = chapter.shown("checkpoint_use_reentrant.py", "fix")
    assert "the same as without checkpoint: True" in text
    ns = chapter.run("checkpoint_use_reentrant.py")
    assert torch.allclose(ns["model"][2].weight.grad, ns["plain"])
    assert f"norm: {round(ns['plain'].norm().item(), 4)}" in text


def test_use_reentrant_true_silences_it_too():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        checkpoint(nn.Linear(2, 2), torch.randn(3, 2, requires_grad=True), use_reentrant=True)
    assert caught == []


# checkpoint: none of the inputs require grad


def grad_norms(text):
    """{parameter name: grad norm or None} from train_step's lines."""
    return {m[1]: ast.literal_eval(m[2]) for m in re.finditer(r"^(\S+)\s+grad norm: (\S+)$", text, re.M)}


def test_frozen_embedding_then_reentrant_checkpoint_warns_and_blocks_get_no_gradient(chapter):
    outputs = chapter.outputs("checkpoint_no_input_grad.py", "error")
    (warning,) = warnings_in(outputs)
    assert warning["category"] == "UserWarning"
    assert warning["message"].startswith(heading("checkpoint-no-input-grad"))
    assert warning["message"] == "None of the inputs have requires_grad=True. Gradients will be None"
    norms = grad_norms(chapter.shown("checkpoint_no_input_grad.py", "error"))
    assert set(norms) == {"blocks.0.0.weight", "blocks.0.0.bias", "blocks.1.0.weight", "blocks.1.0.bias",
                          "head.weight", "head.bias"}, "every trainable parameter, the embedding frozen"
    assert all(norms[n] is None for n in norms if n.startswith("blocks."))
    assert norms["head.weight"] > 0 and norms["head.bias"] > 0, "only the head learns"


def test_reentrant_output_cut_off_and_parameters_not_inputs(chapter):
    ns = chapter.run("checkpoint_no_input_grad.py")
    model = ns["TextClassifier"](use_reentrant=True)
    h = model.embedding(ns["tokens"])
    assert not h.requires_grad, "the frozen embedding's output"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = checkpoint(model.blocks[0], h, use_reentrant=True)
        assert not out.requires_grad, "the graph stops at the checkpoint's output"
        out = checkpoint(model.blocks[0], h.clone().requires_grad_(), use_reentrant=True)
    assert out.requires_grad
    assert not any(p is leaf for p in model.blocks[0].parameters() for leaf in reachable_leaves(out)), \
        "the block ran without recording: its parameters are not in the graph"
    out = checkpoint(model.blocks[0], h, use_reentrant=False)
    leaves = reachable_leaves(out)
    assert all(any(p is leaf for leaf in leaves) for p in model.blocks[0].parameters()), \
        "the non-reentrant checkpoint records them, whatever its inputs"


def test_raw_batch_into_first_layers_gets_no_gradient(chapter):
    outputs = chapter.outputs("checkpoint_raw_input.py", "error")
    (warning,) = warnings_in(outputs)
    assert warning["message"].startswith(heading("checkpoint-no-input-grad"))
    text = chapter.shown("checkpoint_raw_input.py", "error")
    assert "mlp[0].weight.grad: None\n" in text
    assert "mlp[2].weight.grad is None: False\n" in text
    ns = chapter.run("checkpoint_raw_input.py")
    assert not ns["batch"].requires_grad


def test_non_reentrant_fix_gives_every_parameter_a_gradient_and_the_same_head_gradient(chapter):
    outputs = chapter.outputs("checkpoint_no_input_grad.py", "fix")
    assert warnings_in(outputs) == []
    fixed = grad_norms(chapter.shown("checkpoint_no_input_grad.py", "fix"))
    broken = grad_norms(chapter.shown("checkpoint_no_input_grad.py", "error"))
    assert set(fixed) == set(broken)
    assert all(norm is not None and norm > 0 for norm in fixed.values())
    assert fixed["head.weight"] == broken["head.weight"] and fixed["head.bias"] == broken["head.bias"]


def test_input_that_requires_grad_reconnects_the_reentrant_blocks(chapter):
    ns = chapter.run("checkpoint_no_input_grad.py")
    tokens, labels = ns["tokens"], ns["labels"]
    grads = {}
    for reentrant in (True, False):
        torch.manual_seed(0)
        model = ns["TextClassifier"](use_reentrant=reentrant)
        h = model.embedding(tokens)
        if reentrant:
            h.requires_grad_()
        for block in model.blocks:
            h = checkpoint(block, h, use_reentrant=reentrant)
        nn.functional.cross_entropy(model.head(h.mean(dim=1)), labels).backward()
        grads[reentrant] = [p.grad for p in model.blocks.parameters()]
    assert all(g is not None for g in grads[True])
    assert all(torch.allclose(a, b) for a, b in zip(grads[True], grads[False]))
    assert "h.requires_grad_()" in PAGE


# checkpoint: dropout


def test_dropout_without_preserved_rng_state_is_silently_wrong(chapter):
    outputs = chapter.outputs("checkpoint_dropout.py", "error")
    assert warnings_in(outputs) == [], "nothing warns"
    text = chapter.shown("checkpoint_dropout.py", "error")
    (difference,) = re.findall(r"largest difference from the plain gradient: (\S+)", text)
    assert float(difference) > 1e-3


def test_default_preserves_the_mask_bit_for_bit_and_eval_mode_is_safe(chapter):
    assert chapter.shown("checkpoint_dropout.py", "fix") == "largest difference from the plain gradient: 0.0\n"
    assert chapter.shown("checkpoint_dropout.py", "eval") == "in eval mode: 0.0\n"
    ns = chapter.run("checkpoint_dropout.py")
    assert torch.equal(ns["right"], ns["plain"])
    assert any(isinstance(m, nn.Dropout) for m in ns["block"]), "the block has dropout"
    assert torch.equal(ns["no_rng"], ns["plain_eval"])
    assert not torch.equal(ns["plain_eval"], ns["plain"]), "eval mode really turned dropout off"


# DDP: a parameter with no gradient


def test_unused_head_error_on_every_rank_naming_its_parameters(chapter):
    text = chapter.shown("ddp_unused_parameters.py", "error")
    message = heading("ddp-unused-parameters")
    for rank in (0, 1):
        assert f"rank {rank}: RuntimeError: {message}." in text
        assert f"Parameter indices which did not receive grad for rank {rank}: 4 5\n" in text
    assert text.index("rank 0:") < text.index("rank 1:"), "ordered by rank"
    assert not re.search(r"127\.0\.0\.1|\bport\b|\bpid\b", text, re.I), "nothing that varies run to run"
    ns = definitions(chapter, "ddp_unused_parameters.py")
    names = [name for name, _ in ns["TwoHeads"]().named_parameters()]
    assert names[4:6] == ["regressor.weight", "regressor.bias"]


def test_first_step_runs_and_the_second_raises(chapter):
    ns = definitions(chapter, "ddp_unused_parameters.py")

    def one_then_two(rank):
        first = ns["train"](rank, steps=1)
        try:
            ns["train"](rank, steps=2)
        except RuntimeError as err:
            return first, str(err)
        return first, None

    for first, second in ns["run_on_ranks"](one_then_two):
        assert isinstance(first, dict) and len(first["losses"]) == 1
        assert second is not None and second.startswith(heading("ddp-unused-parameters"))


def test_an_output_left_out_and_a_skipped_branch_give_the_same_error(chapter):
    ns = definitions(chapter, "ddp_unused_parameters.py")

    class BothOutputs(ns["TwoHeads"]):
        def forward(self, x, task="classify"):
            h = torch.relu(self.body(x))
            return self.classifier(h), self.regressor(h)

    def both_shapes(rank):
        errors = []
        torch.manual_seed(0)
        model = DistributedDataParallel(BothOutputs())
        try:
            for _ in range(2):
                logits, _ = model(torch.randn(4, 4))
                logits.sum().backward()  # the regression output left out
        except RuntimeError as err:
            errors.append(str(err))
        try:
            ns["train"](rank, steps=2, tasks=("classify", "regress"))
        except RuntimeError as err:
            errors.append(str(err))
        return errors

    for errors in ns["run_on_ranks"](both_shapes):
        assert len(errors) == 2
        assert all(e.startswith(heading("ddp-unused-parameters")) for e in errors)


def test_find_unused_parameters_and_static_graph_both_train_in_sync(chapter):
    results = rank_lines(chapter.shown("ddp_unused_parameters.py", "fix"))
    options = ["find_unused_parameters=True", "static_graph=True"]
    assert set(results) == {(rank, option) for rank in (0, 1) for option in options}
    for option in options:
        ranks = [results[rank, option] for rank in (0, 1)]
        assert all(decreasing(r["losses"]) for r in ranks), "each rank's loss goes down"
        assert ranks[0]["losses"] != ranks[1]["losses"], "each rank has its own batch"
        assert ranks[0]["body.weight sum"] == ranks[1]["body.weight sum"], "the gradients were averaged"
        assert not any(r["regressor has a gradient"] for r in ranks), "the unused head keeps no gradient"


def test_a_changing_graph_needs_find_unused_parameters(chapter):
    results = rank_lines(chapter.shown("ddp_unused_parameters.py", "changing"))
    for rank in (0, 1):
        assert results[rank, "static_graph=True"].startswith(
            "RuntimeError: Your training graph has changed in this iteration")
        trained = results[rank, "find_unused_parameters=True"]
        assert len(trained["losses"]) == 4 and trained["regressor has a gradient"]
    assert (results[0, "find_unused_parameters=True"]["body.weight sum"]
            == results[1, "find_unused_parameters=True"]["body.weight sum"])


# DDP: a variable marked ready twice


def test_reentrant_checkpoint_with_find_unused_parameters_marks_a_block_parameter_twice(chapter):
    text = chapter.shown("ddp_ready_only_once.py", "error")
    message = heading("ddp-ready-only-once")
    for rank in (0, 1):
        assert f"rank {rank}: RuntimeError: {message}." in text
    twice = re.findall(r"with name (\S+) has been marked as ready twice", text)
    assert len(twice) == 2 and all(name.startswith("blocks.") for name in twice), "a block's parameter"
    assert "_set_static_graph()" in text, "the message's suggestion"
    assert "static_graph" in inspect.signature(DistributedDataParallel).parameters
    ns = definitions(chapter, "ddp_ready_only_once.py")
    model = ns["CheckpointedNet"](use_reentrant=True, aux_head=True)
    assert model.aux_head is not None and "aux_head" not in inspect.getsource(type(model).forward), \
        "the auxiliary head is not used"


def test_the_aux_head_needs_find_unused_parameters(chapter):
    ns = definitions(chapter, "ddp_ready_only_once.py")

    def without_find_unused(rank):
        try:
            ns["train"](rank, dict(use_reentrant=False, aux_head=True), {})
        except RuntimeError as err:
            return str(err)

    for error in ns["run_on_ranks"](without_find_unused):
        assert error is not None and error.startswith(heading("ddp-unused-parameters"))


def test_one_block_twice_under_reentrant_checkpoints_is_the_messages_second_reason(chapter):
    text = chapter.shown("ddp_ready_only_once.py", "shared")
    message = heading("ddp-ready-only-once")
    for rank in (0, 1):
        assert f"rank {rank}: RuntimeError: {message}." in text
    assert "Reused parameters in multiple reentrant backward passes" in text
    twice = re.findall(r"with name (\S+) has been marked as ready twice", text)
    assert len(twice) == 2 and all(name.startswith("blocks.0.") for name in twice)
    ns = definitions(chapter, "ddp_ready_only_once.py")
    model = ns["CheckpointedNet"](use_reentrant=True, shared=True)
    assert model.blocks[0] is model.blocks[1] and model.aux_head is None


def test_use_reentrant_false_and_static_graph_fix_both_causes_identically(chapter):
    results = rank_lines(chapter.shown("ddp_ready_only_once.py", "fix"))
    fixes = ["aux head, use_reentrant=False", "shared, use_reentrant=False",
             "aux head, static_graph=True", "shared, static_graph=True"]
    assert set(results) == {(rank, fix) for rank in (0, 1) for fix in fixes}
    for fix in fixes:
        ranks = [results[rank, fix] for rank in (0, 1)]
        assert all(decreasing(r["losses"]) for r in ranks), "each rank's loss goes down"
        assert ranks[0]["losses"] != ranks[1]["losses"]
        assert ranks[0]["blocks[0] weight sum"] == ranks[1]["blocks[0] weight sum"], "the same weights"
    for rank in (0, 1):
        for model in ("aux head", "shared"):
            assert results[rank, f"{model}, use_reentrant=False"] == results[rank, f"{model}, static_graph=True"]
    ns = definitions(chapter, "ddp_ready_only_once.py")
    text = chapter.path("ddp_ready_only_once.py").read_text()
    exec(text[text.index("FIXES = {"):text.index("def train_with_each_fix")], ns)
    assert ns["FIXES"]["aux head, use_reentrant=False"][1] == {"find_unused_parameters": True}, \
        "find_unused_parameters kept"


def test_two_processes_joined_with_gloo_on_loopback(chapter):
    ns = definitions(chapter, "ddp_unused_parameters.py")
    helpers = ns["run_on_ranks"].__globals__
    assert "leave = join(address, rank, world_size)" in inspect.getsource(helpers["rank_main"])
    assert 'GLOO_SOCKET_IFNAME", "lo")' in inspect.getsource(ns["run_on_ranks"])
    assert '"gloo", address, world_size=world_size, rank=rank' in inspect.getsource(helpers["gloo"])
    assert inspect.signature(ns["run_on_ranks"]).parameters["join"].default is helpers["gloo"]
    assert "rank 0" in chapter.shown("ddp_unused_parameters.py", "error")
    assert set(rank_lines(chapter.shown("ddp_unused_parameters.py", "error"))) == {(0, None), (1, None)}


# checkpoint: recomputed values with other metadata


def test_a_cache_that_grows_makes_the_recomputation_save_other_shapes(chapter):
    text = chapter.shown("checkpoint_recomputed_metadata.py", "error")
    assert text.startswith(f"torch.utils.checkpoint.CheckpointError: {heading('checkpoint-recomputed-metadata')}.\n")
    saved = re.findall(r"saved metadata: \{'shape': torch.Size\(\[([\d, ]+)\]\)", text)
    recomputed = re.findall(r"recomputed metadata: \{'shape': torch.Size\(\[([\d, ]+)\]\)", text)
    assert saved and len(saved) == len(recomputed)
    assert all("5" in s and "10" not in s and "10" in r for s, r in zip(saved, recomputed)), "5 keys, then 10"
    assert issubclass(torch.utils.checkpoint.CheckpointError, RuntimeError)


def test_a_counter_steps_twice_per_step_and_fails_where_the_warm_up_ends(chapter):
    text = chapter.shown("checkpoint_recomputed_metadata.py", "counter")
    assert text == ("step 1: calls so far 2\n"
                    f"step 2: CheckpointError: {heading('checkpoint-recomputed-metadata')}.\n")
    ns = chapter.run("checkpoint_recomputed_metadata.py")
    assert ns["ShortThenLong"](warmup=3).warmup == 3, "the first three calls are short"


def test_no_cache_gives_the_plain_gradient_and_the_step_as_argument_trains(chapter):
    assert chapter.shown("checkpoint_recomputed_metadata.py", "fix") == (
        "no cache in training, checkpointed: same gradient as without checkpoint: True\n")
    assert chapter.shown("checkpoint_recomputed_metadata.py", "fix_counter") == "".join(
        f"step {step}: output {(2, 2, 8) if step <= 3 else (2, 5, 8)}\n" for step in range(1, 6))


# DDP: gradient strides and bucket views


def stderr_in(outputs):
    return "".join(o["text"] for o in outputs if kind(o) == "stderr")


def test_converting_after_ddp_warns_once_per_rank_about_the_1x1_convolution(chapter):
    text = chapter.shown("ddp_grad_strides.py", "error")
    message = heading("grad-strides-bucket")
    assert text.count(f"UserWarning: {message}.") == 2, "one per rank"
    assert text.count("grad.sizes() = [4, 8, 1, 1], strides() = [8, 1, 8, 8]") == 2
    assert text.count("bucket_view.sizes() = [4, 8, 1, 1], strides() = [8, 1, 1, 1]") == 2
    assert "This is not an error" in text
    ns = definitions(chapter, "ddp_grad_strides.py")
    model = ns["convnet"]()
    before = [p.stride() for p in model.parameters()]
    model.to(memory_format=torch.channels_last)
    after = [p.stride() for p in model.parameters()]
    assert before[2] == (8, 1, 1, 1) and after[2] == (8, 1, 8, 8), "the 1x1 convolution: size-1 dimensions"
    assert before[0] != after[0] and sorted(before[0]) != sorted(after[0][:1] + (1, 1, 1)), \
        "the 3x3 convolution's strides changed too, in dimensions larger than 1, without a warning of its own"
    assert model[0].weight.shape == (8, 3, 3, 3)


def test_the_3x3_convolution_gets_its_gradient_shuffled(chapter):
    text = chapter.shown("ddp_grad_strides.py", "wrong")
    rows = dict(re.findall(r"^(\S+)\s+(\S+)$", text, re.M))
    assert float(rows["0.weight"]) > 1e-2
    assert all(float(rows[name]) < 1e-6 for name in ("0.bias", "2.weight", "2.bias"))
    ns = definitions(chapter, "ddp_grad_strides.py")
    results = ns["run_on_ranks"](functools.partial(ns["gradients"], convert_before_ddp=False))
    model = ns["convnet"]()
    sum(model(ns["batch"](rank)).square().mean() for rank in range(2)).div(2).backward()
    true = model[0].weight.grad
    for result in results:
        got = torch.tensor(result["grads"]["0.weight"])
        assert torch.allclose(got.flatten().sort().values, true.flatten().sort().values, atol=1e-6), \
            "the right numbers"
        read_with_new_strides = torch.as_strided(
            true.contiguous(), true.shape, true.contiguous(memory_format=torch.channels_last).stride())
        assert torch.allclose(got, read_with_new_strides, atol=1e-6), "the true gradient's memory, new strides"
        assert not torch.allclose(got, true, atol=1e-3)


def test_converting_before_ddp_gives_no_warning_and_the_one_process_gradient(chapter):
    text = chapter.shown("ddp_grad_strides.py", "fix")
    for rank in (0, 1):
        (difference,) = re.findall(rf"^rank {rank}: 0 warnings, largest difference from the one-process "
                                   r"gradient (\S+)$", text, re.M)
        assert float(difference) < 1e-6


# FSDP: uniform requires_grad


def test_fsdp_over_frozen_weights_and_adapters_raises_on_every_rank(chapter):
    text = chapter.shown("fsdp_uniform_requires_grad.py", "error")
    expected = "ValueError: Must flatten tensors with uniform `requires_grad` when `use_orig_params=False`"
    assert text == f"rank 0: {expected}\nrank 1: {expected}\n"
    assert expected.replace("`", "").removeprefix("ValueError: ") == heading("fsdp-uniform-requires-grad")
    source = (Path(torch.__file__).parent / "distributed" / "fsdp" / "_flat_param.py").read_text()
    assert "`FlatParameter` requires uniform `requires_grad`" not in source, "the older wording is gone"
    assert "`FlatParameter` requires uniform\n`requires_grad`" in PAGE or \
        "`FlatParameter` requires uniform `requires_grad`" in " ".join(PAGE.split())
    ns = definitions(chapter, "fsdp_uniform_requires_grad.py")
    layer = ns["model"]()[0]
    assert not layer.base.weight.requires_grad and layer.adapter[0].weight.requires_grad


def test_both_fsdp_fixes_train_the_adapters_the_same_and_keep_the_frozen_weights(chapter):
    results = rank_lines(chapter.shown("fsdp_uniform_requires_grad.py", "fix"))
    fixes = ["use_orig_params=True", "adapters wrapped apart"]
    assert set(results) == {(rank, fix) for rank in (0, 1) for fix in fixes}
    for rank in (0, 1):
        assert results[rank, fixes[0]] == results[rank, fixes[1]], "the same numbers"
        for fix in fixes:
            assert decreasing(results[rank, fix]["losses"]) and results[rank, fix]["frozen weights unchanged"]
    assert results[0, fixes[0]]["losses"] != results[1, fixes[0]]["losses"], "each rank its own batch"


def test_use_orig_params_keeps_a_whole_flat_gradient_and_wrapping_apart_does_not(chapter):
    ns = definitions(chapter, "fsdp_uniform_requires_grad.py")
    text = chapter.path("fsdp_uniform_requires_grad.py").read_text()
    exec(text[text.index("def is_adapter"):text.index("def train_with_each_fix")], ns)  # the fix's policy
    FSDP = ns["FSDP"]

    def gradient_sizes(rank):
        sizes = {}
        for fix, options in [("orig", {"use_orig_params": True}), ("apart", {"auto_wrap_policy": ns["adapters_apart"]})]:
            net = FSDP(ns["model"](), device_id=torch.device("cpu"), **options)
            nn.functional.mse_loss(net(torch.randn(4, 8)), torch.randn(4, 8)).backward()
            units = [m for m in net.modules() if isinstance(m, FSDP)]
            sizes[fix] = [(m._handle.flat_param.numel(), m._handle.flat_param.requires_grad,
                           None if m._handle.flat_param.grad is None else m._handle.flat_param.grad.numel())
                          for m in units]
        return sizes

    for sizes in ns["run_on_ranks"](gradient_sizes):
        assert isinstance(sizes, dict), sizes
        ((numel, requires_grad, grad),) = sizes["orig"]
        assert requires_grad and grad == numel, "one FlatParameter, its gradient covers the frozen part too"
        root, *adapters = sizes["apart"]
        assert len(adapters) == 2 and not root[1] and root[2] is None, "the frozen weights: no gradient"
        assert all(a[1] and a[2] == a[0] for a in adapters)
        assert sum(a[0] for a in adapters) < numel / 3, "gradients the adapters' size"


# DDP: gradient accumulation without no_sync()


def test_every_micro_batch_all_reduces_without_no_sync(chapter):
    text = chapter.shown("ddp_no_sync.py", "error")
    assert text == "rank 0: 4 micro-batches, 4 all-reduces\nrank 1: 4 micro-batches, 4 all-reduces\n"


def test_no_sync_all_reduces_once_and_the_gradient_is_the_same(chapter):
    text = chapter.shown("ddp_no_sync.py", "fix")
    for rank in (0, 1):
        (difference,) = re.findall(rf"^rank {rank}: 4 micro-batches, 1 all-reduce, largest difference from "
                                   r"the gradient above (\S+)$", text, re.M)
        assert float(difference) < 1e-6


def test_one_bucket_and_the_last_forward_must_be_outside_no_sync(chapter):
    ns = definitions(chapter, "ddp_no_sync.py")

    def last_forward_inside(rank):
        torch.manual_seed(0)
        model = ns["DDP"](nn.Linear(4, 1))
        calls = []
        model.register_comm_hook(calls, ns["counting_allreduce"])
        with model.no_sync():
            loss = model(torch.randn(8, 4)).square().mean()
        loss.backward()  # outside no_sync, but the forward pass was inside
        model(torch.randn(8, 4)).square().mean().backward()
        return calls

    for calls in ns["run_on_ranks"](last_forward_inside):
        assert calls == [0], "no all-reduce for the first backward; one bucket, index 0, for the second"


# DDP: find_unused_parameters=True with none unused


def test_the_warning_is_printed_by_each_rank_on_stderr_once(chapter):
    outputs = chapter.outputs("ddp_find_unused_warning.py", "error")
    assert warnings_in(outputs) == [], "not through Python's warnings"
    assert stderr_in(outputs) == "", "each rank's stderr was brought back"
    text = chapter.shown("ddp_find_unused_warning.py", "error")
    flagged = rank_lines(text)
    message = heading("ddp-find-unused-warning")
    for rank in (0, 1):
        assert decreasing(flagged[rank, "with the flag"]["losses"])
        (line,) = [line for line in text.splitlines() if line.startswith(f"rank {rank}: ")]
        assert line.startswith(f"rank {rank}: Warning: {message}. This flag results in an extra traversal of the "
                               "autograd graph every iteration"), "once, though three iterations ran"
        assert "may be a false positive" in line


def test_with_cpp_warnings_brings_back_stderr_without_the_loggers_prefix(chapter):
    ns = definitions(chapter, "ddp_find_unused_warning.py")
    written = (b"[rank1]:[W1206 09:11:48.766866256 reducer.cpp:1529] Warning: find_unused_parameters=True "
               b"was specified (function operator())\nplain line\n")
    result, printed = ns["with_cpp_warnings"](lambda: os.write(2, written) and "done")
    assert result == "done"
    assert printed == ["Warning: find_unused_parameters=True was specified (function operator())", "plain line"]


def test_without_the_flag_the_training_is_the_same(chapter):
    outputs = chapter.outputs("ddp_find_unused_warning.py", "fix")
    assert stderr_in(outputs) == "" and warnings_in(outputs) == []
    results = rank_lines(chapter.shown("ddp_find_unused_warning.py", "fix"))
    for rank in (0, 1):
        assert results[rank, "the same as with the flag"] == "True"
        assert results[rank, "without the flag"] == rank_lines(
            chapter.shown("ddp_find_unused_warning.py", "error"))[rank, "with the flag"]
        assert decreasing(results[rank, "without the flag"]["losses"])
    assert results[0, "without the flag"]["weight sum"] == results[1, "without the flag"]["weight sum"]
