"""Which module made each node (`autograd_steps.watch_forward`), and a torch.compile region as one node."""

import builtins
import contextlib
import inspect
import re
import runpy
import shutil
import sys

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import autograd_steps.recording
from autograd_steps.recording import MODULE, Recording, names, recorded, watch_forward

CALLER = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in ')


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv, self.bn, self.fc = nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.Linear(4 * 4 * 4, 10)

    def forward(self, x):
        return self.fc(F.max_pool2d(F.relu(self.bn(self.conv(x))), 2).flatten(1))


class Fails(nn.Module):
    def forward(self, x):
        raise ValueError("bad input")


# Each model's forward pass, run within `around`: the loss, the modules the code called by their
# variables' names, and the leaves.

def transformer_layer(around):
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(16, 2, 32, batch_first=True)  # dropout 0.1: in training, dropout nodes
    x = torch.randn(2, 5, 16, requires_grad=True)
    with around():
        loss = layer(x).pow(2).mean()
    return loss, {"layer": layer}, [x, *layer.parameters()]


def transformer_encoder(around):
    torch.manual_seed(0)
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 2, 32, batch_first=True), 2,
                                    enable_nested_tensor=False)
    x = torch.randn(2, 5, 16, requires_grad=True)
    with around():
        loss = encoder(x).pow(2).mean()
    return loss, {"encoder": encoder}, [x, *encoder.parameters()]


def cnn_with_batch_norm(around):
    torch.manual_seed(0)
    cnn, loss_fn = CNN(), nn.CrossEntropyLoss()
    x, target = torch.randn(2, 3, 8, 8), torch.tensor([1, 7])
    with around():
        loss = loss_fn(cnn(x), target) * 2
    return loss, {"cnn": cnn, "loss_fn": loss_fn}, list(cnn.parameters())


def lstm(around):
    torch.manual_seed(0)
    rnn, head = nn.LSTM(4, 8, num_layers=2, batch_first=True), nn.Linear(8, 1)
    x = torch.randn(3, 6, 4)
    with around():
        output, (h, c) = rnn(x)
        loss = head(output[:, -1]).pow(2).mean()
    return loss, {"rnn": rnn, "head": head}, [*rnn.parameters(), *head.parameters()]


MODELS = {transformer_layer: {"", "layer", "layer.self_attn", "layer.linear1", "layer.linear2", "layer.norm1",
                              "layer.norm2", "layer.dropout", "layer.dropout1", "layer.dropout2"},
          transformer_encoder: {"", *(f"encoder.layers.{i}{m}" for i in (0, 1) for m in (
              "", ".self_attn", ".linear1", ".linear2", ".norm1", ".norm2", ".dropout", ".dropout1", ".dropout2"))},
          cnn_with_batch_norm: {"", "cnn", "cnn.conv", "cnn.bn", "cnn.fc", "loss_fn"},
          lstm: {"", "rnn", "head"}}


def graph(output):
    """Every node reachable from `output`."""
    found, stack = {}, [output.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is not None and id(fn) not in found:
            found[id(fn)] = fn
            stack += [next_fn for next_fn, _ in fn.next_functions]
    return list(found.values())


def module_at(path, modules):
    name, _, rest = path.partition(".")
    return modules[name].get_submodule(rest)


def innermost_forward(fn, forwards):
    """The innermost `forward` of a module class in the stack that made a node (anomaly mode's), or None."""
    frames = [CALLER.search(entry) for entry in fn.metadata["traceback_"]]
    return next((forwards[m["file"], int(m["line"])] for m in reversed(frames)
                 if m and (m["file"], int(m["line"])) in forwards), None)


def forward_lines(modules):
    """{(file, line): forward} for each line of each module class's forward."""
    found = {}
    for module in modules:
        forward = type(module).forward
        lines, first = inspect.getsourcelines(forward)
        found.update({(inspect.getsourcefile(forward), first + i): forward for i in range(len(lines))})
    return found


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model.__name__)
def test_each_node_has_the_path_of_the_innermost_module_whose_forward_made_it(model):
    """Checked against the stack anomaly mode keeps: the innermost module forward in it is that of
    the path's module (none for ""); and each parameter is used by nodes of its module (or of the
    module that holds it, as MultiheadAttention uses its out_proj's weight in its own forward)."""
    loss, modules, _ = model(watch_forward)
    forwards = forward_lines(m for root in modules.values() for m in root.modules())
    nodes = graph(loss)
    paths = set()
    for fn in nodes:
        if hasattr(fn, "variable"):
            assert MODULE not in fn.metadata, "a leaf was made by no forward"
            continue
        path = fn.metadata.get(MODULE, "")
        paths.add(path)
        expected = innermost_forward(fn, forwards)
        assert (type(module_at(path, modules)).forward if path else None) is expected, type(fn).__name__
    assert paths == MODELS[model]
    owners = {id(p): f"{root}.{name}".rpartition(".")[0] for root, m in modules.items()
              for name, p in m.named_parameters()}
    for fn in nodes:
        for next_fn, _ in fn.next_functions:
            if hasattr(next_fn, "variable") and id(next_fn.variable) in owners:
                owner, path = owners[id(next_fn.variable)], fn.metadata.get(MODULE, "")
                assert owner == path or owner.startswith(path + "."), (owner, path)


def global_hooks():
    module = torch.nn.modules.module
    return [module._global_forward_pre_hooks, module._global_forward_hooks, module._global_forward_hooks_always_called]


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model.__name__)
def test_watching_leaves_no_hook_and_the_gradients_bitwise_equal(model):
    @contextlib.contextmanager
    def watched():
        with watch_forward():
            assert all(global_hooks()) and torch.is_anomaly_enabled()
            yield

    watched_loss, _, watched_leaves = model(watched)
    assert not any(global_hooks()) and not torch.is_anomaly_enabled()
    plain_loss, _, plain_leaves = model(contextlib.nullcontext)
    assert all(MODULE not in fn.metadata for fn in graph(plain_loss))
    watched_loss.backward()
    plain_loss.backward()
    assert torch.equal(watched_loss, plain_loss)
    assert all(torch.equal(w.grad, p.grad) for w, p in zip(watched_leaves, plain_leaves, strict=True))


def test_an_error_inside_forward_removes_the_hooks():
    model = nn.Sequential(nn.Linear(2, 2), Fails())
    with pytest.raises(ValueError, match="bad input"), watch_forward():
        model(torch.ones(1, 2))
    assert not any(global_hooks()) and not torch.is_anomaly_enabled()


def test_an_error_caught_inside_the_block_leaves_later_calls_their_paths():
    broken, model = nn.Sequential(nn.Linear(2, 2), Fails()), nn.Sequential(nn.Linear(2, 2), nn.Tanh())
    with watch_forward():
        with pytest.raises(ValueError):
            broken(torch.ones(1, 2))
        out = model(torch.ones(1, 2))
    assert out.grad_fn.metadata[MODULE] == "model.1"
    assert out.grad_fn.next_functions[0][0].metadata[MODULE] == "model.0"


def test_a_module_no_variable_holds_is_named_by_its_class():
    with watch_forward():
        out = nn.Sequential(nn.Linear(2, 2))(torch.ones(1, 2))
    assert out.grad_fn.metadata[MODULE] == "Sequential.0"


def test_the_sites_recorded_run_gives_each_node_its_module(tmp_path, monkeypatch):
    """What the build runs around a step-through snippet: a parameter's leaf is named as the
    nodes its module made, `model.0.weight` of `model.0`."""
    snippet = tmp_path / "mlp.py"
    snippet.write_text("import torch\nfrom torch import nn\n\ntorch.manual_seed(0)\n"
                       "model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))\n"
                       "loss = model(torch.randn(5, 3)).pow(2).mean()\nloss.backward()\n")
    shown = []
    monkeypatch.setattr(builtins, "display", shown.append, raising=False)
    with recorded(str(snippet)):
        runpy.run_path(str(snippet), run_name="__main__")
    (recording,) = shown
    modules = {(n["label"], n["module"]) for n in recording.data()["nodes"]}
    assert modules == {("model.0.weight", ""), ("model.0.bias", ""), ("model.2.weight", ""), ("model.2.bias", ""),
                       ("AddmmBackward0", "model.0"), ("TBackward0", "model.0"), ("TanhBackward0", "model.1"),
                       ("AddmmBackward0", "model.2"), ("TBackward0", "model.2"),
                       ("PowBackward0", ""), ("MeanBackward0", "")}


@pytest.mark.filterwarnings("ignore:Using `torch.compile\\(module\\)` when there are global hooks")
def test_a_compiled_region_is_one_node_with_its_inputs_and_outputs():
    """AOTAutograd's CompiledFunctionBackward, labelled as compiled, without AOTAutograd's ctx
    attributes; its edges go to the region's inputs, and it receives its output's gradient."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    compiled = torch.compile(model, backend="aot_eager")  # the same node as inductor's, compiled at once
    x = torch.randn(3, 4, requires_grad=True)
    with watch_forward():
        loss = compiled(x).pow(2).mean()
    recording = Recording(loss, names(sys._getframe()), __file__)
    recording.run(loss.backward)
    data = recording.data()
    assert [n["name"] for n in data["nodes"] if n["kind"] != "leaf"] == [
        "CompiledFunctionBackward", "PowBackward0", "MeanBackward0"]
    (region,) = [n for n in data["nodes"] if n["name"] == "CompiledFunctionBackward"]
    assert region["label"] == "compiled region" and region["module"] == "compiled" and "attributes" not in region
    inputs = {data["nodes"][e["to"]]["label"] for e in data["edges"] if e["from"] == region["id"]}
    assert inputs == {"x", "model.0.weight", "model.0.bias", "model.2.weight", "model.2.bias"}
    (step,) = [s for s in data["steps"] if s["node"] == region["id"]]
    assert step["received"]["shape"] == [3, 1] and len(step["sent"]) == 5
    assert "compiled region" in recording.table() and "ctx." not in recording.table()


def test_the_recorder_alone_watches_the_forward_pass_too(tmp_path, monkeypatch, capsys):
    """recording.py is served alone, as downloads/step_through.py: it imports nothing of the package."""
    for name in [n for n in sys.modules if n == "autograd_steps" or n.startswith("autograd_steps.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "autograd_steps", None)  # not importable
    shutil.copy(autograd_steps.recording.__file__, tmp_path / "step_through.py")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "step_through", raising=False)
    monkeypatch.delattr(builtins, "display", raising=False)
    from step_through import step_through, watch_forward

    model = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
    with watch_forward():
        out = model(torch.ones(1, 2)).sum()
    assert out.grad_fn.next_functions[0][0].metadata[MODULE] == "model.1"
    step_through(out)
    assert "TanhBackward0" in capsys.readouterr().out
