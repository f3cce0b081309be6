"""A chapter as a Jupyter notebook, and the page that shows the notebook.

- prose becomes Markdown cells (math as `$...$`, Material's admonition and
  tab headers as bold titles);
- an include becomes a code cell holding the file's lines from where the
  previous cell of that file stopped to the last line the page shows, so the
  notebook runs top to bottom; its outputs are what the engine captured for
  those lines, so nothing runs twice;
- a setup cell at the top writes the helper modules and data files the
  chapter's code imports or reads (standalone.py), so a downloaded notebook
  runs on its own.

The notebook is written as nbformat 4 JSON with plain dicts: importing
nbformat itself costs more than a whole no-change build of a page.
"""

import json
import re

from snippet_engine import standalone

NOTEBOOK_METADATA = {
    "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
    "language_info": {"name": "python"},
}


def markdown_cell(text):
    """Prose as Jupyter Markdown: `$` math, no Material-only syntax."""
    text = re.sub(r"\\\((.+?)\\\)", r"$\1$", text, flags=re.S)
    text = re.sub(r"\\\[(.+?)\\\]", r"$$\1$$", text, flags=re.S)
    text = re.sub(r'^ *(?:!!!|\?\?\?\+?|===) *(\w*) *(?:"([^"]*)")?', lambda m: f"**{m[2] or m[1].title()}**",
                  text, flags=re.M)
    text = re.sub(r"^ {4}", "", text, flags=re.M).strip()
    # Links between chapters, as seen from the notebook's page at notebooks/<slug>/.
    text = re.sub(r"\]\((\w+)\.md(#[^)]*)?\)", lambda m: f"](../{m[1]}.md{m[2] or ''})", text)
    return {"cell_type": "markdown", "metadata": {}, "source": text} if text else None


def code_cell(source, outputs=()):
    return {"cell_type": "code", "metadata": {}, "execution_count": None, "source": source,
            "outputs": list(outputs)}


def chapter_cells(chapter, results, project):
    """The cells of a chapter's notebook; `results` maps a snippet path to its Result."""
    cells, done, prose_from = [], {}, 0
    modules, data = [], []
    for block in chapter.blocks:
        cells.append(markdown_cell(chapter.markdown[prose_from:block.start]))
        prose_from = block.end
        for include in block.includes:
            if not include.is_snippet or include.problem:
                continue
            result = results[include.path]
            cells.append(include_cell(include, done, result))
            modules += [m for m in standalone.helpers(include.path, project) if m not in modules]
            data += [d for d in standalone.data_files(result.deps) if d not in data]
    cells.append(markdown_cell(chapter.markdown[prose_from:]))
    cells = [c for c in cells if c is not None]
    setup = standalone.setup_lines(modules, data, project)
    if setup:
        cells[1:1] = [code_cell("\n".join(setup).strip())]
    number = 0
    for n, cell in enumerate(cells):
        cell["id"] = f"cell-{n}"
        if cell["cell_type"] == "code":
            number += 1
            cell["execution_count"] = number
    return cells


def include_cell(include, done, result):
    """The code the include shows, plus any lines of its file not run yet."""
    lines = include.path.read_text(encoding="utf-8").splitlines()
    last = include.last or len(lines)
    start = done.get(include.path, 0) + 1
    if last < start:  # already run by earlier cells: show it, do not run it again
        return markdown_cell("```python\n" + "\n".join(include.shown()).strip("\n") + "\n```")
    done[include.path] = last
    source = standalone.without_markers("\n".join(lines[start - 1:last]) + "\n").strip("\n")
    if "__file__" in source:  # a notebook has no __file__; the data it reads is written next to it
        source = f'__file__ = "snippets/{include.file}"  # where this code lives in the repository\n' + source
    return code_cell(source, result.select(start, last) if result else [])


def notebook_json(cells):
    notebook = {"cells": cells, "metadata": NOTEBOOK_METADATA, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def notebook_page(title, ipynb_url, cells, output_marker, copy_marker):
    """Markdown for the page that shows the notebook: its cells in order, each code
    cell's outputs placed by `output_marker(outputs)` (a paragraph the page replaces)
    and its copy button given the code of every cell up to it by `copy_marker(code)`."""
    parts = ["---\nsearch:\n  exclude: true\n---\n",  # search finds the chapter, not its copy
             f"# {title}: the notebook\n",
             f'<p class="notebook-download"><a href="{ipynb_url}" download>'
             f'Download {ipynb_url.rsplit("/", 1)[-1]}</a></p>\n']
    so_far = []
    for n, cell in enumerate(cells):
        if cell["cell_type"] == "markdown":
            text = cell["source"]
            if n == 0 and text.startswith("# "):  # the page has its own title
                text = text.partition("\n")[2]
            parts.append(text + "\n")
            continue
        fence = "````" if "```" in cell["source"] else "```"
        so_far.append(cell["source"])
        parts.append(copy_marker("\n\n".join(so_far) + "\n") + "\n")
        parts.append(f'{fence}python title="In [{cell["execution_count"]}]"\n{cell["source"]}\n{fence}\n')
        if cell["outputs"]:
            parts.append(output_marker(cell["outputs"]) + "\n")
    return "\n".join(parts)
