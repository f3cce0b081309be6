"""Material's search on the built site: queries typed into the real search box in Chromium.

Readers search for API names in the forms they write them (`no_grad`, `torch.no_grad`,
`optimizer.zero_grad()`, `detect_anomaly` for `torch.autograd.set_detect_anomaly`); the
`separator` of the search plugin in mkdocs.yml decides which of these find a page. A chapter
that introduces a term should be the first hit for it, and an excerpt should show each
formula once, as the TeX the chapter was written in.
"""

import re

import pytest
from conftest import ROOT
from test_browser import browser, site_url, urls  # noqa: F401  (fixtures)

BASICS = "Autograd basics: backward() and .grad"
RECORDING = "Controlling what is recorded"
DEBUGGING = "Debugging gradients"

# Each query the page sends to Material's search worker gets one reply. Counting both sides
# tells when the list shows the results of the last character typed, not of an earlier one.
COUNT_WORKER_MESSAGES = """
(() => {
  const Native = window.Worker;
  window.searchTraffic = {sent: 0, received: 0};
  window.Worker = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", () => window.searchTraffic.received++);
    }
    postMessage(...args) {
      window.searchTraffic.sent++;
      return super.postMessage(...args);
    }
  };
})();
"""
ANSWERED = "() => window.searchTraffic.received > 0 && window.searchTraffic.sent === window.searchTraffic.received"


@pytest.fixture(scope="module")
def search(browser, urls):  # noqa: F811
    """search(query) types the query into the search box of the home page and returns the
    results as Material shows them: one {"title", "text", "html"} per page, best first."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(COUNT_WORKER_MESSAGES)
    page = context.new_page()
    page.goto(urls["home"], wait_until="load")
    box = page.locator("input.md-search__input")
    box.click()
    page.wait_for_function(ANSWERED)  # the index is loaded

    def run(query):
        box.press("Control+A")
        box.press("Backspace")
        page.keyboard.type(query)
        page.wait_for_function(ANSWERED)
        found = []
        for item in page.locator(".md-search-result__item").all():
            found.append({"title": item.locator("h1").inner_text(), "text": item.text_content(),
                          "html": item.inner_html(),
                          "sections": [a.text_content() for a in item.locator("article").all()]})
        return found

    run.page = page
    yield run
    context.close()


# The chapter each term is introduced in (the home page's table of chapters says the same).
FIRST_HITS = [
    ("gradcheck", "Custom autograd Functions"),
    ("retain_graph", BASICS),
    ("inference_mode", RECORDING),
    ("torch.inference_mode", RECORDING),
    ("checkpoint", "Saving memory"),
    ("vmap", "The PyTorch 2 Function API"),
    ("torch.vmap", "The PyTorch 2 Function API"),
]


@pytest.mark.parametrize(("query", "chapter"), FIRST_HITS)
def test_the_chapter_that_introduces_a_term_is_the_first_hit(search, query, chapter):
    hits = search(query)
    assert [h["title"] for h in hits[:1]] == [chapter], f"{query!r}: {[h['title'] for h in hits[:3]]}"


# API names in the forms readers type them, and the chapter that teaches each one. These
# chapters share the first place with another that uses the name as often (Autograd basics
# introduces torch.no_grad() before Controlling what is recorded covers it; its step-through
# runs under set_detect_anomaly), so the check is: one of the first two hits.
API_NAMES = [
    ("no_grad", RECORDING),
    ("no_grad", BASICS),
    ("torch.no_grad", RECORDING),
    ("torch.no_grad()", BASICS),
    ("zero_grad", BASICS),
    ("optimizer.zero_grad()", BASICS),
    ("detect_anomaly", DEBUGGING),
    ("set_detect_anomaly", DEBUGGING),
    ("set_grad_enabled", RECORDING),
    ("requires_grad", RECORDING),
]


@pytest.mark.parametrize(("query", "chapter"), API_NAMES)
def test_an_api_name_is_found_however_it_is_typed(search, query, chapter):
    hits = search(query)
    name = re.sub(r"^(torch|optimizer)\.|\(\)$|^set_", "", query)
    assert hits, f"{query!r}: no matching documents"
    assert name in hits[0]["text"], f"{query!r}: the first hit does not show {name!r}"
    assert chapter in [h["title"] for h in hits[:2]], f"{query!r}: {[h['title'] for h in hits[:3]]}"


def formulas(chapter, heading):
    """The TeX of each formula in one section of a chapter's Markdown, whitespace collapsed."""
    text = (ROOT / "docs" / f"{chapter}.md").read_text()
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return [" ".join(m[0].split()) for m in re.finditer(r"\\\((.*?)\\\)|\\\[(.*?)\\\]", section, re.S)]


@pytest.mark.parametrize(("query", "chapter", "heading"), [
    ("4.5", "autograd_basics", "Why every entry is 4.5"),
    ("scalar case", "vector_jacobian_products", "The scalar case: v = 1"),
])
def test_an_excerpt_shows_each_formula_once_as_tex(search, query, chapter, heading):
    """An excerpt holds the paragraphs of a section that match the query; a formula in them
    shows as its TeX, as often as the chapter writes it, and not also as KaTeX's output."""
    hits = search(query)
    (excerpt,) = [" ".join(s.split()) for h in hits for s in h["sections"] if " ".join(s.split()).startswith(heading)]
    tex = formulas(chapter, heading)
    shown = {formula: excerpt.count(formula) for formula in set(tex)}
    assert sum(shown.values()) > 0, f"no formula of {heading!r} as TeX in its excerpt: {excerpt[:600]}"
    for formula, count in shown.items():
        assert count <= tex.count(formula), f"{formula!r} {count} times in the excerpt: {excerpt[:600]}"
    # KaTeX's output (HTML glyphs, MathML and its TeX annotation) would show a formula again
    assert not any(re.search(r'class="katex|<math|<annotation', h["html"]) for h in hits)


def test_excerpts_show_only_the_page_text(search):
    hits = search("gradcheck")
    assert hits and not any("snippetengine" in h["text"] for h in hits)
