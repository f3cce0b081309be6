"""Bytes saved for backward and time per training step of six ways to save memory.

    .venv/bin/python bench/saving_memory.py [--depth 8] [--batch 128]
        [--rounds 41] [--steps 1] [--threads 1]
        [--output bench/results/saving_memory.json]

The model is the chapter's deep MLP (snippets/saving_memory/deep_mlp.py):
--depth blocks of Linear + ELU, 512 -> 1024 -> ... -> 1024 -> 10, on a seeded
batch of --batch float32 inputs, loss F.cross_entropy. One training step is
the forward pass, the loss and the backward pass to every parameter's gradient
(torch.autograd.grad: nothing accumulates between steps). The variants:

    plain                  the model as it is: the baseline of every ratio
    checkpoint each block  each Linear + ELU block under
                           torch.utils.checkpoint.checkpoint(use_reentrant=False)
    checkpoint each block (reentrant)
                           the same with use_reentrant=True
    selective checkpoint   the blocks as one segment under the non-reentrant checkpoint,
                           context_fn=partial(create_selective_checkpoint_contexts, policy),
                           the policy keeping the matrix products' outputs (aten.mm,
                           aten.addmm) and recomputing the rest (the ELUs)
    save_on_cpu            torch.autograd.graph.save_on_cpu() (pin_memory=False)
    pack to bfloat16       saved float32 tensors stored as bfloat16, unpacked to float32
    pack to float16        the same with float16

The reentrant checkpoint refuses torch.autograd.grad, so its step calls
loss.backward() and reads the parameters' .grad, set to None before each step. Its
output requires grad only if an input does, and the batch does not: the blocks'
parameters would get no gradient. Its first block's input is therefore
x.detach().requires_grad_(), the batch's own storage (saving it costs nothing, as for
the batch) as a new leaf that requires grad, made anew each step; every block is
checkpointed, as in the non-reentrant variant, and the two store the same tensors. The
price is one more matrix product in backward, the batch's gradient through the first
Linear, which nobody reads.

Selective checkpointing runs on the blocks as one segment, as in the chapter: the
segment stores its input, the batch, and the kept products. Checkpointed one block at a
time, each block would also store its input, the previous block's output, and the
kept products with those inputs are what the plain model stores: memory is saved only
across blocks.

Saved bytes are counted with the chapter's SavedBytes hooks
(snippets/saving_memory/saved_bytes.py) wrapped around each variant's own
hooks: every tensor stored for backward, once per storage, except the
parameters and the input batch and labels (kept alive by their owners).
Selective checkpointing stores the outputs its policy keeps itself, not through
the pack hooks: the policy hands them over, and they go through the counter's
pack hook (and count as its calls).

Times: the variants run in turn, --rounds times, one after the other in each
round (starting with a different one each round); in each round each variant
takes the median of --steps steps (bench/common.py's median_seconds), after one
untimed step of every variant before the first round. A variant's time is the
median of its round times; its ratio to plain is the median over rounds of
(its time / plain's time in the same round). Pairing within a round keeps a
slow spell of the shared machine from landing on one variant. Gradient error:
the largest relative error |g - g_plain| / |g_plain| (Frobenius norms) over
the parameters, against the plain model's gradients.

The run uses --threads intra-op threads (default 1: on a machine whose few
cores are shared, a second thread waits whenever the other core is busy).
"""

import argparse
import functools
import json
import statistics
import sys
from pathlib import Path

import torch
import torch.nn.functional as F
from torch.utils.checkpoint import CheckpointPolicy, checkpoint, create_selective_checkpoint_contexts

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "snippets" / "saving_memory")]
from common import median_seconds, provenance  # noqa: E402
from compressed_saving import compressing_hooks  # noqa: E402
from deep_mlp import gradients, loss_of, make_batch, make_deep_mlp  # noqa: E402
from saved_bytes import SavedBytes  # noqa: E402

BASELINE = "plain"
kept = []  # the outputs the selective policy kept in the forward pass that ran last


def save_matmuls(ctx, op, *args, **kwargs):
    """The chapter's policy (checkpoint_options.py): keep the matrix products' outputs,
    recompute the rest; what it keeps also goes to `kept`, to be counted."""
    if op in (torch.ops.aten.mm.default, torch.ops.aten.addmm.default):
        kept.append(ctx.op_output)
        return CheckpointPolicy.MUST_SAVE
    return CheckpointPolicy.PREFER_RECOMPUTE


def variants(model, x, labels, exclude):
    """name -> (pack hook, unpack hook, forward pass to the loss, loss -> gradients)."""
    blocks, head = model[:-1], model[-1]

    def reentrant_loss():
        h = x.detach().requires_grad_()  # the batch's storage: see the docstring
        for block in blocks:
            h = checkpoint(block, h, use_reentrant=True)
        return F.cross_entropy(head(h), labels)

    def selective_loss():
        h = checkpoint(blocks, x, use_reentrant=False,
                       context_fn=functools.partial(create_selective_checkpoint_contexts, save_matmuls))
        return F.cross_entropy(head(h), labels)

    def backward(loss):
        model.zero_grad()  # to None: nothing accumulates
        loss.backward()
        return [p.grad for p in model.parameters()]

    plain_loss = functools.partial(loss_of, model, x, labels)
    checkpointed_loss = functools.partial(loss_of, model, x, labels, range(len(blocks)))
    grads = functools.partial(gradients, model)
    store = (lambda t: t, lambda t: t)
    on_cpu = torch.autograd.graph.save_on_cpu()
    return {
        "plain": (*store, plain_loss, grads),
        "checkpoint each block": (*store, checkpointed_loss, grads),
        "checkpoint each block (reentrant)": (*store, reentrant_loss, backward),
        "selective checkpoint": (*store, selective_loss, grads),
        "save_on_cpu": (on_cpu.pack_hook, on_cpu.unpack_hook, plain_loss, grads),
        "pack to bfloat16": (*compressing_hooks(torch.bfloat16, exclude), plain_loss, grads),
        "pack to float16": (*compressing_hooks(torch.float16, exclude), plain_loss, grads),
    }


def relative_error(grads, reference):
    return max(((g - r).norm() / r.norm()).item() for g, r in zip(grads, reference))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=41)
    parser.add_argument("--steps", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--output", type=Path, default=ROOT / "bench" / "results" / "saving_memory.json")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model = make_deep_mlp(args.depth)
    x, labels = make_batch(args.batch)
    exclude = [*model.parameters(), x, labels]
    runs = variants(model, x, labels, exclude)

    results, reference = {}, None
    for name, (pack, unpack, forward, backward) in runs.items():
        with SavedBytes(pack, unpack, exclude=exclude) as saved:
            loss = forward()
            for tensor in kept:  # stored by selective checkpointing, not through the hooks
                saved.pack_hook(tensor)
        kept.clear()
        grads = backward(loss)
        reference = reference or (loss, grads)
        results[name] = {
            "name": name,
            "saved_bytes": saved.nbytes(),
            "saved_bytes_by_device": {d: saved.nbytes(d) for d in sorted({w for _, w in saved.stored.values()})},
            "saved_storages": len(saved.stored),
            "pack_calls": saved.packs,
            "loss_equal": torch.equal(loss, reference[0]),
            "gradients_equal": all(torch.equal(g, r) for g, r in zip(grads, reference[1])),
            "max_relative_gradient_error": relative_error(grads, reference[1]),
            "round_medians": [],
        }
        del loss, grads

    def step(pack, unpack, forward, backward):
        with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
            backward(forward())
        kept.clear()

    names = list(runs)
    for name in names:
        step(*runs[name])  # untimed
    for round_ in range(args.rounds):
        start = round_ % len(names)
        for name in names[start:] + names[:start]:
            seconds = median_seconds(lambda: step(*runs[name]), args.steps)
            results[name]["round_medians"].append(seconds)
        if (round_ + 1) % 10 == 0:
            print(f"round {round_ + 1}/{args.rounds}", file=sys.stderr)
    plain = results[BASELINE]["round_medians"]
    for result in results.values():
        result["median_seconds"] = statistics.median(result["round_medians"])
        result["median_ratio_to_plain"] = statistics.median(
            t / p for t, p in zip(result["round_medians"], plain))
        print(f"{result['name']:34} {result['median_seconds'] * 1e3:8.1f} ms"
              f" x{result['median_ratio_to_plain']:5.2f} {result['saved_bytes']:>12,} bytes", file=sys.stderr)

    data = {
        "benchmark": "saving memory for backward: deep ELU MLP training step on the CPU",
        "provenance": provenance("cpu cores threads torch python date command", __file__, argv),
        "model": {"depth": args.depth, "inputs": 512, "width": 1024, "classes": 10,
                  "parameter_bytes": sum(p.numel() * p.element_size() for p in model.parameters())},
        "batch": args.batch,
        "dtype": "float32",
        "activation_bytes": args.batch * 1024 * 4,
        "rounds": args.rounds,
        "steps_per_round": args.steps,
        "baseline": BASELINE,
        "variants": list(results.values()),
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(data, indent=2) + "\n")
    return data


if __name__ == "__main__":
    main()
