"""Claims of the page 'Errors from in-place operations and leaves' (docs/errors_inplace.md)."""

import inspect
import math
import re

import pytest
import torch
from conftest import ROOT, warnings_in
from torch import nn

from snippet_engine.chapter import line_range

PAGE = ROOT / "docs" / "errors_inplace.md"
INPLACE = "one of the variables needed for gradient computation has been modified by an inplace operation"
LEAF = "a leaf Variable that requires grad is being used in an in-place operation"
VIEW_OF_LEAF = "a view of a leaf Variable that requires grad is being used in an in-place operation"
INTERIOR = "leaf variable has been moved into the graph interior"
UNBIND = "Output 0 of Unbind is a view and is being modified inplace"
NO_GRAD_VIEW = "A view was created in no_grad mode and is being modified inplace with grad mode enabled"
HOOK_VIEW = "Output 0 of BackwardHookFunction is a view and is being modified inplace"
OVERLAP = "unsupported operation: more than one element of the written-to tensor refers to a single memory location"

# id of each section whose heading is a message: the block that produces it
ERROR_BLOCKS = {
    "modified-by-inplace": ("inplace_relu_after_sigmoid.py", "error"),
    "leaf-in-place": ("leaf_updated_in_place.py", "error"),
    "view-of-leaf-in-place": ("prune_weight_by_indexing.py", "error"),
    "moved-into-graph-interior": ("target_network_sync.py", "error"),
    "view-modified-inplace": ("attention_scale_in_place.py", "error"),
    "backward-hook-view-inplace": ("backward_hook_inplace_relu.py", "error"),
    "overlapping-memory": ("write_into_expand.py", "error"),
    "view-created-in-no-grad": ("view_made_under_no_grad.py", "error"),
}


def headings():
    """{id: heading text} of the page's sections."""
    return dict((ident, text) for text, ident in re.findall(r"^## (.+?) \{ #([\w-]+) \}$", PAGE.read_text(), re.M))


def losses(text, name="loss"):
    return [float(v) for v in re.findall(rf"\b{name} (\d+\.\d+)", text)]


def decreasing(values):
    return len(values) >= 3 and all(b < a for a, b in zip(values, values[1:]))


def section_namespace(chapter, name, section):
    """The globals of one section of a snippet run alone, after its imports."""
    first, last = line_range(chapter.path(name), section)
    code = "\n".join(chapter.path(name).read_text().splitlines()[first - 1:last])
    namespace = {"torch": torch, "nn": nn}
    exec(compile(code, name, "exec"), namespace)
    return namespace


def test_the_page_has_its_sections_and_message_headings_are_what_pytorch_prints(chapter):
    found = headings()
    assert list(found) == [*ERROR_BLOCKS, "data-versus-detach"]
    for ident, (name, section) in ERROR_BLOCKS.items():
        text = chapter.shown(name, section)
        assert f"RuntimeError: {found[ident]}" in text, (ident, text)
    assert found["modified-by-inplace"] == INPLACE
    assert found["view-modified-inplace"] == UNBIND
    assert found["view-created-in-no-grad"] == NO_GRAD_VIEW
    assert found["backward-hook-view-inplace"] == HOOK_VIEW
    assert found["overlapping-memory"] == OVERLAP


def section_text(anchor):
    """The Markdown of one section, from its heading to the next heading of level 2."""
    return PAGE.read_text().split(f"{{ #{anchor} }}")[1].split("\n## ")[0]


def test_inplace_relu_after_sigmoid_and_how_the_message_reads(chapter):
    text = chapter.shown("inplace_relu_after_sigmoid.py", "error")
    assert text.startswith(f"RuntimeError: {INPLACE}: [torch.FloatTensor [2, 3]], which is output 0 of Sigmoid, "
                           "is at version 1; expected version 0 instead. Hint: enable anomaly detection")
    ns = chapter.run("inplace_relu_after_sigmoid.py")
    assert ns["model"][0].out_features == 3 and ns["inputs"].shape[0] == 2, "the [2, 3] is the sigmoid's output"
    x = torch.randn(2, 3, requires_grad=True)
    s = torch.sigmoid(x)
    assert torch.equal(s.grad_fn._saved_result, s), "sigmoid saves its output"


@pytest.mark.parametrize("op", [torch.sigmoid, torch.tanh, torch.exp, lambda x: torch.softmax(x, dim=1)])
@pytest.mark.parametrize("write", ["add", "index", "clamp"])
def test_other_inplace_writes_after_an_op_that_saves_its_output_raise_the_same(op, write):
    x = torch.randn(2, 3, requires_grad=True)
    h = op(x)
    if write == "add":
        h += torch.ones(3)
    elif write == "index":
        h[:, 0] = 0
    else:
        h.clamp_(min=0)
    with pytest.raises(RuntimeError, match=INPLACE):
        h.sum().backward()


@pytest.mark.parametrize("op", [torch.sigmoid, torch.tanh, torch.exp])
def test_writing_into_a_clone_of_the_saved_output_is_fine(op):
    x = torch.randn(2, 3, requires_grad=True)
    h = op(x).clone()
    h[:, 0] = 0
    h.sum().backward()
    assert (x.grad[:, 0] == 0).all() and (x.grad[:, 1:] != 0).all()


def test_anomaly_mode_points_at_the_sigmoid(chapter):
    (warning,) = warnings_in(chapter.outputs("inplace_relu_after_sigmoid.py", "anomaly"))
    lines = warning["message"].splitlines()
    assert lines[0] == "Error detected in SigmoidBackward0. Traceback of forward call that caused the error:"
    first, last = line_range(chapter.path("inplace_relu_after_sigmoid.py"), "anomaly")
    text = chapter.path("inplace_relu_after_sigmoid.py").read_text().splitlines()
    (call,) = [n for n in range(first, last) if text[n - 1].strip() == "loss = nn.functional.mse_loss(model(inputs), targets)"]
    assert lines[1] == f'  File "inplace_relu_after_sigmoid.py", line {call}, in <module>', "from the script's own line"
    assert re.fullmatch(r'  File "…/site-packages/torch/nn/modules/container.py", line \d+, in forward', lines[7])
    assert re.fullmatch(r'  File "…/site-packages/torch/nn/modules/activation.py", line \d+, in forward', lines[-2])
    assert lines[-1].strip() == "return torch.sigmoid(input)"
    assert inspect.getsourcefile(nn.Sigmoid).endswith("activation.py")
    assert "return torch.sigmoid(input)" in inspect.getsource(nn.Sigmoid.forward)


def test_out_of_place_relu_trains(chapter):
    text = chapter.shown("inplace_relu_after_sigmoid.py", "fix")
    assert "Error" not in text
    assert decreasing(losses(text))
    ns = chapter.run("inplace_relu_after_sigmoid.py")
    assert not ns["model"][2].inplace


def test_a_view_whose_base_is_written_in_place_is_rebuilt_as_as_strided():
    """Why the GAN's message names `AsStrided`: the saved transpose was recorded as TBackward0."""
    weight = torch.randn(1, 16, requires_grad=True)
    view = weight.t()
    assert view.grad_fn.name() == "TBackward0"
    with torch.no_grad():
        weight.add_(1.0)  # as optimizer.step() writes it
    assert view.grad_fn.name() == "AsStridedBackward0"
    page = " ".join((ROOT / "docs" / "errors_inplace.md").read_text().split())
    assert "recorded as `TBackward0`; when `optimizer_d.step()` wrote the weight in place, autograd rebuilt" in page


def test_gan_step_before_the_generators_backward(chapter):
    text = chapter.shown("gan_step_before_generator_backward.py", "error")
    assert text.startswith(f"RuntimeError: {INPLACE}: [torch.FloatTensor [16, 1]], which is output 0 of AsStrided, "
                           "is at version 2; expected version 1 instead.")
    ns = chapter.run("gan_step_before_generator_backward.py")
    last = ns["discriminator"][2]
    assert last.weight.shape == (1, 16), "the [16, 1] is its transpose"
    shapes = [tuple(p.shape) for m in (ns["generator"], ns["discriminator"]) for p in m.parameters()]
    assert shapes.count((1, 16)) == 1 and (16, 1) not in shapes
    # Linear saves its weight transposed; a fresh weight is at version 1 (its initialisation)
    layer = nn.Linear(16, 1)
    assert layer.weight._version == 1
    out = layer(torch.randn(4, 16, requires_grad=True))
    saved = out.grad_fn._saved_mat2
    assert saved.shape == (16, 1) and saved._base is layer.weight, "a view of the weight, transposed"
    optimizer = torch.optim.Adam(layer.parameters(), lr=1e-3)
    out.sum().backward()
    optimizer.step()
    assert layer.weight._version == 2, "one step is one in-place write"


def test_gan_fix_and_both_backwards_before_the_steps(chapter):
    text = chapter.shown("gan_step_before_generator_backward.py", "fix")
    assert "Error" not in text
    assert len(losses(text, "loss_g")) == 3, "three steps ran"
    assert all(v > 0 for v in losses(text, "norm")), "the generator receives a gradient"
    ns = chapter.run("gan_step_before_generator_backward.py")
    generator, discriminator, criterion = ns["generator"], ns["discriminator"], ns["criterion"]
    fake = generator(torch.randn(16, 4))
    loss_d = criterion(discriminator(ns["real"]), ns["ones"]) + criterion(discriminator(fake.detach()), ns["zeros"])
    loss_g = criterion(discriminator(fake), ns["ones"])
    discriminator.zero_grad()
    loss_g.backward()
    assert discriminator[2].weight.grad.abs().sum() > 0, "the generator's backward fills D's gradients"
    loss_d.backward()  # both backward() before any step: no error


def test_buffer_updated_in_forward(chapter):
    text = chapter.shown("buffer_updated_in_forward.py", "error")
    assert text.startswith(f"RuntimeError: {INPLACE}: [torch.FloatTensor [3]] is at version 4; "
                           "expected version 2 instead.")
    assert "output 0 of" not in text, "a buffer is produced by no recorded operation"
    w = torch.ones(3, requires_grad=True)
    y = (torch.randn(3, requires_grad=True) * w).sum()
    with torch.no_grad():
        w.add_(1)
    with pytest.raises(RuntimeError, match=INPLACE) as raised:
        y.backward()
    assert "[torch.FloatTensor [3]] is at version 1; expected version 0" in str(raised.value), "a weight as it is"
    ns = section_namespace(chapter, "buffer_updated_in_forward.py", "module")
    scale = ns["RunningScale"](3)
    x = torch.randn(8, 3, requires_grad=True)
    scale(x).sum().backward()  # called once per backward(): it works
    assert x.grad is not None
    assert scale.running_std._version == 2, "mul_ and add_: two writes per call"


def test_buffer_replaced_by_a_new_tensor(chapter):
    text = chapter.shown("buffer_updated_in_forward.py", "fix")
    assert "Error" not in text
    norm = float(re.search(r"grad norm of the first layer: (\S+)", text)[1])
    assert norm > 0
    ns = chapter.run("buffer_updated_in_forward.py")
    module = ns["encoder"][1]
    assert "running_std" in dict(module.named_buffers()), "still the module's buffer"
    assert not torch.equal(module.running_std, torch.ones(3)), "and updated"


def test_leaf_updated_in_place(chapter):
    assert chapter.shown("leaf_updated_in_place.py", "error") == f"RuntimeError: {LEAF}.\n"
    assert chapter.shown("leaf_updated_in_place.py", "init") == f"RuntimeError: {LEAF}.\n"
    text = chapter.shown("leaf_updated_in_place.py", "fix")
    assert decreasing(losses(text))
    assert "w is still a leaf that requires grad: True True" in text
    ns = chapter.run("leaf_updated_in_place.py")
    assert ns["w"].is_leaf and ns["w"].grad_fn is None
    # optimizer.step() does its update under no_grad: the leaf stays a leaf
    w = torch.ones(3, requires_grad=True)
    (w**2).sum().backward()
    torch.optim.SGD([w], lr=0.1).step()
    assert w.is_leaf and w.requires_grad and torch.allclose(w, torch.full((3,), 0.8))


def test_nn_init_writes_under_no_grad(chapter):
    text = chapter.shown("leaf_updated_in_place.py", "init_fix")
    assert text.startswith("Parameter containing:") and "requires_grad=True" in text
    ns = chapter.run("leaf_updated_in_place.py")
    weight = ns["layer"].weight
    assert weight.is_leaf and weight.grad_fn is None and 0 < weight.abs().max() < 0.05
    assert "torch.no_grad()" in inspect.getsource(nn.init._no_grad_normal_)


def test_pruning_through_a_view_of_the_weight(chapter):
    assert chapter.shown("prune_weight_by_indexing.py", "error") == f"RuntimeError: {VIEW_OF_LEAF}.\n" * 2
    text = chapter.shown("prune_weight_by_indexing.py", "no_grad")
    assert "after pruning: 0.0\n" in text
    assert float(re.search(r"after one step: (\S+)", text)[1]) > 0, "the step makes them nonzero again"


def test_a_mask_multiplied_out_of_place_keeps_them_pruned(chapter):
    text = chapter.shown("prune_weight_by_indexing.py", "mask")
    assert decreasing(losses(text))
    assert "gradient of the pruned entries: 0.0" in text
    # torch.nn.utils.prune keeps the original weight and a mask, and their product
    from torch.nn.utils import prune

    layer = nn.Linear(4, 2)
    prune.random_unstructured(layer, "weight", amount=0.5)
    assert "weight_orig" in dict(layer.named_parameters())
    assert "weight_mask" in dict(layer.named_buffers())
    assert torch.equal(layer.weight, layer.weight_orig * layer.weight_mask)


def test_target_network_sync_moves_a_leaf_into_the_graph(chapter):
    text = chapter.shown("target_network_sync.py", "error")
    assert text == f"target weight: CopyBackwards leaf: False\nRuntimeError: {INTERIOR}\n"
    with pytest.raises(RuntimeError, match=LEAF):  # the copy, without requires_grad_(False)
        nn.Linear(4, 1).weight.copy_(torch.zeros(1, 4))
    # the loss's graph ends in a node that accumulates the gradient of each leaf
    online, target = nn.Linear(4, 1), nn.Linear(4, 1)
    loss = (online(torch.ones(2, 4)) + target(torch.ones(2, 4))).sum()
    nodes, todo = set(), [loss.grad_fn]
    while todo:
        node = todo.pop()
        nodes.add(node)
        todo += [n for n, _ in node.next_functions if n is not None and n not in nodes]
    accumulated = [n.variable for n in nodes if type(n).__name__ == "AccumulateGrad"]
    assert any(v is target.weight for v in accumulated) and len(accumulated) == 4


def test_load_state_dict_copies_under_no_grad():
    online, target = nn.Linear(4, 1), nn.Linear(4, 1)  # the target not even frozen
    target.load_state_dict(online.state_dict())
    assert target.weight.is_leaf and target.weight.grad_fn is None and torch.equal(target.weight, online.weight)


def test_frozen_target_synced_with_load_state_dict(chapter):
    text = chapter.shown("target_network_sync.py", "fix")
    assert "Error" not in text
    assert decreasing(losses(text))
    assert "target weight: None leaf: True\nsame as online: True" in text
    ns = chapter.run("target_network_sync.py")
    assert not any(p.requires_grad for p in ns["target"].parameters())


def test_output_of_unbind_modified_in_place(chapter):
    text = chapter.shown("attention_scale_in_place.py", "error")
    assert text.startswith(f"RuntimeError: {UNBIND}.")
    chunk = chapter.shown("attention_scale_in_place.py", "chunk")
    assert chunk.startswith("RuntimeError: Output 0 of Split is a view and is being modified inplace.")
    base = torch.randn(4, 6)
    for pieces in (base.unbind(0), base.split(2), base.chunk(2)):
        assert len(pieces) > 1 and all(p._base is base for p in pieces), "several views of one tensor"
    # one view alone: the write is recorded, and the base's history rewritten (CopySlices)
    alone = torch.randn(4, 6, requires_grad=True) * 1
    alone[0].mul_(2)
    assert type(alone.grad_fn).__name__ == "CopySlices"
    gates = torch.randn(2, 8, requires_grad=True) * 1
    input_gate, *_ = gates.chunk(4, dim=1)
    torch.sigmoid(input_gate).sum().backward()  # out of place: fine
    input_gate, *_ = (torch.randn(2, 8, requires_grad=True) * 1).chunk(4, dim=1)
    input_gate.clone().sigmoid_().sum().backward()  # into a clone: fine


def test_out_of_place_scaling_runs_backward(chapter):
    text = chapter.shown("attention_scale_in_place.py", "fix")
    assert "Error" not in text
    assert float(re.search(r"grad norm of qkv: (\S+)", text)[1]) > 0


def test_view_made_under_no_grad(chapter):
    text = chapter.shown("view_made_under_no_grad.py", "error")
    assert text.startswith(f"RuntimeError: {NO_GRAD_VIEW}.")
    fixed = chapter.shown("view_made_under_no_grad.py", "fix")
    assert "second head's weights: 0.0\n" in fixed
    assert float(re.search(r"first head's gradient norm: (\S+)", fixed)[1]) > 0
    ns = chapter.run("view_made_under_no_grad.py")
    assert ns["layer"].weight.is_leaf and ns["layer"].weight.requires_grad
    head_0, head_1 = nn.Linear(8, 8).weight.chunk(2, dim=0)  # both outside no_grad
    with pytest.raises(RuntimeError, match="Output 1 of Split is a view and is being modified inplace"):
        head_1.zero_()


def test_data_hides_the_write_and_detach_does_not(chapter):
    data = chapter.shown("data_versus_detach.py", "data")
    assert data == ("y:      tensor([1.0000, 2.7183, 5.0000, 5.0000])\n"
                    "x.grad: tensor([1.0000, 2.7183, 5.0000, 5.0000])\n"), "the capped output, as gradient"
    grad = torch.tensor([float(v) for v in re.findall(r"\d+\.\d+", data.splitlines()[1])])
    x = torch.arange(4.0)
    assert not torch.allclose(grad, x.exp(), atol=1e-3), "not the derivative of exp"
    capped = torch.where(x.exp() > 5, 0.0, x.exp())
    assert not torch.allclose(grad, capped, atol=1e-3), "nor that of the capped function"
    assert torch.allclose(grad, torch.tensor([1, math.e, 5, 5]), atol=1e-4)
    detach = chapter.shown("data_versus_detach.py", "detach")
    assert detach.startswith(f"RuntimeError: {INPLACE}: [torch.FloatTensor [4]], which is output 0 of Exp")
    fixed = chapter.shown("data_versus_detach.py", "fix")
    assert "x.grad: tensor([1.0000, 2.7183, 0.0000, 0.0000])" in fixed
    # .data shares the storage but not the version counter; .detach() shares both
    y = torch.zeros(2, requires_grad=True) * 1
    y.data.add_(1)
    assert y._version == 0 and torch.equal(y.detach(), torch.ones(2))
    y.detach().add_(1)
    assert y._version == 1 and torch.equal(y.detach(), torch.full((2,), 2.0))


# Output 0 of Unbind: iterating over a tensor


def test_normalizing_each_channel_in_place_while_iterating(chapter):
    text = chapter.shown("normalize_slices_in_place.py", "error")
    assert text.startswith(f"RuntimeError: {UNBIND}.")
    base = torch.randn(3, 2, 2)
    assert all(p._base is base for p in base), "iterating gives views of the tensor"
    x = torch.randn(3, 2, 2, requires_grad=True) * 1
    assert all(type(t.grad_fn).__name__ == "UnbindBackward0" for t in x), "for t in x calls unbind"
    fixed = chapter.shown("normalize_slices_in_place.py", "fix")
    assert float(re.search(r"gradient of the image: norm (\S+)", fixed)[1]) > 0


def test_the_older_unbind_wording_is_quoted():
    text = section_text("view-modified-inplace")
    quoted = [line[2:] for line in text.splitlines() if line.startswith("> ")]
    assert quoted == [UNBIND.replace("Unbind", "UnbindBackward") + ". This view is the output of a function that "
                      "returns multiple views. Such functions do not allow the output views to be modified inplace. "
                      "You should replace the inplace operation by an out-of-place one."]
    assert "`UnbindBackward0`" in text and "1.7" in text


# Output 0 of BackwardHookFunction is a view and is being modified inplace


def test_full_backward_hook_with_an_inplace_relu(chapter):
    text = chapter.shown("backward_hook_inplace_relu.py", "error")
    assert text.startswith(f"RuntimeError: {HOOK_VIEW}. This view was created inside a custom Function")
    from torch.nn.modules._functions import BackwardHookFunction

    a = torch.randn(2, requires_grad=True) * 1
    (out,) = BackwardHookFunction.apply(a)
    assert out._base is a, "it returns its inputs as they are: views"
    ns = chapter.run("backward_hook_inplace_relu.py")
    assert ns["make_model"]()[3].inplace, "the ReLU after the hooked layer is in place"
    assert "BackwardHookFunctionBackward" in section_text("backward-hook-view-inplace"), "the older wording"


def test_a_tensor_hook_or_relus_not_in_place_give_the_gradient(chapter):
    text = chapter.shown("backward_hook_inplace_relu.py", "fix")
    assert text.startswith("gradient: (1, 8, 16, 16) norm ")
    assert chapter.shown("backward_hook_inplace_relu.py", "not_inplace") == "same gradient: True\n"
    ns = chapter.run("backward_hook_inplace_relu.py")
    model = ns["make_model"]()
    for module in model.modules():
        if isinstance(module, nn.ReLU):
            module.inplace = False
    activation = model[:3](ns["image"])
    (expected,) = torch.autograd.grad(model[3:](activation)[0, 3], activation)
    assert torch.allclose(ns["gradients"][0], expected), "the gradient of the layer's output"


def test_register_backward_hook_gives_the_last_operations_input_gradient(chapter):
    (warning,) = warnings_in(chapter.outputs("deprecated_backward_hook.py", "wrong"))
    assert warning["category"] == "FutureWarning" and "is deprecated" in warning["message"], "PyTorch warns"
    right = chapter.shown("deprecated_backward_hook.py", "right")
    ns = chapter.run("deprecated_backward_hook.py")
    block, x, seen = ns["block"], ns["x"], ns["seen"]
    with torch.no_grad():
        h = block.linear(x)
    assert torch.allclose(seen["old"], 1 - torch.tanh(h) ** 2), "the gradient of the linear output: 1 - tanh^2"
    assert torch.allclose(seen["full"], ns["true"]) and not torch.allclose(seen["old"], ns["true"])
    values = [float(v) for v in re.findall(r"-?\d+\.\d+", right)]
    assert values[:6] == values[6:], "the full hook's grad_input is the gradient of the input"


# unsupported operation: more than one element of the written-to tensor refers to a single memory location


def test_running_buffer_made_with_expand(chapter):
    text = chapter.shown("write_into_expand.py", "error")
    assert text.startswith("running_cov: (2, 2, 2) strides: (0, 2, 1)\n"), "a stride of 0"
    assert f"RuntimeError: {OVERLAP}. Please clone() the tensor before performing the operation." in text
    fixed = chapter.shown("write_into_expand.py", "fix")
    assert fixed.startswith("strides: (4, 2, 1)\n")
    ns = chapter.run("write_into_expand.py")
    assert not torch.equal(ns["layer"].running_cov[0], torch.eye(2)), "updated"
    expanded = torch.eye(2).expand(3, 2, 2)
    for copy in (expanded.clone(), expanded.contiguous(), torch.eye(2).repeat(3, 1, 1)):
        assert copy.stride() == (4, 2, 1)
        copy.mul_(2)  # each element its own memory: fine
    with pytest.raises(RuntimeError, match=OVERLAP):
        expanded.mul_(2)  # no tensor here requires grad: the check is not autograd's
    assert not expanded.requires_grad


def test_a_masked_write_into_expand_only_warns(chapter):
    outputs = chapter.outputs("write_into_expand.py", "masked")
    found = warnings_in(outputs)
    assert found and all(w["category"] == "UserWarning" and "on expanded tensors is deprecated" in w["message"]
                         for w in found)
    assert "Error" not in chapter.shown("write_into_expand.py", "masked")
    assert chapter.shown("write_into_expand.py", "masked_fix") == "strides: (4, 1)\n"
