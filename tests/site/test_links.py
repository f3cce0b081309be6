"""Internal links and anchors resolve; headings and text alternatives are in order."""

import functools
import html
import re
from urllib.parse import unquote, urldefrag, urlparse

from conftest import pages, published, soup


def target(page, href, site):
    """The file a relative link on `page` points to."""
    path = (page.parent / unquote(href)).resolve()
    if path.is_dir():
        path = path / "index.html"
    assert path.is_relative_to(site.resolve()), f"{page}: {href} leaves the site"
    return path


@functools.cache
def ids(path):
    return set(re.findall(r'\sid="([^"]*)"', path.read_text(encoding="utf-8")))


def test_no_broken_internal_links_or_anchors(built_site):
    """Every link within the site goes to a file of it, and to an id that file holds; but the
    copy to read from disk, the PDF and the source, which `make build` adds to the site once it is built
    (`make offline`, `make pdf`, `make source`: test_offline.py and test_print.py make them)."""
    later = {(built_site / path).resolve() for path in published().values()}
    checked = 0
    for page in pages(built_site):
        for link in re.findall(r'<a\s[^>]*?href="([^"]*)"', page.read_text(encoding="utf-8")):
            link = html.unescape(link)
            href, anchor = urldefrag(link)
            if urlparse(href).scheme or href.startswith("//"):
                continue
            path = target(page, href, built_site) if href else page
            assert path.exists() or path in later, f"{page.relative_to(built_site)}: broken link {link}"
            if anchor and path.suffix == ".html":
                assert unquote(anchor) in ids(path), f"{page.relative_to(built_site)}: no #{anchor} in {href or 'itself'}"
            checked += 1
    assert checked > 100


def test_headings_never_skip_a_level(built_site):
    for page in pages(built_site):
        content = soup(page).select_one(".md-content")
        levels = [int(h.name[1]) for h in content.find_all(["h1", "h2", "h3", "h4", "h5", "h6"])]
        assert levels and levels[0] == 1, f"{page}: the page starts with an h1"
        for before, after in zip(levels, levels[1:]):
            assert after <= before + 1, f"{page.relative_to(built_site)}: h{before} is followed by h{after}"


def test_images_have_text_alternatives(built_site):
    for page in pages(built_site):
        for img in soup(page).select(".md-content img"):
            assert img.get("alt", "").strip(), f"{page.relative_to(built_site)}: {img.get('src', '')[:60]} has no alt"


def test_the_search_dialog_has_a_name(built_site):
    for page in pages(built_site):
        dialog = soup(page).select_one(".md-search[role=dialog]")
        assert dialog["aria-label"] == "Search", page
