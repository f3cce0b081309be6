"""Claims of the page 'Backward across processes' (docs/distributed.md). The snippets start
their processes once, in the build's run that `chapter.shown` reads; the tests start none."""

import ast
import inspect
import json
import multiprocessing
import os
import re
import statistics
import sys
import tempfile
from pathlib import Path

import pytest
import torch
import torch.distributed as dist
import yaml
from conftest import ROOT, children, kind, script, torch_libraries_holding, warnings_in
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

from snippet_engine.nav import pages_of

PAGE = (ROOT / "docs" / "distributed.md").read_text()
TORCH = Path(torch.__file__).parent
DDP_SOURCE = (TORCH / "nn" / "parallel" / "distributed.py").read_text()
CSRC = TORCH / "include" / "torch" / "csrc" / "distributed"

DEFINITION = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef)


def definitions(chapter, name):
    """The namespace of a snippet's imports, functions and classes, without running any block
    (the blocks start processes)."""
    path = chapter.path(name)
    tree = ast.parse(path.read_text())
    tree.body = [node for node in tree.body if isinstance(node, DEFINITION)]
    chapter.monkeypatch.syspath_prepend(str(chapter.folder))
    namespace = {"__name__": "definitions"}
    exec(compile(tree, str(path), "exec"), namespace)
    return namespace


def prose(text):
    """A docstring or the C++ comments of a header as one line of words."""
    return " ".join(re.sub(r"(^|\n)\s*//", " ", text).split())


DDP_DOC = prose(inspect.getdoc(DDP))
REDUCER = prose((CSRC / "c10d" / "reducer.hpp").read_text())


def steps(text):
    """{step: [event, ...]} of lines 'step N, rank 0:' followed by their events."""
    found, current = {}, None
    for line in text.splitlines():
        if m := re.fullmatch(r"step (\d+), rank 0:", line):
            current = found.setdefault(int(m[1]), [])
        elif current is not None and not line.startswith("rank "):
            current.append(line)
    return found


def launched(events):
    return [e.split(": ")[1].split() for e in events if e.startswith("bucket")]


def accumulated(events):
    return [re.fullmatch(r"  gradient of (\S+) accumulated", e)[1] for e in events if e.startswith("  ")]


LAYERS = [f"{i}.{kind}" for i in range(5) for kind in ("weight", "bias")]  # registration order
BACKWARD = [f"{i}.{kind}" for i in reversed(range(5)) for kind in ("bias", "weight")]


def test_processes_on_loopback_with_gloo_and_tensorpipe(chapter):
    source = chapter.path("ranks.py").read_text()
    assert "leave = join(address, rank, world_size)" in source
    assert 'address = "file://" + os.path.join(folder, "store")' in source, "they meet through a file"
    assert '"gloo", address, world_size=world_size, rank=rank' in source and "def run_on_ranks(train, world_size=2, join=gloo" in source
    assert "TensorPipeRpcBackendOptions(init_method=address" in chapter.path("rpc_split_model.py").read_text()
    assert "process.terminate()" in source and "results.get(timeout=timeout)" in source
    assert '"--nproc-per-node",' in (TORCH / "distributed" / "run.py").read_text(), "torchrun's option"
    rpc_start = (TORCH / "distributed" / "distributed_c10d.py").read_text()
    assert "You are using a Backend {type(group)} as a ProcessGroup" in rpc_start, "the warning filtered"


def test_the_ranks_end_with_their_results_and_leave_no_process_or_file(chapter, tmp_path, monkeypatch):
    ns = definitions(chapter, "ranks.py")
    assert inspect.signature(ns["run_on_ranks"]).parameters["world_size"].default == 2, "two processes"
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the ranks' file is made
    before = set(children(os.getpid()))  # what this test process runs already (a browser, a server)
    assert ns["run_on_ranks"](lambda rank: rank * 10, world_size=3) == [0, 10, 20], "rank 0's first"
    assert set(children(os.getpid())) <= before, "every rank joined"
    assert ns["run_on_ranks"](lambda rank: 1 / rank) == ["ZeroDivisionError: division by zero", 1.0]
    assert set(children(os.getpid())) <= before
    assert list(tmp_path.iterdir()) == [], "the folder of the file they met through is removed"


def test_a_rank_that_cannot_start_leaves_the_started_ones_stopped(chapter, monkeypatch):
    ns = definitions(chapter, "ranks.py")
    started, start, join = [], multiprocessing.context.ForkProcess.start, multiprocessing.context.ForkProcess.join

    def start_one(process):  # rank 1 cannot start: the system has no process left to give
        if started:
            raise BlockingIOError("Resource temporarily unavailable")
        start(process)
        started.append(process)

    monkeypatch.setattr(multiprocessing.context.ForkProcess, "start", start_one)
    # The ranks.py's wait for a rank to end (10 s), cut to 1 s: rank 0 never ends by itself here.
    monkeypatch.setattr(multiprocessing.context.ForkProcess, "join",
                        lambda process, timeout=None: join(process, timeout and min(timeout, 1)))
    before = set(children(os.getpid()))
    with pytest.raises(BlockingIOError):
        ns["run_on_ranks"](lambda rank: rank)
    (rank_0,) = started  # waiting for rank 1 to join: stopped after its wait
    assert rank_0.exitcode is not None and set(children(os.getpid())) <= before


def test_the_reducer_hooks_each_gradient_accumulator_and_fills_flat_buckets():
    assert "self.reducer = dist.Reducer(" in DDP_SOURCE
    assert "grad_accumulators_" in REDUCER and "void autograd_hook(size_t index);" in REDUCER
    leaf = nn.Linear(2, 2).weight
    assert leaf.expand_as(leaf).grad_fn.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"
    assert "Gradients of the bucket flattened into a 1-dimensional tensor" in REDUCER, "a flat buffer"
    assert "A flattened 1D ``torch.Tensor`` buffer" in prose(dist.GradBucket.buffer.__doc__)
    assert "Number of gradients left to be computed before the bucket is ready to be reduced" in REDUCER
    hook = prose(inspect.getdoc(DDP.register_comm_hook))
    assert "This function is called once the bucket is ready." in hook
    assert "return a Future" in hook and "The Future should hold the new value of grad bucket's tensors." in hook
    assert "Grad bucket's tensors will not be predivided by world_size." in hook, "the hook averages"
    assert "Runs allreduce or installed communication hook given GradBucket instance." in REDUCER, "replaces it"
    assert "called inside `finalize_backward`, it happens only if DDP communication hook was registered to " \
        "recreate just bucket_views_out with the result of `future_work`" in REDUCER, "awaited at the end"
    assert "runs after grad accumulation" in prose(inspect.getdoc(torch.Tensor.register_post_accumulate_grad_hook))
    assert "Async work handle, if async_op is set to True." in prose(inspect.getdoc(dist.all_reduce))


def test_first_step_one_bucket_after_every_gradient_second_step_overlaps(chapter):
    text = chapter.shown("ddp_overlap.py", "timeline")
    found = steps(text)
    assert "rank 1, the same events: True" in text
    first, second = found[1], found[2]
    assert accumulated(first) == BACKWARD == accumulated(second), "the last layer's bias first"
    assert launched(first) == [LAYERS], "one bucket, every parameter, registration order"
    assert first[-2].startswith("bucket 0") and first[-1] == "backward() returned", "after the last gradient"
    assert launched(second) == [BACKWARD[:4], BACKWARD[4:8], BACKWARD[8:]]
    bucket0 = second.index("bucket 0 all-reduce launched: " + " ".join(BACKWARD[:4]))
    assert {g.split(".")[0] for g in accumulated(second[bucket0:])} == {"2", "1", "0"}, "three layers to go"
    assert second[-1] == "backward() returned"
    assert "if static_graph or not find_unused_parameters:\n            bucket_size_limits = [sys.maxsize]" \
        in DDP_SOURCE, "one bucket at first"
    hook = chapter.path("reducer_events.py").read_text()
    assert "dist.all_reduce(bucket.buffer(), async_op=True)" in hook and "/ world_size" in hook
    assert "world_size = dist.get_world_size()" in hook
    assert "if torch.is_grad_enabled() and self.reducer._rebuild_buckets():" in inspect.getsource(
        DDP._pre_forward), "rebuilt before the forward pass"
    assert "We only rebuild buckets once after the first iteration" in REDUCER


def test_bucket_cap_mb_sets_the_buckets(chapter):
    text = chapter.shown("ddp_overlap.py", "buckets")
    blocks = re.findall(r"^bucket_cap_mb=(\S+): (\d+) buckets\n((?:  bucket .*\n)+)", text, re.M)
    found = {cap: [line.split(": ")[1].split() for line in lines.splitlines()] for cap, _, lines in blocks}
    assert {cap: int(n) for cap, n, _ in blocks} == {"None": 2, "0.5": 3, "0.25": 5}
    assert found["None"] == [BACKWARD[:8], BACKWARD[8:]]
    assert found["0.5"] == [BACKWARD[:4], BACKWARD[4:8], BACKWARD[8:]]
    assert found["0.25"] == [BACKWARD[i:i + 2] for i in range(0, 10, 2)], "a weight and its bias"
    layer = sum(p.numel() * p.element_size() for p in nn.Linear(256, 256).parameters())
    assert layer == 257 * 1024
    assert dist._DEFAULT_FIRST_BUCKET_BYTES == 1024 * 1024 and 3 * layer < 1024 * 1024 <= 4 * layer
    assert "_DEFAULT_BUCKET_CAP_MB" in DDP_SOURCE and "_DEFAULT_FIRST_BUCKET_BYTES" in DDP_SOURCE
    from torch.nn.parallel import distributed
    assert distributed._DEFAULT_BUCKET_CAP_MB == 25
    assert inspect.signature(DDP).parameters["bucket_cap_mb"].default is None
    assert "If ``None``, a default size of 25 MiB will be used." in DDP_DOC
    assert [len(found[cap][0]) for cap in ("None", "0.5", "0.25")] == [8, 4, 2], "the first all-reduce earlier"
    assert 0.25 * 1024 * 1024 == 256 * 256 * 4 < layer, "the weight alone reaches the cap"


def test_no_sync_one_all_reduce_and_the_same_gradient(chapter):
    text = chapter.shown("ddp_no_sync.py", "accumulate")
    assert "without no_sync(), all-reduces launched: 4" in text
    assert "with no_sync(), all-reduces launched: 1" in text
    without, with_ = text.split("\nwith no_sync()")
    buckets = re.findall(r"bucket 0 all-reduce launched: (.*)", without)
    assert buckets[0] == "0.weight 0.bias 2.weight 2.bias", "before the rebuild"
    assert buckets[1:] == ["2.bias 2.weight 0.bias 0.weight"] * 3, "rebuilt after the first backward"
    assert re.findall(r"bucket 0 all-reduce launched: (.*)", with_) == ["0.weight 0.bias 2.weight 2.bias"]
    assert with_.index("backward() 3 returned") < with_.index("bucket 0") < with_.index("backward() 4 returned")
    (difference,) = re.findall(r"largest difference between the two gradients: (\S+)", text)
    assert float(difference) < 1e-6
    assert "self.require_backward_grad_sync = False" in inspect.getsource(DDP.no_sync)
    assert "if torch.is_grad_enabled() and self.require_backward_grad_sync:" in inspect.getsource(
        DDP._post_forward), "no prepare_for_backward inside no_sync()"
    assert "gradients will be accumulated on module variables" in prose(inspect.getdoc(DDP.no_sync))
    ours = chapter.path("ddp_no_sync.py").read_text()
    theirs = (ROOT / "snippets" / "errors_distributed" / "ddp_no_sync.py").read_text()
    assert "nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 1)" in ours
    assert "nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1)" in theirs, "the errors page's smaller model"


def test_find_unused_parameters_walks_the_graph_and_never_rebuilds(chapter):
    (nodes,) = re.findall(r"nodes searched after each forward pass: (\d+)",
                          chapter.shown("ddp_unused_parameters.py", "graph"))
    ns = definitions(chapter, "ddp_unused_parameters.py")
    torch.manual_seed(0)
    model = ns["WithUnusedHead"]()
    output = model(torch.randn(8, 256)).square().mean()
    assert int(nodes) == ns["graph_size"](output) > 5
    grads = dict(zip([n for n, _ in model.named_parameters()],
                     torch.autograd.grad(output, list(model.parameters()), allow_unused=True)))
    assert [n for n, g in grads.items() if g is None] == ["unused.weight", "unused.bias"], "forward leaves it out"
    post_forward = inspect.getsource(DDP._post_forward)
    assert re.search(r"if self\.find_unused_parameters and not self\.static_graph:\n.*\n\s+"
                     r"self\.reducer\.prepare_for_backward\(list\(_find_tensors\(output\)\)\)", post_forward)
    assert "Parameters that don't receive gradients as part of this graph are preemptively marked as being ready" \
        in DDP_DOC
    assert "return (static_graph_ || !find_unused_parameters_) && !has_rebuilt_bucket_;" in REDUCER
    assert "never rebuild them if find_unused_parameters_" in REDUCER
    assert "self.reducer.prepare_for_backward(list(_find_tensors(output)))" in DDP_SOURCE
    assert torch_libraries_holding(b"This flag results in an extra traversal of the autograd graph every iteration",
                                   "libtorch_cpu.so")
    found = steps(chapter.shown("ddp_unused_parameters.py", "find_unused"))
    assert found[1] == found[2] == found[3], "never rebuilt"
    buckets = launched(found[1])
    assert buckets == [["unused.bias"], ["head.bias", "unused.weight"], ["body.bias", "head.weight"],
                       ["body.weight"]]
    order = [p for group in reversed(buckets) for p in group]
    assert order == [n for n, _ in model.named_parameters()], "registration order, reversed buckets"
    events = found[1]
    assert events[0] == "  gradient of head.bias accumulated"
    assert events[1].startswith("bucket 0") and events[2].startswith("bucket 1"), "at once"
    assert events.index("bucket 2 all-reduce launched: body.bias head.weight") > events.index(
        "  gradient of body.bias accumulated")


def test_static_graph_delays_the_first_all_reduce_and_rebuilds_at_the_third_step(chapter):
    found = steps(chapter.shown("ddp_unused_parameters.py", "static_graph"))
    everything = ["body.weight", "body.bias", "head.weight", "head.bias", "unused.weight", "unused.bias"]
    for step in (1, 2):
        assert launched(found[step]) == [everything]
        assert found[step][-2].startswith("bucket 0"), "after the last gradient"
    third = found[3]
    assert launched(third) == [["head.bias", "head.weight"], ["body.bias", "body.weight"],
                               ["unused.weight"], ["unused.bias"]]
    assert third.index("bucket 0 all-reduce launched: head.bias head.weight") < third.index(
        "  gradient of body.bias accumulated"), "overlaps again"
    assert "Variable._execution_engine.queue_callback(" in DDP_SOURCE and "reducer._delay_all_reduce" in DDP_SOURCE
    assert "else:\n                self.reducer.prepare_for_backward([])" in inspect.getsource(DDP._post_forward)
    assert "DDP will not search graph in each iteration to detect unused parameters" in DDP_DOC
    assert "The set of used and unused parameters will not change during the whole training loop" in DDP_DOC


def test_fp16_hook_sends_half_the_bytes_and_is_ddps_own(chapter):
    lines = [ast.literal_eval(line.split(": ", 1)[1])
             for line in chapter.shown("ddp_compression.py", "hook").splitlines()]
    assert len(lines) == 2 and lines[0] == lines[1]
    result = lines[0]
    assert result["bytes sent"] * 2 == result["float32 bytes"]
    assert 1e-5 < float(result["relative error"]) < 1e-3
    assert result["same as fp16_compress_hook"] is True


def test_gradient_as_bucket_view_puts_the_grads_in_the_bucket_with_the_parameters_strides(chapter):
    assert "If gradient_as_bucket_view_ is false, after allreduce buckets, copy bucket results back to grads." \
        in REDUCER
    assert "gradients will be views pointing to different offsets of ``allreduce`` communication buckets" in DDP_DOC
    assert "it avoids the overhead of copying between gradients and ``allreduce`` communication buckets" in DDP_DOC
    assert "Each view is created with layout (size and stride) matching the gradient's expected layout" in REDUCER
    text = chapter.shown("ddp_bucket_view.py", "view")
    off, on = text.split("gradient_as_bucket_view=True")
    assert "grads in the bucket: [False, False, False, False]" in off
    assert "grads in the bucket: [True, True, True, True]" in on
    for part in (off, on):
        strides = ast.literal_eval(re.search(r"strides: (\{.*\})", part)[1])
        assert all(param == grad for param, grad in strides.values())
        assert strides["0.weight"][0] == nn.Conv2d(3, 8, 3).to(memory_format=torch.channels_last).weight.stride()
        assert "warnings: 0" in part


def test_converted_after_wrapping_the_first_grads_have_the_buckets_old_strides(chapter):
    text = chapter.shown("ddp_bucket_view.py", "after")
    first, second = text.split("after 2 steps")
    strides = ast.literal_eval(re.search(r"strides: (\{.*\})", first)[1])
    conv = nn.Conv2d(3, 8, 3)
    assert strides["0.weight"] == (conv.to(memory_format=torch.channels_last).weight.stride(),
                                   nn.Conv2d(3, 8, 3).weight.stride()), "the old, contiguous strides"
    assert "warnings: 1\nUserWarning: Grad strides do not match bucket view strides." in first
    assert "\nbucket_view.sizes() = [4, 8, 3, 3], strides() = [72, 9, 3, 1]" in first, "the whole warning"
    assert "warnings: 0" in second, "once per process"
    assert "grads in the bucket: [True, True, True, True]" in first
    later = ast.literal_eval(re.search(r"strides: (\{.*\})", second)[1])
    assert all(param == grad for param, grad in later.values())
    for part in (first, second):
        (difference,) = re.findall(r"largest difference from the one-process gradient: (\S+)", part)
        assert float(difference) < 1e-6, "the values are right"


def test_fully_shard_on_the_cpu_shards_parameters_and_gradients(chapter):
    text = chapter.shown("fsdp_fully_shard.py", "shard")
    ranks = text.split("rank 1\n")
    assert ranks[0].startswith("rank 0\n")
    for rank, part in enumerate(ranks):
        assert "parameter: DTensor (16, 8) (Shard(dim=0),), local shard (8, 8)" in part
        assert f"local shard is rows: {list(range(8 * rank, 8 * rank + 8))}" in part
        assert "forward used: Parameter (16, 8)" in part
        assert "gradient: DTensor (16, 8) (Shard(dim=0),), local shard (8, 8)" in part
    sums = re.findall(r"whole gradient, summed: (\S+)", text)
    assert len(sums) == 2 and sums[0] == sums[1]
    torch.manual_seed(0)  # one process: the mean of the two ranks' losses
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    batches = [(torch.manual_seed(rank), torch.randn(4, 8))[1] for rank in range(2)]
    sum(model(x).square().mean() for x in batches).div(2).backward()
    assert abs(float(sums[0]) - model[0].weight.grad.sum().item()) < 1e-5, "the averaged gradient"
    source = (TORCH / "distributed" / "fsdp" / "_fully_shard" / "_fsdp_collectives.py").read_text()
    assert "reduce_scatter" in source and "all_gather" in source
    from torch.distributed.fsdp import fully_shard
    doc = prose(inspect.getdoc(fully_shard))
    assert "FSDP shards module parameters, gradients, and optimizer states" in doc, "each rank steps its shard"
    assert "sharded parameters as :class:`DTensor` s sharded on dim-0" in doc
    assert "Before forward, FSDP all-gathers the sharded parameters" in doc
    assert "re-all-gathers them in backward before gradient computation" in doc
    assert "reduce-scatters the unsharded gradients across data-parallel workers" in doc
    assert "synchronizing gradients across each model replica" in DDP_DOC, "DDP: a whole copy on every rank"
    assert 'init_device_mesh("cpu"' in chapter.path("fsdp_fully_shard.py").read_text()
    assert dist.Backend.default_device_backend_map["cpu"] == "gloo"
    assert inspect.signature(fully_shard).parameters["reshard_after_forward"].default is None
    assert "If ``None``, it is set to ``True`` for non-root modules" in inspect.getdoc(fully_shard) or \
        "it is set to ``True`` for non-root modules" in " ".join(inspect.getsource(fully_shard).split()), \
        "a layer's parameters are freed after its forward pass"


def test_distributed_autograd_keeps_each_workers_gradients_in_its_context(chapter):
    outputs = chapter.outputs("rpc_split_model.py", "split")
    text = chapter.shown("rpc_split_model.py", "split")
    assert "worker0 gradients: {'weight': (16, 4), 'bias': (16,)}" in text
    assert "worker1 gradients: {'layer.weight': (1, 16), 'layer.bias': (1,)}" in text
    assert "worker1 .grad: [None, None]" in text and "worker0 .grad: [None, None]" in text
    losses = [float(x) for x in re.findall(r"^loss \d: (\S+)$", text, re.M)]
    assert len(losses) == 3 and losses[0] > losses[1] > losses[2]
    shown = text + "".join(str(w) for w in warnings_in(outputs))
    assert "You are using a Backend" not in shown
    assert torch_libraries_holding(b"SendRpcBackward", "libtorch_cpu.so") \
        and torch_libraries_holding(b"RecvRpcBackward", "libtorch_cpu.so"), "a send and a receive node"
    autograd = CSRC / "autograd"
    assert "whenever we send an RPC from one node to another, we add a 'SendRpcBackward' autograd function" \
        in prose((autograd / "functions" / "sendrpc_backward.h").read_text())
    assert "whenever we receive an RPC from a node, we add a 'RecvRpcBackward' autograd function" \
        in prose((autograd / "functions" / "recvrpc_backward.h").read_text())
    assert "if it has valid context and tensors require grads" in prose((autograd / "utils.h").read_text())
    import torch.distributed.autograd as dist_autograd
    import torch.distributed.rpc as rpc
    assert "We accumulate the gradients in the appropriate :class:`torch.distributed.autograd.context` on each " \
        "of the nodes." in prose(dist_autograd.backward.__doc__)
    remote = prose(inspect.getdoc(rpc.remote))
    assert "return an :class:`~torch.distributed.rpc.RRef` to the result value immediately" in remote
    assert "Worker ``to`` will be the owner" in remote, "worker1 builds it"
    optimizer = prose((TORCH / "distributed" / "optim" / "optimizer.py").read_text())
    assert "applies the given optimizer locally for each parameter" in optimizer
    assert "uses :meth:`~torch.distributed.autograd.get_gradients`" in optimizer


def test_exercise_bf16_hook(chapter):
    text = chapter.shown("exercise_bf16_hook.py")
    found = {name: (int(sent), float(error)) for name, sent, error in
             re.findall(r"^torch\.(\w+): (\d+) bytes sent, relative error (\S+)$", text, re.M)}
    assert found["float16"][0] == found["bfloat16"][0]
    assert 5 < found["bfloat16"][1] / found["float16"][1] < 11, "about eight times"
    assert torch.finfo(torch.bfloat16).eps / torch.finfo(torch.float16).eps == 8, "8 bits against 11"
    assert torch.finfo(torch.bfloat16).max > 0.99 * torch.finfo(torch.float32).max, "float32's range"
    assert "bf16_compress_hook: TypeError: BF16 all reduce communication hook required CUDA" in text
    check = DDP_SOURCE[DDP_SOURCE.index('if hook.__name__ in ["bf16_compress_hook"'):]
    check = check[:check.index("def _distributed_rank")]
    assert "torch.version.cuda is not None" in check and "torch.cuda.nccl.version() >= (2, 10)" in check
    assert "is_xccl_available()" in check and ".is_cuda" not in check and ".device" not in check, \
        "the build is checked, not the tensors' device"
    assert torch.version.cuda is None, "this site's build has no CUDA"
    release = json.loads((ROOT / "bench" / "results" / "release_check.json").read_text())
    assert release["checked"]["other_torch"] == "2.14.1"  # a CUDA build (the README), run on this CPU
    (line,) = release["snippets"]["distributed/exercise_bf16_hook.py"]["differs"]
    assert "bf16_compress_hook: TypeError" in line["ours"] and "bf16_compress_hook" not in line["theirs"], \
        "a CUDA build accepts the hook for CPU tensors"


def test_exercise_bucket_order(chapter):
    text = chapter.shown("exercise_bucket_order.py")
    assert text == ("step 1:\n  bucket 0 all-reduce launched: a.weight a.bias b.weight b.bias c.weight c.bias\n"
                    "step 2:\n  bucket 0 all-reduce launched: a.bias a.weight\n"
                    "  bucket 1 all-reduce launched: c.bias c.weight\n"
                    "  bucket 2 all-reduce launched: b.bias b.weight\n")


def test_the_page_is_in_the_nav_after_the_gpu_chapter_and_on_the_home_page():
    nav = list(pages_of(yaml.safe_load((ROOT / "mkdocs.yml").read_text().split("\ntheme:")[0])["nav"]))
    assert nav[nav.index("gpu.md") + 1] == "distributed.md"
    home = (ROOT / "docs" / "index.md").read_text()
    assert "| [Running on a GPU](gpu.md) |" in home.split("| [Backward across processes](distributed.md) |")[0]
    assert PAGE.startswith("---\nterms: [") and "PyTorch 2.13" in PAGE


# The cost of find_unused_parameters and static_graph (bench/ddp_options.py)

BENCH = ROOT / "bench" / "results" / "ddp_options.json"


def test_the_benchmark_ran_every_option_on_a_model_whose_parameters_are_all_used(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    monkeypatch.setattr(sys, "path", list(sys.path))  # the bench adds the chapter's folder: undone after
    bench = script(ROOT / "bench" / "ddp_options.py")
    data = json.loads(BENCH.read_text())
    assert data["provenance"]["command"] == "python bench/ddp_options.py"
    assert data["provenance"]["torch"] == torch.__version__
    assert [v["name"] for v in data["variants"]] == list(bench.VARIANTS) and data["baseline"] == "default"
    assert bench.VARIANTS["find_unused_parameters"] == {"find_unused_parameters": True}
    assert bench.VARIANTS["static_graph"] == {"static_graph": True}
    model = bench.model(data["model"]["depth"], data["model"]["width"])
    output = model(torch.randn(data["batch"], data["model"]["width"])).square().mean()
    assert bench.graph_size(output) == data["model"]["graph_nodes"], "the nodes the search walks"
    assert 100 <= data["model"]["graph_nodes"] < 1000, "a few hundred nodes"
    grads = torch.autograd.grad(output, list(model.parameters()), allow_unused=True)
    assert all(g is not None for g in grads), "every parameter used: the default runs it too"
    assert all(len(v["round_medians"]) == data["rounds"] for v in data["variants"])
    assert data["ranks"] == 2 and data["backend"] == "gloo", "two ranks"
    assert "for name in names[r % len(names):] + names[:r % len(names)]:" in inspect.getsource(bench.measure), \
        "the variants take turns, each round starting with another"
    rounds = {v["name"]: v["round_medians"] for v in data["variants"]}
    for v in data["variants"]:
        assert v["median_seconds"] == statistics.median(v["round_medians"])
        assert v["median_ratio_to_default"] == statistics.median(
            t / b for t, b in zip(v["round_medians"], rounds["default"])), "the median of the ratios per round"


def test_find_unused_parameters_costs_more_than_a_tenth_static_graph_nothing_measurable():
    data = json.loads(BENCH.read_text())
    ratio = {v["name"]: v["median_ratio_to_default"] for v in data["variants"]}
    assert ratio["default"] == 1.0
    assert ratio["find_unused_parameters"] > 1.1, "slower, by more than 10%"
    rounds = {v["name"]: v["round_medians"] for v in data["variants"]}
    slower = sum(t > b for t, b in zip(rounds["find_unused_parameters"], rounds["default"]))
    assert slower > len(rounds["default"]) / 2, "slower in most rounds"
    assert abs(ratio["static_graph"] - 1) < 0.05, "within 5% of the default"
    assert '"an extra traversal\nof the autograd graph every iteration"' in PAGE, "quoted as libtorch prints it (above)"


def test_results_snippet_prints_the_data_file(chapter):
    data = json.loads(BENCH.read_text())
    table = chapter.shown("benchmark_results.py", "table").splitlines()
    assert len(table) == 4 + len(data["variants"])
    assert f"{data['model']['graph_nodes']} autograd nodes" in table[0]
    assert f"on each of {data['ranks']} ranks ({data['backend']})" in table[0]
    for line, v in zip(table[4:], data["variants"]):
        assert line.split() == [v["name"], f"{v['median_seconds'] * 1e3:.2f}", f"{v['median_ratio_to_default']:.2f}"]
    provenance = chapter.shown("benchmark_results.py", "provenance")
    assert all(str(value) in provenance for value in data["provenance"].values())
    result = chapter.result("benchmark_results.py")
    assert [kind(o) for o in result.select()] == ["stdout"] * len(result.select())
    assert str(BENCH) in map(str, result.deps), "the page rebuilds when the data file changes"
