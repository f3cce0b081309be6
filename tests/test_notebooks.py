"""Every chapter's notebook, as a reader downloads it, runs on its own and shows what the page shows;
its first cell installs the pinned packages only where they are missing; the index lists every notebook."""

import re
import shutil
import subprocess
import sys
import zipfile
from importlib import metadata

import nbformat
import pytest
import yaml
from conftest import CHAPTERS, INDEX_PAGES, ROOT, nav_pages, soup
from nbclient import NotebookClient

from snippet_engine.plugin import list_notebooks

FILE_NAME = re.compile(r"^'[\w.-]+\.\w+'$")  # what Jupyter shows of a returned file name


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
    assert any(expected), "the notebook carries the outputs of the build"
    # Run in an empty folder, as a reader who downloaded only this file would; the kernel is
    # stopped at once after the last cell (its orderly shutdown tears torch down: some 0.7 s).
    NotebookClient(notebook, timeout=600, kernel_name="python3", allow_errors=False, shutdown_kernel="immediate",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    assert not install.outputs
    for cell, before, before_tables, before_pictures in zip(code, expected, expected_tables, expected_pictures):
        if not any("<th>Gradient received</th>" in table for table in before_tables):
            assert tables(cell) == before_tables, cell.source  # displayed again when re-run, not printed
        # A step-through's table is the build's recording of a plain backward(): re-run, it is not made.
        assert len(pictures(cell)) == before_pictures, cell.source  # each graph and figure displayed again
        results = [o.data.get("text/plain", "") for o in cell.outputs if o.output_type == "execute_result"]
        assert not any(FILE_NAME.match(r) for r in results), cell.source  # a picture, not the name of its file
        if "Traceback" in before:
            continue  # tracebacks name cells, not files
        assert stdout(cell) == before, cell.source


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
    chapters = [page.removesuffix(".md") for page in nav_pages(nav)
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
    (cell,) = [c for c in notebook.cells if c.cell_type == "code" and "out.backward()" in c.source
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
    assert not [page for page in nav_pages(nav) if page.startswith("notebooks/")]
    chapters = [page.removesuffix(".md") for page in nav_pages(nav) if page.removesuffix(".md") in CHAPTERS]
    sidebar = soup(built_site / "notebooks" / "index.html").select(".md-sidebar--primary .md-nav__link")
    listed = [" ".join(link.get_text().split()) for link in sidebar if link.get_text().strip().endswith(".ipynb")]
    assert listed == [f"{chapter}.ipynb" for chapter in chapters]
    entries = [{"Notebooks": ["notebooks.md"]}]
    for _ in range(2):
        list_notebooks(entries, "notebooks.md", [("a.ipynb", "notebooks/a.md")])
    assert entries == [{"Notebooks": ["notebooks.md", {"a.ipynb": "notebooks/a.md"}]}]
