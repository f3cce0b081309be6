"""notebooks.py in-process: a chapter's cells, the install cell and the .ipynb, from a small chapter."""

import ast
import dataclasses
import importlib.util
import json
import subprocess
import sys
import textwrap

import pytest

from snippet_engine import notebooks, standalone, wheel
from snippet_engine.chapter import parse
from snippet_engine.kinds.graph import GRAPH
from snippet_engine.kinds.steps import STEPS
from snippet_engine.runner import Result

CHAPTER = """\
# Small chapter

What it covers, in one paragraph.

## First part

Math \\(x^2\\) and a [link](other.md).

!!! note "Careful"
    An admonition.

```python
--8<-- "ch/a.py:make"
```

Between the blocks.

```python
--8<-- "ch/a.py:use"
```
"""


@pytest.fixture
def chapter(tmp_path):
    folder = tmp_path / "snippets" / "ch"
    folder.mkdir(parents=True)
    (folder / "helper.py").write_text("def double(x):\n    return 2 * x\n")
    (folder / "a.py").write_text(textwrap.dedent("""\
        from helper import double
        # --8<-- [start:make]
        x = double(2)
        print(x)
        # --8<-- [end:make]
        # --8<-- [start:use]
        print(x + 1)
        # --8<-- [end:use]
        """))
    return parse("small.md", CHAPTER, tmp_path / "snippets")


def output(text, line):
    return {"line": line, "output": {"output_type": "stream", "name": "stdout", "text": text}}


def cells_of(chapter, tmp_path):
    path = tmp_path / "snippets" / "ch" / "a.py"
    results = {path: Result(path, [output("4\n", 4), output("5\n", 7)], 0.0, True)}
    return notebooks.chapter_cells(chapter, results, lambda p: standalone.Source(p, tmp_path))


def test_the_cells_run_top_to_bottom_with_the_helper_in_a_folded_setup_cell(chapter, tmp_path):
    cells = cells_of(chapter, tmp_path)
    kinds = [(c["cell_type"], c.get("metadata")) for c in cells]
    assert kinds[:2] == [("markdown", {}), ("code", notebooks.HIDDEN)], "the introduction, then the setup cell"
    setup, make, use = [c for c in cells if c["cell_type"] == "code"]
    assert "def double(x):" in setup["source"]
    assert "from helper import" not in make["source"] and make["source"].startswith("x = double(2)")
    assert [o["text"] for o in make["outputs"]] == ["4\n"] and [o["text"] for o in use["outputs"]] == ["5\n"]
    assert [c["execution_count"] for c in (setup, make, use)] == [1, 2, 3]
    assert len({c["id"] for c in cells}) == len(cells)
    assert "def double(x):" in use["copy"] and use["copy"].rstrip().endswith("print(x + 1)"), "a copy runs alone"


def test_prose_becomes_jupyter_markdown(chapter, tmp_path):
    prose = "\n".join(c["source"] for c in cells_of(chapter, tmp_path) if c["cell_type"] == "markdown")
    assert "$x^2$" in prose and "](../other.md)" in prose
    assert "**Careful**" in prose and "!!!" not in prose and "\nAn admonition." in prose


WHEEL = f"downloads/{wheel.filename()}"
LINKS = notebooks.Links(None, {"small.md": "small/", "other.md": "other/", "index.md": "", "downloads/x.whl": "downloads/x.whl",
                               WHEEL: WHEEL},
                        {"small.md": "notebooks/small.ipynb", "other.md": "notebooks/other.ipynb"},
                        {"small.md": {"first-part": "First-part"}, "other.md": {"why-it-fails": "Why-it-fails"}})
ON_A_SITE = dataclasses.replace(LINKS, site_url="https://example.org/book/")


def test_the_ipynb_starts_with_the_install_cell_and_keeps_no_copy(chapter, tmp_path):
    cells = cells_of(chapter, tmp_path)
    install = notebooks.install_cell({"torch": "2.13.0", "numpy": None}, cells, None)
    notebook = json.loads(notebooks.notebook_json(cells, install, "notebooks/small.md", "small.md", LINKS))
    assert notebook["nbformat"] == 4 and notebook["cells"][0]["id"] == "install"
    assert '"torch==2.13.0"' in notebook["cells"][0]["source"] and "numpy" not in notebook["cells"][0]["source"]
    assert not any("copy" in c for c in notebook["cells"])
    assert "shutil.which(\"dot\")" not in notebook["cells"][0]["source"], "no graph: no Graphviz check"
    graph = {"output_type": "display_data", "data": {GRAPH: {}, "text/plain": "graph"}}
    drawing = [*cells, notebooks.code_cell("g.render('g')", [graph])]
    assert "shutil.which(\"dot\")" in notebooks.install_cell({"torch": "2.13.0"}, drawing, None)["source"]
    assert "](other.ipynb)" in "".join(c["source"] for c in notebook["cells"] if c["cell_type"] == "markdown")


def test_title_summary_and_the_index_of_notebooks(chapter):
    assert notebooks.title(CHAPTER) == "Small chapter"
    assert notebooks.summary(CHAPTER) == "What it covers, in one paragraph."
    index = notebooks.index_markdown([("Small chapter", "small/", "small.ipynb", "What it covers.")])
    assert index.startswith("- **[Small chapter](small/)** · [Download small.ipynb](small.ipynb){ download }")


def test_a_link_goes_to_the_published_site_or_else_to_the_chapters_notebook_or_else_nowhere():
    page, chapter = "notebooks/small.md", "small.md"
    assert LINKS.target("../other.md#why-it-fails", page, chapter) == "other.ipynb#Why-it-fails"
    assert LINKS.target("../other.md", page, chapter) == "other.ipynb"
    assert LINKS.target("#first-part", page, chapter) == "#First-part"
    assert LINKS.target("../small.md#first-part", page, chapter) == "#First-part"
    assert LINKS.target("../index.md", page, chapter) is None and LINKS.target("../downloads/x.whl", page, chapter) is None
    assert ON_A_SITE.target("../other.md#why-it-fails", page, chapter) == "https://example.org/book/other/#why-it-fails"
    assert ON_A_SITE.target("../index.md", page, chapter) == "https://example.org/book/"
    assert ON_A_SITE.target("../downloads/x.whl", page, chapter) == "https://example.org/book/downloads/x.whl"
    assert ON_A_SITE.target("#first-part", page, chapter) == "#First-part", "within the notebook"
    for links in (LINKS, ON_A_SITE):
        assert links.target("https://pytorch.org/docs/", page, chapter) == "https://pytorch.org/docs/"


def test_the_ipynbs_markdown_has_followable_links_and_headings_without_their_ids():
    text = ("## Why it fails { #why-it-fails }\n\nSee [the home page](../index.md), [`grad`](../other.md#why-it-fails)"
            " and [the wheel](../downloads/x.whl).")
    assert notebooks.ipynb_markdown(text, "notebooks/small.md", "small.md", LINKS) == (
        "## Why it fails\n\nSee the home page, [`grad`](other.ipynb#Why-it-fails) and the wheel.")


def test_a_headings_anchor_is_its_pages_id_and_jupyters():
    markdown = ("# Title\n\n```python\n# a comment, not a heading\n```\n\n## `ctx.saved_tensors`, and hooks\n\n"
                "## a leaf Variable is used in an in-place operation { #leaf-in-place }\n\n## Exercises\n\n## Exercises\n")
    assert notebooks.anchors(markdown) == {
        "title": "Title", "ctxsaved_tensors-and-hooks": "ctx.saved_tensors,-and-hooks",
        "leaf-in-place": "a-leaf-Variable-is-used-in-an-in-place-operation", "exercises": "Exercises",
        "exercises_1": "Exercises"}


def test_the_setup_cell_imports_each_module_once():
    assert notebooks.merged_imports(["import torch", "from torch import Tensor", "from torch import Tensor, nn",
                                     "from torch import nn, autograd", "import torch", "import numpy as np"]) == [
        "import torch", "from torch import Tensor, autograd, nn", "import numpy as np"]
    with pytest.raises(ValueError, match="not an import statement: 'x = 1'"):
        notebooks.merged_imports(["x = 1"])


def test_a_recorded_backward_becomes_show_backward_with_the_forward_pass_watched(tmp_path):
    (tmp_path / "snippets").mkdir()
    path = tmp_path / "snippets" / "watch.py"
    path.write_text('"""Watch it."""\nimport torch\n\n# a leaf\nx = torch.ones(2, requires_grad=True)\n'
                    'note = """two\nlines"""\nout = (x * x).sum()\n\nout.backward(retain_graph=True)\nprint(x.grad)\n')
    watched = parse("w.md", '# W\n\n```python step-through\n--8<-- "watch.py"\n```\n', tmp_path / "snippets")
    recorded = {"line": 10, "output": {"output_type": "display_data", "data": {STEPS: {}, "text/plain": "steps"}}}
    results = {path: Result(path, [recorded, output("tensor([2., 2.])\n", 11)], 0.0, True)}
    (cell,) = [c for c in notebooks.chapter_cells(watched, results, lambda p: standalone.Source(p, tmp_path))
               if c["cell_type"] == "code"]
    assert cell["source"] == (
        '"""Watch it."""\nimport torch\nfrom autograd_steps import show_backward, watch_forward\n\n'
        "with watch_forward():  # nodes keep their line and module; a NaN is found where made\n"
        '    # a leaf\n    x = torch.ones(2, requires_grad=True)\n    note = """two\nlines"""\n    out = (x * x).sum()\n\n'
        "show_backward(out, retain_graph=True)  # out.backward(retain_graph=True), shown step by step\n"
        "print(x.grad)")
    assert "lines" in ast.literal_eval(cell["source"].split("note = ")[1].split("\n    out")[0])
    assert "out.backward(retain_graph=True)\n" in cell["copy"], "a copy on the page is the plain code"


def test_the_install_cell_installs_autograd_steps_from_the_published_site_where_it_is_missing(monkeypatch):
    cells = [notebooks.code_cell(f"import torch\n{notebooks.SHOW_BACKWARD}\nshow_backward(out)")]
    url = ON_A_SITE.url(WHEEL)
    assert url == f"https://example.org/book/{WHEEL}" and LINKS.url(WHEEL) is None
    source = notebooks.install_cell({"torch": None}, cells, url)["source"]
    commands = []
    monkeypatch.setattr(subprocess, "run", lambda command, **options: commands.append(command))
    exec(source, {})
    assert commands == [], "autograd_steps is importable here"
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    exec(source, {})
    assert commands == [[sys.executable, "-m", "pip", "install", "--no-deps", url]]
    assert "autograd_steps" not in notebooks.install_cell({"torch": None}, [notebooks.code_cell("x = 1")], url)["source"]
