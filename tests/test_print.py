"""The book on paper: `make pdf` prints print.html (hooks/print_book.py), every chapter in the
order of the nav, with the setup's Chromium. The PDF holds every chapter's title and text, its
formulas typeset, and the print page every figure, graph and table of steps of the chapters."""

import re
import subprocess
import sys

import pypdfium2
import pytest
import yaml
from browsing import SHOTS
from conftest import ROOT, build_strict, built_once, soup


@pytest.fixture(scope="session")
def book(tmp_path_factory, built_site):
    """The print build and its PDF; built after the site, whose snippets' runs fill the cache it reads."""
    def build(site):
        build_strict(site, env={"PRINT": "1"})
        printed = subprocess.run([sys.executable, ROOT / "hooks" / "print_book.py", site / "print.html",
                                  site / "book.pdf"], capture_output=True, text=True, timeout=900)
        assert printed.returncode == 0, printed.stderr

    site = built_once(tmp_path_factory, "print", build)
    return site, site / "book.pdf"


def chapter_titles(site):
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]
    pages = [next(iter(e.values())) for e in nav if isinstance(e, dict)]
    pages = [p for p in pages if isinstance(p, str) and p != "index.md"]
    return pages, [soup(site / p[:-3] / "index.html").h1.get_text()
                   .removesuffix("¶") for p in pages]


def pdf_pages(pdf):
    """The text of each page of the PDF."""
    document = pypdfium2.PdfDocument(pdf)
    return document, [document[i].get_textpage().get_text_range() for i in range(len(document))]


def test_the_pdf_holds_every_chapter_in_reading_order(book):
    site, pdf = book
    flat = " ".join(" ".join(pdf_pages(pdf)[1]).split())
    pages, titles = chapter_titles(site)
    where = 0
    for title in titles:  # each one after the one before it
        where = flat.find(" ".join(title.split()), where)
        assert where >= 0, f"{title!r} is missing, or not after the chapter before it in the nav"
    assert "Why every entry is 4.5" in flat and "ELUFunction" in flat


def test_the_pages_are_numbered_through_the_book_and_none_is_blank(book):
    """The book is printed a part at a time (the title page, each chapter), its pages numbered on."""
    _, texts = pdf_pages(book[1])
    assert [t.split()[0] for t in texts] == [str(n) for n in range(1, len(texts) + 1)]
    assert all(len(t.split()) > 1 for t in texts), "a page holds only its number"
    assert texts[0].split()[1:4] == ["Autograd", "Inside", "Out"] and len(texts[0].split()) < 40, "the title page"


def test_the_print_page_holds_every_figure_graph_formula_and_table_of_steps(book):
    site, _ = book
    printed = soup(site / "print.html")
    pages, _ = chapter_titles(site)
    shown = {"img": 0, ".katex": 0, "table": 0, ".snippet-steps__table": 0}
    for page in pages:
        chapter = soup(site / page[:-3] / "index.html").select_one("article")
        for selector in shown:
            shown[selector] += len(chapter.select(selector))
    assert {s: len(printed.select(f"article {s}")) for s in shown} == shown
    images = [img["src"] for img in printed.select("article img")]
    assert all((site / src).is_file() for src in images), [s for s in images if not (site / s).is_file()]
    assert not printed.select('script[src$="steps.js"]'), "the viewer would close the tables of steps"


def test_formulas_and_tables_of_steps_print_within_the_page(book):
    """Three pages as images for a person to look at: the first, a page of formulas, a table of steps."""
    site, pdf = book
    document, texts = pdf_pages(pdf)
    wanted = [0, next(i for i, t in enumerate(texts) if "Why every entry is 4.5" in t),
              next(i for i, t in enumerate(texts) if "All steps as a table" in t)]
    SHOTS.mkdir(parents=True, exist_ok=True)
    for n in wanted:
        document[n].render(scale=1.2).to_pil().save(SHOTS / f"pdf-page-{n + 1}.png")
    steps = texts[wanted[2]]
    assert re.search(r"Gradients?\s+sent", steps), "the table of steps is cut at the page's edge"
