"""What a reader takes away from a page: every code block's copy, as the build writes it into
the page (`data-copy`, what the copy button copies: test_browser.py presses the buttons), runs
alone in an empty folder, prints what the block shows, writes no file the snippet itself does
not write, and holds the block plus what it uses, not the site's machinery."""

import json
import re
import statistics
import subprocess
import sys
from collections import defaultdict

import pytest
from conftest import CHAPTERS, SNIPPETS, mkdocs, normalised, pages, printed, soup

from snippet_engine.notebooks import ANOMALY_OFF, ANOMALY_ON, SHOW_BACKWARD
from snippet_engine.runner import SnippetError

OUTPUTS = ("snippet-output", "snippet-warning", "snippet-figure", "snippet-graph", "snippet-steps")


def page_copies(site, notebooks=False, chapter=None):
    """(page, snippet file, block text, copy, printed output shown under the block) of every
    code block with a copy of the chapter pages (or of the notebook pages), or of one chapter's."""
    found = []
    for page in pages(site):
        name = page.parent.relative_to(site).as_posix()
        if name == "." or name.startswith("notebooks") != notebooks or chapter not in (None, page.parent.name):
            continue
        content = soup(page).select_one(".md-content")
        for block in content.select("div.highlight[data-copy]"):
            title = block.select_one(".filename")
            code = block.select_one("td.code code") or block.select_one("code")
            shown, sibling = "", block.find_next_sibling()
            while sibling is not None and set(OUTPUTS) & set(sibling.get("class", [])):
                if "snippet-stdout" in sibling["class"]:
                    shown += sibling.select_one("code").get_text() + "\n"
                sibling = sibling.find_next_sibling()
            found.append((name, title.get_text() if title else "", code.get_text(), block["data-copy"], shown))
    return found


@pytest.fixture(scope="module")
def chapter_copies(built_site):
    return page_copies(built_site)


def test_the_chapters_have_their_copies(chapter_copies):
    assert len(chapter_copies) > 250
    assert all(copy.strip() for *_, copy, _ in chapter_copies)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_copy_runs_alone_prints_what_its_block_shows_and_writes_only_the_snippets_files(
        built_site, runner, tmp_path, chapter):
    """Each copy of the chapter's page and of its notebook's page runs as `python -c` in a folder
    of its own (the engine emulates it, so that 700 copies need not import torch 700 times;
    test_browser.py runs real ones). A copy that several blocks share (a notebook cell and
    the chapter's block it comes from, most often) runs once, and is checked for each."""
    uses = defaultdict(list)
    for use in page_copies(built_site, False, chapter) + page_copies(built_site, True, chapter):
        uses[use[3]].append(use)
    assert uses, "every chapter and its notebook have code blocks"
    for n, (copy, blocks) in enumerate(uses.items()):
        folder = tmp_path / str(n)
        folder.mkdir()
        result = runner.run_code(copy, cwd=folder)
        for page, title, code, _, shown in blocks:
            if result.error:
                raise AssertionError(f"{page}: the copy of {title}\n{code[:300]}\nfails: {SnippetError(result)}")
            assert normalised(printed(result.select())).endswith(normalised(shown)), f"{page}: {title}\n{code[:200]}"
            # A notebook cell's title is its number: its copy's own code names what it writes.
            source = (SNIPPETS / title).read_text(encoding="utf-8") if title.endswith(".py") else copy
            for written in (p for p in folder.rglob("*") if p.is_file()):
                assert written.stem.split(".")[0] in source, f"{page}: the copy of {title} writes {written.name}"


def without_recorder(cell):
    """A notebook's cell as its copy holds it: a step-through's `show_backward(x)` is the
    `x.backward()` its comment names, and the lines that only serve the recording go."""
    cell = re.sub(r"^show_backward\(.*\)  # (.*), shown step by step$", r"\1", cell, flags=re.M)
    return "\n".join(line for line in cell.splitlines() if line not in (SHOW_BACKWARD, ANOMALY_ON, ANOMALY_OFF))


@pytest.mark.parametrize("notebooks", [False, True], ids=["chapters", "notebooks"])
def test_a_copy_holds_the_block_and_no_machinery(built_site, notebooks):
    """The block's lines, in order, but for helper imports and data reads (their code and values
    are in the copy), a notebook's display() of a graph and its step-through's recording; no
    install step, no file written behind the reader's back, no recorder."""
    for page, title, code, copy, _ in page_copies(built_site, notebooks):
        code = without_recorder(code) if notebooks else code
        lines = iter(copy.splitlines())
        source = (SNIPPETS / title).read_text(encoding="utf-8") if title.endswith(".py") else ""
        for line in code.splitlines():
            if line.strip() and not re.search(r"^(from|import) \w+|json\.loads|__file__|ROOT|RESULTS|display\(", line):
                # (a step-through's x.backward() is the copy's line without its comment)
                assert any(line in (candidate, candidate.split("  # ")[0]) for candidate in lines), \
                    f"{page}: {title}: {line!r} is not in its copy"
        for machinery in ("write_text(", "pip install", "autograd_steps", "set_detect_anomaly(True, check_nan"):
            if machinery not in source:
                assert machinery not in copy, f"{page}: the copy of {title} holds {machinery}"


def test_copies_are_the_block_plus_what_it_uses(chapter_copies):
    """The median copy against the median block, and the copies far longer than their block
    (those that call a whole engine, as the tiny autograd of "Autograd from scratch" does).
    Issue 21's target is a median copy at most twice the median block; before copies became
    the block plus what it uses they were 47 lines for 10 (4.5x) with 57 copies more than 80
    lines longer. Held here at what the copies are now (24 lines for 10, 2.4x; 20 far longer):
    a copy that grows past these is pulling in code its block does not use. What is left
    above twice the block is mostly the definitions blocks call (the ELUFunction of the custom
    Function chapters, some 17 lines with its imports, in some 50 copies). The error pages are
    held apart, at what their copies are now (27 lines for 9, 3.0x; none far longer): their
    blocks are mostly a fix of a few lines, whose copy carries the model, the data and the
    optimizer it runs on."""
    for errors, (most, far_most) in [(False, (2.4, 20)), (True, (3.0, 0))]:
        pairs = [(len(copy.rstrip("\n").splitlines()), len(code.rstrip("\n").splitlines()))
                 for page, _, code, copy, _ in chapter_copies if page.startswith("errors") == errors]
        copies, blocks = zip(*pairs)
        ratio = statistics.median(copies) / statistics.median(blocks)
        far = sum(c - b > 80 for c, b in pairs)
        print(f"{'error pages' if errors else 'chapters'}: median copy {statistics.median(copies)} lines, median "
              f"block {statistics.median(blocks)}: {ratio:.2f}x; {far} copies more than 80 lines longer than their block")
        assert ratio <= most
        assert far <= far_most


def test_a_copy_is_utf8_text_whatever_the_encoding_of_its_snippet(project):
    """A snippet that starts with a BOM, and one in Latin-1 with a coding cookie: each block's
    copy and notebook cell is text without a BOM that runs as `python -c`; the download is
    UTF-8 that runs as a file, without a cookie that says otherwise."""
    (project.root / "snippets/bom.py").write_bytes("\ufeffword = 'café'\nprint(word)\n".encode())
    (project.root / "snippets/latin.py").write_bytes("# -*- coding: latin-1 -*-\nword = 'café'\nprint(word)\n"
                                                     .encode("latin-1"))
    project.write("docs/index.md", '# Page\n\n```python\n--8<-- "bom.py"\n```\n\n```python\n--8<-- "latin.py"\n```\n')
    done = mkdocs(project.root, "build", "--strict")
    assert done.returncode == 0, done.stderr
    site = project.root / "site"
    page = soup(site / "index.html")
    copies = [block["data-copy"] for block in page.select("div.highlight[data-copy]")]
    shown = [code.get_text() for code in page.select("div.highlight[data-copy] pre > code")]
    assert all("word = 'café'" in code and "\ufffd" not in code for code in shown), shown
    cells = [cell["source"] for cell in json.loads((site / "notebooks/index.ipynb").read_text())["cells"]
             if cell["cell_type"] == "code" and "word" in cell["source"]]
    assert len(copies) == len(cells) == 2
    for code in copies + cells:
        assert "\ufeff" not in code and "coding" not in code, code
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, encoding="utf-8",
                             env={"PYTHONIOENCODING": "utf-8"})
        assert run.stdout == "café\n", run.stderr
    for name in ("bom.py", "latin.py"):
        download = site / "snippets" / name
        assert not download.read_bytes().startswith(b"\xef\xbb\xbf") and b"coding" not in download.read_bytes()
        run = subprocess.run([sys.executable, download], capture_output=True, encoding="utf-8",
                             env={"PYTHONIOENCODING": "utf-8"})
        assert run.stdout == "café\n", run.stderr
