"""Every chapter's notebook, as a reader downloads it, runs on its own and prints what the page shows."""

import nbformat
import pytest
from conftest import CHAPTERS
from nbclient import NotebookClient



def stdout(cell):
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("name") == "stdout")


def tables(cell):
    """The HTML a cell displays (a step-through's table of steps)."""
    return [o["data"]["text/html"] for o in cell.get("outputs", []) if "text/html" in o.get("data", {})]


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_notebook_runs_on_its_own_and_prints_what_the_page_shows(built_site, chapter, tmp_path):
    path = built_site / "notebooks" / f"{chapter}.ipynb"
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    assert "--8<--" not in path.read_text(), "no include markers in a notebook"
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1))
    expected = [stdout(cell) for cell in code]
    expected_tables = [tables(cell) for cell in code]
    assert any(expected), "the notebook carries the outputs of the build"
    # Run in an empty folder, as a reader who downloaded only this file would.
    NotebookClient(notebook, timeout=600, kernel_name="python3", allow_errors=False,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    for cell, before, before_tables in zip(code, expected, expected_tables):
        assert tables(cell) == before_tables, cell.source  # displayed again when re-run, not printed
        if "Traceback" in before:
            continue  # tracebacks name cells, not files
        assert stdout(cell) == before, cell.source


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


def test_a_step_through_is_a_table_of_steps_in_the_notebook(built_site):
    notebook = nbformat.read(built_site / "notebooks" / "autograd_basics.ipynb", as_version=4)
    (cell,) = [c for c in notebook.cells if c.cell_type == "code" and "step_through(out)" in c.source
               and "x = torch.ones(2, 2" in c.source]
    (table,) = tables(cell)
    assert table.startswith("<table><thead><tr><th>Step</th>") and table.count("<tr>") == 6  # header and 5 steps
    assert "<td>MeanBackward0</td>" in table and "[[4.5, 4.5], [4.5, 4.5]]" in table

