"""The real site builds strictly, and its pages carry what the build produced."""

import platform
import re
import subprocess
import sys
import zipfile
from importlib import metadata

import yaml
from conftest import CHAPTERS, ROOT, SNIPPETS, pages, soup

from snippet_engine.pages import MARK
from snippet_engine.shapes import Settings
from snippet_engine.nav import pages_of


def test_every_page_has_typeset_math_and_no_leftovers(built_site):
    for page in pages(built_site):
        html = page.read_text()
        assert MARK not in html, f"{page}: a marker of the snippets plugin was not replaced"
        assert "--8<--" not in html, f"{page}: an include was not expanded"
        assert not re.search(r'class="arithmatex">\\[(\[]', html), f"{page}: math left untypeset"


def test_no_page_loads_anything_from_another_host(built_site):
    for page in pages(built_site):
        parsed = soup(page)
        for tag in parsed.find_all(["script", "link", "img"]):
            url = tag.get("src") or tag.get("href") or ""
            if tag.name == "link" and "stylesheet" not in tag.get("rel", []):
                continue
            assert not re.match(r"(https?:)?//", url), f"{page}: {tag}"


def test_graphs_and_figures_have_text_alternatives(built_site):
    seen = 0
    for page in pages(built_site):
        parsed = soup(page)
        for graph in parsed.select(".snippet-graph"):
            assert graph.img["alt"].startswith("Computation graph with")
            assert graph.select("details.snippet-graph__text li"), "and the graph as text"
        for img in parsed.select(".snippet-figure img"):
            assert img["alt"]
        seen += len(parsed.select(".snippet-graph img, .snippet-figure img"))
    assert seen >= 10, "the site shows graphs and figures"


def test_reading_straight_through_visits_each_chapter_once(built_site):
    """From the home page, "Next" in the footer walks the chapters and the error pages in nav
    order, then stops (before the notebooks)."""
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]
    chapters = [page for page in pages_of(nav) if not page.startswith("notebooks")]
    page, walked = built_site / "index.html", ["index.md"]
    while link := soup(page).select_one("a.md-footer__link--next"):
        page = (page.parent / link["href"]).resolve() / "index.html"
        walked.append(page.parent.relative_to(built_site).as_posix() + ".md")
    assert walked == chapters


def test_the_notebooks_footer_stays_among_the_notebooks(built_site):
    for page in (built_site / "notebooks").rglob("index.html"):
        parsed = soup(page)
        for link in parsed.select("a.md-footer__link"):
            target = (page.parent / link["href"]).resolve()
            assert target.is_relative_to(built_site / "notebooks"), f"{page}: {link['href']}"



def test_warnings_do_not_name_the_place_in_pytorchs_own_build(built_site):
    """PyTorch's C++ warnings end with "(Triggered internally at /__w/pytorch/...)": the pages leave it out."""
    warned = 0
    for page in pages(built_site):
        parsed = soup(page)
        for box in parsed.select(".snippet-warning"):
            warned += 1
            assert "Triggered internally" not in box.get_text(), page
    assert warned
    assert "Triggered internally" not in (built_site / "notebooks" / "autograd_basics.ipynb").read_text()


def test_a_page_shows_each_warning_in_full_once(built_site):
    """A warning the page showed already is named by its first sentence; the non-leaf `.grad`
    warning of "Autograd basics" is shown in full once and named three times after."""
    for page in pages(built_site):
        parsed = soup(page)
        shown = [box.select("p")[1].get_text() for box in parsed.select(".snippet-warning")]
        full = [text for text in shown if not text.startswith("The same warning as above: ")]
        assert len(full) == len(set(full)), page
        for text in shown:
            if text not in full:
                assert any(f.startswith(text.removeprefix("The same warning as above: ")) for f in full), page
    parsed = soup(built_site / "autograd_basics" / "index.html")
    texts = [box.select("p")[1].get_text() for box in parsed.select(".snippet-warning")]
    non_leaf = [t for t in texts if "not a leaf Tensor" in t]
    assert len(non_leaf) == 4 and non_leaf[0].startswith("The .grad attribute") and all(
        t == "The same warning as above: The .grad attribute of a Tensor that is not a leaf Tensor is being accessed."
        for t in non_leaf[1:])


def test_the_search_index_holds_no_marker_of_the_snippets_plugin(built_site):
    index = (built_site / "search" / "search_index.json").read_text()
    assert "gradcheck" in index and MARK not in index


def test_the_examples_bundle_runs_in_an_empty_folder(built_site, tmp_path):
    with zipfile.ZipFile(built_site / "downloads" / "examples.zip") as bundle:
        bundle.extractall(tmp_path)
        names = set(bundle.namelist())
    examples = tmp_path / "examples"
    snippets = {f"examples/{p.relative_to(SNIPPETS).as_posix()}" for p in SNIPPETS.rglob("*.py")}
    assert names == snippets | {"examples/requirements.txt", "examples/README.md"}
    for name in snippets:  # each is the download of its block
        relative = name.removeprefix("examples/")
        assert (examples / relative).read_text() == (built_site / "snippets" / relative).read_text()
    pins = (examples / "requirements.txt").read_text().split()
    assert pins == [f"{name}=={metadata.version(name).split('+')[0]}" for name in Settings.packages]
    assert "cd autograd_basics" in (examples / "README.md").read_text()
    done = subprocess.run([sys.executable, "first_gradient.py"], cwd=examples / "autograd_basics",
                          capture_output=True, text=True, timeout=300)
    assert done.stdout == "tensor(27., grad_fn=<MeanBackward0>)\ntensor([[4.5000, 4.5000],\n        [4.5000, 4.5000]])\n"
    assert (examples / "autograd_basics" / "first_gradient_graph.svg").is_file()


def test_the_home_page_says_what_produced_the_outputs_and_links_the_examples(built_site):
    home = " ".join(soup(built_site / "index.html").get_text().split())
    versions = ", ".join(f"{name} {metadata.version(name)}" for name in Settings.packages[:-1])
    assert (f"Every output on this site was produced by Python {platform.python_version()}, {versions} and "
            f"{Settings.packages[-1]} {metadata.version(Settings.packages[-1])}, on {platform.system()} ({platform.machine()}),") in home
    for page in ["index.html", *(f"{chapter}/index.html" for chapter in CHAPTERS)]:
        parsed = soup(built_site / page)
        (link,) = [a for a in parsed.find_all("a") if a.get_text() == "Download all examples"]
        assert (built_site / page).parent.joinpath(link["href"]).resolve() == built_site / "downloads" / "examples.zip"

