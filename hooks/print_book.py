"""The whole book on one page, in reading order, for paper and PDF (`make pdf`).

With PRINT=1 set, the build also writes `print.html`: the home page's frame, with every chapter
of the nav in order (their built articles, links rewritten for the site's root), printed with
Material's print styles and docs/assets/site.css's `@media print` rules. Each kind of output
prints its own way (kinds/: a step-through as its graph and its table of steps, the viewer's
script left out, so the table stays open).
Not a plugin such as mkdocs-print-site-plugin: the chapters are copied as the snippet engine
and the hooks finished them (outputs, figures, typeset math), and the build stays as it is when
PRINT is not set.

Run as a script, it prints that page to PDF with the setup's Chromium:
    python hooks/print_book.py SITE/print.html OUT.pdf
a part at a time (the title page, then each chapter), numbered across the book: Chromium's
time to print one document grows with the square of its pages (the whole book at once took
7 minutes, its parts one after another about 1).
"""

import os
import posixpath
import re
import sys

from mkdocs.structure.files import File

from snippet_engine import kinds

ARTICLE = re.compile(r'(<article class="md-content__inner md-typeset">)(.*?)(</article>)', re.S)
URL = re.compile(r'\b(href|src)="(?![a-z]+:|#|/)([^"]*)"')
# A4 pages, numbered at the foot, whether print.html is printed by print_pdf or from a browser.
PAGE_STYLE = "<style>@page { margin: 15mm 14mm; @bottom-center { content: counter(page); font-size: 8px; } }</style>"
# Shows one part of the book, [part, pages before it]: the title page (what precedes the first
# chapter) is part 0, chapter k part k; the page count goes on from the parts before. A part
# begins on its first page (no break before it) and a part shorter than a page is one page.
SHOW_PART = """([k, before]) => {
  let part = 0;
  for (const child of document.querySelector("article").children) {
    part += child.matches("section.print-chapter");
    child.style.display = part === k ? "" : "none";
    child.style.breakBefore = "auto";
  }
  document.body.style.minHeight = "0";
  document.documentElement.style.counterReset = `page ${before}`;
}"""


def moved(fragment, source_url):
    """`fragment`, cut from the page at `source_url`, with its relative URLs valid at the site's root."""
    def rewrite(m):
        path, _, anchor = m[2].partition("#")
        absolute = posixpath.normpath(posixpath.join(posixpath.dirname("/" + source_url), path))
        return f'{m[1]}="{absolute.lstrip("/") or "."}{"#" + anchor if anchor else ""}"'

    return URL.sub(rewrite, fragment)


def chapters(nav):
    """The chapters' Markdown files in the order of the nav: its top-level pages but the home page."""
    for entry in nav:
        page = next(iter(entry.values())) if isinstance(entry, dict) else entry
        if isinstance(page, str) and page != "index.md":
            yield page


def on_post_build(config):
    if not os.environ.get("PRINT"):
        return
    home = File("index.md", config.docs_dir, config.site_dir, config.use_directory_urls)
    with open(home.abs_dest_path, encoding="utf-8") as f:
        frame = kinds.printed(f.read())
    parts = [f'<h1 class="print-title">{config.site_name}</h1><p>{config.site_description}</p>']
    for src in chapters(config.nav):
        chapter = File(src, config.docs_dir, config.site_dir, config.use_directory_urls)
        with open(chapter.abs_dest_path, encoding="utf-8") as f:
            article = ARTICLE.search(f.read())[2]
        article = moved(article, chapter.url).replace(' loading="lazy"', "")
        parts.append(f'<section class="print-chapter" id="{src[:-3]}">{article}</section>')
    book = ARTICLE.sub(lambda m: m[1] + "".join(parts) + m[3], frame, count=1)
    book = re.sub(r"<title>.*?</title>", f"<title>{config.site_name}: the whole book</title>", book, count=1)
    book = book.replace("</head>", PAGE_STYLE + "</head>", 1)
    with open(os.path.join(config.site_dir, "print.html"), "w", encoding="utf-8") as f:
        f.write(book)


def print_pdf(page, pdf):
    """Print `page` (a file) to `pdf` with the setup's Chromium, a part at a time, on A4 pages
    numbered across the book."""
    from pathlib import Path

    import pypdfium2
    from playwright.sync_api import sync_playwright

    from snippet_engine.system_tools import CHROMIUM_FLAGS, TOOLS, chromium

    if chromium() is None:
        sys.exit(TOOLS["chromium"][1])
    book = pypdfium2.PdfDocument.new()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=CHROMIUM_FLAGS)
        tab = browser.new_page()
        tab.goto(Path(page).resolve().as_uri(), wait_until="load")
        tab.wait_for_function("[...document.images].every(i => i.complete) && document.fonts.status === 'loaded'")
        tab.emulate_media(media="print")
        for part in range(1 + tab.locator("article > section.print-chapter").count()):
            tab.evaluate(SHOW_PART, [part, len(book)])
            book.import_pages(pypdfium2.PdfDocument(tab.pdf(format="A4", print_background=True)))
        browser.close()
    Path(pdf).parent.mkdir(parents=True, exist_ok=True)
    book.save(pdf)


if __name__ == "__main__":
    print_pdf(*sys.argv[1:3])
