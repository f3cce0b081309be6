"""`autograd_steps.show_backward` in a reader's notebook: the display bundle nbclient gets from a real
kernel, the cases it refuses or notes, and the viewer run in JupyterLab itself."""

import builtins
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import torch
from browsing import AT_REST, SHOTS, STEP_ON_SCREEN
from nbclient import NotebookClient

from autograd_steps import Viewer, show_backward
from autograd_steps.layout import MISSING
from snippet_engine import wheel
from snippet_engine.kinds.steps import STEPS

# A reader's notebook: a model with a custom Function in one cell, its forward pass in another,
# the backward pass shown in a third, and the gradients backward left in .grad printed last.
CELLS = [
    """\
import json
import torch
from torch import nn
from autograd_steps import show_backward

class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, z):
        ctx.save_for_backward(z)
        return z ** 3

    @staticmethod
    def backward(ctx, grad):
        (z,) = ctx.saved_tensors
        return 3 * z ** 2 * grad

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 2), nn.Tanh())
x = torch.randn(4, 3)""",
    """\
with torch.autograd.set_detect_anomaly(True, check_nan=False):
    h = model(x)
    loss = Cube.apply(h).mean()""",
    "show_backward(loss)",
    'print(json.dumps({"model.0.weight": model[0].weight.grad.tolist(), "model.0.bias": model[0].bias.grad.tolist()}))',
]
LEAVES = ["model.0.weight", "model.0.bias"]


def notebook(cells=CELLS):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code) for code in cells])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    nb = notebook()
    NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=False, shutdown_kernel="immediate",
                   resources={"metadata": {"path": str(tmp_path_factory.mktemp("notebook"))}}).execute()
    return nb


def test_the_display_bundle_has_the_viewer_the_summary_and_the_recording(executed):
    (output,) = executed.cells[2].outputs
    assert output.output_type == "display_data"
    data = output.data
    assert set(data) == {"text/plain", "text/html", STEPS}
    assert data["text/plain"].startswith("backward() ran 7 steps through 7 nodes.\nNo NaN or inf.\n"), \
        "the summary: the whole table is the viewer's"
    assert "svg" not in data[STEPS], "the graph's drawing once, in the viewer"
    page = data["text/html"]
    assert page.startswith('<div class="snippet-steps-host"><style>') and page.endswith("</script></div>")
    assert '<figure class="snippet-steps">' in page and '<details class="snippet-steps__table" open="open">' in page
    assert not re.search(r"""(src|href)=["']?(https?:)?//|@import|url\((?!["']?#)""", page), "nothing from another host"
    assert "<svg" in page and 'data-node="0"' in page


def test_the_recording_is_the_engines_and_names_the_readers_cells(executed):
    steps = executed.cells[2].outputs[0].data[STEPS]
    printed = json.loads(executed.cells[3].outputs[0].text)
    names = [steps["nodes"][s["node"]]["label"] for s in steps["steps"]]
    assert names[:3] == ["MeanBackward0", "Cube (custom)", "TanhBackward0"] and set(LEAVES) <= set(names)
    forward = CELLS[1].splitlines()
    assert steps["source"] == forward, "the lines are the forward pass's cell, not show_backward's"
    made = {steps["nodes"][s["node"]]["name"]: forward[steps["nodes"][s["node"]]["line"] - 1].strip()
            for s in steps["steps"] if steps["nodes"][s["node"]]["kind"] != "leaf"}
    assert made["MeanBackward0"] == made["CubeBackward"] == "loss = Cube.apply(h).mean()"
    assert made["TanhBackward0"] == made["AddmmBackward0"] == "h = model(x)"
    (cube,) = [n for n in steps["nodes"] if n["kind"] == "custom"]
    (saved,) = cube["saved"]
    assert {k: saved[k] for k in ("name", "shape", "dtype", "bytes", "error")} == {
        "name": "0", "shape": [4, 2], "dtype": "float32", "bytes": 32, "error": None}
    assert saved["summary"]["shape"] == [4, 2] and -1 < saved["summary"]["min"] < saved["summary"]["max"] < 1  # tanh's
    (addmm,) = [n for n in steps["nodes"] if n["name"] == "AddmmBackward0"]
    mat1 = next(t for t in addmm["saved"] if t["name"] == "mat1")
    assert mat1["summary"]["shape"] == [4, 3] and mat1["summary"]["text"].startswith("4×3, norm ")  # x
    for step in steps["steps"]:
        node = steps["nodes"][step["node"]]
        if node["kind"] == "leaf":
            assert torch.allclose(torch.tensor(step["received"]["values"]), torch.tensor(printed[node["label"]]))
    assert {steps["nodes"][s["node"]]["label"] for s in steps["steps"]} >= set(LEAVES)


def test_outside_a_notebook_it_prints_the_table(monkeypatch, capsys):
    monkeypatch.delattr(builtins, "display", raising=False)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        loss = (x * x).sum()
    show_backward(loss)
    rows = [line for line in capsys.readouterr().out.splitlines() if line[:1].isdigit()]  # a row's first line
    assert [row.split()[:2] for row in rows] == [["1", "SumBackward0"], ["2", "MulBackward0"], ["3", "AccumulateGrad"]]
    assert rows[2].endswith("[2, 4]") and x.grad.tolist() == [2.0, 4.0]


def test_a_graph_too_big_is_refused_before_backward_runs(shown):
    x = torch.ones(3, requires_grad=True)
    loss = x
    for _ in range(200):
        loss = loss * 1.01
    with pytest.raises(ValueError, match=r"show_backward refuses this graph: it has more than 100 nodes \(max_nodes=100\)"):
        show_backward(loss.sum(), max_nodes=100)
    assert x.grad is None and not shown


def test_nodes_made_outside_anomaly_mode_are_said_to_have_no_line(shown):
    x = torch.ones(2, requires_grad=True)
    y = x * 3  # not under anomaly mode: no line
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        loss = y.sum()
    show_backward(loss)
    (viewer,) = shown
    page = viewer._repr_mimebundle_()["text/html"]
    assert "1 of the graph&#x27;s operations were made outside anomaly mode" in page
    assert [n["line"] for n in viewer.data["nodes"] if n["name"] == "MulBackward0"] == [None]


def test_a_node_with_two_outputs_receives_both(shown):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        first, second = x.unbind(0)
        loss = (first * 2 + second * 3).sum()
    show_backward(loss)
    steps = shown[0].data
    (unbind,) = [s for s in steps["steps"] if steps["nodes"][s["node"]]["name"] == "UnbindBackward0"]
    assert unbind["received"]["text"] == "output 0: [2, 2]; output 1: [3, 3]"
    assert steps["steps"][-1]["received"]["values"] == x.grad.tolist() == [[2.0, 2.0], [3.0, 3.0]]


def test_without_graphviz_the_viewer_says_how_to_get_the_graph(shown, monkeypatch):
    monkeypatch.setenv("PATH", "")
    x = torch.ones(2, requires_grad=True)
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        loss = (x * 2).sum()
    show_backward(loss)
    page = shown[0]._repr_mimebundle_()["text/html"]
    assert "<svg" not in page and MISSING.replace("'", "&#x27;") in page
    assert '<details class="snippet-steps__table" open="open">' in page and "AccumulateGrad (x)" in page


def test_show_backward_passes_backwards_arguments_on(shown):
    x = torch.ones(2, requires_grad=True)
    w = torch.ones(2, requires_grad=True)
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        out = x * w
    show_backward(out, torch.tensor([1.0, 2.0]), inputs=[w])
    assert w.grad.tolist() == [1.0, 2.0] and x.grad is None
    assert isinstance(shown[0], Viewer)


# In JupyterLab itself

def run_in_jupyterlab(jupyterlab, browser, name, nb, height):
    """The notebook `nb` saved as name.ipynb, opened in JupyterLab at 1280 px wide and run whole;
    the page, and the script errors it will collect."""
    url, work = jupyterlab
    nbformat.write(nb, work / f"{name}.ipynb")
    page = browser.new_context(viewport={"width": 1280, "height": height}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{url}/lab/tree/{name}.ipynb")
    page.wait_for_function("window.jupyterapp && window.jupyterapp.shell.currentWidget"
                           " && window.jupyterapp.shell.currentWidget.sessionContext")
    page.evaluate("""async () => {
        const notebook = window.jupyterapp.shell.currentWidget;
        await notebook.context.ready;
        await notebook.sessionContext.ready;
        await window.jupyterapp.commands.execute("notebook:run-all-cells");
    }""")
    return page, errors


def test_jupyterlab_steps_through_the_readers_backward_pass(jupyterlab, browser):
    page, errors = run_in_jupyterlab(jupyterlab, browser, "reader", notebook(), height=1000)
    figure = page.locator(".jp-OutputArea-output figure.snippet-steps")
    figure.locator(".snippet-steps__viewer:not([hidden])").wait_for(timeout=120_000)
    printed = page.locator(".jp-OutputArea-output", has_text='{"model.0.weight"')
    printed.wait_for(timeout=60_000)
    grads = json.loads(printed.inner_text())
    data = json.loads(figure.locator(".snippet-steps__data").text_content())
    assert not figure.locator(".snippet-steps__table").evaluate("e => e.open"), "the script ran: the table is closed"

    SHOTS.mkdir(parents=True, exist_ok=True)
    next_button = figure.locator('[data-go="1"]')
    seen = []
    for number, step in enumerate(data["steps"], 1):
        if number > 1:
            next_button.click()
        assert figure.locator(".snippet-steps__counter").inner_text() == f"Step {number} of {len(data['steps'])}"
        current = figure.locator("svg [data-node].is-current")
        assert current.get_attribute("data-node") == str(step["node"])
        label = " ".join(current.locator("text").all_text_contents())
        seen.append(label)
        line = data["lines"][step["node"]]
        if line is not None:
            shown = figure.locator(".snippet-steps__line.is-current")
            assert shown.get_attribute("data-line") == str(line)
            assert shown.inner_text().split(None, 1)[1].strip() == CELLS[1].splitlines()[line - 1].strip()
        leaf = next((name for name in grads if f"{name} (" in label), None)
        if leaf:
            value = figure.locator(".snippet-steps__panel dd").first.inner_text()
            assert torch.allclose(torch.tensor(json.loads(value)), torch.tensor(grads[leaf]), rtol=1e-3, atol=1e-6)
        if "Cube (custom)" in label:  # the step the screenshots show, for a person to look at
            figure.screenshot(path=SHOTS / "jupyterlab-viewer-light.png")
            page.screenshot(path=SHOTS / "jupyterlab-light.png")
    assert {"model.0.weight", "model.0.bias"} <= {leaf for leaf in grads if any(f"{leaf} (" in s for s in seen)}

    page.evaluate('window.jupyterapp.commands.execute("apputils:change-theme", {theme: "JupyterLab Dark"})')
    page.wait_for_selector('body[data-jp-theme-light="false"]', state="attached")
    page.wait_for_timeout(500)  # the theme's styles load after the attribute is set
    figure.screenshot(path=SHOTS / "jupyterlab-viewer-dark.png")
    page.screenshot(path=SHOTS / "jupyterlab-dark.png")
    assert not errors
    page.context.close()


def test_a_saved_notebook_opened_in_jupyterlab_shows_the_table(jupyterlab, browser, executed):
    """Outputs read from a file are not trusted: JupyterLab runs none of their scripts. The table of
    steps shows, and the controls, which would do nothing, stay hidden."""
    url, work = jupyterlab
    nbformat.write(executed, work / "saved.ipynb")
    page = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
    page.goto(f"{url}/lab/tree/saved.ipynb")
    page.wait_for_function("window.jupyterapp && window.jupyterapp.shell.currentWidget"
                           " && window.jupyterapp.shell.currentWidget.sessionContext")
    page.evaluate("window.jupyterapp.shell.currentWidget.sessionContext.ready")  # its kernel started: stoppable
    table = page.locator(".jp-OutputArea-output .snippet-steps__table")
    table.locator("tbody tr").first.wait_for(timeout=120_000)
    rows = [row.locator("td").all_inner_texts() for row in table.locator("tbody tr").all()]
    assert [row[:2] for row in rows[:2]] == [["1", "MeanBackward0"], ["2", "Cube (custom)"]]
    assert rows[1][2] == "3 loss = Cube.apply(h).mean()"
    figure = page.locator(".jp-OutputArea-output figure.snippet-steps")
    assert [figure.locator(part).is_visible() for part in (".snippet-steps__viewer", ".snippet-steps__stage")] == [
        False, False]
    assert "TBackward0" not in figure.inner_text().split("All steps as a table")[0], "no graph's loose labels"
    page.screenshot(path=SHOTS / "jupyterlab-untrusted.png")
    page.context.close()


# Real models, as a practitioner runs them: the forward pass watched (module paths), the backward
# pass shown, and the gradients compared bitwise with a twin's plain backward() (dropout seeded alike).
MODELS = {
    "transformer": ("model = nn.TransformerEncoderLayer(32, 4, 64, batch_first=True)\nx = torch.randn(2, 8, 32)",
                    "model(x).pow(2).mean()"),
    "encoder": ("model = nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 2, 32, batch_first=True), 6,\n"
                "                              enable_nested_tensor=False)\nx = torch.randn(2, 5, 16)",
                "model(x).pow(2).mean()"),
    "cnn": ("model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.Dropout(0.1),\n"
            "                      nn.Conv2d(8, 8, 3), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 2))\n"
            "x = torch.randn(4, 3, 8, 8)", "nn.functional.cross_entropy(model(x), torch.tensor([0, 1, 1, 0]))"),
    "lstm": ("model = nn.LSTM(8, 16, batch_first=True)\nx = torch.randn(3, 7, 8)", "model(x)[0].pow(2).mean()"),
}


def model_notebook(name):
    build, forward = MODELS[name]
    cells = [f"import copy, json\nimport torch\nfrom torch import nn\nfrom autograd_steps import show_backward, "
             f"watch_forward\n\ntorch.manual_seed(0)\n{build}\ntwin = copy.deepcopy(model)",
             f"torch.manual_seed(1)\nwith watch_forward():\n    loss = {forward}",
             "show_backward(loss)",
             f"torch.manual_seed(1)\nmodel, plain = twin, model\n({forward}).backward()\n"
             "print(json.dumps(all(torch.equal(p.grad, q.grad) for p, q in zip(plain.parameters(), twin.parameters()))))"]
    return notebook(cells)


@pytest.mark.jupyter
@pytest.mark.parametrize("name", MODELS)
def test_a_real_model_in_a_notebook_keeps_its_gradients_and_names_its_modules(name, tmp_path):
    nb = model_notebook(name)
    NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=False, shutdown_kernel="immediate",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    (bundle,) = [o["data"] for o in nb.cells[2].outputs if o["output_type"] == "display_data"]
    data = bundle[STEPS]
    assert 'class="snippet-steps"' in bundle["text/html"]
    ops = [n for n in data["nodes"] if n["kind"] != "leaf"]
    outside = sorted(n["name"] for n in ops if not n["module"])  # the loss's operations, made outside the model
    assert outside == sorted({"cnn": ["LogSoftmaxBackward0", "NllLossBackward0"]}.get(name, ["MeanBackward0",
                                                                                             "PowBackward0"]))
    assert all(n["module"].split(".")[0] == "model" for n in ops if n["module"])
    assert len({n["module"] for n in ops}) > 1 + (name == "encoder") * 12  # the 6 layers' modules too
    assert [o["text"] for o in nb.cells[3].outputs] == ["true\n"], "gradients bitwise equal to plain backward()"


@pytest.mark.parametrize("name", ["transformer", "encoder"])
def test_jupyterlab_shows_a_real_model_legibly(name, jupyterlab, browser):
    """Labels at least 12 px tall at 1280×800; one press to the smallest gradient, with the node and
    the step's text on screen; light and dark."""
    page, errors = run_in_jupyterlab(jupyterlab, browser, name, model_notebook(name), height=800)
    figure = page.locator(".jp-OutputArea-output figure.snippet-steps")
    figure.locator(".snippet-steps__viewer:not([hidden])").wait_for(timeout=180_000)
    page.locator(".jp-OutputArea-output", has_text="true").last.wait_for(timeout=60_000)
    data = json.loads(figure.locator(".snippet-steps__data").text_content())
    heights = figure.locator(".snippet-steps__graph svg text").evaluate_all(
        "texts => texts.filter(t => t.getClientRects().length).map(t => t.getBoundingClientRect().height)")
    assert heights and min(heights) >= 12, min(heights)
    smallest = figure.get_by_role("button", name="Smallest gradient", exact=True)
    step = int(smallest.get_attribute("data-step"))
    assert step > 0
    smallest.click()
    assert figure.locator(".snippet-steps__counter").inner_text() == f"Step {step + 1} of {len(data['steps'])}"
    # The graph scrolls to the step's node smoothly (this browser does not ask for reduced motion):
    # measured once it is at rest, however long a loaded machine takes to get there.
    figure.locator(".snippet-steps__graph svg").first.evaluate(AT_REST)
    shown = figure.evaluate(STEP_ON_SCREEN)
    assert shown["wrong"] == [] and shown["nodes"] == 1, shown
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SHOTS / f"jupyterlab-{name}-light.png")
    page.evaluate('window.jupyterapp.commands.execute("apputils:change-theme", {theme: "JupyterLab Dark"})')
    page.wait_for_selector('body[data-jp-theme-light="false"]', state="attached")
    page.wait_for_timeout(500)
    page.screenshot(path=SHOTS / f"jupyterlab-{name}-dark.png")
    assert not errors
    page.context.close()


API = [
    """\
import json
import torch
from torch import nn
from autograd_steps import save_html, show_backward, watch_forward

torch.manual_seed(0)
encoder, head = nn.Linear(3, 4), nn.Linear(4, 1)
model = nn.Sequential(encoder, head)
x = torch.randn(5, 3)""",
    """\
with watch_forward():
    loss = torch.log(model[1](model[0](x).detach())).mean()  # the encoder detached; a log of negatives
recording = show_backward(loss)
recording""",
    "recording",
    """\
print(json.dumps({"first": recording.first_nonfinite, "missing": recording.missing,
                  "norms": sorted(recording.norms()), "modules": sorted(recording.norms(by="module"))}))""",
    "show_backward(model(x).sum(), quiet=True)",
    """\
save_html("steps.html", recording)
recording.to_json("steps.json")
recording.to_csv("steps.csv")""",
    """\
class Double(nn.Module):
    def forward(self, t):
        return t * 2""",
    """\
double, w = Double(), torch.ones(3, requires_grad=True)
with watch_forward():
    out = double(w).sum()
made = show_backward(out, quiet=True)
print(json.dumps([(n["detail"], n["where"][-1]["code"]) for n in made.data()["nodes"] if n["name"] == "MulBackward0"]))""",
]


def test_show_backward_returns_the_recording_which_answers_in_code_and_is_shown_once(tmp_path):
    """In a real kernel: the recording show_backward returns is not shown a second time under its
    viewer, and is where a later cell names it; it says where the first NaN was made, which
    parameters get no gradient, the norms by parameter and by module; quiet=True prints a summary
    and shows nothing; it writes its viewer, its JSON and its CSV."""
    nb = notebook(API)
    NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=False, shutdown_kernel="immediate",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    for cell in (1, 2):
        (output,) = nb.cells[cell].outputs
        assert output.output_type == "display_data" and STEPS in output.data, cell
    answers = json.loads(nb.cells[3].outputs[0].text)
    first = answers["first"]
    assert (first["node"], first["origin"], first["module"]) == ("LogBackward0", "forward", "")
    assert first["code"].startswith("loss = torch.log(model[1](model[0](x).detach())).mean()")
    assert answers["missing"] == [{"name": "model.0.weight", "shape": "4×3"}, {"name": "model.0.bias", "shape": "4"}]
    assert answers["norms"] == ["head.bias", "head.weight"] and answers["modules"] == ["head"]
    (summary,) = nb.cells[4].outputs
    assert summary.output_type == "stream" and summary.text.startswith("backward() ran 9 steps through 9 nodes.\nNo NaN or inf.\n")
    assert "model.0.weight" not in summary.text, "the encoder is in this graph"
    assert (tmp_path / "steps.html").read_text().count('<figure class="snippet-steps">') == 1
    data = json.loads((tmp_path / "steps.json").read_text(), parse_constant=pytest.fail)
    assert data["missing"] == answers["missing"] and data["jumps"]["origin"] == "forward"
    rows = (tmp_path / "steps.csv").read_text().splitlines()
    assert rows[0] == "step,node,module,line,received norm,NaN,inf,marks" and len(rows) == len(data["steps"]) + 1
    # A node made in a module's forward defined in another cell names that cell's line.
    assert json.loads(nb.cells[7].outputs[-1].text.splitlines()[-1]) == [["line 3 of another cell", "return t * 2"]]


# The debugger's test set (tests/recorded_models.py, beside the notebook as a reader's models.py),
# run in a real kernel that imports autograd_steps from the site's wheel alone.
TEST_SET = [
    """\
import copy, json, os
import torch
import autograd_steps
from autograd_steps import compare, save_html, show_backward, show_grad, watch_forward
from autograd_steps.layout import views
from recorded_models import CASES

def record(name, quiet=True):
    torch.manual_seed(0)
    model, inputs, loss_of = CASES[name]()
    with watch_forward():
        loss = loss_of(model(*inputs))
    return model, show_backward(loss, quiet=quiet)

def marked(recording, mark):
    return [(n["label"], n["module"]) for n in recording.data()["nodes"] if mark in n["marks"]]

print(json.dumps(autograd_steps.__file__))""",
    """\
found = {}
for name in CASES:
    model, recording = record(name)
    norms = [s["received"]["norm"] for s in recording.data()["steps"] if s["received"]]
    found[name] = {"first": recording.first_nonfinite, "missing": [m["name"] for m in recording.missing],
                   "vanishing": marked(recording, "vanishing"), "exploding": marked(recording, "exploding"),
                   "nodes": len(recording.nodes), "norms": [min(norms), max(norms)],
                   "dtypes": sorted({s["received"]["dtype"] for s in recording.data()["steps"] if s["received"]}),
                   "texts": [s["description"] for s in recording.data()["steps"]],
                   "views": [(v.path, len(v.boxes)) for v in views(recording.data())][:3]}
print(json.dumps(found, allow_nan=False))""",
    """\
torch.manual_seed(0)
model, inputs, loss_of = CASES["checkpointed"]()
twin = copy.deepcopy(model)
loss_of(twin(*inputs)).backward()
plain_runs = sum(b.runs for b in twin.blocks)
with watch_forward():
    loss = loss_of(model(*inputs))
show_backward(loss, quiet=True)
print(json.dumps({"runs": [plain_runs, sum(b.runs for b in model.blocks)],
                  "equal": all(torch.equal(p.grad, q.grad) for p, q in zip(twin.parameters(), model.parameters()))}))""",
    """\
_, before = record("dead ReLUs")
_, after = record("dead ReLUs, fixed")
comparison = compare(before, after)
bundle = comparison._repr_mimebundle_()
print(json.dumps({"rows": comparison.rows, "changed": [n["label"] for n in comparison.data["nodes"] if "changed" in n["marks"]],
                  "jump": 'data-jump="changed"' in bundle["text/html"]}))""",
    """\
torch.manual_seed(0)
model, inputs, loss_of = CASES["sigmoid stack"]()
with watch_forward():
    loss = loss_of(model(*inputs))
grads = show_grad(loss, [model[0].weight], quiet=True)
torch.manual_seed(0)
twin, inputs, _ = CASES["sigmoid stack"]()
expected = torch.autograd.grad(loss_of(twin(*inputs)), [twin[0].weight])
_, recording = record("forward NaN")
recording.to_json("steps.json")
recording.to_csv("steps.csv")
save_html("steps.html", recording)
print(json.dumps({"grad": torch.equal(grads[0], expected[0]), "untouched": model[0].weight.grad is None,
                  "files": sorted(f for f in ("steps.json", "steps.csv", "steps.html") if os.path.getsize(f) > 0)}))""",
    'model, vit = record("12-block ViT", quiet=False)',
]


@pytest.mark.jupyter
def test_the_debuggers_test_set_in_a_kernel_from_the_wheel_alone(tmp_path, monkeypatch):
    """Fifteen models with bugs planted in them (and their healthy twins): each shows what the
    debugger is for, in a real kernel whose autograd_steps is the wheel the site offers."""
    (tmp_path / wheel.filename()).write_bytes(wheel.wheel())
    target = tmp_path / "installed"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target",
                    str(target), str(tmp_path / wheel.filename())], check=True)
    shutil.copy(Path(__file__).parent.parent / "recorded_models.py", tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(target))
    nb = notebook(TEST_SET)
    NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=False, shutdown_kernel="immediate",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    printed = [json.loads(cell.outputs[-1].text.splitlines()[-1]) for cell in nb.cells[:5]]
    assert printed[0].startswith(str(target)), "the wheel's package, not the project's"
    found = printed[1]
    assert len(found) == 15
    # 1 and 5. The NaN's origin: a forward NaN at the operation that made it, in the reader's own file
    # beside the notebook, on its line.
    first = found["forward NaN"]["first"]
    assert (first["origin"], first["node"], first["file"], first["code"]) == (
        "forward", "SqrtBackward0", "recorded_models.py", "return self.head(self.body(x).sqrt())")
    first = found["backward NaN"]["first"]
    assert (first["origin"], first["node"], first["module"]) == ("backward", "SqrtBackward0", "model")
    # 2. Vanishing and exploding along the path: the true cases marked, the false ones not.
    assert ["model.0.weight", ""] in found["sigmoid stack"]["vanishing"]
    assert not [m for m in found["sigmoid stack"]["vanishing"] if m[1] == "model.16"], "the last layer is fine"
    assert found["RNN gain 1.6"]["exploding"] and not found["RNN gain 1.6"]["vanishing"]
    assert len(found["600-layer tanh MLP"]["vanishing"]) > 2900
    for healthy in ("RNN gain 0.9", "LayerScale", "12-block ViT", "fp32 tiny loss", "fp16, large gradients",
                    "detached encoder", "dead ReLUs, fixed"):
        assert found[healthy]["vanishing"] == found[healthy]["exploding"] == [], healthy
    # 3. Norms at the edges of their format: fp16 gradients whose norm fp16 cannot hold, fp32 ones of 1e-30.
    fp16 = found["fp16, large gradients"]
    assert fp16["first"] is None and "float16" in fp16["dtypes"] and 65504 < fp16["norms"][1] < 1e6
    assert 0 < found["fp32 tiny loss"]["norms"][0] < 1e-29
    # 4. Checkpoints: each block recomputed once, as plain backward does; a reentrant one says what it hides.
    assert printed[2] == {"runs": [8, 8], "equal": True}
    assert any("a reentrant activation checkpoint" in t for t in found["reentrant checkpoint"]["texts"])
    # 6. What never arrived.
    assert found["detached encoder"]["missing"] == [f"model.encoder.{k}.{p}" for k in (0, 2) for p in ("weight", "bias")]
    # 7. Nested modules: the ViT opens as its blocks, the 600 layers as runs of them.
    vit = found["12-block ViT"]["views"]
    assert vit[0] == ["", 15] and vit[1][0] == "model.patch"
    assert found["600-layer tanh MLP"]["views"][0] == ["", 24] and found["600-layer tanh MLP"]["views"][1][0] \
        == "model.0 … model.49"
    # 8. Two runs side by side: dead ReLUs, then revived.
    compared = printed[3]
    first_layer = {r["name"]: r for r in compared["rows"]}["model.0.weight"]
    assert first_layer["before"] == 0 and first_layer["after"] > 0 and compared["jump"]
    assert "model.0.weight" in compared["changed"]
    # 9. The API: torch.autograd.grad recorded, files written, the viewer shown.
    assert printed[4] == {"grad": True, "untouched": True, "files": ["steps.csv", "steps.html", "steps.json"]}
    (shown,) = [o for o in nb.cells[5].outputs if o["output_type"] == "display_data"]
    assert "Up one level" in shown["data"]["text/html"] and STEPS in shown["data"]
