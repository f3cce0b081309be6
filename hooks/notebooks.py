"""Every chapter is also a Jupyter notebook, made from the same prose and snippets.

Before the pages are read (and before mkdocs-jupyter, which renders the
notebooks in the "Notebooks" section), each chapter that includes snippets
becomes `notebooks/<slug>.ipynb`:

- prose becomes Markdown cells (math as `$...$`, Material's admonition and
  tab headers as bold titles);
- an include becomes a code cell holding the file's lines from where the
  previous cell of that file stopped to the last line the page shows, so the
  notebook runs top to bottom; its outputs are what the snippet engine
  captured for those lines, so nothing runs twice;
- modules a chapter's snippets import from their own folder, and the data
  files they read, are written by cells at the top, so a downloaded notebook
  runs on its own (a cell that uses `__file__` gets the snippet's place in
  the repository).

The chapter page gets a link to download its notebook.
"""

import html
import re
from pathlib import Path

import nbformat
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File
from mkdocs.structure.toc import get_toc
from mkdocs.utils import get_relative_url
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from snippet_includes import MARKER, fences, line_range
from snippet_runner import SnippetRunner, execution_enabled

state = {}


def on_config(config):
    root = Path(config.config_file_path).resolve().parent
    state["snippets"] = root / "snippets"
    state["out"] = root / ".cache" / "notebooks"
    state["runner"] = SnippetRunner(state["snippets"], root / ".cache" / "snippet-outputs")
    state["slugs"] = set()


@event_priority(100)  # before mkdocs-jupyter wraps the .ipynb files
def on_files(files, config):
    state["out"].mkdir(parents=True, exist_ok=True)
    for page in [f for f in files.documentation_pages() if f.src_uri.endswith(".md")]:
        markdown = Path(page.abs_src_path).read_text(encoding="utf-8")
        if not any(True for _ in fences(markdown, state["snippets"])):
            continue
        slug = Path(page.src_uri).stem
        notebook = nbformat.writes(chapter_notebook(markdown, with_outputs=execution_enabled()))
        path = state["out"] / f"{slug}.ipynb"
        if not path.exists() or path.read_text(encoding="utf-8") != notebook:
            path.write_text(notebook, encoding="utf-8")
        # A File with a real src_dir: mkdocs-jupyter reads the notebook from abs_src_path.
        files.append(File(f"notebooks/{slug}.ipynb", str(state["out"].parent), config.site_dir,
                          config.use_directory_urls))
        state["slugs"].add(page.src_uri)
    return files


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri.endswith(".ipynb"):
        page.meta["search"] = {"exclude": True}  # search finds the chapter, not its copy
        return markdown
    if page.file.src_uri not in state["slugs"]:
        return markdown
    slug = Path(page.file.src_uri).stem
    url = get_relative_url(f"notebooks/{slug}/{slug}.ipynb", page.url)  # copied there by mkdocs-jupyter
    link = f'<p class="notebook-download"><a href="{url}" download>Download this chapter as a Jupyter notebook</a></p>'
    title, _, rest = markdown.partition("\n")
    return f"{title}\n\n{link}\n{rest}" if title.startswith("# ") else f"{link}\n\n{markdown}"


def on_page_content(content, page, config, files):
    """A notebook page's table of contents, from the heading ids nbconvert wrote."""
    if not page.file.src_uri.endswith(".ipynb"):
        return content
    root = {"level": 0, "children": []}
    stack = [root]
    for level, anchor, text in re.findall(r'<h([2-6]) id="([^"]+)"[^>]*>(.*?)</h\1>', content, re.S):
        name = html.unescape(re.sub(r"<[^>]+>|¶", "", text)).strip()
        while stack[-1]["level"] >= int(level):
            stack.pop()
        token = {"level": int(level), "id": html.unescape(anchor), "name": name, "children": []}
        stack[-1]["children"].append(token)
        stack.append(token)
    page.toc = get_toc(root["children"])
    return content


def chapter_notebook(markdown, with_outputs):
    cells, done, needs, prose_from = [], {}, {}, 0
    for fence, found in fences(markdown, state["snippets"]):
        cells.append(markdown_cell(markdown[prose_from:fence.start()]))
        prose_from = fence.end()
        for include in found:
            cells.append(code_cell(include, done, needs, with_outputs))
    cells.append(markdown_cell(markdown[prose_from:]))
    cells = [c for c in cells if c is not None]
    # After the title and introduction, before the first cell that needs them.
    notebook = new_notebook(cells=cells[:1] + setup_cells(needs) + cells[1:])
    notebook.metadata.update(kernelspec={"name": "python3", "display_name": "Python 3", "language": "python"},
                             language_info={"name": "python"})
    for n, cell in enumerate(notebook.cells):
        cell.id = f"cell-{n}"
    return notebook


def setup_cells(needs):
    """Cells that write the project files the chapter's code imports or reads."""
    cells = [new_code_cell(f"%%writefile {name}\n{text}") for name, text in sorted(needs.items())
             if "/" not in name]
    data = [(name, text) for name, text in sorted(needs.items()) if "/" in name]
    if data:
        lines = ["from pathlib import Path", ""]
        for name, text in data:
            lines += [f"Path({name!r}).parent.mkdir(parents=True, exist_ok=True)",
                      f"Path({name!r}).write_text({text!r})"]
        cells.append(new_code_cell("\n".join(lines)))
    if cells:
        cells.insert(0, new_markdown_cell("The files this chapter's code imports or reads, "
                                          "written next to the notebook so that it runs on its own:"))
    return cells


def code_cell(include, done, needs, with_outputs):
    """The code the include shows, plus any lines of its file not run yet."""
    lines = include.path.read_text(encoding="utf-8").splitlines()
    first, last = line_range(include.path, include.select)
    last = last or len(lines)
    start = done.get(include.path, 0) + 1
    shown = [line for line in lines[(first or 1) - 1:last] if not MARKER.search(line)]
    if last < start:  # already run by earlier cells: show it, do not run it again
        return new_markdown_cell("```python\n" + "\n".join(shown).strip("\n") + "\n```")
    done[include.path] = last
    source = "\n".join(line for line in lines[start - 1:last] if not MARKER.search(line)).strip("\n")
    if "__file__" in source:  # a notebook has no __file__; the data it reads is written next to it
        source = f'__file__ = "snippets/{include.file}"  # where this code lives in the repository\n' + source
    cell = new_code_cell(source)
    if with_outputs:
        result = state["runner"].run(include.path)
        cell.outputs = outputs(result.select(start, last))
        for dep in map(Path, result.deps):
            if dep.parent == include.path.parent and dep.suffix == ".py":
                needs[dep.name] = dep.read_text(encoding="utf-8")
            elif dep.is_file() and dep.suffix != ".py":
                needs[dep.relative_to(state["snippets"].parent).as_posix()] = dep.read_text(encoding="utf-8")
    return cell


def outputs(items):
    converted = []
    for item in items:
        if item["kind"] in ("stdout", "stderr", "warning"):
            name = "stdout" if item["kind"] == "stdout" else "stderr"
            text = item["text"] if item["kind"] != "warning" else f"{item['category']}: {item['text']}\n"
            if converted and converted[-1].get("name") == name:
                converted[-1]["text"] += text
            else:
                converted.append(new_output("stream", name=name, text=text))
        else:
            label = "<Figure>" if item["kind"] == "figure" else "<graphviz.Digraph>"
            converted.append(new_output("display_data", data={"image/svg+xml": item["svg"], "text/plain": label}))
    return converted


def markdown_cell(text):
    """Prose as Jupyter Markdown: `$` math, no Material-only syntax."""
    text = re.sub(r"\\\((.+?)\\\)", r"$\1$", text, flags=re.S)
    text = re.sub(r"\\\[(.+?)\\\]", r"$$\1$$", text, flags=re.S)
    text = re.sub(r'^ *(?:!!!|\?\?\?\+?|===) *(\w*) *(?:"([^"]*)")?', lambda m: f"**{m[2] or m[1].title()}**",
                  text, flags=re.M)
    text = re.sub(r"^ {4}", "", text, flags=re.M).strip()
    # Links between chapters, as seen from the rendered notebook at notebooks/<slug>/.
    text = re.sub(r"\]\((\w+)\.md(#[^)]*)?\)", lambda m: f"](../../{m[1]}/{m[2] or ''})", text)
    return new_markdown_cell(text) if text else None

