"""A chapter as a Jupyter notebook (pages.py shows it as a page of the site).

- prose becomes Markdown cells (math as `$...$`, Material's admonition and
  tab headers as bold titles);
- an include becomes a code cell holding the file's lines from where the
  previous cell of that file stopped to the last line the page shows, so the
  notebook runs top to bottom; its outputs are what the engine captured for
  those lines, of the kinds its block shows, so nothing runs twice. The cell holds what a copy of the block
  holds (standalone/): a data file read becomes its values, and the import
  of a helper module goes, its code being in a setup cell;
- where a snippet leaves one of torch's process-wide settings changed (gradient
  recording off, print options: torch_settings.py), a cell after its last one sets
  them back, where another snippet's cells follow: the page ran each snippet in a
  fresh process, the notebook runs them all in one kernel (a snippet whose cells
  lie around another's leaves its settings to those between);
- the setup cell, after the introduction, holds the code of the helper modules
  the chapter imports, as much as the chapter uses (a module imported whole: all
  of it, one namespace for every cell), their imports merged (one per module),
  and is collapsed (`source_hidden`, folded on the page); a definition whose name
  an earlier cell binds from another file (another helper module, a snippet's
  own code) goes into the cell that needs it instead (`Setup`);
- a step-through block's `loss.backward()` becomes `show_backward(loss)` of the
  package `autograd_steps`, its forward pass in a `with watch_forward():` block, as the
  build records it: run again in Jupyter, the cell shows the viewer of the reader's own code;
- the `.ipynb` starts with a cell that installs the packages that produced the
  outputs, at their versions, where they are not installed (and `autograd_steps`,
  the site's wheel, where a cell shows a step-through; and says how to get
  Graphviz where the notebook draws graphs); the page leaves it out;
- in the `.ipynb`, a link to a page or download of the site goes to the published
  site (`site_url`) where one is set, else to the chapter's notebook beside it (a
  section to the id Jupyter gives its heading), else it is its text alone;
- an output that a snippet writes to a file (a graph it renders) is displayed
  after the line that writes it: the notebook shows it where the page does;
- each output is held as its kind holds it in a notebook (kinds/).

The notebook is written as nbformat 4 JSON with plain dicts: importing
nbformat itself costs more than a whole no-change build of a page.
"""

import ast
import html
import json
import posixpath
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import markdown

from snippet_engine import kinds, standalone, torch_settings, wheel
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
    found, setup = [markdown_cell(chapter.markdown[:prose_from])], Setup()
    shown = [i.path for block in chapter.blocks for i in block.includes if i.is_snippet and not i.problem]
    last_of = {path: k for k, path in enumerate(shown)}  # each snippet's last include
    k = 0
    for block in chapter.blocks:
        found.append(markdown_cell(chapter.markdown[prose_from:block.start]))
        prose_from = block.end
        for include in block.includes:
            if include.is_snippet and not include.problem:
                found.append(include_cell(include, done, results[include.path], source(include.path), setup,
                                          block.options))
                if results[include.path].leaves and last_of[include.path] == k < len(shown) - 1:
                    found.append(code_cell(torch_settings.restore(results[include.path].leaves)))
                k += 1
    found.append(markdown_cell(chapter.markdown[prose_from:]))
    cells = [c for c in found if c is not None]
    if setup.inlined.definitions:
        code = standalone.join(["\n".join(merged_imports(setup.inlined.imports)), *setup.inlined.definitions])
        cells.insert(1, code_cell("# The helper modules this chapter imports, as much of them as it uses.\n" + code,
                                  metadata=HIDDEN))
    number = 0
    for n, cell in enumerate(cells):
        cell["id"] = f"cell-{n}"
        if cell["cell_type"] == "code":
            number += 1
            cell["execution_count"] = number
    return cells


@dataclass
class Setup:
    """The setup cell's code (`inlined`: what the chapter's cells use of its helper modules), and
    the file each name was last bound from in the kernel (`bound`: a helper module's definition,
    or a cell's own code), cell after cell. The setup cell runs first: what a cell needs of a
    helper module goes into it, unless a cell before binds one of the names it needs of that
    module from another file (another helper module's definition of it, or a snippet's own);
    then all it needs of that module goes into the cell itself (a statement that binds nothing,
    `Value.__add__ = add`, goes with the class it changes)."""
    inlined: standalone.Inlined = field(default_factory=standalone.Inlined)
    bound: dict[str, Path] = field(default_factory=dict)

    def take(self, needed: standalone.Inlined) -> list[str]:
        """Take what a cell needs of helper modules; returns the definitions the cell must hold."""
        self.inlined.imports += [t for t in needed.imports if t not in self.inlined.imports]
        rebound = {origin for origin, names in needed.origins.values()
                   if any(self.bound.get(name, origin) != origin for name in names)}
        own = []
        for text in needed.definitions:
            origin, names = needed.origins[text]
            if origin in rebound:
                own.append(text)
            elif text not in self.inlined.definitions:
                self.inlined.definitions.append(text)
            self.bound.update(dict.fromkeys(names, origin))
        return own

    def ran(self, names: Iterable[str], origin: Path) -> None:
        """The names a cell's own code binds, from the file `origin`."""
        self.bound.update(dict.fromkeys(names, origin))


def merged_imports(imports: Iterable[str]) -> list[str]:
    """Import statements with each module imported once: `from m import a` and `from m import a, b`
    become `from m import a, b`; an `import m` met again goes."""
    merged: dict[tuple[str, ...], list[ast.alias]] = {}
    for text in imports:
        for node in ast.parse(text).body:
            if isinstance(node, ast.ImportFrom):
                names = merged.setdefault(("from", str(node.level), node.module or ""), [])
                names.extend(a for a in node.names if not any(ast.dump(a) == ast.dump(b) for b in names))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    merged.setdefault(("import", alias.name, alias.asname or ""), [alias])
            else:
                raise ValueError(f"not an import statement: {text!r}")
    return [ast.unparse(ast.ImportFrom(key[2] or None, sorted(names, key=import_order), int(key[1])))
            if key[0] == "from" else ast.unparse(ast.Import(names)) for key, names in merged.items()]


def import_order(alias: ast.alias) -> tuple[int, str]:
    """Names in the order ruff's isort puts them: constants, classes, then the rest."""
    name = alias.name
    return (0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2), name


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
STEPS_FROM_SITE = """
# The step-through cells call `show_backward`, from the site's package `autograd_steps`:
# where it is missing, it is installed from the published site, without its dependencies
# (torch, installed above, and pygments, which comes with Jupyter): pip changes nothing else.
from importlib import util

WHEEL = {wheel}
if util.find_spec("autograd_steps") is None:
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", WHEEL], check=True)
"""
STEPS_FROM_FILE = """
# The step-through cells call `show_backward`, from the site's package `autograd_steps`. Where
# it is missing, download {name} from the site's downloads/
# folder into the folder of this notebook: this cell installs it from there, without its
# dependencies (torch, installed above, and pygments, which comes with Jupyter).
import os
from importlib import util

WHEEL = {wheel}
if util.find_spec("autograd_steps") is None:
    if not os.path.exists(WHEEL):
        raise RuntimeError(f"show_backward needs the package autograd_steps: download {{WHEEL}} from the "
                           f"site's downloads/ folder into {{os.getcwd()}}, then run this cell again")
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", WHEEL], check=True)
"""
TOOL = """
# Some outputs need the program `{tool}`, which pip does not install.
import shutil

if shutil.which("{tool}") is None:
    raise RuntimeError(
{message}
    )
"""


def install_cell(packages: Mapping[str, str | None], cells: list[Cell], wheel_url: str | None) -> Cell:
    """The .ipynb's first cell: pip installs the pinned packages (as the downloads' requirements.txt
    pins them) unless they are installed; where a cell shows a step-through, `autograd_steps`
    too, from the site's wheel at `wheel_url` (None: the site has no address, the wheel is a file
    the reader downloads beside the notebook); where a program that its outputs' kinds need is
    missing (Graphviz's `dot`, for graphs), it stops, saying how to install it. Collapsed, and not
    run before the others."""
    source = INSTALL.format(requirements=json.dumps(standalone.requirements(packages).split(), indent=4))
    if any(SHOW_BACKWARD in c["source"] for c in cells if c["cell_type"] == "code"):
        steps = STEPS_FROM_SITE if wheel_url else STEPS_FROM_FILE
        source += steps.format(wheel=json.dumps(wheel_url or wheel.filename()), name=wheel.filename())
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
                 setup: Setup, options: frozenset[str]) -> Cell | None:
    """The code the include shows, plus any lines of its file not run yet, as a copy holds them;
    what it needs of helper modules goes into the `setup` cell, or into this one (`Setup.take`). Its outputs are those its block shows:
    a kind that answers to a word of the block's info (`options`: `step-through`) only where the
    block says it."""
    last = include.last or len(source.lines)
    start = done.get(include.path, 0) + 1
    if last < start:  # already run by earlier cells: show it, do not run it again
        return markdown_cell("```python\n" + "\n".join(include.shown()).strip("\n") + "\n```")
    done[include.path] = last
    result = replace(result, outputs=[i for i in result.outputs if kinds.kind_of(i["output"]).words <= options])
    # Jupyter would show the name of the file that the code writes (a graph's render()): the object
    # is displayed instead.
    shown = {s: f"display({name})  # shows it here, where the code writes it to a file"
             for s, name in graphs_rendered(source, start, last, result.outputs)}
    recorded = backward_shown(source, start, last, result.outputs)
    needed = standalone.Inlined(whole=True)  # a module imported whole is one namespace for every cell
    code = source.cell(start, last, needed, {**shown, **recorded})
    for statement, line in recorded.items():  # the line goes after the statement: it replaces it
        node = statement.node
        own = source.text(statement, start, last).split("\n")[-((node.end_lineno or node.lineno) - node.lineno + 1):]
        code = code.replace("\n".join(own) + "\n" + line, line)
    copy = source.program(start, last).copy + "\n"
    code = watched(code) if recorded else code
    if held := setup.take(needed):
        code = standalone.join(["# What this code imports from a helper module: an earlier cell gave a name of it\n"
                                "# another meaning.\n" + held[0], *held[1:], code])
    setup.ran({n for s in source.within(start, last) if not source.helper(s) for n in s.binds}, include.path)
    return code_cell(code, result.select(start, last), copy=copy)


SHOW_BACKWARD = "from autograd_steps import show_backward, watch_forward"
WATCH_FORWARD = "with watch_forward():  # nodes keep their line and module; a NaN is found where made"


def backward_shown(source: standalone.Source, first: int, last: int,
                   outputs: list[LineOutput]) -> dict[standalone.Statement, str]:
    """{statement: its line in the notebook} for each top-level `x.backward(...)` among lines
    first..last that the build recorded as a step-through: `show_backward(x, ...)`, which shows the
    viewer again when the cell runs in Jupyter."""
    lines = [n for i in outputs if (n := i["line"]) is not None and kinds.steps.matches(i["output"])]
    found = {}
    for statement in source.within(first, last):
        match statement.node:
            case ast.Expr(ast.Call(ast.Attribute(tensor, "backward"), args, keywords) as call) as node if any(
                    node.lineno <= n <= (node.end_lineno or node.lineno) for n in lines):
                shown = ast.unparse(ast.Call(ast.Name("show_backward"), [tensor, *args], keywords))
                found[statement] = f"{shown}  # {ast.unparse(call)}, shown step by step"
    return found


def watched(code: str) -> str:
    """A cell that calls show_backward, as the build records it: it imports show_backward and
    watch_forward after its own imports, and runs its forward pass, from its first statement that
    is neither an import nor a definition up to its last show_backward, in a `with watch_forward():`
    block, so that each node of the graph keeps the line of the cell and the module that made it,
    and a NaN or inf is found where the forward pass made it."""
    lines = code.split("\n")
    tree = ast.parse(code)
    body = tree.body
    imports = [n for n in body if isinstance(n, (ast.Import, ast.ImportFrom))]
    first = next(n for n in body if not isinstance(n, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef))
                 and not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)))  # a docstring
    start = first.lineno - 1
    while start > 0 and lines[start - 1].lstrip().startswith("#"):  # its comment goes with it
        start -= 1
    end = max(n for n, line in enumerate(lines) if line.startswith("show_backward("))
    inside = {n for node in ast.walk(tree) if isinstance(node, (ast.Constant, ast.JoinedStr))
              for n in range(node.lineno + 1, (node.end_lineno or node.lineno) + 1)}  # the lines a string continues on
    block = [line if not line.strip() or n in inside else "    " + line for n, line in enumerate(lines[start:end], start + 1)]
    while block and not block[-1].strip():  # blank lines before show_backward stay outside the block
        block.pop()
        end -= 1
    after_imports = max((n.end_lineno or n.lineno for n in imports if n.lineno <= start), default=0)
    return "\n".join([*lines[:after_imports], SHOW_BACKWARD, *lines[after_imports:start],
                      *([""] if after_imports == start else []), WATCH_FORWARD, *block, *lines[end:]])


@dataclass(frozen=True)
class Links:
    """Where the links of the chapters' notebooks go in the .ipynb files, which a reader opens in
    Jupyter, away from the site."""
    site_url: str | None  # the published site (mkdocs.yml's `site_url`), if it has one
    urls: Mapping[str, str]  # each page's and download's URL in the site, by its src_uri
    ipynbs: Mapping[str, str]  # each chapter's .ipynb (its src_uri), by the chapter's src_uri
    anchors: Mapping[str, Mapping[str, str]]  # each chapter's `anchors`, by its src_uri

    def url(self, src_uri: str) -> str | None:
        """The address of a page or download on the published site; None without a site_url."""
        return urljoin(self.site_url, self.urls[src_uri]) if self.site_url and src_uri in self.urls else None

    def target(self, link: str, page: str, chapter: str) -> str | None:
        """Where a link of the Markdown of the notebook page `page` goes from the .ipynb of the
        chapter `chapter` (src_uris): within that notebook where it goes to that chapter; a page
        or download of the site to the published site; else a chapter to its notebook; a section to
        its heading there (`anchors`). None where the reader could follow it nowhere: the link
        stays as its text."""
        if re.match(r"[a-z]+:", link):
            return link
        path, _, fragment = link.partition("#")
        src_uri = posixpath.normpath(posixpath.join(posixpath.dirname(page), path)) if path else chapter
        if src_uri != chapter and (url := self.url(src_uri)):
            return url + (f"#{fragment}" if fragment else "")
        if src_uri not in self.ipynbs:
            return None
        anchor = f"#{self.anchors[src_uri].get(fragment, fragment)}" if fragment else ""
        if src_uri == chapter and anchor:
            return anchor
        return posixpath.relpath(self.ipynbs[src_uri], posixpath.dirname(self.ipynbs[chapter])) + anchor


def anchors(chapter_markdown: str) -> dict[str, str]:
    """{id its page gives a heading: id Jupyter gives it} for each heading of a chapter: the page's
    as Python-Markdown's toc makes them (`{ #id }` kept), Jupyter's the heading's text with each
    space a `-` (JupyterLab, Notebook)."""
    headings, fenced = [], False
    for line in chapter_markdown.split("\n"):
        fenced ^= line.startswith(("```", "~~~"))
        if not fenced and re.match(r"#{1,6} ", line):
            headings.append(line)
    md = markdown.Markdown(extensions=["attr_list", "toc"])
    md.convert("\n\n".join(headings))
    found, tokens = {}, list(md.toc_tokens)
    while tokens:
        token = tokens.pop(0)
        found[token["id"]] = html.unescape(token["name"]).replace(" ", "-")
        tokens[:0] = token["children"]
    return found


LINK = re.compile(r"(?<!!)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(((?:[^()\s]|\([^()\s]*\))+)\)")
"""A Markdown link, [text](target); the target may hold balanced parentheses (a Jupyter heading's id)."""


def ipynb_markdown(text: str, page: str, chapter: str, links: Links) -> str:
    """A Markdown cell as the .ipynb holds it: each link as `links` says, a heading without its
    `{ #id }` (Jupyter names a heading by its text)."""
    text = re.sub(r"^(#{1,6} .*?) *\{ *#[\w-]+ *\} *$", r"\1", text, flags=re.M)

    def linked(m: re.Match[str]) -> str:
        target = links.target(m[2], page, chapter)
        return m[1] if target is None else f"[{m[1]}]({target})"

    return re.sub(LINK, linked, text)


def notebook_json(cells: list[Cell], install: Cell, page: str, chapter: str, links: Links) -> str:
    """The .ipynb of the chapter `chapter`, shown by the page `page` (src_uris): the install cell, then the
    cells (without what only the page uses), each link as `links` says, each output as its kind
    holds it in a notebook (a recorded backward pass: the site's viewer)."""
    written = [install] + [{k: [kinds.notebook_output(o) for o in v] if k == "outputs" else
                            ipynb_markdown(v, page, chapter, links) if k == "source" and cell["cell_type"] == "markdown"
                            else v
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
