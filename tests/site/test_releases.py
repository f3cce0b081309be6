"""The site checked on another release of torch (`make release-check`, bench/release_check.py):
its data file says how it was made, and each page shows what it found, as releases.py says."""

import importlib.util
import json
import re
from importlib import metadata

from conftest import OPTIONS, ROOT, SNIPPETS, pages, script, soup

from snippet_engine.chapter import line_range, parse
from snippet_engine.releases import ReleaseCheck

release_check = script(ROOT / "bench" / "release_check.py")

DATA = ROOT / "bench" / "results" / "release_check.json"
CHECK = ReleaseCheck.load(DATA)


def test_the_data_file_says_which_releases_were_run_how_and_when():
    checked = json.loads(DATA.read_text())["checked"]
    release = re.search(r"^RELEASE := (\S+)$", (ROOT / "Makefile").read_text(), re.M)[1]
    assert (checked["other_torch"], checked["ours_torch"]) == (release, metadata.version("torch"))
    assert checked["command"] == "make release-check" and checked["runs_each"] == release_check.RUNS >= 2
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", checked["date"]) and checked["other_python"] == checked["ours_python"]
    assert set(CHECK.snippets) <= {p.relative_to(SNIPPETS).as_posix() for p in OPTIONS}, "snippets the pages run"


def checked_differences():
    """(snippet, line, what it prints on this release, on the other) of each line that differs, of
    the snippets checked as they are now."""
    for name in sorted(CHECK.snippets):
        for line in CHECK.differs(name, SNIPPETS / name, None, None) or []:
            yield name, line["line"], line["ours"], line["theirs"]


def test_what_differs_is_what_the_pages_show_on_this_release_beside_the_other(runner):
    """The data's side of this release is what the build's own run shows at that line now."""
    found = list(checked_differences())
    assert found, "the check found lines that print something else"
    for name, line, ours, theirs in found:
        path = SNIPPETS / name
        result = runner.run(path, OPTIONS.get(path, frozenset()))
        shown = release_check.by_line(result.outputs).get(str(line), "")
        assert shown == ours != theirs, (name, line)


def block_of(name, line):
    """(page, index of the block among the page's blocks with a snippet) that runs `line` of `name`."""
    for page in sorted((ROOT / "docs").glob("*.md")):
        blocks = [b for b in parse(page.name, page.read_text(), SNIPPETS).blocks if any(i.is_snippet for i in b.includes)]
        for k, block in enumerate(blocks):
            for include in block.includes:
                first, last = line_range(include.path, include.select) if include.select else (1, 10**9)
                if include.file == name and first <= line <= last:
                    return page.stem, k
    return None


def test_each_line_that_differs_is_shown_under_its_block_and_each_chapter_says_what_was_checked(built_site):
    """Under the block, what each line prints on one release and not on the other, per release."""
    notes = {}
    for name, line, ours, theirs in checked_differences():
        where = block_of(name, line)
        if where:
            only = notes.setdefault(where[0], {CHECK.ours: [], CHECK.other: []})
            only[CHECK.ours] += [text for text in ours.splitlines() if text not in theirs.splitlines()]
            only[CHECK.other] += [text for text in theirs.splitlines() if text not in ours.splitlines()]
    assert "vector_jacobian_products" in notes, "clamp's gradient at its bound"
    for chapter, only in notes.items():
        shown = {release: "" for release in only}
        for box in soup(built_site / chapter / "index.html").select(".md-content .snippet-release"):
            for said in box.select("p:not(.admonition-title)")[1:]:
                release = re.fullmatch(r"Printed on torch (\S+) only:", said.get_text())[1]
                shown[release] += said.find_next_sibling("pre", class_="snippet-printed").get_text() + "\n"
        for release, texts in only.items():
            for text in texts:
                assert text in shown[release], (chapter, release, text)
    for page in pages(built_site):
        name = page.parent.relative_to(built_site).as_posix()
        summary = soup(page).select_one(".md-content p.snippet-releases")
        if name in notes:
            changed = len(soup(page).select(".md-content .snippet-release"))
            assert summary and f": {changed} of its blocks print" in summary.get_text(), name
        elif summary:
            assert "every block prints the same there" in summary.get_text() or "were not checked" in summary.get_text()
    home = soup(built_site / "index.html").select_one(".md-content").get_text(" ")
    lines = sum(1 for _ in checked_differences())
    snippets = len({name for name, *_ in checked_differences()})
    assert re.search(rf"run on torch {re.escape(CHECK.other)} too \({CHECK.date}\): {snippets} of the \d+ snippets "
                     rf"checked print something else there, at {lines} of their lines", re.sub(r"\s+", " ", home)), \
        "the home page counts them"
