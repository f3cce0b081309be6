"""The step-through viewer as a gradient debugger (autograd_steps.view, steps.js, steps.css): marked
nodes, the buttons that go to the first NaN/inf and the largest and smallest gradient, a failed
recording's error, saved tensors in the panel, the table of gradient norms; in Chromium, labels
at least 12 px tall, zoom, clicking a node, and the controls, the current node, its line and the
step's text on screen together at every step of a transformer's backward pass.

The recordings are real (`record`); the fields the recorder adds for the viewer (NaN and inf
counts, marks, jumps, an error) are added by `with_fields` from what the recording has."""

import math
import re
import runpy
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from browsing import PHONE, STEP_ON_SCREEN, TWO_FRAMES, screenshot
from recorded_models import mlp
from torch import nn

from autograd_steps import compare, layout, view, watch_forward
from autograd_steps.recording import Recording

DETECT = "with torch.autograd.set_detect_anomaly(True, check_nan=False):"


def recording_of(tmp_path, code, name, **variables):
    """The Recording of `loss.backward()`, `loss` made by `code` (run as the file `name`, with `variables`)."""
    path = tmp_path / name
    path.write_text(textwrap.dedent(code) + textwrap.dedent("""\
        import sys as _sys
        from autograd_steps.recording import Recording as _Recording, names as _names, parameters as _parameters
        recording = _Recording(loss, _names(_sys._getframe()), __file__, params=_parameters(_sys._getframe()))
        recording.run(loss.backward)
        """))
    return runpy.run_path(str(path), variables, run_name="__main__")["recording"]


def record(tmp_path, code, name="mine.py"):
    """The recording's data."""
    return recording_of(tmp_path, code, name).data()


def counted(summary):
    """A gradient's summary with its NaN and inf counts, from its values or, for a big one, its norm."""
    if summary is None or "nan" in summary:
        return
    values = summary["values"]
    flat = [] if values is None else [values] if not isinstance(values, list) else list(_flat(values))
    if values is None:
        flat = [summary["norm"]]
    summary.update(nan=sum(math.isnan(v) for v in flat), inf=sum(math.isinf(v) for v in flat),
                   dtype="float32", layout="strided")


def _flat(values):
    for v in values:
        yield from _flat(v) if isinstance(v, list) else [v]


def with_fields(data, marks=None, error=None, saved=None):
    """`data` with the fields the recorder gives the viewer: marks {node: [mark]}, modules
    {node: path}, an error, saved {(node, name): Summary}; the jumps from the gradients."""
    for step in data["steps"]:
        for summary in [step["received"], *(c["grad"] for c in step["contributions"] + step["sent"])]:
            counted(summary)
    for node in data["nodes"]:
        node["marks"] = (marks or {}).get(node["id"], [])
        for s in node["saved"]:
            s["summary"] = (saved or {}).get((node["id"], s["name"]))
    norms = [(s["received"]["norm"], i) for i, s in enumerate(data["steps"]) if s["received"]]
    bad = [i for i, s in enumerate(data["steps"])
           if any(g and g["nan"] + g["inf"] for g in [s["received"], *(x["grad"] for x in s["sent"])])]
    data["jumps"] = {"nonfinite": bad[0] if bad else None, "origin": "backward" if bad else None,
                     "largest": max(norms)[1] if norms else None,
                     "smallest": min(norms)[1] if norms else None}
    if error:
        data["error"] = error
    return data


def laid_out(data):
    return {**data, "svg": layout.svg(data)}


SQRT = f"""\
import torch
x = torch.tensor([0.0, 1.0, 4.0], requires_grad=True)
w = torch.tensor([2.0, 3.0, 1.0], requires_grad=True)
{DETECT}
    y = torch.sqrt(x) * w
    loss = y.sum()
"""


@pytest.fixture
def sqrt(tmp_path):
    """sqrt at 0: an inf gradient at step 3 (SqrtBackward0 sends inf to x)."""
    data = record(tmp_path, SQRT)
    order = [data["nodes"][s["node"]]["name"] for s in data["steps"]]
    sqrt_node = data["steps"][order.index("SqrtBackward0")]["node"]
    return with_fields(data, marks={sqrt_node: ["nonfinite"]})


def test_a_node_that_sends_inf_is_marked_in_the_graph_and_the_table(sqrt):
    page = view.viewer(sqrt, layout.svg(sqrt), None)
    (node,) = [n for n in sqrt["nodes"] if n["marks"]]
    svg = layout.svg(sqrt)
    group = re.search(rf'<g data-node="{node["id"]}">(.*?)</g>', svg, re.S)[1]
    assert group.count("<path") == 2, "a double outline"
    assert "⚠ NaN/inf" in group
    rows = re.findall(r"<tr( class=\"[^\"]*\")?><td data-label=\"Step\">(\d+)</td><td data-label=\"Node\">(.*?)</td>",
                      page)
    marked = [(number, cell) for cls, number, cell in rows if cls]
    assert marked == [(str(sqrt["jumps"]["nonfinite"] + 1),
                       'SqrtBackward0 <span class="snippet-steps__mark is-nonfinite">NaN/inf</span>')]
    assert view.script_data(sqrt, [], [])["marks"][node["id"]] == ["nonfinite"]


def test_buttons_go_to_the_first_non_finite_and_the_largest_and_smallest_gradient(sqrt):
    page = view.viewer(sqrt, None, None)
    buttons = dict(re.findall(r'<button type="button" data-jump="[a-z]+" data-step="(\d+)"[^>]*>([^<]+)</button>', page))
    assert f'data-jump="nonfinite" data-step="{sqrt["jumps"]["nonfinite"]}" title="Made in the backward pass"' in page
    assert buttons == {str(sqrt["jumps"]["nonfinite"]): "First NaN/inf", str(sqrt["jumps"]["largest"]):
                       "Largest gradient", str(sqrt["jumps"]["smallest"]): "Smallest gradient"}
    step = sqrt["steps"][sqrt["jumps"]["nonfinite"]]
    sent = step["sent"][0]["grad"]
    assert sent["inf"] > 0 and sent["values"] is None and "inf" in sent["text"], "JSON has no inf: the text shows it"
    finite = {**sqrt, "jumps": {**sqrt["jumps"], "nonfinite": None}}
    assert "First NaN/inf" not in view.viewer(finite, None, None) and "Largest gradient" in view.viewer(finite, None, None)
    none = {**sqrt, "jumps": {"nonfinite": None, "origin": None, "largest": None, "smallest": None}}
    assert "data-jump" not in view.viewer(none, None, None)


def test_the_panel_flags_a_non_finite_gradient(sqrt):
    step = sqrt["steps"][sqrt["jumps"]["nonfinite"]]
    rows = view.panel_rows(sqrt, step)
    assert [r[3] for r in rows if r[0] == "out"] == ["nonfinite"]
    assert [r[3] for r in rows if r[0] == "in"] == [""]


def test_a_failed_recording_shows_the_error_the_failing_node_and_the_forward_traceback(sqrt):
    failing = sqrt["steps"][1]["node"]
    forward = 'File "mine.py", line 5, in <module>\n    y = torch.sqrt(x) * w'
    data = with_fields(sqrt, error={"node": failing, "step": 1, "message": "Function 'MulBackward0' returned nan",
                                    "forward": forward})
    page = view.viewer(data, None, None)
    alert = re.search(r'<div class="snippet-steps__error" role="alert">(.*?)</div>', page, re.S)[1]
    name = view.node_name(data, failing)
    assert f"backward() raised at {name} (step 2): Function &#x27;MulBackward0&#x27; returned nan" in alert
    assert "Traceback of the forward call that made the node</summary>" in alert
    assert "y = torch.sqrt(x) * w" in alert
    assert view.script_data(data, [], [])["marks"][failing] == ["failed"]
    assert '<span class="snippet-steps__mark is-failed">raised</span>' in page


def test_a_recording_that_failed_at_its_first_node_says_so(sqrt):
    data = with_fields({**sqrt, "steps": []}, error={"node": None, "step": None, "message": "boom", "forward": ""})
    page = view.viewer(data, None, None)
    assert '<p class="snippet-steps__description" aria-live="polite">backward() raised: boom</p>' in page
    assert "Traceback of the forward call" not in page


def test_built_in_nodes_saved_tensors_show_in_the_panel_with_their_statistics(tmp_path):
    data = record(tmp_path, f"""\
        import torch
        torch.manual_seed(0)
        layer = torch.nn.Linear(3, 2)
        x = torch.randn(4, 3, requires_grad=True)
        {DETECT}
            loss = layer(x).sum()
        """)
    (addmm,) = [n for n in data["nodes"] if n["name"] == "AddmmBackward0"]
    assert [s["name"] for s in addmm["saved"]] == ["mat1", "mat2"]
    stats = {"shape": [4, 3], "values": None, "text": "4×3, norm 3.1, from -1.5 to 2.2", "norm": 3.1,
             "min": -1.5, "max": 2.2, "nan": 0, "inf": 0, "dtype": "float32", "layout": "strided"}
    data = with_fields(data, saved={(addmm["id"], "mat1"): stats})
    (step,) = [s for s in data["steps"] if s["node"] == addmm["id"]]
    rows = [r for r in view.panel_rows(data, step) if r[0] == "saved"]
    assert rows == [["saved", "Saved for backward: mat1", "4×3, norm 3.1, from -1.5 to 2.2 (float32, 48 bytes)", ""],
                    ["saved", "Saved for backward: mat2", "3×2 (float32, 24 bytes)", ""]]
    addmm["saved"][1]["error"] = "freed"
    assert view.saved_tensor_text(addmm["saved"][1]) == "3×2 float32, 24 bytes: freed"


def test_a_node_with_several_outputs_receives_one_gradient_per_output(tmp_path):
    data = with_fields(record(tmp_path, f"""\
        import torch
        x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        {DETECT}
            first, second = x.unbind(0)
            loss = (first * 2 + second * 3).sum()
        """))
    (step,) = [s for s in data["steps"] if data["nodes"][s["node"]]["name"] == "UnbindBackward0"]
    rows = view.panel_rows(data, step)
    assert ["sum", "Received, one gradient per output", "output 0: [2, 2]; output 1: [3, 3]", ""] in rows
    assert not [r for r in rows if r[1] == "Sum received"]
    assert "<code>output 0: [2, 2]; output 1: [3, 3]</code>" in view.table(data)


def test_the_bars_of_the_norms_are_on_a_log_scale():
    assert view.bar_widths([1.0, 10.0, 100.0, None, 0.0]) == [0.05, 0.525, 1.0, 0.0, 0.0]
    assert view.bar_widths([3.0, 3.0]) == [1.0, 1.0]
    assert view.bar_widths([None]) == [0.0]


def test_the_overview_has_a_row_per_step_with_its_norm(sqrt):
    page = view.overview(sqrt)
    rows = re.findall(r'<tr data-step="(\d+)"[^>]*><td>(\d+)</td><td>([^<]*)', page)
    assert [(int(i), int(n)) for i, n, _ in rows] == [(i, i + 1) for i in range(len(sqrt["steps"]))]
    values = [float(v) for v in re.findall(r'<td data-value="([^"]+)">', page)]
    assert values == [s["received"]["norm"] for s in sqrt["steps"]]


# In Chromium: the viewer as a notebook shows it (view.notebook_html), alone on a page.

TRANSFORMER = f"""\
import torch
from torch import nn
torch.manual_seed(0)
model = nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, batch_first=True)
x = torch.randn(2, 5, 16)
{DETECT}
    out = model(x)
    loss = out.pow(2).mean()
"""


@pytest.fixture(scope="module")
def transformer(tmp_path_factory):
    """A TransformerEncoderLayer's backward pass: 75 nodes, all made by one line."""
    return laid_out(with_fields(record(tmp_path_factory.mktemp("transformer"), TRANSFORMER, "transformer.py")))


def opened(browser, data, width=1280, height=800, scheme="light", before=""):
    """A page holding the viewer of `data` (laid out), after `before` (HTML)."""
    page = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme,
                               reduced_motion="reduce").new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.set_content(f"<!doctype html><html><head><meta charset='utf-8'></head><body>{before}"
                     f"{view.notebook_html(data)}</body></html>")
    page.evaluate(TWO_FRAMES)
    return page


LABEL_HEIGHTS = "f => [...f.querySelectorAll('svg text')].map(t => t.getBoundingClientRect().height)"


def test_labels_are_at_least_12_px_tall_and_the_graph_scrolls_in_its_box(browser, transformer):
    page = opened(browser, transformer)
    figure = page.locator("figure.snippet-steps")
    heights = figure.evaluate(LABEL_HEIGHTS)
    assert len(heights) >= 150 and min(heights) >= 12, min(heights)
    graph = figure.locator(".snippet-steps__graph")
    assert graph.evaluate("g => g.scrollHeight > g.clientHeight"), "a tall graph scrolls in its box"
    assert graph.bounding_box()["height"] <= 800 - figure.locator(".snippet-steps__viewer").bounding_box()["height"]
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    assert figure.locator(".snippet-steps__hint").is_visible()
    page.context.close()


def test_the_zoom_buttons_zoom_the_graph_and_reset_it(browser, transformer):
    page = opened(browser, transformer)
    figure = page.locator("figure.snippet-steps")
    first = figure.evaluate(LABEL_HEIGHTS)[0]
    figure.get_by_role("button", name="Zoom in").click()
    assert figure.evaluate(LABEL_HEIGHTS)[0] == pytest.approx(first * 1.25, rel=0.05)
    figure.get_by_role("button", name="Reset zoom").click()
    assert figure.evaluate(LABEL_HEIGHTS)[0] == pytest.approx(first, rel=0.01)
    for _ in range(20):
        figure.get_by_role("button", name="Zoom out").click()
    svg, box = figure.locator("svg").bounding_box(), figure.locator(".snippet-steps__graph").bounding_box()
    assert svg["height"] <= box["height"] + 1 and svg["width"] <= box["width"] + 1, "out as far as all of it shows"
    assert figure.evaluate(LABEL_HEIGHTS)[0] < first / 2
    page.context.close()


def test_clicking_a_node_or_pressing_enter_on_it_goes_to_its_step(browser, transformer):
    page = opened(browser, transformer)
    figure = page.locator("figure.snippet-steps")
    total = len(transformer["steps"])
    for number in (40, 7):
        node = transformer["steps"][number - 1]["node"]
        target = figure.locator(f'svg [data-node="{node}"]')
        target.scroll_into_view_if_needed()
        target.click()
        assert figure.locator(".snippet-steps__counter").inner_text() == f"Step {number} of {total}"
        assert figure.locator("svg [data-node].is-current").get_attribute("data-node") == str(node)
    leaf = transformer["steps"][-1]["node"]
    figure.locator(f'svg [data-node="{leaf}"]').focus()
    page.keyboard.press("Enter")
    assert figure.locator(".snippet-steps__counter").inner_text() == f"Step {total} of {total}"
    assert page.errors == []
    page.context.close()


def test_dragging_the_graph_pans_it_without_changing_the_step(browser, transformer):
    page = opened(browser, transformer)
    figure = page.locator("figure.snippet-steps")
    graph = figure.locator(".snippet-steps__graph")
    graph.scroll_into_view_if_needed()
    before = graph.evaluate("g => [g.scrollLeft, g.scrollTop]")
    box = graph.bounding_box()
    x, y = box["x"] + 5, box["y"] + box["height"] / 2  # the box's edge: no node there
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 40, y + 120, steps=5)
    page.mouse.up()
    after = graph.evaluate("g => [g.scrollLeft, g.scrollTop]")
    assert after[1] < before[1] and after[0] <= before[0], (before, after)
    assert figure.locator(".snippet-steps__counter").inner_text().startswith("Step 1 of ")
    page.context.close()


@pytest.mark.parametrize("width, height", [(1280, 800), (PHONE, 844)])
def test_the_controls_the_text_the_node_and_its_line_are_on_screen_at_every_step(browser, transformer, width, height):
    """A transformer's 75 steps, Next pressed where the reader sees it; the viewer starts below a
    screenful of other output."""
    page = opened(browser, transformer, width, height, before='<div style="height: 1200px"></div>')
    figure = page.locator("figure.snippet-steps")
    figure.evaluate("f => f.scrollIntoView()")
    step = 1
    while True:
        shown = figure.evaluate(STEP_ON_SCREEN)
        assert shown["counter"].startswith(f"Step {step} of "), step
        assert shown["lines"] == 1 and shown["nodes"] == 1, step
        assert shown["wrong"] == [], f"step {step}"
        if shown["last"]:
            break
        page.mouse.click(shown["x"], shown["y"])
        step += 1
    assert step == len(transformer["steps"])
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.context.close()


def test_the_jump_buttons_go_to_their_steps(browser, sqrt):
    page = opened(browser, laid_out(sqrt), scheme="dark")
    figure = page.locator("figure.snippet-steps")
    total = len(sqrt["steps"])
    for name, jump in [("First NaN/inf", "nonfinite"), ("Largest gradient", "largest"), ("Smallest gradient", "smallest")]:
        figure.get_by_role("button", name=name).click()
        assert figure.locator(".snippet-steps__counter").inner_text() == f"Step {sqrt['jumps'][jump] + 1} of {total}"
    figure.get_by_role("button", name="First NaN/inf").click()
    current = figure.locator("svg [data-node].is-current")
    assert "is-nonfinite" in current.get_attribute("class")
    flagged = figure.locator(".snippet-steps__panel dd.is-nonfinite")
    assert flagged.count() == 1 and "inf" in flagged.inner_text()
    outline = current.locator("path").first.evaluate("p => getComputedStyle(p).stroke")
    assert outline not in ("none", "rgb(0, 0, 0)")
    screenshot(page, "viewer-nonfinite-dark")
    page.context.close()


def test_the_table_of_norms_sorts_by_a_column_and_goes_to_a_rows_step(browser, transformer):
    page = opened(browser, transformer)
    figure = page.locator("figure.snippet-steps")
    figure.locator(".snippet-steps__overview summary").click()
    table = figure.locator(".snippet-steps__norms")
    table.get_by_role("button", name="Gradient norm (log scale)").click()
    values = [float(v) for v in table.locator("tbody td[data-value]").evaluate_all("tds => tds.map(t => t.dataset.value)")]
    assert values == sorted(values, reverse=True) and values != sorted(values)
    table.get_by_role("button", name="Gradient norm (log scale)").click()
    values = [float(v) for v in table.locator("tbody td[data-value]").evaluate_all("tds => tds.map(t => t.dataset.value)")]
    assert values == sorted(values)
    table.get_by_role("button", name="Step").click()
    assert table.locator("tbody tr").first.get_attribute("data-step") == str(len(transformer["steps"]) - 1)
    row = table.locator("tbody tr").nth(5)
    step = int(row.get_attribute("data-step"))
    row.click()
    total = len(transformer["steps"])
    assert figure.locator(".snippet-steps__counter").inner_text() == f"Step {step + 1} of {total}"
    widths = table.locator(".snippet-steps__bar").evaluate_all("bars => bars.map(b => b.getBoundingClientRect().width)")
    assert max(widths) > 5 * min(w for w in widths if w), "the bars differ on a log scale"
    page.context.close()


def jupyterlab_table_styles():
    """JupyterLab's rules for an output's tables (.jp-RenderedHTMLCommon), from the installed JupyterLab."""
    static = next(Path(sys.prefix, "share/jupyter/lab/static").glob("jlab_core.*.js")).read_text(encoding="utf-8")
    rules = re.findall(r"(?:^|\n)((?:[^{}\n]*\.jp-RenderedHTMLCommon (?:table|td|th|tr)[^{}]*)\{[^}]*\})", static)
    assert len(rules) >= 4
    return "\n".join(rules)


def test_in_jupyterlab_the_table_is_left_aligned_and_not_clipped(browser, transformer):
    styles = jupyterlab_table_styles()
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    page.set_content(f"<!doctype html><html><head><meta charset='utf-8'><style>{styles}</style></head><body>"
                     f'<div class="jp-RenderedHTMLCommon jp-OutputArea-output" style="width: 900px">'
                     f"{view.notebook_html(transformer)}</div></body></html>")
    figure = page.locator("figure.snippet-steps")
    figure.locator(".snippet-steps__table summary").click()
    table = figure.locator(".snippet-steps__table table")
    assert table.evaluate("t => getComputedStyle(t).tableLayout") == "auto"
    aligns = set(table.locator("td, th").evaluate_all("cs => cs.map(c => getComputedStyle(c).textAlign)"))
    assert aligns == {"left"}
    left = figure.locator(".snippet-steps__table .snippet-steps__scroll").bounding_box()["x"]
    assert table.bounding_box()["x"] == pytest.approx(left, abs=1)
    last = table.locator("tbody td:last-child")
    assert last.evaluate_all("tds => tds.every(t => t.scrollWidth <= t.clientWidth + 1)"), "no cell clips its text"
    page.context.close()


# A real model's graph, drawn collapsed by module.

VIT = """\
import torch
from torch.nn import functional as F
from autograd_steps import watch_forward
from recorded_models import ViT
torch.manual_seed(0)
model = ViT()
images, labels = torch.randn(4, 3, 16, 16), torch.tensor([1, 2, 3, 4])
with watch_forward():
    loss = F.cross_entropy(model(images), labels)
"""


@pytest.fixture(scope="module")
def vit(tmp_path_factory):
    """A 12-block Vision Transformer's backward pass (704 nodes), each node with its module."""
    return laid_out(record(tmp_path_factory.mktemp("vit"), VIT, "vit.py"))


def under(data, path):
    """The ids of the nodes of a module, its parameters' AccumulateGrad included."""
    return {n["id"] for n in data["nodes"] if f"{n['module']}.".startswith(f"{path}.")
            or n["kind"] == "leaf" and n["label"].startswith(f"{path}.")}


def test_a_graph_of_more_than_150_nodes_is_drawn_as_a_tree_of_its_modules(vit):
    tree = layout.views(vit)
    paths = [view.path for view in tree]
    assert len(vit["nodes"]) == 704 > layout.COLLAPSE
    blocks = [f"model.blocks.{k}" for k in range(12)]
    assert [paths[k] for k in tree[0].boxes] == ["model.patch", *blocks, "model.norm", "model.head"], \
        "the model opens as its modules, its ModuleList of blocks opened in place, in the order they ran"
    assert {vit["nodes"][i]["label"] for i in tree[0].nodes} >= {"model.cls", "model.pos", "CatBackward0",
                                                                   "NllLossBackward0"}
    block = tree[paths.index("model.blocks.3")]
    assert [paths[k] for k in block.boxes] == [f"model.blocks.3.{m}" for m in ("norm1", "attn", "norm2", "mlp.0", "mlp.2")]
    assert "GeluBackward0" in {vit["nodes"][i]["label"] for i in block.nodes}, "a module of one node is that node"
    qkv = tree[paths.index("model.blocks.3.attn.qkv")]
    assert {vit["nodes"][i]["label"] for i in qkv.nodes} >= {"model.blocks.3.attn.qkv.weight",
                                                             "model.blocks.3.attn.qkv.bias"}, "parameters fold into their module"
    svg = "{http://www.w3.org/2000/svg}"
    views = ET.fromstring(vit["svg"]).findall(f"{svg}svg")
    assert [v.get("data-view") for v in views] == [str(k) for k in range(len(tree))]
    assert [v.get("display") for v in views] == [None] + ["none"] * (len(tree) - 1), "the whole model shows first"
    for k, v in enumerate(views):
        boxes = {int(g.get("data-module")): [t.text for t in g.iter(f"{svg}text")] for g in v.iter()
                 if g.get("data-module")}
        assert boxes == {j: [paths[j], f"{len(under(vit, paths[j]))} nodes"] for j in tree[k].boxes}
    placed = [int(g.get("data-node")) for v in views for g in v.iter() if g.get("data-node")]
    assert sorted(placed) == list(range(704)), "each node drawn once: in the view of its innermost module"


MLP = """\
import torch
from torch import nn
from autograd_steps import watch_forward
torch.manual_seed(0)
model = nn.Sequential(*[m for _ in range(60) for m in (nn.Linear(4, 4), nn.Tanh())])
with watch_forward():
    loss = model(torch.randn(2, 4)).pow(2).mean()
"""


def test_a_view_of_more_than_24_modules_holds_runs_of_them(tmp_path):
    data = record(tmp_path, MLP, "mlp.py")
    tree = layout.views(data)
    runs = [tree[k] for k in tree[0].boxes]
    assert len(data["nodes"]) == 302 and len(runs) == 20, "60 Linear boxes in runs of 3, each with its Tanh"
    assert [run.path for run in runs[:2]] == ["model.0 … model.5", "model.6 … model.11"]
    first = runs[0]
    assert [tree[k].path for k in first.boxes] == ["model.0", "model.2", "model.4"]
    assert [data["nodes"][i]["module"] for i in first.nodes] == ["model.1", "model.3", "model.5"], \
        "a Tanh is its one node"


def test_modules_open_and_close_level_by_level_and_a_search_finds_a_parameter(browser, vit):
    page = opened(browser, vit)
    figure = page.locator("figure.snippet-steps")
    shown = figure.evaluate(LABEL_HEIGHTS)
    assert min(h for h in shown if h) >= 12
    paths = [view.path for view in layout.views(vit)]
    total = len(vit["steps"])

    def on_show():
        (k,) = figure.evaluate("f => [...f.querySelectorAll('svg[data-view]')]"
                               ".filter(v => v.getAttribute('display') !== 'none').map(v => v.dataset.view)")
        return paths[int(k)]

    def current():
        """The current step's node, and what the view on show draws it as."""
        n = int(figure.locator(".snippet-steps__counter").inner_text().split()[1]) - 1
        k = paths.index(on_show())
        drawn = figure.locator(f'svg[data-view="{k}"] :is([data-node], [data-module]).is-current')
        return vit["steps"][n]["node"], [paths[int(m)] if m else int(d) for d, m in
                                         drawn.evaluate_all("gs => gs.map(g => [g.dataset.node, g.dataset.module])")]

    block = paths.index("model.blocks.2")
    figure.locator(f'svg[data-view="0"] [data-module="{block}"]').click()
    assert on_show() == "model.blocks.2"
    first = next(i for i, s in enumerate(vit["steps"]) if s["node"] in under(vit, "model.blocks.2"))
    assert figure.locator(".snippet-steps__counter").inner_text() == f"Step {first + 1} of {total}"
    node, drawn = current()
    assert drawn in ([node], ["model.blocks.2.mlp.2"]), "the step's node, or the box of the module holding it"
    attn = paths.index("model.blocks.2.attn")
    figure.locator(f'svg[data-view="{block}"] [data-module="{attn}"]').click()
    assert on_show() == "model.blocks.2.attn"
    figure.get_by_role("button", name="Up one level").click()
    assert on_show() == "model.blocks.2"
    node, drawn = current()
    assert drawn == ["model.blocks.2.attn"] and node in under(vit, "model.blocks.2.attn")
    last = next(i for i in range(first, total) if vit["steps"][i + 1]["node"] not in under(vit, "model.blocks.2"))
    figure.locator(f'tr[data-step="{last}"]').dispatch_event("click")
    assert on_show() == "model.blocks.2"
    figure.get_by_role("button", name="Next").click()
    assert on_show() == "model.blocks.1", "a step out of a module shows the module it went to, as deep"
    figure.get_by_role("button", name="All modules", exact=True).click()
    assert on_show() == "" and current()[1] == ["model.blocks.1"]
    figure.locator("select.snippet-steps__modules").select_option(str(paths.index("model.blocks.4.attn.qkv")))
    assert on_show() == "model.blocks.4.attn.qkv"
    search = figure.get_by_role("searchbox", name="Find a node or parameter by name")
    search.fill("blocks.7.mlp.2.weight")
    search.press("Enter")
    (step,) = [i for i, s in enumerate(vit["steps"]) if vit["nodes"][s["node"]]["label"] == "model.blocks.7.mlp.2.weight"]
    assert figure.locator(".snippet-steps__counter").inner_text() == f"Step {step + 1} of {total}"
    assert figure.locator(".snippet-steps__found").inner_text() == "1 of 1"
    assert on_show() == "model.blocks.7.mlp.2" and current()[1] == [vit["steps"][step]["node"]]
    search.fill("no such node")
    search.press("Enter")
    assert figure.locator(".snippet-steps__found").inner_text() == "none found"
    assert page.errors == []
    page.context.close()


DETACHED = """\
    import torch
    from torch import nn

    torch.manual_seed(0)
    encoder, decoder = nn.Linear(4, 8), nn.Linear(8, 2)
    model = nn.Sequential(encoder, decoder)
    memory = model[0](torch.randn(5, 4)).detach()  # the encoder detached by mistake
    loss = model[1](memory).pow(2).mean()
"""


def test_a_parameter_that_gets_no_gradient_is_listed_and_found_by_the_search(browser, tmp_path):
    data = record(tmp_path, DETACHED)
    assert data["missing"] == [{"name": "model.0.weight", "shape": "8×4"}, {"name": "model.0.bias", "shape": "8"}]
    page = opened(browser, laid_out(data))
    figure = page.locator("figure.snippet-steps")
    assert figure.locator(".snippet-steps__unreached").inner_text() == (
        "Received no gradient: this backward pass does not reach them (detached, or not used): "
        "model.0.weight (8×4), model.0.bias (8).")
    search = figure.get_by_role("searchbox", name="Find a node or parameter by name")
    search.fill("model.0")
    search.press("Enter")
    assert figure.locator(".snippet-steps__found").inner_text() == "model.0.weight, model.0.bias: no gradient, not reached"
    search.fill("decoder.weight")  # the name the graph gives it: the first variable that holds it
    search.press("Enter")
    assert figure.locator(".snippet-steps__found").inner_text() == "1 of 1"


def test_a_comparison_shows_in_the_viewer_what_each_node_received_before(browser):
    """The 6-layer MLP with sigmoids, then with ReLUs: the viewer of the second, node by node."""
    recordings = []
    for activation in (nn.Sigmoid, nn.ReLU):
        model, x = mlp(activation)
        with watch_forward():
            loss = model(x).pow(2).mean()
        recording = Recording(loss, {}, __file__, params=[(f"model.{n}", p) for n, p in model.named_parameters()])
        recording.run(loss.backward)
        recordings.append(recording)
    data = compare(*recordings).data
    page = opened(browser, laid_out(data))
    figure = page.locator("figure.snippet-steps")
    figure.get_by_role("button", name="Largest change").click()
    step = data["jumps"]["changed"]
    assert figure.locator(".snippet-steps__counter").inner_text() == f"Step {step + 1} of {len(data['steps'])}"
    node = data["steps"][step]["node"]
    current = figure.locator("svg [data-node].is-current")
    assert "is-changed" in current.get_attribute("class") and "changed" in current.get_attribute("aria-label")
    before = figure.locator(".snippet-steps__panel dt.is-before + dd")
    assert before.inner_text() == f"{data['before'][node]['received']['text']} (now {data['before'][node]['ratio']:.3g}×)"
    assert "is-changed" in before.get_attribute("class")
    relu = next(n["id"] for n in data["nodes"] if n["name"] == "ReluBackward0")
    figure.locator(f'svg [data-node="{relu}"]').click()
    assert before.inner_text() == "no such node"
    assert page.errors == []
    page.context.close()
