"""The book on paper: `make pdf` prints print.html (hooks/print_book.py), a title page, the
contents with page numbers, then every page of the nav in its order (the error pages too) but
the home page and the notebooks, with the setup's Chromium. The PDF holds every chapter's title
and text, its formulas typeset, every fold open; its outline is the nav's chapters and their
sections; each of its links goes into the book or to the published site."""

import functools
import importlib.metadata
import importlib.util
import re
import shutil
import subprocess
import sys
from collections import Counter

import pypdfium2
import pytest
import yaml
from browsing import SHOTS
from conftest import ROOT, built_once, mkdocs, script, soup

from snippet_engine import kinds
from snippet_engine.nav import pages_of
from pypdf import PdfReader

print_book = script(ROOT / "hooks" / "print_book.py")
CONFIG = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
SITE_URL = CONFIG.get("site_url")


@pytest.fixture(scope="session")
def book(tmp_path_factory, built_site):
    """The site's print.html (conftest.built_site builds it) and its PDF, printed as `make pdf` does."""
    def build(folder):
        folder.mkdir()
        printed = subprocess.run([sys.executable, ROOT / "hooks" / "print_book.py", built_site / "print.html",
                                  folder / "book.pdf"], capture_output=True, text=True, timeout=900)
        assert printed.returncode == 0, printed.stderr

    return built_site, built_once(tmp_path_factory, "book", build) / "book.pdf"


def words(text):
    return " ".join(text.replace("¶", "").split())


def chapter_titles(site):
    """The nav's pages in the book, in order, and their titles (h1) and sections (h2)."""
    pages = [p for p in pages_of(CONFIG["nav"]) if p != "index.md" and not p.startswith("notebooks")]
    built = [soup(site / p[:-3] / "index.html").select_one("article") for p in pages]
    return pages, [words(a.h1.get_text()) for a in built], [[words(h.get_text()) for h in a.select("h2")]
                                                           for a in built]


@functools.cache
def pdf_pages(pdf):
    """The PDF and the text of each page, read once per test process (some 5 s for the book)."""
    document = pypdfium2.PdfDocument(pdf)
    return document, [document[i].get_textpage().get_text_range() for i in range(len(document))]


def links(reader):
    """Every link of the PDF: (page index, its URI or the index of the page it goes to)."""
    found = []
    for number, page in enumerate(reader.pages):
        for link in page.get("/Annots") or []:
            link = link.get_object()
            if link.get("/Subtype") != "/Link":
                continue
            if "/Dest" in link:
                found.append((number, reader.get_page_number(link["/Dest"][0].get_object())))
            else:
                found.append((number, str(link["/A"]["/URI"])))
    return found


def test_the_pdf_holds_every_chapter_in_reading_order(book):
    site, pdf = book
    _, texts = pdf_pages(pdf)
    first = next(i for i, t in enumerate(texts) if "Recording a computation" in t and "Contents" not in t)
    flat = words(" ".join(texts[first - 1:]))
    _, titles, _ = chapter_titles(site)
    assert "Error messages" in titles and "Errors about the graph and requires_grad" in titles
    where = 0
    for title in titles:  # each one after the one before it
        where = flat.find(title, where)
        assert where >= 0, f"{title!r} is missing, or not after the chapter before it in the nav"
    assert "Why every entry is 4.5" in flat and "ELUFunction" in flat


def test_the_pages_are_numbered_through_the_book_and_none_is_blank(book):
    """The book is printed a part at a time (the title page, the contents, each chapter), its pages numbered on."""
    _, texts = pdf_pages(book[1])
    assert [t.split()[0] for t in texts] == [str(n) for n in range(1, len(texts) + 1)]
    assert [n + 1 for n, t in enumerate(texts) if len(t.split()) < 2] == [], "pages holding only their number"


def test_no_page_holds_only_a_heading_or_the_title_of_a_fold(book):
    """A heading or a fold's title (a solution's "Solution") keeps the first lines under it on
    its page (site.css's print rules): no page of the PDF holds one alone."""
    site, pdf = book
    printed = soup(site / "print.html").select_one("article")
    titles = {words(t.get_text()) for t in printed.select("h1, h2, h3, h4, h5, h6, summary, .admonition-title")}
    assert "Solution" in titles
    _, texts = pdf_pages(pdf)
    alone = [(n, words(t).split(" ", 1)[-1]) for n, t in enumerate(texts, 1) if words(t).split(" ", 1)[-1] in titles]
    assert alone == [], "pages holding only a title"


def test_the_title_page_says_what_the_book_is_and_its_torch(book):
    reader = PdfReader(book[1])
    title = words(reader.pages[0].extract_text()).removeprefix("1 ")
    torch = importlib.metadata.version("torch").partition("+")[0]
    assert title.startswith(f"{CONFIG['site_name']} {words(CONFIG['site_description'])}"), title
    assert f"PyTorch {torch}." in title and (SITE_URL or "") in title and len(title.split()) < 80


def test_the_contents_give_each_chapter_and_section_its_page(book):
    """Each line of the contents is a link to the page it names, where that heading is."""
    site, pdf = book
    reader = PdfReader(pdf)
    _, texts = pdf_pages(pdf)
    _, titles, sections = chapter_titles(site)
    contents = [item for item in reader.outline if not isinstance(item, list)][1:3]
    toc = range(*[reader.get_destination_page_number(item) for item in contents])
    assert contents[0].title == "Contents" and toc[0] == 1, "the contents follow the title page"
    text = [line for n in toc for line in reader.pages[n].extract_text().splitlines()[1:]]  # after its number
    assert text[0] == "Contents"
    lines, wrapped = [], ""
    for line in text[1:]:  # a title too long for its line goes on on the next
        entry = re.fullmatch(r"(.*\S) (\d+)", words(wrapped + " " + line))
        wrapped = "" if entry else wrapped + " " + line
        lines += [entry.groups()] if entry else []
    expected = [t for title, heads in zip(titles, sections) for t in [title, *heads]]
    assert [title for title, _ in lines] == expected
    targets = [target for n, target in links(reader) if n in toc]
    assert [number for _, number in lines] == [str(target + 1) for target in targets]
    for title, number in lines:  # code in a heading may print with a space around it
        assert title.replace(" ", "") in "".join(texts[int(number) - 1].split()), f"{title!r} is not on page {number}"


def test_the_outline_holds_every_chapter_and_section_of_the_nav(book):
    site, pdf = book
    reader = PdfReader(pdf)
    _, titles, sections = chapter_titles(site)
    top = [item for item in reader.outline if not isinstance(item, list)]
    children = {}
    for before, item in zip(reader.outline, reader.outline[1:]):
        if isinstance(item, list):
            children[before.title] = [words(i.title) for i in item if not isinstance(i, list)]
    assert [words(item.title) for item in top] == [CONFIG["site_name"], "Contents", *titles]
    for title, heads in zip(titles, sections):
        assert children.get(title, []) == heads, title
    _, texts = pdf_pages(pdf)
    for item in top[2:]:
        assert words(item.title) in words(texts[reader.get_destination_page_number(item)])


def test_every_link_goes_into_the_book_or_to_the_web(book):
    """No link to the folder the book was printed from: a chapter's reference goes to its page,
    a download to the published site."""
    site, pdf = book
    found = links(PdfReader(pdf))
    kinds = Counter("book" if isinstance(target, int) else target.split(":")[0] for _, target in found)
    assert set(kinds) == {"book", "https"}, kinds
    uris = [target for _, target in found if isinstance(target, str)]
    assert not [u for u in uris if print_book.ELSEWHERE in u]
    downloads = [u for u in uris if re.search(r"\.(py|ipynb|zip|whl)$", u)]
    if SITE_URL:  # the published site's downloads
        assert len(downloads) > 300 and all(u.startswith(SITE_URL) for u in downloads)
        assert f"{SITE_URL}notebooks/autograd_basics.ipynb" in downloads
    else:  # no address to send them to: their names are text
        left = [a["data-site"] for a in soup(site / "print.html").select("article a[data-site]")]
        assert downloads == [] and len(left) > 300 and "notebooks/autograd_basics.ipynb" in left
    # The error index links each section of the error pages: each of those links goes to its page.
    _, texts = pdf_pages(pdf)
    index = next(n for n, t in enumerate(texts) if words(t).split(" ", 1)[1].startswith("Error messages"))
    into = [target for n, target in found if n == index and isinstance(target, int)]
    assert len(into) > 10 and all(target > index for target in into)
    assert kinds["book"] > 400


def test_setups_and_solutions_are_printed_open(book):
    site, pdf = book
    printed = soup(site / "print.html")
    folds = printed.select("article details")
    assert all(d.has_attr("open") for d in folds if "snippet-graph__text" not in d["class"])
    flat = words(" ".join(pdf_pages(pdf)[1]))
    assert "three backward() calls without zeroing in between" in flat  # a solution's code
    assert "tensor([ 6., 12., 18.])" in flat  # and its output
    solutions = [d for d in folds if "success" in d["class"]]
    files = [f.get_text() for d in solutions for f in d.select(".filename")]
    assert len(files) > 30 and all(f in flat for f in files)
    setups = [d for d in folds if "snippet-setup" in d["class"]]
    assert len(setups) > 400 and "1 line of setup, run before the code below and copied with it import torch" in flat


# What works only on screen, as the site says it: none of it is printed.
SCREEN_ONLY = ["search box", "arrow keys", "one press", "click a node", "Reset zoom", "This graph as text",
               "Scroll or drag"]


def test_what_works_only_on_screen_is_left_out_and_said_for_paper(book):
    """The site's search box, keys, buttons and a graph's text (its picture is printed) are left
    out; where the prose speaks of them, a sentence for paper stands in."""
    site, pdf = book
    flat = words(" ".join(pdf_pages(pdf)[1]))
    assert [phrase for phrase in SCREEN_ONLY if phrase in flat] == []
    for said in ["On paper, the table under the graph lists the steps in the order the engine ran them.",
                 "Find your message below by its start"]:
        assert said in flat
    pages = [soup(site / page / "index.html").get_text(" ") for page in ("errors", "autograd_basics")]
    assert all(phrase in " ".join(pages) for phrase in ("search box", "arrow keys")), "the site says them"


def test_the_print_page_holds_every_figure_graph_formula_and_table_of_steps(book):
    site, _ = book
    printed = soup(site / "print.html")
    pages, _, _ = chapter_titles(site)
    shown = {"img": 0, ".katex": 0, "table": 0, ".snippet-steps__table": 0}
    for page in pages:
        chapter = soup(site / page[:-3] / "index.html").select_one("article")
        for selector in shown:
            shown[selector] += len(chapter.select(selector))
    assert {s: len(printed.select(f"article section {s}")) for s in shown} == shown
    images = [img["src"] for img in printed.select("article img")]
    assert all((site / src).is_file() for src in images), [s for s in images if not (site / s).is_file()]
    assert not printed.select('script[src$="steps.js"]'), "the viewer would close the tables of steps"
    styles = {link["href"] for link in printed.select('head link[rel="stylesheet"]')}
    kind_styles = {f"{kinds.URL}/{name}" for name in kinds.assets() if name.endswith(".css")}
    assert len(kind_styles) >= 4 and kind_styles <= styles, "each kind prints its own way"
    assert all((site / href).is_file() for href in kind_styles)


def test_formulas_and_tables_of_steps_print_within_the_page(book):
    """Pages as images for a person to look at: the title, the contents, a chapter's start, a
    page of formulas, a table of steps, a solution."""
    site, pdf = book
    document, texts = pdf_pages(pdf)
    wanted = [0, 1, next(i for i, t in enumerate(texts) if "Recording a computation" in t and i > 1),
              next(i for i, t in enumerate(texts) if "Why every entry is 4.5" in t and i > 1),
              next(i for i, t in enumerate(texts) if "All steps as a table" in t),
              next(i for i, t in enumerate(texts) if "solution_three_backward_calls.py" in t)]
    SHOTS.mkdir(parents=True, exist_ok=True)
    for n in wanted:
        document[n].render(scale=1.2).to_pil().save(SHOTS / f"pdf-page-{n + 1}.png")
    steps = texts[wanted[4]]
    assert re.search(r"Gradients?\s+sent", steps), "the table of steps is cut at the page's edge"


def test_a_table_of_many_columns_prints_whole(project, tmp_path):
    """A page's table of 30 columns, in the site's stylesheet: every column on paper. Material's
    tables scroll sideways, which paper cannot: its columns of at least 5rem each cut the table
    after its seventh. The columns now share the page's width, in small type."""
    shutil.copytree(ROOT / "docs" / "assets", project.root / "docs" / "assets")
    config = yaml.safe_load((project.root / "mkdocs.yml").read_text())
    config["nav"] = ["index.md", "wide.md"]
    (project.root / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    project.write("docs/index.md", "# Home\n\nThe book.\n")
    columns = range(30)
    project.write("docs/wide.md", "# Wide\n\n| " + " | ".join(f"c{n}" for n in columns) + " |\n|"
                  + "---|" * len(columns) + "\n| " + " | ".join(f"v{n}" for n in columns) + " |\n")
    done = mkdocs(project.root, "build", "--strict", env={"PRINT": "1"})
    assert done.returncode == 0, done.stderr
    printed = subprocess.run([sys.executable, ROOT / "hooks" / "print_book.py", project.root / "site" / "print.html",
                              tmp_path / "wide.pdf"], capture_output=True, text=True, timeout=300)
    assert printed.returncode == 0, printed.stderr
    document = pypdfium2.PdfDocument(tmp_path / "wide.pdf")
    text = " ".join(document[i].get_textpage().get_text_range() for i in range(len(document))).split()
    assert [n for n in columns if f"c{n}" not in text or f"v{n}" not in text] == []


def test_an_emoji_prints_with_a_font_that_draws_it(browser, tmp_path):
    """A heading with an emoji (🚀, which DejaVu, Debian's fallback font, lacks), printed to PDF
    by the setup's Chromium as the book is, and the PDF drawn: the rocket is in colour (the setup
    installs a font that draws it: system_tools), where without one it is a missing glyph's box."""
    page = browser.new_page()
    page.set_content("<h1>Launch 🚀 day</h1>")
    pdf = tmp_path / "emoji.pdf"
    pdf.write_bytes(page.pdf(format="A4"))
    page.close()
    pixels = pypdfium2.PdfDocument(pdf)[0].render(scale=2).to_numpy().astype(int)
    coloured = (pixels[..., :3].max(axis=-1) - pixels[..., :3].min(axis=-1) > 60).sum()
    assert coloured > 100, f"{coloured} pixels in colour: the emoji is not drawn"
