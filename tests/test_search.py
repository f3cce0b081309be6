"""Material's search on the built site: queries entered into the real search box in Chromium.

Readers search for API names in the forms they write them (`no_grad`, `torch.no_grad`,
`optimizer.zero_grad()`, `detect_anomaly` for `torch.autograd.set_detect_anomaly`); the
`separator` of the search plugin in mkdocs.yml decides which of these find a page. The chapter
that introduces a term is the first hit for it (hooks/search_terms.py), the index pages never
come before a chapter, and an excerpt shows a formula as text (the katex plugin, src/snippet_engine/formula_text.py).
"""

import re

import pytest

BASICS = "Autograd basics: backward() and .grad"
VJP = "Vector-Jacobian products"
RECORDING = "Controlling what is recorded"
FUNCTIONS = "Custom autograd Functions"
FUNCTION_API = "The PyTorch 2 Function API"
HIGHER_ORDER = "Double backward and forward mode"
DEBUGGING = "Debugging gradients"
MEMORY = "Saving memory"
OPERATORS = "Custom operators for torch.compile"
INDEX_PAGES = {"Autograd Inside Out", "Home", "Notebooks"}

# Each query the page sends to Material's search worker gets one reply. Counting both sides
# tells when the list shows the results of the query entered, not of an earlier one.
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
ANSWERED = "sent => window.searchTraffic.sent > sent && window.searchTraffic.sent === window.searchTraffic.received"


@pytest.fixture(scope="module")
def search(browser, urls):
    """search(query) enters the query into the search box of the home page and returns the
    results as Material shows them: one {"title", "text", "html"} per page, best first."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(COUNT_WORKER_MESSAGES)
    page = context.new_page()
    page.goto(urls["home"], wait_until="load")
    box = page.locator("input.md-search__input")
    box.click()
    page.wait_for_function(ANSWERED, arg=0)  # the index is loaded
    entered = ""

    def run(query):
        nonlocal entered
        sent = page.evaluate("window.searchTraffic.sent")
        box.fill(query)  # entered whole, as pasted: one search, not one per letter typed
        box.press("End")  # Material searches on the key's keyup
        if query != entered:  # the same query again is not searched again
            page.wait_for_function(ANSWERED, arg=sent)
        entered = query
        found = []
        for item in page.locator(".md-search-result__item").all():
            found.append({"title": item.locator("h1").inner_text(), "text": item.text_content(),
                          "href": item.locator("a").first.get_attribute("href"),
                          "html": item.inner_html(),
                          "sections": [a.text_content() for a in item.locator("article").all()]})
        return found

    run.page = page
    yield run
    context.close()


# The chapter each term is introduced in (the home page's table of chapters says the same), in
# the forms readers type the names.
FIRST_HITS = [
    ("grad_fn", BASICS),
    ("requires_grad", BASICS),
    ("leaf", BASICS),
    ("retain_graph", BASICS),
    ("zero_grad", BASICS),
    ("optimizer.zero_grad()", BASICS),
    ("no_grad", RECORDING),
    ("torch.no_grad", RECORDING),
    ("torch.no_grad()", RECORDING),
    ("inference_mode", RECORDING),
    ("torch.inference_mode", RECORDING),
    ("set_grad_enabled", RECORDING),
    ("create_graph", RECORDING),
    ("jacobian", VJP),
    ("vjp", VJP),
    ("gradcheck", FUNCTIONS),
    ("vmap", FUNCTION_API),
    ("torch.vmap", FUNCTION_API),
    ("jvp", HIGHER_ORDER),
    ("detect_anomaly", DEBUGGING),
    ("set_detect_anomaly", DEBUGGING),
    ("register_hook", DEBUGGING),
    ("saved_tensors_hooks", MEMORY),
    ("checkpoint", MEMORY),
    ("custom_op", OPERATORS),
]


@pytest.mark.parametrize(("query", "chapter"), FIRST_HITS)
def test_the_chapter_that_introduces_a_term_is_the_first_hit(search, query, chapter):
    hits = search(query)
    assert [h["title"] for h in hits[:1]] == [chapter], f"{query!r}: {[h['title'] for h in hits[:3]]}"
    name = re.sub(r"^(torch|optimizer)\.|\(\)$|^set_", "", query)
    assert name.lower() in hits[0]["text"].lower(), f"{query!r}: the first hit does not show {name!r}"


@pytest.mark.parametrize("query", sorted({query for query, _ in FIRST_HITS} | {"NaN", "4.5", "Jacobian"}))
def test_index_pages_come_after_every_chapter_and_notebook_pages_not_at_all(search, query):
    """Home and Notebooks list the chapters; a notebook page repeats its chapter."""
    hits = search(query)
    titles = [h["title"] for h in hits]
    chapters = [i for i, title in enumerate(titles) if title not in INDEX_PAGES]
    index_pages = [i for i, title in enumerate(titles) if title in INDEX_PAGES]
    assert not chapters or not index_pages or min(index_pages) > max(chapters), f"{query!r}: {titles}"
    assert not [h["href"] for h in hits if "notebooks/" in h["href"] and h["title"] != "Notebooks"], query


@pytest.mark.parametrize(("query", "heading", "as_text"), [
    ("4.5", "Why every entry is 4.5", ["∂ out/∂x_i", "3/2 (x_i + 2)", "1/4 ·6 y_i"]),
    ("scalar case", "The scalar case: v = 1", ["3(x + 2)^2", "2 ×2"]),
])
def test_an_excerpt_shows_formulas_as_text(search, query, heading, as_text):
    """A formula in an excerpt reads as text (pylatexenc's Unicode), once, and not as TeX source
    or as KaTeX's output (HTML glyphs, MathML and its TeX annotation)."""
    hits = search(query)
    (excerpt,) = [" ".join(s.split()) for h in hits for s in h["sections"] if " ".join(s.split()).startswith(heading)]
    for text in as_text:
        assert excerpt.count(text) >= 1, f"{text!r} not in the excerpt: {excerpt[:600]}"
    assert not re.search(r"\\[a-zA-Z]+|\\[()\[\]]", excerpt), f"TeX in the excerpt: {excerpt[:600]}"
    assert not any(re.search(r'class="katex|<math|<annotation', h["html"]) for h in hits)


def test_excerpts_show_only_the_page_text(search):
    hits = search("gradcheck")
    assert hits and not any("snippetengine" in h["text"] for h in hits)
