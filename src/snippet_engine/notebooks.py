"""A chapter as a Jupyter notebook (pages.py shows it as a page of the site).

- prose becomes Markdown cells (math as `$...$`, Material's admonition and
  tab headers as bold titles);
- an include becomes a code cell holding the file's lines from where the
  previous cell of that file stopped to the last line the page shows, so the
  notebook runs top to bottom; its outputs are what the engine captured for
  those lines, so nothing runs twice. The cell holds what a copy of the block
  holds (standalone/): a data file read becomes its values, and the import
  of a helper module goes, its code being in a setup cell;
- the setup cell, after the introduction, holds the code of the helper modules
  the chapter imports, as much as the chapter uses, and is collapsed
  (`source_hidden`, folded on the page);
- the `.ipynb` starts with a cell that installs the packages that produced the
  outputs, at their versions, where they are not installed (and says how to
  get Graphviz where the notebook draws graphs); the page leaves it out;
- an output that a snippet writes to a file (a graph it renders) is displayed
  after the line that writes it: the notebook shows it where the page does;
- each output is held as its kind holds it in a notebook (kinds/).

The notebook is written as nbformat 4 JSON with plain dicts: importing
nbformat itself costs more than a whole no-change build of a page.
"""

import ast
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from snippet_engine import kinds, standalone
from snippet_engine.chapter import Chapter, Include
from snippet_engine.runner import Result
from snippet_engine.shapes import LineOutput
from snippet_engine.system_tools import TOOLS

Cell = dict[str, Any]  # an nbformat cell; a code cell's "copy" is what its copy button on the page copies

HIDDEN = {"jupyter": {"source_hidden": True}}  # JupyterLab and VS Code show the cell collapsed

NOTEBOOK_METADATA = {
    "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
    "language_info": {"name": "python"},
}


def markdown_cell(text: str) -> Cell | None:
    """Prose as Jupyter Markdown: `$` math, no Material-only syntax."""
    text = re.sub(r"\\\((.+?)\\\)", r"$\1$", text, flags=re.S)
    text = re.sub(r"\\\[(.+?)\\\]", r"$$\1$$", text, flags=re.S)
    text = re.sub(r'^ *(?:!!!|\?\?\?\+?|===) *(\w*) *(?:"([^"]*)")?', lambda m: f"**{m[2] or m[1].title()}**",
                  text, flags=re.M)
    text = re.sub(r"^ {4}", "", text, flags=re.M).strip()
    # Links to chapters and downloads, as seen from the notebook's page at notebooks/<slug>/.
    text = re.sub(r"\]\((?![a-z]+:|#|/|\.\./)([^)\s]+)\)", r"](../\1)", text)
    return {"cell_type": "markdown", "metadata": {}, "source": text} if text else None


def code_cell(source: str, outputs: Iterable[dict[str, Any]] = (), metadata: dict[str, Any] | None = None,
              copy: str | None = None) -> Cell:
    """A code cell; `copy` (kept out of the .ipynb) is what its copy button on the page copies."""
    cell: Cell = {"cell_type": "code", "metadata": metadata or {}, "execution_count": None, "source": source,
            "outputs": list(outputs)}
    return {**cell, "copy": copy} if copy else cell


def chapter_cells(chapter: Chapter, results: Mapping[Path, Result],
                  source: Callable[[Path], standalone.Source]) -> list[Cell]:
    """The cells of a chapter's notebook (the install cell apart); `results` maps a snippet path
    to its Result, `source(path)` gives the snippet's standalone.Source."""
    # The title and introduction, then the setup cell, then the first section or code block.
    heading = chapter.markdown.find("\n## ")
    prose_from = min(heading if heading > 0 else len(chapter.markdown), chapter.blocks[0].start)
    done: dict[Path, int] = {}  # snippet -> its last line in a cell so far
    found, helpers = [markdown_cell(chapter.markdown[:prose_from])], standalone.Inlined()
    for block in chapter.blocks:
        found.append(markdown_cell(chapter.markdown[prose_from:block.start]))
        prose_from = block.end
        for include in block.includes:
            if include.is_snippet and not include.problem:
                found.append(include_cell(include, done, results[include.path], source(include.path), helpers))
    found.append(markdown_cell(chapter.markdown[prose_from:]))
    cells = [c for c in found if c is not None]
    if helpers.definitions:
        setup = standalone.join(helpers.imports + helpers.definitions)
        cells.insert(1, code_cell("# The helper modules this chapter imports, as much of them as it uses.\n" + setup,
                                  metadata=HIDDEN))
    number = 0
    for n, cell in enumerate(cells):
        cell["id"] = f"cell-{n}"
        if cell["cell_type"] == "code":
            number += 1
            cell["execution_count"] = number
    return cells


INSTALL = """\
# Installs the packages that made this notebook's outputs, at the same versions,
# where one is missing or at another version; if all are installed, does nothing.
import subprocess
import sys
from importlib import metadata

REQUIREMENTS = {requirements}


def installed(requirement):
    name, version = requirement.split("==")
    try:  # a local build tag is not part of the version: 2.1.0+cpu is 2.1.0
        return metadata.version(name).split("+")[0] == version
    except metadata.PackageNotFoundError:
        return False


missing = [r for r in REQUIREMENTS if not installed(r)]
if missing:
    subprocess.run([sys.executable, "-m", "pip", "install", *missing], check=True)
"""
TOOL = """
# Some outputs need the program `{tool}`, which pip does not install.
import shutil

if shutil.which("{tool}") is None:
    raise RuntimeError(
{message}
    )
"""


def install_cell(packages: Mapping[str, str | None], cells: list[Cell]) -> Cell:
    """The .ipynb's first cell: pip installs the pinned packages (as the downloads' requirements.txt
    pins them) unless they are installed; where a program that its outputs' kinds need is missing
    (Graphviz's `dot`, for graphs), it stops, saying how to install it. Collapsed, and not run
    before the others."""
    source = INSTALL.format(requirements=json.dumps(standalone.requirements(packages).split(), indent=4))
    for tool in sorted(kinds.tools(o for c in cells if c["cell_type"] == "code" for o in c["outputs"])):
        lines = re.split(r"(?<=[.;,] )", TOOLS[tool][1])
        source += TOOL.format(tool=tool, message="\n".join(" " * 8 + json.dumps(line) for line in lines))
    return {**code_cell(source.strip(), metadata=HIDDEN), "id": "install"}


def graphs_rendered(source: standalone.Source, first: int, last: int,
                    outputs: list[LineOutput]) -> Iterator[tuple[standalone.Statement, str]]:
    """(statement, name) of each top-level `name.<method>(...)` among lines first..last that wrote
    an output to a file, by its kind's `written_by` (a graph's `render`)."""
    written = {(n, method) for i in outputs if (n := i["line"]) is not None and (method := kinds.written_by(i["output"]))}
    for statement in source.within(first, last):
        match statement.node:
            case ast.Expr(ast.Call(ast.Attribute(ast.Name(name), str(called)))) if any(
                    statement.node.lineno <= n <= (statement.node.end_lineno or statement.node.lineno)
                    and method == called for n, method in written):
                yield statement, name


def include_cell(include: Include, done: dict[Path, int], result: Result, source: standalone.Source,
                 helpers: standalone.Inlined) -> Cell | None:
    """The code the include shows, plus any lines of its file not run yet, as a copy holds them;
    what it needs of helper modules goes into `helpers`."""
    last = include.last or len(source.lines)
    start = done.get(include.path, 0) + 1
    if last < start:  # already run by earlier cells: show it, do not run it again
        return markdown_cell("```python\n" + "\n".join(include.shown()).strip("\n") + "\n```")
    done[include.path] = last
    # Jupyter would show the name of the file that the code writes (a graph's render()): the object
    # is displayed instead.
    shown = {s: f"display({name})  # shows it here, where the code writes it to a file"
             for s, name in graphs_rendered(source, start, last, result.outputs)}
    copy = source.program(start, last).copy + "\n"
    return code_cell(source.cell(start, last, helpers, shown), result.select(start, last), copy=copy)


def notebook_json(cells: list[Cell], install: Cell) -> str:
    """The .ipynb: the install cell, then the cells (without what only the page uses), each output
    as its kind holds it in a notebook (a recorded backward pass: the site's viewer)."""
    written = [install] + [{k: [kinds.notebook_output(o) for o in v] if k == "outputs" else v
                            for k, v in cell.items() if k != "copy"}
                           for cell in cells]
    notebook = {"cells": written, "metadata": NOTEBOOK_METADATA, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def title(markdown: str) -> str:
    """A chapter's title: its first line, a `# ` heading."""
    return markdown.partition("\n")[0].removeprefix("# ").strip()


def summary(markdown: str) -> str:
    """What a chapter covers, in its own words: the paragraph under its title, as one line."""
    return " ".join(markdown.partition("\n")[2].strip().split("\n\n")[0].split())


def index_markdown(entries: Iterable[tuple[str, str, str, str]]) -> str:
    """The list of notebooks: (title, page, .ipynb, what it covers) for each, paths relative
    to the page that shows the list."""
    return "\n".join(f"- **[{title}]({page})** · [Download {ipynb.rsplit('/', 1)[-1]}]({ipynb}){{ download }}\n\n"
                     f"    {covers}\n" for title, page, ipynb, covers in entries)
