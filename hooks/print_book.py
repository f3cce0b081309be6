"""The whole book on one page, in reading order, for paper and PDF (`make pdf`).

With PRINT=1 set, the build also writes `print.html`: the home page's frame holding a title page,
a table of contents and every page of the nav in order but the home page and the notebooks (the
error pages too), their built articles printed with Material's print styles and
docs/assets/site.css's `@media print` rules. Every fold (a block's setup, a solution) is open;
each kind of output prints its own way (kinds/: a step-through as its graph and its table of
steps, the viewer's script left out).
Each chapter's ids get the chapter's name in front (`autograd_basics--exercises`), so that a
reference to a chapter of the book, `chapter#anchor`, becomes an anchor of the page; every other
link within the site (a download, a notebook, a snippet's file) goes to the published site,
`site_url` in mkdocs.yml; where that is not set, such a link is left as text (`data-site`).
Not a plugin such as mkdocs-print-site-plugin: the chapters are copied as the snippet engine
and the hooks finished them (outputs, figures, typeset math), and the build stays as it is when
PRINT is not set.

Run as a script, it prints that page to PDF with the setup's Chromium:
    python hooks/print_book.py SITE/print.html OUT.pdf
a part at a time (the title page, the contents, then each chapter), numbered across the book,
each part alone in the page: Chromium's time to print a page grows with the whole document, even
its parts that are not shown (the book at once, or a part with the others hidden, took minutes).
Chromium makes each part's outline from its headings and its links within the part; pypdf joins
the parts, their outlines, and the links from one part to another, and the contents, printed
again, get the page of each heading.
"""

import html
import importlib.metadata
import os
import posixpath
import re
import sys
from urllib.parse import unquote

from mkdocs.structure.files import File

from snippet_engine import kinds
from snippet_engine.nav import pages_of

ARTICLE = re.compile(r'(<article class="md-content__inner md-typeset">)(.*?)(</article>)', re.S)
URL = re.compile(r'\b(href|src)="(?![a-z]+:|#|/)([^"]*)"')
HEADING = re.compile(r'<h([12]) id="([^"]+)"[^>]*>(.*?)</h\1>', re.S)
# A4 pages, numbered at the foot, whether print.html is printed by print_pdf or from a browser.
PAGE_STYLE = "<style>@page { margin: 15mm 14mm; @bottom-center { content: counter(page); font-size: 8px; } }</style>"
# A link from one part to another is printed to this address, then pointed at its page.
ELSEWHERE = "https://book.invalid/#"
# The parts are hidden while the page loads: laid out at once, the whole book took Chromium some 11 s
# that printing a part at a time does not need; every font the page declares is loaded instead,
# as laying it all out would have loaded it.
HIDE_PARTS = """new MutationObserver((records, watch) => {
  if (!document.head) return;
  const style = document.createElement("style");
  style.id = "hidden-parts";
  style.textContent = "article > * { display: none !important; }";
  document.head.append(style);
  watch.disconnect();
}).observe(document, {childList: true, subtree: true});"""
# Puts part k alone in the article, its pages numbered on from `before`, and points each link to
# an anchor of another part at ELSEWHERE + anchor. Returns the part's headings, whose text is its
# outline's: Chromium's leaves out the space where a heading's line wraps.
SHOW_PART = r"""([k, before, elsewhere]) => {
  const article = document.querySelector("article");
  window.parts ??= [...article.children];
  article.replaceChildren(window.parts[k]);
  document.getElementById("hidden-parts")?.remove();
  window.parts[k].style.breakBefore = "auto";
  for (const a of article.querySelectorAll('a[href^="#"], a[href^="' + elsewhere + '"]')) {
    const id = decodeURIComponent(a.getAttribute("href").split("#")[1]);
    a.setAttribute("href", document.getElementById(id) ? "#" + id : elsewhere + id);
  }
  document.body.style.minHeight = "0";
  document.documentElement.style.counterReset = `page ${before}`;
  return [...article.querySelectorAll("h1, h2, h3, h4, h5, h6")].map(
    h => h.textContent.replace("\u00b6", "").replace(/\s+/g, " ").trim());
}"""


def moved(fragment, source_url, book, site_url):
    """`fragment`, cut from the page at `source_url`, its ids and links set for the book: a link
    to a chapter in `book` (its URLs) goes to its anchor in the book, any other relative link to
    `site_url` (left as text, `data-site`, where the site has none)."""
    def rewrite(m):
        path, _, anchor = m[2].partition("#")
        absolute = posixpath.normpath(posixpath.join(posixpath.dirname("/" + source_url), path))
        url = absolute.lstrip("/") + ("/" if path.endswith("/") else "")
        if m[1] == "src":
            return f'src="{url}"'
        if url in book:
            return f'href="#{book[url]}{"--" + anchor if anchor else ""}"'
        target = f'{url if url != "." else ""}{"#" + anchor if anchor else ""}'
        return f'href="{site_url}{target}"' if site_url else f'data-site="{target}"'

    name = book[source_url]
    fragment = re.sub(r'\b(id|for)="([^"]+)"', rf'\1="{name}--\2"', fragment)
    fragment = re.sub(r'\bhref="#([^"]+)"', rf'href="#{name}--\1"', fragment)
    return URL.sub(rewrite, fragment)


def chapters(nav):
    """The chapters' Markdown files in the order of the nav, its sections' too: every page but the
    home page and the notebooks."""
    return [page for page in pages_of(nav) if page != "index.md" and not page.startswith("notebooks")]


def text(fragment):
    """A heading's HTML, without its permalink, as plain text."""
    return html.unescape(re.sub(r"<[^>]+>", "", fragment.replace("&para;", ""))).strip()


def contents(entries):
    """The table of contents: (anchor, title, level) entries, each with its page number once known."""
    lines = "".join(f'<li class="print-toc__h{level}"><a href="#{anchor}"><span>{html.escape(title)}</span>'
                    f'<span class="print-toc__page">000</span></a></li>' for anchor, title, level in entries)
    return f'<nav class="print-toc"><p class="print-toc__title">Contents</p><ol>{lines}</ol></nav>'


def on_post_build(config):
    if not os.environ.get("PRINT"):
        return
    site_url = config.site_url
    home = File("index.md", config.docs_dir, config.site_dir, config.use_directory_urls)
    with open(home.abs_dest_path, encoding="utf-8") as f:
        frame = kinds.printed(f.read())
    files = [File(src, config.docs_dir, config.site_dir, config.use_directory_urls) for src in chapters(config.nav)]
    book = {file.url: file.src_uri[:-3] for file in files}
    book.update({url.rstrip("/") or ".": name for url, name in list(book.items())})
    parts, entries = [], []
    for file in files:
        with open(file.abs_dest_path, encoding="utf-8") as f:
            article = ARTICLE.search(f.read())[2]
        article = moved(article, file.url, book, site_url).replace(' loading="lazy"', "")
        article = re.sub(r'<details class="(?!snippet-graph__text)([^"]*)">', r'<details class="\1" open>', article)
        for level, anchor, title in HEADING.findall(article):
            entries.append((file.src_uri[:-3] if level == "1" else anchor, text(title), int(level)))
        parts.append(f'<section class="print-chapter" id="{file.src_uri[:-3]}">{article}</section>')
    torch = importlib.metadata.version("torch").partition("+")[0]
    title = (f'<section class="print-title-page"><h1>{config.site_name}</h1><p>{config.site_description}</p>'
             f'<p>A book printed from the site{f" at <a href={site_url!r}>{site_url}</a>" if site_url else ""}, where'
             f' every page of it is, with its notebooks and examples to download. Its code was run with PyTorch'
             f' {torch}.</p>'
             '</section>')
    whole = title + contents(entries) + "".join(parts)
    book_page = ARTICLE.sub(lambda m: m[1] + whole + m[3], frame, count=1)
    book_page = re.sub(r"<title>.*?</title>", f"<title>{config.site_name}: the whole book</title>", book_page, count=1)
    # every kind's styles: the book shows every kind (the home page, its frame, loads its own kinds')
    styles = kinds.tags(name for name in kinds.assets() if name.endswith(".css") and f"{kinds.URL}/{name}" not in frame)
    book_page = book_page.replace("</head>", PAGE_STYLE + styles + "</head>", 1)
    with open(os.path.join(config.site_dir, "print.html"), "w", encoding="utf-8") as f:
        f.write(book_page)


def print_pdf(page, pdf):
    """Print `page` (a file) to `pdf` with the setup's Chromium, a part at a time, on A4 pages
    numbered across the book, with an outline and links within the book."""
    import io
    from pathlib import Path

    from playwright.sync_api import sync_playwright
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import ArrayObject, Fit, FloatObject, NameObject, NullObject

    from snippet_engine.system_tools import CHROMIUM_FLAGS, TOOLS, chromium

    if chromium() is None:
        sys.exit(TOOLS["chromium"][1])

    def print_part(k, before):
        headings[k] = tab.evaluate(SHOW_PART, [k, before, ELSEWHERE])
        return PdfReader(io.BytesIO(tab.pdf(format="A4", print_background=True, outline=True, tagged=True)))

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=CHROMIUM_FLAGS)
        tab = browser.new_page()
        tab.add_init_script(HIDE_PARTS)
        tab.goto(Path(page).resolve().as_uri(), wait_until="load")
        tab.evaluate("Promise.all([...document.fonts].map(f => f.load()))")
        tab.wait_for_function("[...document.images].every(i => i.complete) && document.fonts.status === 'loaded'")
        tab.emulate_media(media="print")
        parts = tab.locator("article > *").count()
        printed, headings, before = [], {}, 0
        for k in range(parts):
            printed.append(print_part(k, before))
            before += len(printed[-1].pages)
        # Where each anchor is: (page of the book, height on it); a chapter's is its first page.
        starts = [sum(len(r.pages) for r in printed[:k]) for k in range(parts)]
        anchors = {}
        for k, reader in enumerate(printed):
            for name, dest in reader.named_destinations.items():
                anchors[name.lstrip("/")] = (starts[k] + reader.get_destination_page_number(dest), dest.top)
            chapter = tab.evaluate("k => window.parts[k].id", k)
            if chapter:
                anchors[chapter] = (starts[k], None)
        tab.evaluate("""anchors => { for (const a of window.parts[1].querySelectorAll("a"))
            a.lastChild.textContent = anchors[decodeURIComponent(a.href.split("#")[1])] ?? ""; }""",
                     {name: where[0] + 1 for name, where in anchors.items()})
        toc = print_part(1, starts[1])
        assert len(toc.pages) == len(printed[1].pages), "the contents took more pages with their page numbers"
        printed[1] = toc
        browser.close()

    book = PdfWriter()
    for reader in printed:
        for page in reader.pages:
            book.add_page(page)

    def destination(name):
        chapter = name.partition("--")[0]
        number, top = anchors.get(name) or anchors[chapter]
        return ArrayObject([book.pages[number].indirect_reference, NameObject("/XYZ"), NullObject(),
                            NullObject() if top is None else FloatObject(top), NullObject()])

    for page in book.pages:
        for link in page.get("/Annots") or []:
            link = link.get_object()
            uri = str(link.get("/A", {}).get("/URI", ""))
            if "/Dest" in link or uri.startswith(ELSEWHERE):
                name = str(link.get("/Dest", "")).lstrip("/") or unquote(uri[len(ELSEWHERE):])
                link.pop("/A", None)
                link[NameObject("/Dest")] = destination(name)

    def count(items):
        return sum(count(item) if isinstance(item, list) else 1 for item in items)

    def outline(items, parent, reader, k, titles):
        last = parent
        for item in items:
            if isinstance(item, list):
                outline(item, last, reader, k, titles)
            else:
                page_number = starts[k] + reader.get_destination_page_number(item)
                last = book.add_outline_item(title=next(titles) if titles else item.title, page_number=page_number,
                                             parent=parent, fit=Fit.xyz(top=item.top))
    for k, reader in enumerate(printed):
        same = count(reader.outline) == len(headings[k])
        outline(reader.outline, None, reader, k, iter(headings[k]) if same else None)
        if k == 0:
            book.add_outline_item(title="Contents", page_number=starts[1])
    book._root_object[NameObject("/PageMode")] = NameObject("/UseOutlines")
    Path(pdf).parent.mkdir(parents=True, exist_ok=True)
    book.write(pdf)


if __name__ == "__main__":
    print_pdf(*sys.argv[1:3])
