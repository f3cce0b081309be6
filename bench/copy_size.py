"""How the copies' work grows with a snippet's size: the seconds a long snippet's copy, its
notebook cell and its download take to make, at several sizes.

Each snippet is a lesson of a few lines repeated (a seed, draws, a definition, names reused
and names of its own, a value made from the last lesson's, prints, an effect on a list), in a
temporary folder; each size is measured in a fresh process, with nothing cached.

    .venv/bin/python bench/copy_size.py [--lines 4000 16000 64000]

With --site, the sizes of the copies of a built site's blocks whose snippet reads a data file
(json.loads), in lines against their block's, the largest first:

    .venv/bin/python bench/copy_size.py --site site
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SNIPPETS = Path(__file__).resolve().parents[1] / "snippets"
LESSON = """\
# lesson {i}
random.seed({i})
w{i} = [random.random() for _ in range(3)]
def scaled{i}(values, factor=2.0):
    return [v * factor for v in values]
total = sum(scaled{i}(w{i}))
rate{j} = rate{i} / 2
history.append(total * rate{j})
print(f"{i}: {{total:.3f}}", len(history))
"""


def snippet(lessons):
    """A snippet of the imports, then the lesson repeated `lessons` times (tests/engine/test_standalone.py
    counts the work of its copies)."""
    head = "import random\n\nhistory = []\nrate0 = 1.0\n"
    return head + "".join(LESSON.format(i=i, j=i + 1) for i in range(lessons))


def measure(path):
    """Seconds to make the whole file's copy, its last lesson's copy, its notebook cell, its download."""
    from snippet_engine import standalone

    source = standalone.Source(path, path.parent)
    last = len(source.lines)
    first = last - LESSON.count("\n") + 1
    timings = {}
    for name, make in [("copy of all", lambda: source.program()),
                       ("copy of the last lesson", lambda: source.program(first, last)),
                       ("notebook cell", lambda: source.cell(1, last, standalone.Inlined())),
                       ("download", lambda: source.whole())]:
        start = time.perf_counter()
        make()
        timings[name] = time.perf_counter() - start
    return timings


def parsed(page):
    from bs4 import BeautifulSoup

    return BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")


def data_copies(site, snippets=SNIPPETS, parse=parsed):
    """(copy lines / block lines, copy lines, block lines, page, snippet file, copy) of each block of
    the built `site` whose snippet reads a data file, the largest ratio first. `parse`: a page's
    HTML, parsed (the tests pass the pages they parsed already)."""
    readers = {p.relative_to(snippets).as_posix() for p in snippets.rglob("*.py") if "json.loads" in p.read_text()}
    rows = []
    for page in sorted(site.rglob("index.html")):
        for block in parse(page).select("div.highlight[data-copy]"):
            title = block.select_one(".filename")
            if title and title.get_text() in readers:
                code = (block.select_one("td.code code") or block.select_one("code")).get_text()
                copy, shown = len(block["data-copy"].rstrip("\n").splitlines()), len(code.rstrip("\n").splitlines())
                rows.append((copy / shown, copy, shown, page.parent.relative_to(site).as_posix(), title.get_text(),
                             block["data-copy"]))
    return sorted(rows, reverse=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, nargs="+", default=[4000, 16000, 64000])
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)  # measure one file, in this process
    parser.add_argument("--site", type=Path, help="a built site: the sizes of its data-reading blocks' copies")
    args = parser.parse_args()
    if args.site:
        for ratio, copy, shown, page, snippet, _ in data_copies(args.site):
            print(f"{ratio:5.1f}x  {copy:4} lines for {shown:3}  {page}: {snippet}")
        return
    if args.one:
        print(json.dumps(measure(args.one)))
        return
    with tempfile.TemporaryDirectory() as folder:
        for lines in args.lines:
            path = Path(folder) / f"long_{lines}.py"
            path.write_text(snippet(max(1, (lines - 4) // LESSON.count("\n"))))
            done = subprocess.run([sys.executable, __file__, "--one", str(path)], capture_output=True, text=True,
                                  check=True)
            timings = json.loads(done.stdout)
            print(f"{lines:>6} lines: " + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in timings.items()),
                  flush=True)


if __name__ == "__main__":
    main()
