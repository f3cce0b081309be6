"""Every chapter's notebook, as a reader downloads it, runs on its own and shows what the page shows;
its first cell installs the pinned packages only where they are missing; the index lists every notebook."""

import importlib.util
import json
import re
import shutil
import subprocess
import sys
import zipfile
from importlib import metadata

import nbformat
import pytest
import verified
import yaml
from conftest import CHAPTERS, INDEX_PAGES, RECORDED, ROOT, mkdocs, normalised, soup
from mkdocs.utils import meta
from nbclient import NotebookClient

from snippet_engine import notebooks, wheel
from snippet_engine.kinds.steps import STEPS
from snippet_engine.nav import list_notebooks, pages_of

SITE_URL = yaml.safe_load((ROOT / "mkdocs.yml").read_text()).get("site_url")
NUMBERS = dict(enumerate(["No", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten"]))
FILE_NAME = re.compile(r"^'[\w.-]+\.\w+'$")  # what Jupyter shows of a returned file name
# What runs a notebook besides the engine's code and packages (verified.key).
KERNEL = verified.versions("nbclient", "nbformat", "ipykernel", "ipython", "jupyter_client")


def strict(text):
    """`text` read as JSON by a strict parser, as JupyterLab reads a notebook: no NaN or Infinity."""
    def refuse(constant):
        raise ValueError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


def test_every_notebook_is_strict_json(built_site):
    for chapter in CHAPTERS:
        strict((built_site / "notebooks" / f"{chapter}.ipynb").read_text(encoding="utf-8"))


def read(built_site, chapter):
    return nbformat.read(built_site / "notebooks" / f"{chapter}.ipynb", as_version=4)


def code_cells(notebook):
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def pip_installs(cell, monkeypatch, **versions):
    """The pip commands the install cell runs here, with the installed version of each package
    in `versions` faked (None: not installed). Nothing is installed."""
    commands, installed = [], metadata.version

    def version(name):
        if name not in versions:
            return installed(name)
        if versions[name] is None:
            raise metadata.PackageNotFoundError(name)
        return versions[name]

    with monkeypatch.context() as patch:
        patch.setattr(subprocess, "run", lambda command, **options: commands.append(command))
        patch.setattr(metadata, "version", version)
        exec(cell.source, {})
    return commands


def pictures(cell):
    """The graphs and figures a cell displays."""
    return [o for o in cell.get("outputs", []) if o.get("output_type") == "display_data"
            and {"image/svg+xml", "image/png"} & set(o.get("data", {}))]


def stdout(cell):
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("name") == "stdout")


def tables(cell):
    """The HTML a cell displays (a step-through's table of steps)."""
    return [o["data"]["text/html"] for o in cell.get("outputs", []) if "text/html" in o.get("data", {})]


def steps(cell):
    """Each backward pass a cell shows step by step: each step's node and the gradient it received,
    and the code of the line that made each node (the lines' numbers differ between the snippet
    file and the cell, which imports show_backward)."""
    found = []
    for output in cell.get("outputs", []):
        if STEPS in output.get("data", {}):
            data = output["data"][STEPS]
            received = [(data["nodes"][s["node"]]["label"], s["received"] and s["received"]["text"]) for s in data["steps"]]
            made = [data["source"][n["line"] - 1].strip() if n["line"] else None for n in data["nodes"]]
            found.append((received, made))
    return found


@pytest.mark.jupyter
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_notebook_runs_on_its_own_and_shows_what_the_page_shows(built_site, chapter, tmp_path, monkeypatch):
    path = built_site / "notebooks" / f"{chapter}.ipynb"
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    assert "--8<--" not in path.read_text(), "no include markers in a notebook"
    code = code_cells(notebook)
    install = code[0]  # collapsed, and not numbered: it is not part of the chapter
    assert [c.execution_count for c in code] == [None, *range(1, len(code))]
    assert install.source.startswith("# Installs the packages") and not install.outputs
    assert install.metadata == {"jupyter": {"source_hidden": True}}
    assert pip_installs(install, monkeypatch) == [], "everything is installed here: the install cell does nothing"
    expected = [stdout(cell) for cell in code]
    expected_tables = [tables(cell) for cell in code]
    expected_pictures = [len(pictures(cell)) for cell in code]
    expected_steps = [steps(cell) for cell in code]
    assert any(expected), "the notebook carries the outputs of the build"
    # Run in an empty folder, as a reader who downloaded only this file would; the kernel is
    # stopped at once after the last cell (its orderly shutdown tears torch down: some 0.7 s).
    # The notebook that ran is kept by its code, the engine's and the kernel's (verified.py).
    def execute():
        NotebookClient(notebook, timeout=600, kernel_name="python3", allow_errors=False, shutdown_kernel="immediate",
                       resources={"metadata": {"path": str(tmp_path)}}).execute()
        return nbformat.writes(notebook), True

    ran = verified.once("notebooks", [cell.source for cell in code], execute, notebook.metadata.get("kernelspec"),
                        KERNEL)
    strict(ran)  # what the kernel sent, the viewer's data included
    code = code_cells(nbformat.reads(ran, as_version=4))
    install = code[0]
    assert not install.outputs
    for cell, before, before_tables, before_pictures, before_steps in zip(
            code, expected, expected_tables, expected_pictures, expected_steps):
        if before_steps:  # show_backward records the reader's run and shows the viewer again
            assert steps(cell) == before_steps, cell.source
            assert all('<figure class="snippet-steps">' in table for table in tables(cell)), cell.source
            assert len(tables(cell)) == len(before_tables)
        else:
            assert tables(cell) == before_tables, cell.source  # displayed again when re-run, not printed
        assert len(pictures(cell)) == before_pictures, cell.source  # each graph and figure displayed again
        results = [o.data.get("text/plain", "") for o in cell.outputs if o.output_type == "execute_result"]
        assert not any(FILE_NAME.match(r) for r in results), cell.source  # a picture, not the name of its file
        if "Traceback" in before:
            continue  # tracebacks name cells, not files
        # A stack printed in a kernel names its cell's file, not the snippet's (`normalised`).
        assert normalised(stdout(cell)) == normalised(before), cell.source


def test_graph_and_figure_cells_hold_the_picture_and_display_it(built_site):
    notebook = read(built_site, "custom_functions")
    graphs = [c for c in code_cells(notebook) if ".render(" in c.source]
    figures = [c for c in code_cells(notebook) if "plt.show()" in c.source]
    assert graphs and figures
    for cell in graphs + figures:
        (picture,) = pictures(cell)
        assert "image/svg+xml" in picture.data, cell.source
    for cell in graphs:  # render() returns the file it wrote; the cell displays the graph after it
        lines = cell.source.splitlines()
        (render,) = [n for n, line in enumerate(lines) if line.startswith("graph.render(")]
        assert lines[render + 1].startswith("display(graph)"), cell.source


def test_the_install_cell_installs_exactly_the_pinned_requirements_that_are_missing(built_site, monkeypatch):
    bundle = zipfile.ZipFile(built_site / "downloads" / "examples.zip")
    requirements = bundle.read("examples/requirements.txt").decode().split()
    assert f"torch=={metadata.version('torch').split('+')[0]}" in requirements
    for chapter in CHAPTERS:
        install = code_cells(read(built_site, chapter))[0]
        pip = [sys.executable, "-m", "pip", "install"]
        other = pip_installs(install, monkeypatch, torch="2.0.0", numpy=None)
        assert other == [pip + [r for r in requirements if r.split("==")[0] in ("torch", "numpy")]]
        nothing = dict.fromkeys((r.split("==")[0] for r in requirements), None)
        assert pip_installs(install, monkeypatch, **nothing) == [pip + requirements]
        torch_built_for_cuda = f"{metadata.version('torch').split('+')[0]}+cu128"
        assert pip_installs(install, monkeypatch, torch=torch_built_for_cuda) == []


def test_the_install_cell_says_how_to_install_graphviz_where_graphs_need_it(built_site, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda program: None)
    with pytest.raises(RuntimeError, match=r"apt-get install graphviz.*brew install graphviz.*conda install"):
        pip_installs(code_cells(read(built_site, "autograd_basics"))[0], monkeypatch)
    assert pip_installs(code_cells(read(built_site, "gradient_reversal"))[0], monkeypatch) == []  # draws no graph


def test_the_index_lists_every_notebook_in_the_order_of_the_nav(built_site):
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]
    chapters = [page.removesuffix(".md") for page in pages_of(nav)
                if not page.startswith("notebooks") and page.removesuffix(".md") not in INDEX_PAGES]
    assert sorted(chapters) == CHAPTERS == sorted(p.stem for p in (built_site / "notebooks").glob("*.ipynb"))
    index = built_site / "notebooks" / "index.html"
    items = soup(index).select(".md-content article > ul > li")
    assert len(items) == len(chapters)
    for item, chapter in zip(items, chapters):
        for link in item.select('a[href]:not([href*="://"])'):
            target = (index.parent / link["href"].partition("#")[0]).resolve()
            assert (target / "index.html" if target.is_dir() else target).is_file(), link
        page, download = item.select("a")[:2]
        assert page["href"] == f"{chapter}/" and download["href"] == f"{chapter}.ipynb"
        assert download.has_attr("download") and download.get_text() == f"Download {chapter}.ipynb"
        shown = soup(index.parent / chapter / "index.html")
        assert shown.h1.get_text().removesuffix("¶") == f"{page.get_text()}: the notebook"
        introduction = shown.select_one(".md-content article p:not(.notebook-download)")
        assert item.select("p")[1].get_text() == " ".join(introduction.get_text().split())  # what it covers


def test_helper_modules_are_a_collapsed_cell_of_code(built_site):
    """custom_functions imports its ELU from elu.py: the notebook holds that code in one collapsed
    cell after the introduction, and no cell imports elu or writes a file."""
    code = code_cells(read(built_site, "custom_functions"))
    helpers = code[1]
    assert helpers.metadata == {"jupyter": {"source_hidden": True}}
    assert "class ELUFunction(autograd.Function):" in helpers.source
    assert not [c for c in code if re.search(r"^from elu import|write_text\(", c.source, re.M)]


def test_every_chapter_offers_its_notebook(built_site):
    for chapter in CHAPTERS:
        page = soup(built_site / chapter / "index.html")
        (link,) = [a for a in page.select("p.notebook-download a") if "Jupyter notebook" in a.get_text()]
        assert link["href"] == f"../notebooks/{chapter}.ipynb" and link.has_attr("download")
        assert read(built_site, chapter).nbformat == 4


def test_a_notebook_page_shows_the_notebook_and_links_it(built_site):
    page = (built_site / "notebooks" / "autograd_basics" / "index.html").read_text()
    assert 'href="../autograd_basics.ipynb" download>Download autograd_basics.ipynb<' in page and "In [1]" in page
    assert "tensor([[4.5000, 4.5000]" in page


def test_notebook_figures_and_graphs_carry_their_text_alternative(built_site):
    notebook = nbformat.read(built_site / "notebooks" / "custom_functions.ipynb", as_version=4)
    pictures = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs
                if "image/svg+xml" in o.get("data", {})]
    alts = [o["data"]["text/plain"] for o in pictures]
    assert any(a.startswith("Plot (") for a in alts) and any(a.startswith("Computation graph with") for a in alts)


def test_a_step_through_is_the_sites_viewer_in_the_notebook_with_its_table_of_steps(built_site):
    notebook = nbformat.read(built_site / "notebooks" / "autograd_basics.ipynb", as_version=4)
    (cell,) = [c for c in notebook.cells if c.cell_type == "code" and "show_backward(out)" in c.source
               and tables(c) and "x = torch.ones(2, 2" in c.source]
    (viewer,) = tables(cell)
    assert viewer.startswith('<div class="snippet-steps-host"><style>') and '<figure class="snippet-steps">' in viewer
    assert "<script>" in viewer and "<svg" in viewer and "http" not in viewer.replace("http://www.w3.org", "")
    start = viewer.index("<table>")  # the table of steps (the table of norms has a class)
    table = viewer[start:viewer.index("</table>", start)]
    assert table.count("<tr>") == 6  # header and 5 steps
    assert "MeanBackward0" in table and "[[4.5, 4.5], [4.5, 4.5]]" in table



def test_the_nav_lists_each_notebook_in_the_order_of_its_chapter(built_site):
    """The engine adds the notebooks' pages to the nav section of the notebooks' index, by file name;
    mkdocs.yml names none of them, and listing them again adds nothing."""
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]
    assert not [page for page in pages_of(nav) if page.startswith("notebooks/")]
    chapters = [page.removesuffix(".md") for page in pages_of(nav) if page.removesuffix(".md") in CHAPTERS]
    sidebar = soup(built_site / "notebooks" / "index.html").select(".md-sidebar--primary .md-nav__link")
    listed = [" ".join(link.get_text().split()) for link in sidebar if link.get_text().strip().endswith(".ipynb")]
    assert listed == [f"{chapter}.ipynb" for chapter in chapters]
    entries = [{"Notebooks": ["notebooks.md"]}]
    for _ in range(2):
        list_notebooks(entries, "notebooks.md", [("a.ipynb", "notebooks/a.md")])
    assert entries == [{"Notebooks": ["notebooks.md", {"a.ipynb": "notebooks/a.md"}]}]


def test_each_step_through_cell_calls_show_backward_with_its_forward_pass_watched(built_site):
    """In place of `out.backward()`, `show_backward(out)` with one comment saying so; the forward
    pass, from its first line, in a `with watch_forward():` block that ends just before it."""
    cells = [c for chapter in CHAPTERS for c in code_cells(read(built_site, chapter)) if steps(c)]
    assert len(cells) == sum(1 for path in RECORDED if path.stem.startswith("watch_")) == 10
    for cell in cells:
        lines = cell.source.splitlines()
        (shown,) = [n for n, line in enumerate(lines) if line.startswith("show_backward(")]
        tensor = re.match(r"show_backward\((\w+)\)", lines[shown])[1]
        assert lines[shown] == f"show_backward({tensor})  # {tensor}.backward(), shown step by step", cell.source
        assert ".backward(" not in cell.source.replace(lines[shown], ""), cell.source
        assert "from autograd_steps import show_backward, watch_forward" in lines, cell.source
        on = lines.index(notebooks.WATCH_FORWARD)
        block = lines[on + 1:shown]
        assert block and all(line.startswith("    ") or not line for line in block), cell.source
        assert not [line for line in lines[:on] if re.match(r"\w+ = ", line)], cell.source
    (basics,) = [c for c in cells if "x = torch.ones(2, 2" in c.source]
    assert "\n".join(basics.source.splitlines()[2:6]) == (
        "from autograd_steps import show_backward, watch_forward\n\n"
        f"{notebooks.WATCH_FORWARD}\n"
        "    x = torch.ones(2, 2, requires_grad=True)")


def test_the_install_cell_installs_the_sites_wheel_where_a_cell_shows_a_step_through(built_site, monkeypatch, tmp_path):
    """mkdocs.yml sets no site_url: the reader downloads the wheel beside the notebook, as the
    cell says; the cell installs that file, and stops with where to get it while it is missing."""
    name = wheel.filename()
    assert (built_site / "downloads" / name).is_file()
    with_steps = {chapter for chapter in CHAPTERS if any(steps(c) for c in code_cells(read(built_site, chapter)))}
    assert with_steps == {"autograd_basics", "computation_graph", "custom_functions", "debugging_gradients",
                          "higher_order"}
    for chapter in CHAPTERS:
        install = code_cells(read(built_site, chapter))[0]
        assert (f'WHEEL = "{name}"' in install.source) == (chapter in with_steps), chapter
    install = code_cells(read(built_site, "higher_order"))[0]
    assert f"download {name} from the site's downloads/\n# folder into the folder of this notebook" in install.source
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(RuntimeError, match=f"download {re.escape(name)} from the site's downloads/ folder into"):
        pip_installs(install, monkeypatch)
    (tmp_path / name).write_bytes((built_site / "downloads" / name).read_bytes())
    assert pip_installs(install, monkeypatch)[-1] == [sys.executable, "-m", "pip", "install", "--no-deps", name]
    assert any(r.startswith("pygments") for r in metadata.requires("ipython")), "what --no-deps leaves out comes with Jupyter"
    page = " ".join((ROOT / "docs" / "notebooks.md").read_text().split())
    assert f"{NUMBERS[len(with_steps)]} notebooks show a step-through" in page


LINK = re.compile(r"(?<!!)\[(?:[^\[\]]|\[[^\]]*\])*\]\(((?:[^()\s]|\([^()\s]*\))+)\)")


def jupyter_ids(notebook):
    """The id Jupyter gives each heading of a notebook's Markdown: its text, each space a `-`."""
    return {re.sub(r"`|\*\*", "", m[1]).replace(" ", "-")
            for cell in notebook.cells if cell.cell_type == "markdown"
            for m in re.finditer(r"^#{1,6} (.+)$", cell.source, re.M)}


def test_every_link_of_a_notebook_goes_where_a_reader_in_jupyter_can_follow_it(built_site):
    """Without a site_url, a link to a chapter goes to its notebook beside this one, a section to
    the id Jupyter gives its heading there; a link to a page or download with no notebook is its
    text; the page's links to other sites stay. No heading keeps its `{ #id }`."""
    assert SITE_URL is None, "with a site_url, links go to the published site (test_notebook_cells.py)"
    counts = {"http": 0, "sibling": 0, "section": 0}
    for chapter in CHAPTERS:
        notebook = read(built_site, chapter)
        markdown = (ROOT / "docs" / f"{chapter}.md").read_text()
        for cell in notebook.cells:
            if cell.cell_type != "markdown":
                continue
            assert not re.search(r"^#.*\{ *#", cell.source, re.M), cell.source
            for link in LINK.findall(cell.source):
                if link.startswith(("http://", "https://")):
                    assert f"]({link})" in markdown, link  # the page links it too
                    counts["http"] += 1
                    continue
                path, _, anchor = link.partition("#")
                assert not path or re.fullmatch(r"\w+\.ipynb", path), link
                target = read(built_site, path.removesuffix(".ipynb")) if path else notebook
                if anchor:
                    assert anchor in jupyter_ids(target), (chapter, link)
                counts["section" if anchor else "sibling"] += 1
    assert counts["http"] == 7 and counts["sibling"] >= 30 and counts["section"] > 100, counts
    prose = "".join(c.source for c in read(built_site, "debugging_gradients").cells if c.cell_type == "markdown")
    assert f"Download the package\n{wheel.filename()} and" in prose  # no site to link it to: its name


def test_a_headings_anchors_are_the_ids_its_page_gives_it(built_site):
    for chapter in CHAPTERS:
        page = soup(built_site / chapter / "index.html")
        ids = [h["id"] for h in page.select(".md-content article :is(h1, h2, h3, h4, h5, h6)[id]")]
        markdown, _ = meta.get_data((ROOT / "docs" / f"{chapter}.md").read_text())
        assert list(notebooks.anchors(markdown)) == ids, chapter


def test_jupyterlab_gives_the_headings_the_ids_that_the_notebooks_links_go_to(built_site, jupyterlab, browser):
    """The notebooks most linked to, opened in JupyterLab: each section another notebook's link (or
    its own) goes to is a heading there with that id, and going to it (as a click on the link
    does, once the notebook is open) brings the heading into view. Every cell is rendered at once
    (`windowingMode`), so that every heading can be looked at."""
    url, work = jupyterlab
    tracker = work.parent / "settings" / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings"
    tracker.parent.mkdir(parents=True)
    tracker.write_text(json.dumps({"windowingMode": "none"}))
    wanted = {}  # notebook -> the anchors that links go to in it
    for chapter in CHAPTERS:
        for cell in read(built_site, chapter).cells:
            for link in LINK.findall(cell.source) if cell.cell_type == "markdown" else []:
                path, _, anchor = link.partition("#")
                if anchor and not link.startswith("http"):
                    wanted.setdefault(path.removesuffix(".ipynb") or chapter, set()).add(anchor)
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    for chapter in ("autograd_basics", "custom_functions", "errors_graph"):
        shutil.copy(built_site / "notebooks" / f"{chapter}.ipynb", work)
        page.goto(f"{url}/lab/tree/{chapter}.ipynb")
        page.wait_for_function(f"window.jupyterapp?.shell.currentWidget?.context?.path === '{chapter}.ipynb'")
        page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-RenderedMarkdown h2").first.wait_for()
        ids = page.evaluate("""() => Array.from(window.jupyterapp.shell.currentWidget.node.querySelectorAll(
            ":is(h1, h2, h3, h4)[data-jupyter-id]"), h => h.getAttribute("data-jupyter-id"))""")
        assert len(wanted[chapter]) > 3 and wanted[chapter] <= set(ids), (chapter, wanted[chapter] - set(ids))
        last = max(wanted[chapter], key=ids.index)  # the furthest down
        page.evaluate("f => window.jupyterapp.shell.currentWidget.setFragment(f)", f"#{last}")
        heading = page.locator(f'.jp-NotebookPanel:not(.lm-mod-hidden) [data-jupyter-id="{last}"]')
        page.wait_for_function("h => h.getBoundingClientRect().top >= 0 && h.getBoundingClientRect().bottom <= 900",
                               arg=heading.element_handle(), timeout=30_000)


# Opens a notebook as a double click in JupyterLab's file browser does, and waits until it is
# loaded or a dialog comes up (a file JupyterLab cannot read shows a "File Load Error"): the number
# of its cells as JupyterLab shows them and the dialog's text; then shuts its kernel down and closes it.
OPEN_NOTEBOOK = """async path => {
    const app = window.jupyterapp, widget = await app.commands.execute("docmanager:open", {path, factory: "Notebook"});
    let looking = true;
    const dialog = new Promise(found => {
        const look = () => {
            const shown = document.querySelector(".jp-Dialog");
            if (shown) found(shown.innerText); else if (looking) setTimeout(look, 100);
        };
        look();
    });
    const late = new Promise((_, fail) => setTimeout(() => fail(new Error("neither loaded nor refused in 60 s")), 60_000));
    const refused = await Promise.race([widget.context.ready.then(() => widget.revealed).then(() => null), dialog, late]);
    looking = false;
    const cells = refused === null ? widget.content.widgets.length : null;
    await widget.sessionContext.shutdown();
    widget.dispose();
    return {cells, dialog: refused};
}"""


def test_every_notebook_opens_in_jupyterlab_with_all_its_cells(built_site, jupyterlab, browser):
    """Each notebook, in the folder JupyterLab serves, opened there as a reader opens it: it loads
    (JupyterLab reads it with a strict JSON parser: a bare NaN is a "File Load Error") and shows
    every cell of the file, and no dialog comes up."""
    url, work = jupyterlab
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(f"{url}/lab")
    page.wait_for_function("window.jupyterapp?.started && document.querySelector('.jp-DirListing')")
    page.evaluate("window.jupyterapp.started")
    for chapter in CHAPTERS:
        shutil.copy(built_site / "notebooks" / f"{chapter}.ipynb", work)
        opened = page.evaluate(OPEN_NOTEBOOK, f"{chapter}.ipynb")
        assert opened == {"cells": len(read(built_site, chapter).cells), "dialog": None}, chapter


def test_on_a_published_site_a_notebook_links_its_pages_and_installs_autograd_steps_from_there(project):
    """With a site_url, a link to another chapter goes to its page on the published site, section
    and all, a link to a section of the notebook's own chapter stays in the notebook, and the
    install cell pip installs the wheel from the site."""
    config = yaml.safe_load((project.root / "mkdocs.yml").read_text())
    config["site_url"] = "https://example.org/book/"
    config["nav"] = ["index.md", "a.md", "b.md"]
    (project.root / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    project.write("snippets/watch.py", "import torch\n\nx = torch.ones(2, requires_grad=True)\nout = (x * x).sum()\n"
                                       "out.backward()\nprint(x.grad)\n")
    project.write("docs/index.md", "---\nnotebook: false\n---\n\n# Home\n\nRead [A](a.md).\n")
    project.write("docs/a.md", "# A\n\n## Watching it\n\nAs [the second part](b.md#second-part) and "
                               "[this one](#watching-it) say:\n\n```python step-through\n--8<-- \"watch.py\"\n```\n")
    project.write("docs/b.md", "# B\n\n## Second part\n\nBack to [the home page](index.md).\n\n```python\n--8<-- \"watch.py\"\n```\n")
    done = mkdocs(project.root, "build", "--strict")
    assert done.returncode == 0, done.stderr
    a, b = (nbformat.read(project.root / "site" / "notebooks" / f"{n}.ipynb", as_version=4) for n in "ab")
    prose = "".join(c.source for c in a.cells if c.cell_type == "markdown")
    assert "[the second part](https://example.org/book/b/#second-part)" in prose and "[this one](#Watching-it)" in prose
    assert "[the home page](https://example.org/book/)" in "".join(c.source for c in b.cells if c.cell_type == "markdown")
    install, cell = code_cells(a)
    assert f'WHEEL = "https://example.org/book/downloads/{wheel.filename()}"' in install.source
    assert '"pip", "install", "--no-deps", WHEEL]' in install.source
    assert "show_backward(out)  # out.backward(), shown step by step" in cell.source
    assert steps(cell) and not steps(code_cells(b)[1]), "b's block is no step-through: its cell shows none"
    assert "WHEEL" not in code_cells(b)[0].source and "show_backward" not in code_cells(b)[1].source

