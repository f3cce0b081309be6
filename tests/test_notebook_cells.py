"""notebooks.py in-process: a chapter's cells, the install cell and the .ipynb, from a small chapter."""

import json
import textwrap

import pytest

from snippet_engine import notebooks, standalone
from snippet_engine.chapter import parse
from snippet_engine.kinds.graph import GRAPH
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


def test_the_ipynb_starts_with_the_install_cell_and_keeps_no_copy(chapter, tmp_path):
    cells = cells_of(chapter, tmp_path)
    install = notebooks.install_cell({"torch": "2.13.0", "numpy": None}, cells)
    notebook = json.loads(notebooks.notebook_json(cells, install))
    assert notebook["nbformat"] == 4 and notebook["cells"][0]["id"] == "install"
    assert '"torch==2.13.0"' in notebook["cells"][0]["source"] and "numpy" not in notebook["cells"][0]["source"]
    assert not any("copy" in c for c in notebook["cells"])
    assert "shutil.which(\"dot\")" not in notebook["cells"][0]["source"], "no graph: no Graphviz check"
    graph = {"output_type": "display_data", "data": {GRAPH: {}, "text/plain": "graph"}}
    drawing = [*cells, notebooks.code_cell("g.render('g')", [graph])]
    assert "shutil.which(\"dot\")" in notebooks.install_cell({"torch": "2.13.0"}, drawing)["source"]


def test_title_summary_and_the_index_of_notebooks(chapter):
    assert notebooks.title(CHAPTER) == "Small chapter"
    assert notebooks.summary(CHAPTER) == "What it covers, in one paragraph."
    index = notebooks.index_markdown([("Small chapter", "small/", "small.ipynb", "What it covers.")])
    assert index.startswith("- **[Small chapter](small/)** · [Download small.ipynb](small.ipynb){ download }")
