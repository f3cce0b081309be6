"""kinds/ in-process: each kind of output as the HTML under a block."""

import pytest
from conftest import mkdocs

from snippet_engine import kinds
from snippet_engine.kinds.graph import GRAPH
from snippet_engine.pages import PageHtml
from snippet_engine.render import escaped

SVG = ('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
       'width="30pt" height="15pt"><style>.a{fill:red}</style><defs><path id="glyph" d="M0 0"/></defs>'
       '<use xlink:href="#glyph" class="a" onclick="alert(1)"/><a xlink:href="javascript:alert(2)"><text>t</text></a>'
       '<a href="https://example.org/"><text>web</text></a></svg>')


def stream(text, name="stdout"):
    return {"output_type": "stream", "name": name, "text": text}


def test_prints_in_a_row_are_one_block_and_each_stream_its_own():
    html = kinds.outputs_html([stream("a\n"), stream("b\n"), stream("c\n", "stderr")], PageHtml("p/", {}))
    assert html.count("snippet-output") == 2
    assert "<code>a\nb</code>" in html and "Printed to stderr" in html


def test_a_figure_is_a_file_of_the_site_its_own_ids_and_styles_kept_its_scripts_and_script_links_removed():
    assets: dict[str, bytes] = {}
    html = kinds.outputs_html([{"output_type": "display_data", "data": {"image/svg+xml": SVG, "text/plain": "A plot"}}],
                               PageHtml("chapter/", assets))
    ((name, data),) = assets.items()
    assert f'src="../assets/snippet-outputs/{name}"' in html and 'alt="A plot"' in html
    assert 'width="40" height="20"' in html, "points as CSS pixels"
    svg = data.decode()
    assert 'id="glyph"' in svg and "<style>" in svg and "#glyph" in svg
    assert "onclick" not in svg and "javascript" not in svg and "https://example.org/" in svg


def test_a_graph_is_inlined_without_ids_or_styles_with_its_nodes_as_a_list():
    graph = {"nodes": ["a", "b"], "backward": [{"text": "b", "children": [{"text": "a", "children": []}]}]}
    assets: dict[str, bytes] = {}
    html = kinds.outputs_html([{"output_type": "display_data", "data": {"image/svg+xml": SVG, GRAPH: graph}}],
                               PageHtml("p/", assets))
    (svg,) = assets.values()
    assert b'id="' not in svg and b"<style" not in svg and b"class=" not in svg
    assert "Computation graph with 2 nodes" in html and "<ul><li>b<ul><li>a</li></ul></li></ul>" in html


def test_an_output_of_no_known_kind_is_an_error_not_a_guess():
    with pytest.raises(ValueError, match="no renderer"):
        kinds.outputs_html([{"output_type": "display_data", "data": {"application/x-unknown": "?"}}],
                            PageHtml("p/", {}))


def test_a_step_through_recorded_without_graphviz_says_on_the_page_how_to_get_the_graph(monkeypatch):
    import torch

    from autograd_steps.layout import MISSING
    from autograd_steps.recording import Recording
    from snippet_engine.kinds.steps import STEPS

    monkeypatch.setenv("PATH", "")  # no dot: the snippet's run records no layout
    x = torch.ones(2, requires_grad=True)
    out = (x * 2).sum()
    recording = Recording(out, {id(x): "x"}, __file__)
    recording.run(out.backward)
    data = {STEPS: recording.data()}
    kinds.displayed(recording, data)
    assert data[STEPS]["svg"] is None
    page = PageHtml("p/", {})
    kinds.outputs_html([{"output_type": "display_data", "data": data}], page)
    ((how, viewer),) = page.items
    assert how == "late" and "<svg" not in viewer and MISSING.replace("'", "&#x27;") in viewer
    assert "x's AccumulateGrad" in viewer


def test_the_steps_kind_and_the_recorder_name_the_same_mime_type():
    """recording.py works as a file alone, so it cannot import the name; the engine must not import
    torch, so it cannot import recording.py: the two definitions must agree."""
    from autograd_steps import recording
    from snippet_engine.kinds import steps

    assert steps.STEPS == recording.STEPS


def test_control_characters_of_a_warning_or_a_graphs_text_are_shown_escaped():
    from snippet_engine.kinds.warning import WARNING

    warning = {"output_type": "display_data", "data": {"text/plain": "w", WARNING: {
        "category": "UserWarning", "message": "red \x1b[31m and \u202eflipped"}}}
    graph = {"nodes": ["a"], "backward": [{"text": "a\x1b", "children": []}]}
    html = kinds.outputs_html([warning, {"output_type": "display_data", "data": {"image/svg+xml": SVG, GRAPH: graph}}],
                              PageHtml("p/", {}))
    assert r"red \x1b[31m and \u202eflipped" in html and r"<li>a\x1b</li>" in html


def test_a_snippet_shown_twice_shows_its_step_through_only_under_the_block_that_asks(project):
    project.write("snippets/twice.py", "import torch\n\nx = torch.ones(2, requires_grad=True)\n"
                  "(x * 3).sum().backward()\nprint(x.grad)\n")
    project.write("docs/index.md", '# Page\n\n```python\n--8<-- "twice.py"\n```\n\nAgain, step by step:\n\n'
                  '```python step-through\n--8<-- "twice.py"\n```\n')
    done = mkdocs(project.root, "build", "--strict")
    assert done.returncode == 0, done.stderr
    html = (project.root / "site/index.html").read_text()
    plain, stepped = html.split("Again, step by step:")
    assert "snippet-steps" not in plain and "tensor([3., 3.])" in plain
    assert stepped.count('<figure class="snippet-steps">') == 1 and "linenos" in stepped


def test_a_new_kind_is_one_kind_in_the_registry_that_the_engine_asks(monkeypatch, tmp_path):
    """Parsing, the page, the run, the notebook and the print ask `kinds`: a kind added there alone
    is answered to by a fence's word, shown, styled (its stylesheet shipped with the site, loaded
    by a page that shows it and by the book), wrapped around its snippet's run, and held and
    printed its own way."""
    import contextlib

    from snippet_engine.chapter import parse
    from snippet_engine.kinds.kind import Kind

    MIME = "application/x-loud"
    entered = []
    style = tmp_path / "loud.css"
    style.write_text(".loud { font-weight: 900; }\n")
    loud = Kind("loud", lambda out: MIME in out.get("data", {}), lambda out, site, block: "<b>LOUD</b>", "loud",
                notebook=lambda out: {**out, "data": {"text/plain": "loud"}}, tool="say", assets={"loud.css": style},
                printed=lambda page: page.replace("<b>", "<i>"), words=frozenset({"loudly"}),
                around=lambda path: contextlib.nullcontext(entered.append(path)), numbered=True)
    monkeypatch.setattr(kinds, "KINDS", [loud, *kinds.KINDS])
    (tmp_path / "a.py").write_text("print(1)\n")
    blocks = parse("p.md", '# P\n\n```python loudly\n--8<-- "a.py"\n```\n\n```python\n--8<-- "a.py"\n```\n',
                   tmp_path).blocks
    assert [b.options for b in blocks] == [{"loudly"}, frozenset()] and blocks[0].info == "python"
    out = {"output_type": "display_data", "data": {MIME: 1, "text/plain": "x"}}
    page = PageHtml("p/", {})
    assert kinds.outputs_html([out], page) == "<b>LOUD</b>"
    assert page.scripts == {"loud.css": style} and kinds.assets()["loud.css"] == style
    assert '<link rel="stylesheet" href="assets/snippet-engine/loud.css">' in kinds.tags(page.scripts)
    assert kinds.outputs_html([out], PageHtml("p/", {}), None, {"loudly"}) == "", "under a block that does not say it"
    assert kinds.numbered(blocks[0].options) and not kinds.numbered(blocks[1].options)
    with kinds.around(blocks[0].options, "a.py"):
        assert entered == ["a.py"]
    assert kinds.notebook_output(out)["data"] == {"text/plain": "loud"} and kinds.tools([out]) == {"say"}
    assert kinds.printed("<b>LOUD</b>") == "<i>LOUD</b>"


# Lines the site's snippets print (torch 2.13): PyTorch's messages, with the two spaces they put
# after a sentence or between two words, and torch's log, which indents its message after a prefix.
PROSE_LINES = [
    "rank 0: Warning: find_unused_parameters=True was specified in DDP constructor, but did not find any unused "
    "parameters in the forward pass. This flag results in an extra traversal of the autograd graph every iteration,  "
    "which can adversely affect performance.",
    "Parameter at index 5 with name blocks.1.0.bias has been marked as ready twice. This means that multiple autograd "
    "engine  hooks have fired for this particular parameter during this iteration.",
    "UserWarning: Grad strides do not match bucket view strides. This may indicate grad was not created according to "
    "the gradient layout contract, or that the param's strides changed since DDP was constructed.  This is not an "
    "error, but may impair performance.",
    "W1207 14:38:44.854000 24905 torch/_dynamo/variables/tensor.py:1759] [0/0]     "
    "torch._dynamo.config.capture_scalar_outputs = True",
]
TABLE_LINES = [
    "ELU forward and backward  cpu     custom ELU       285.228",
    "on ctx, after del:             alive",
    "after  10 batches: 74 nodes, saved tensors held: 1.83 MB",
    "unscale_ first: False  the weights moved by 1.50e-06",
    "  forward   aten.exp.default, aten.gt.Scalar, aten.mul.Tensor",
    "tensor([[ 0.1000,  0.2000],",
]


def test_a_line_of_prose_wraps_and_the_lines_of_a_table_keep_their_columns():
    """In one block, each line of a table is a span that keeps its columns; a line of prose is not,
    though two spaces stand in it, and wraps at the edge of the box."""
    html = kinds.outputs_html([stream("\n".join(PROSE_LINES + TABLE_LINES) + "\n")], PageHtml("p/", {}))
    for line in TABLE_LINES:
        assert f'<span class="snippet-columns">{escaped(line)}</span>' in html, line
    for line in PROSE_LINES:
        assert escaped(line) in html and f'<span class="snippet-columns">{escaped(line)}' not in html, line
