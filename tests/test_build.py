"""The real site builds strictly, and its pages carry what the build produced."""

import re

import pytest
from bs4 import BeautifulSoup
from conftest import ROOT, mkdocs


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    build = mkdocs(ROOT, "build", "--strict", "--site-dir", str(out))
    assert build.returncode == 0, build.stderr
    assert not re.search(r"^(WARNING|ERROR)", build.stderr, re.M), build.stderr
    return out


def pages(site):
    return sorted(p for p in site.rglob("index.html") if "404" not in str(p))


def test_every_page_has_typeset_math_and_no_leftovers(site):
    for page in pages(site):
        html = page.read_text()
        assert "snippetoutput" not in html, f"{page}: an output marker was not replaced"
        assert "--8<--" not in html, f"{page}: an include was not expanded"
        assert not re.search(r'class="arithmatex">\\[(\[]', html), f"{page}: math left untypeset"


def test_no_page_loads_anything_from_another_host(site):
    for page in pages(site):
        soup = BeautifulSoup(page.read_text(), "html.parser")
        for tag in soup.find_all(["script", "link", "img"]):
            url = tag.get("src") or tag.get("href") or ""
            if tag.name == "link" and "stylesheet" not in tag.get("rel", []):
                continue
            assert not re.match(r"(https?:)?//", url), f"{page}: {tag}"


def test_graphs_and_figures_have_text_alternatives(site):
    for page in pages(site):
        soup = BeautifulSoup(page.read_text(), "html.parser")
        for graph in soup.select(".snippet-graph__svg"):
            assert graph["role"] == "img" and graph["aria-label"].startswith("Computation graph with")
        for img in soup.select(".snippet-figure img"):
            assert img["alt"]
