"""The real site builds strictly, and its pages carry what the build produced."""

import re

import yaml
from bs4 import BeautifulSoup
from conftest import ROOT, pages

from snippet_engine.plugin import MARK


def test_every_page_has_typeset_math_and_no_leftovers(built_site):
    for page in pages(built_site):
        html = page.read_text()
        assert MARK not in html, f"{page}: a marker of the snippets plugin was not replaced"
        assert "--8<--" not in html, f"{page}: an include was not expanded"
        assert not re.search(r'class="arithmatex">\\[(\[]', html), f"{page}: math left untypeset"


def test_no_page_loads_anything_from_another_host(built_site):
    for page in pages(built_site):
        soup = BeautifulSoup(page.read_text(), "html.parser")
        for tag in soup.find_all(["script", "link", "img"]):
            url = tag.get("src") or tag.get("href") or ""
            if tag.name == "link" and "stylesheet" not in tag.get("rel", []):
                continue
            assert not re.match(r"(https?:)?//", url), f"{page}: {tag}"


def test_graphs_and_figures_have_text_alternatives(built_site):
    seen = 0
    for page in pages(built_site):
        soup = BeautifulSoup(page.read_text(), "html.parser")
        for graph in soup.select(".snippet-graph__svg"):
            assert graph["role"] == "img" and graph["aria-label"].startswith("Computation graph with")
        for img in soup.select(".snippet-figure img"):
            assert img["alt"]
        seen += len(soup.select(".snippet-graph__svg, .snippet-figure img"))
    assert seen >= 10, "the site shows graphs and figures"


def test_reading_straight_through_visits_each_chapter_once(built_site):
    """From the home page, "Next" in the footer walks the chapters in nav order, then stops."""
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]
    chapters = [next(iter(item.values())) for item in nav if isinstance(next(iter(item.values())), str)]
    page, walked = built_site / "index.html", ["index.md"]
    while link := BeautifulSoup(page.read_text(), "html.parser").select_one("a.md-footer__link--next"):
        page = (page.parent / link["href"]).resolve() / "index.html"
        walked.append(page.parent.relative_to(built_site).as_posix() + ".md")
    assert walked == chapters


def test_the_notebooks_footer_stays_among_the_notebooks(built_site):
    for page in (built_site / "notebooks").rglob("index.html"):
        soup = BeautifulSoup(page.read_text(), "html.parser")
        for link in soup.select("a.md-footer__link"):
            target = (page.parent / link["href"]).resolve()
            assert target.is_relative_to(built_site / "notebooks"), f"{page}: {link['href']}"



def test_warnings_do_not_name_the_place_in_pytorchs_own_build(built_site):
    """PyTorch's C++ warnings end with "(Triggered internally at /__w/pytorch/...)": the pages leave it out."""
    warned = 0
    for page in pages(built_site):
        soup = BeautifulSoup(page.read_text(), "html.parser")
        for box in soup.select(".snippet-warning"):
            warned += 1
            assert "Triggered internally" not in box.get_text(), page
    assert warned
    assert "Triggered internally" not in (built_site / "notebooks" / "autograd_basics.ipynb").read_text()


def test_the_search_index_holds_no_marker_of_the_snippets_plugin(built_site):
    index = (built_site / "search" / "search_index.json").read_text()
    assert "gradcheck" in index and MARK not in index
