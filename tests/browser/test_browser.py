"""The built site in a real browser: Chromium driven by Playwright (tests/browsing.py); the
checks that need a page in a state of their own (test_every_page.py makes those that every
page gets in two openings of it).

`make screenshots` keeps full-page screenshots of every page (light, and 390 px
wide in dark mode: test_every_page.py) and of a graph in dark mode (here) in
test-artifacts/screenshots/ for a person to look at.
"""

import itertools
import re
import subprocess
import sys
from urllib.parse import urlparse

import pytest
from browsing import (
    CLIPBOARD,
    PHONE,
    RENDER_EVERY_BLOCK,
    RENDERED,
    STEP_ON_SCREEN,
    TWO_FRAMES,
    copy_with_buttons,
    open_page,
    press,
    shot,
)
from conftest import ROOT, SNIPPETS, STEP_THROUGH, kind, normalised
from playwright.sync_api import expect

from snippet_engine.chapter import parse
from snippet_engine.kinds.steps import STEPS


def test_search_finds_vector_jacobian(browser, urls):
    page = open_page(browser, urls["home"])
    page.click("input.md-search__input")
    page.keyboard.type("vector-Jacobian")
    results = page.locator(".md-search-result__item")
    # Typed a letter at a time, the list first shows the answers to "vec", "vector-J"...: wait
    # for the one to the whole word.
    expect(results.first.locator("h1")).to_have_text("Vector-Jacobian products", timeout=15_000)
    href = results.first.locator("a").first.get_attribute("href")
    assert urlparse(href).path == "/vector_jacobian_products/"


@pytest.mark.parametrize("name", ["custom_functions", "debugging_gradients", "gpu", "errors_distributed"])
def test_copies_run_with_a_real_python_c(browser, urls, tmp_path, name):
    """The last block of a chapter whose copies inline helper modules or read data (or, on the
    error page of DDP, start two processes), with a real `python -c` in an empty folder, which
    it leaves empty."""
    page = open_page(browser, urls[name], permissions=CLIPBOARD)
    [(code, clipboard, shown)] = copy_with_buttons(page, last=True)
    done = subprocess.run([sys.executable, "-c", clipboard], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert normalised(done.stdout).endswith(normalised(shown)), name
    assert not list(tmp_path.iterdir()), name


def test_a_section_block_folds_its_setup(browser, urls):
    page = open_page(browser, urls["custom_functions"])
    fold = page.locator("details.snippet-setup").first
    assert re.fullmatch(r"\d+ lines of setup, run before the code below and copied with it",
                        fold.locator("summary").inner_text())
    assert not fold.locator("pre").is_visible()
    fold.locator("summary").click()
    assert fold.locator("pre").is_visible() and "import torch" in fold.locator("pre").inner_text()
    assert fold.locator("button, code").count() == 0, "the fold is not a code block of its own: no copy button"


# Records what scripts change in code blocks (a `pre` or its `code`) once the page is
# parsed: Material mounts its code blocks after DOMContentLoaded.
WATCH_CODE_BLOCKS = """
window.codeBlockChanges = [];
new MutationObserver(records => {
  if (document.readyState === "loading") return;
  for (const r of records) {
    const where = r.target.matches && r.target.matches("pre, pre > code");  // not a line the viewer marks
    const changed = r.type === "attributes" ? r.oldValue !== r.target.getAttribute(r.attributeName) : r.addedNodes.length;
    if (where && changed)
      window.codeBlockChanges.push(`${r.type} ${r.attributeName || [...r.addedNodes].map(n => n.nodeName)}`);
  }
}).observe(document, {subtree: true, childList: true, attributes: true, attributeOldValue: true,
                      attributeFilter: ["class"]});
"""


@pytest.mark.parametrize("name", ["custom_functions", "gpu", "notebooks/custom_functions"])
def test_code_blocks_come_with_their_copy_buttons_and_scripts_change_none(browser, urls, name):
    """The build writes each code block's copy button and the class Material gives a block of
    line spans, so Material's script finds nothing to change in a block: changing a block and
    then measuring it, block after block, would lay the whole page out once per block."""
    context = browser.new_context(viewport={"width": 412, "height": 900})
    context.add_init_script(WATCH_CODE_BLOCKS)
    page = context.new_page()
    page.goto(urls[name], wait_until="load")
    page.wait_for_timeout(500)
    blocks = page.locator(".md-content :not(.snippet-steps__code) > pre > code")  # a viewer's lines copy nothing
    assert blocks.count() > 10
    assert page.locator(".md-content pre > nav.md-code__nav > button.md-code__button").count() == blocks.count()
    assert page.evaluate("window.codeBlockChanges") == []
    context.close()


# The page scrolled through a screen at a time, as a reader reads it, so that the browser renders
# each block of its article as it comes on screen; then the place and size of each block, and of
# each copy button and title bar in them.
LAYOUT = """async () => {
  const blocks = [...document.querySelector("article").children];
  for (let top = 0; top < document.documentElement.scrollHeight; top += innerHeight) {  // a screen at a time
    scrollTo(0, top);
    await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  }
  const parts = [...blocks, ...document.querySelectorAll("article :is(.md-code__button, .filename, table)")];
  return parts.map(e => { const r = e.getBoundingClientRect();
                          return [e.tagName, ...[r.left, r.top + scrollY, r.width, r.height].map(Math.round)]; });
}"""


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("name, lazy", [("custom_functions", ".md-typeset > div.highlight > pre > code > span"),
                                        ("controlling_recording", ".md-typeset > div.prose-table td"),
                                        ("vector_jacobian_products", ".md-typeset > p .katex")])
def test_blocks_render_when_scrolled_to_and_lay_out_as_if_always_rendered(browser, urls, name, lazy, width):
    """Code, outputs, display formulas, figures and tables off screen are not rendered at load
    (docs/assets/site.css), and rendering them changes no one's place on the page. Material
    moves a table into its scrolling wrapper inside the table's box, which is not rendered yet."""
    page = open_page(browser, urls[name], width=width)
    last = page.locator(lazy).last  # a line of the last code block, a cell of the last table
    assert not last.evaluate(RENDERED), f"{lazy} is not rendered at load"
    boxes = page.locator(".md-typeset > div.prose-table")
    assert page.locator(".md-typeset > div.prose-table > .md-typeset__scrollwrap table").count() == boxes.count()
    laid_out = page.evaluate(LAYOUT)
    last.evaluate("e => e.closest('article > *').scrollIntoView()")  # the block, not its cell: no sideways scroll
    page.evaluate(TWO_FRAMES)
    assert last.evaluate(RENDERED), f"{lazy} is rendered once scrolled to"
    page.add_style_tag(content=RENDER_EVERY_BLOCK)
    rendered = page.evaluate(LAYOUT)
    assert [part[0] for part in rendered] == [part[0] for part in laid_out]
    # Each place rounded to a pixel: a box at a fractional place may round either way.
    moved = [(was, now) for was, now in zip(laid_out, rendered) if any(abs(a - b) > 1 for a, b in zip(was[1:], now[1:]))]
    assert moved == []


def test_a_phone_renders_at_load_the_blocks_within_two_and_a_half_screens(browser, urls):
    """At load the browser renders what lies within two and a half screens of the top (README,
    Reports): on a phone, of the two tables of VJP rules of "Autograd from scratch", the first
    is rendered at load and the second, next to the code of its operations, is not."""
    page = open_page(browser, urls["autograd_from_scratch"], width=412)
    page.evaluate(TWO_FRAMES)
    blocks = page.evaluate(f"""() => [...document.querySelectorAll("article *")]
      .filter(e => getComputedStyle(e).contentVisibility === "auto" && e.firstElementChild)
      .map(e => [e.className, e.getBoundingClientRect().top / innerHeight, ({RENDERED})(e.firstElementChild)])""")
    assert [rendered for kind, top, rendered in blocks if kind == "prose-table"] == [True, False]
    assert all(rendered == (top < 2.5) for kind, top, rendered in blocks if abs(top - 2.5) > 0.05), blocks
    assert {top < 2.5 for kind, top, rendered in blocks} == {True, False}


@pytest.mark.parametrize("name, box, rem", [
    ("autograd_basics", ".md-typeset > div.highlight:not(.snippet-output) > pre > code", 12),
    ("autograd_basics", ".md-typeset > div.snippet-output > pre > code", 5),
    ("autograd_basics", ".md-typeset > div.arithmatex", 5),
    ("autograd_basics", ".md-typeset > .admonition", 6),
    ("autograd_basics", ".md-typeset > figure", 30),
    ("autograd_basics", ".md-typeset > h2 ~ p:has(.katex)", 5),
    ("controlling_recording", ".md-typeset > div.prose-table", 20)])
def test_a_box_not_rendered_yet_holds_the_height_given_for_its_kind(browser, urls, name, box, rem):
    """The last box of its kind on the page, far below the screen: until it is rendered, its
    content is as high as docs/assets/site.css says a box of its kind usually is."""
    page = open_page(browser, urls[name], width=390)
    last = page.locator(box).last
    inside = last.locator("> *").first  # an output's code holds only text
    assert inside.count() == 0 or not inside.evaluate(RENDERED)
    height = last.evaluate("""e => { const s = getComputedStyle(e);
      return (e.getBoundingClientRect().height - ["paddingTop", "paddingBottom", "borderTopWidth", "borderBottomWidth"]
              .reduce((sum, side) => sum + parseFloat(s[side]), 0)) / parseFloat(getComputedStyle(document.documentElement).fontSize); }""")
    assert round(height, 2) == rem


@pytest.mark.parametrize("width", [1280, 390])
def test_a_link_to_a_heading_lands_on_it_with_the_blocks_above_not_rendered(browser, urls, width):
    page = open_page(browser, urls["custom_functions"], width=width)
    headings = page.evaluate("[...document.querySelectorAll('article h2')].map(h => h.id)")[:-1]  # the last ends the page
    for heading in headings:
        page.goto(f"{urls['custom_functions']}#{heading}", wait_until="load")
        page.wait_for_timeout(500)
        top = page.evaluate(f"document.getElementById('{heading}').getBoundingClientRect().top")
        assert 40 <= top <= 100, f"#{heading} is {top} px from the top, under the header"


def test_graphs_stay_legible_in_dark_mode(browser, urls):
    page = open_page(browser, urls["autograd_basics"], scheme="dark")
    shot(page, "autograd_basics-dark-graph")
    body = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert body != "rgb(255, 255, 255)", "the dark scheme is applied"
    graph = page.locator(".snippet-graph img").first
    assert graph.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(255, 255, 255)"
    assert graph.evaluate("e => getComputedStyle(e).filter") == "none", "drawn in the SVG file's own colours"


def test_the_colour_toggle_switches_the_scheme_and_remembers_it(browser, urls):
    page = open_page(browser, urls["autograd_basics"])
    state = """() => [document.body.dataset.mdColorScheme,
                     document.querySelector("meta[name=color-scheme]").content,
                     document.querySelector("meta[name=theme-color]").content,
                     [...document.querySelectorAll("form.md-header__option label")].filter(l => !l.hidden).map(l => l.title)]"""
    assert page.evaluate(state) == ["default", "light", "#4051b5", ["Switch to dark mode"]]
    page.click("label[title='Switch to dark mode']")
    assert page.evaluate(state) == ["slate", "dark", "#4051b5", ["Switch to light mode"]]
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(30, 33, 41)"
    page.goto(urls["gpu"])
    assert page.evaluate(state)[:2] == ["slate", "dark"], "the choice is remembered on the next page"
    page.focus("input[name=__palette]:checked")  # where Tab stops in the header
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "Switch to light mode"
    page.keyboard.press("Enter")
    assert page.evaluate(state) == ["default", "light", "#4051b5", ["Switch to dark mode"]]
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "Switch to dark mode"
    assert page.errors == []


# Records the changes scripts make, once the page's content has begun to be parsed, to
# <body>'s attributes and to the head's `color-scheme` meta element: a stylesheet rule
# under an attribute of <body>, or any change to that meta, makes the browser restyle
# every element of the page.
WATCH_PAGE_RESTYLES = """
window.pageRestyles = [];
new MutationObserver(records => {
  if (!document.querySelector("main")) return;
  for (const r of records) {
    if (r.type === "attributes" && r.target === document.body && r.oldValue !== r.target.getAttribute(r.attributeName))
      window.pageRestyles.push(`<body> ${r.attributeName}`);
    const metas = r.type === "childList" ? [...r.addedNodes] : [r.target];
    if (metas.some(n => n.nodeName === "META" && n.name === "color-scheme"))
      window.pageRestyles.push(`<meta name="color-scheme"> ${r.type}`);
  }
}).observe(document, {subtree: true, childList: true, attributes: true, attributeOldValue: true});
"""


@pytest.mark.parametrize("page_name, section", [("errors_inplace", "the-fix"),
                                                ("debugging_gradients", "a-gradient-that-fades-over-layers"),
                                                ("saving_memory", "exercises"),
                                                ("errors_graph", "non-differentiable-ops")])
def test_landing_on_a_section_marks_it_in_the_table_of_contents(browser, urls, page_name, section):
    """As a link to the section or a search result lands: the section's title shows below the
    header, the table of contents marks that section, not the one before it, and back-to-top
    (which the page's own small scroll up, as blocks near the section render, would show over
    the title) shows only once the reader scrolls up."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        page.goto(f"{urls[page_name]}#{section}", wait_until="load")
        page.wait_for_function("document.querySelector('.md-sidebar--secondary .md-nav__link--active')")
        page.evaluate(TWO_FRAMES)
        found = page.evaluate("""section => ({
            top: document.getElementById(section).getBoundingClientRect().top,
            header: document.querySelector('.md-header').getBoundingClientRect().bottom,
            active: document.querySelector('.md-sidebar--secondary .md-nav__link--active').hash})""", section)
        page.wait_for_timeout(500)  # as long again as Material's back-to-top takes to show
        hidden = not page.locator(".md-top").is_visible()
        page.mouse.move(640, 400)
        page.mouse.wheel(0, -300)
        page.locator(".md-top").wait_for(state="visible")
    finally:
        page.close()
    assert found["active"] == f"#{section}" and found["header"] <= found["top"] < 200, found
    assert hidden, "back-to-top stays hidden after the landing"


def test_the_screen_shows_what_works_on_screen_and_not_what_is_said_for_paper(browser, urls):
    for name in ("errors", "autograd_basics"):
        page = open_page(browser, urls[name])
        assert page.locator(".md-content .screen-only").first.is_visible()
        assert page.locator(".md-content .print-only").count() and not page.locator(".md-content .print-only").first.is_visible()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_script_restyles_the_whole_page_once_its_content_is_parsed(browser, urls, scheme):
    """Material's palette component did three such changes after the page was parsed, each
    restyling all of a chapter's elements; overrides/partials/javascripts/palette.html does its
    work in the header."""
    context = browser.new_context(viewport={"width": 412, "height": 900}, color_scheme=scheme)
    context.add_init_script(WATCH_PAGE_RESTYLES)
    page = context.new_page()
    for name in ["autograd_basics", "notebooks/custom_functions"]:
        page.goto(urls[name], wait_until="load")
        page.wait_for_timeout(500)
        assert page.evaluate("document.body.dataset.mdColorScheme") == {"light": "default", "dark": "slate"}[scheme]
        assert page.evaluate("window.pageRestyles") == [], name
    context.close()


# The step-through viewer of the first gradient (autograd_basics), checked against the recording itself.
WATCHED = SNIPPETS / "autograd_basics" / "watch_first_gradient.py"
# Every viewer: (page, its n-th viewer), in the order of the pages' step-through blocks.
VIEWERS = [("home" if page.stem == "index" else page.stem, n) for page in sorted((ROOT / "docs").glob("*.md"))
           for n, _ in enumerate(b for b in parse(page.name, page.read_text(encoding="utf-8"), SNIPPETS).blocks
                                 if STEP_THROUGH & b.options)]


@pytest.fixture(scope="module")
def recording(runner):
    (steps,) = [o["data"][STEPS] for o in runner.run(WATCHED, STEP_THROUGH).select() if kind(o) == "steps"]
    return steps


def check_shown(viewer, description, nodes, line):
    """The viewer shows `description`, marks `nodes` as current and highlights its copy of the code line that reads `line`."""
    assert viewer.locator("[aria-live=polite]").inner_text() == description
    marked = viewer.locator("svg [data-node].is-current")
    assert sorted(marked.nth(i).get_attribute("data-node") for i in range(marked.count())) == sorted(map(str, nodes))
    lit = viewer.locator(".snippet-steps__code .is-current")
    if line is None:
        assert lit.count() == 0, description
    else:
        assert line in lit.text_content(), description  # text_content: the block may be off screen


@pytest.mark.parametrize("scheme, width", [("light", 1280), ("dark", 1280), ("dark", 390)])
def test_the_step_through_viewer_shows_each_step_of_the_recording(browser, urls, recording, scheme, width):
    source = WATCHED.read_text().splitlines()
    page = open_page(browser, urls["autograd_basics"], scheme=scheme, width=width)
    viewer = page.locator("figure.snippet-steps").first
    assert viewer.locator("details.snippet-steps__table").get_attribute("open") is None, "the script closes it"
    next_button = viewer.get_by_role("button", name="Next", exact=True)
    total = len(recording["steps"])
    for n, step in enumerate(recording["steps"]):
        if n:
            press(next_button)
        node = recording["nodes"][step["node"]]
        line = source[node["lines"][-1] - 1].strip() if node["lines"] else None
        assert line, "every node, leaves too, names the line that made it"
        check_shown(viewer, step["description"], [step["node"]], line)
        assert viewer.locator(".snippet-steps__counter").inner_text() == f"Step {n + 1} of {total}"
        for mark, expected in (("is-in", step["contributions"]), ("is-out", step["sent"])):
            found = viewer.locator(f"svg [data-edge].{mark}")
            assert sorted(int(found.nth(i).get_attribute("data-edge")) for i in range(found.count())) == \
                sorted(e["edge"] for e in expected)
    press(viewer.get_by_role("button", name="Forward, line by line"))
    for n, entry in enumerate(recording["forward"][:3]):
        if n:
            press(next_button)
        check_shown(viewer, entry["description"], entry["nodes"], entry["code"])
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    controls = viewer.locator(".snippet-steps__controls :is(button, .snippet-steps__counter)")
    boxes = [controls.nth(i).bounding_box() for i in range(controls.count())]
    assert all(b and b["x"] >= 0 and b["x"] + b["width"] <= width for b in boxes), f"hidden or cut: {boxes}"
    for a, b in itertools.combinations(boxes, 2):
        apart = (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
                 or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])
        assert apart, f"controls overlap: {a} {b}"
    assert page.errors == []


@pytest.mark.parametrize("width, height", [(1280, 800), (PHONE, 844)])
@pytest.mark.parametrize("name, n", VIEWERS)
def test_the_line_and_the_node_of_each_step_are_on_screen_with_the_controls(browser, urls, name, n, width, height):
    """At 1280×800 and on a phone, at every step in both modes, the controls, the step's text, the
    highlighted line of code and the current node are on screen together, none covered (by the
    page's header or back-to-top button); Next is pressed where the reader sees it. A line of
    Forward mode that adds nodes too far apart for a phone's screen, or for the graph's box (the
    ten parameters a model's line makes, over a tall graph), shows the first of them."""
    page = open_page(browser, urls[name], width=width, height=height, reduced_motion="reduce")
    viewer = page.locator("figure.snippet-steps").nth(n)
    assert viewer.get_by_role("button", name="Next", exact=True).count() == 1
    # Come back up to the viewer from below, as a reader does: Material shows its back-to-top button.
    viewer.evaluate("v => scrollTo(0, v.getBoundingClientRect().bottom + scrollY + 400)")
    for _ in range(8):
        page.mouse.wheel(0, -150)
        page.wait_for_timeout(50)
    assert page.locator(".md-top").is_visible()
    for mode in ("Backward", "Forward, line by line"):
        press(viewer.get_by_role("button", name=mode, exact=True))
        step = 1
        while True:
            shown = viewer.evaluate(STEP_ON_SCREEN)
            where = f"{name} viewer {n + 1} at {width} px, {mode} step {step}"
            assert shown["counter"].startswith(f"Step {step} of "), where
            assert shown["lines"] == 1 and shown["nodes"] >= 1, where
            if mode == "Backward" or (width == 1280 and not shown["spread"]):
                assert shown["wrong"] == [], where
            else:
                assert len(shown["wrong"]) == shown["nodesWrong"] < shown["nodes"], where
            if shown["last"]:
                break
            page.mouse.click(shown["x"], shown["y"])
            step += 1
        assert step > 1, f"{where}: one step only"
    assert page.errors == []


def test_a_viewer_on_a_phone_scrolls_its_graph_visibly_and_stacks_its_table(browser, urls):
    """At 390 px the widest graph (custom_functions) fits or says that it scrolls, and each row of
    the table of steps is a card that shows every cell whole."""
    page = open_page(browser, urls["custom_functions"], scheme="dark", width=390, reduced_motion="reduce")
    viewer = page.locator("figure.snippet-steps").first
    graph = viewer.locator(".snippet-steps__graph")
    graph.scroll_into_view_if_needed()
    page.evaluate(TWO_FRAMES)
    if graph.evaluate("g => g.scrollWidth > g.clientWidth"):
        hint = viewer.locator(".snippet-steps__hint")
        assert hint.is_visible() and "Scroll or drag the graph" in hint.inner_text()
    press(viewer.locator("details.snippet-steps__table summary"))
    table = viewer.locator(".snippet-steps__table .snippet-steps__scroll")
    assert table.evaluate("t => t.scrollWidth <= t.clientWidth"), "no column runs off the side"
    right = table.bounding_box()["x"] + table.bounding_box()["width"]
    cells = table.locator("td:not(:empty)")
    assert cells.count() > 12 * 4
    for i in range(cells.count()):
        box = cells.nth(i).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= right + 0.5, cells.nth(i).inner_text()
    label = cells.nth(1).evaluate("td => getComputedStyle(td, '::before').content")
    assert label == '"Node"', "each cell says which column it is"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.errors == []


def test_the_step_through_viewer_plays_and_answers_the_arrow_keys(browser, urls, recording):
    page = open_page(browser, urls["autograd_basics"], reduced_motion="reduce")
    viewer = page.locator("figure.snippet-steps").first
    counter = viewer.locator(".snippet-steps__counter")
    total = len(recording["steps"])
    viewer.get_by_role("button", name="Next", exact=True).focus()
    page.keyboard.press("ArrowRight")
    assert counter.inner_text() == f"Step 2 of {total}"
    page.keyboard.press("ArrowLeft")
    assert counter.inner_text() == f"Step 1 of {total}"
    viewer.get_by_role("button", name="Play").click()
    assert viewer.get_by_role("button", name="Pause").is_visible()
    page.wait_for_function("c => c.textContent.startsWith('Step 2 ')", arg=counter.element_handle())
    viewer.get_by_role("button", name="Pause").click()
    assert viewer.get_by_role("button", name="Play").is_visible()
    assert page.errors == []


@pytest.mark.parametrize("scheme, width", [("light", 1280), ("dark", 1280), ("dark", 390)])
def test_step_through_graphs_are_legible(browser, urls, scheme, width):
    """Labels at least 12 px tall on screen (their font, and the box each is drawn in), and in
    dark mode not black on the dark page."""
    page = open_page(browser, urls["custom_functions"], scheme=scheme, width=width)
    text = page.locator("figure.snippet-steps svg text").first
    size = text.evaluate("t => parseFloat(getComputedStyle(t).fontSize) * t.ownerSVGElement.getScreenCTM().a")
    assert size >= 12 - 1e-3  # the browser's scale is a float
    heights = page.locator("figure.snippet-steps svg text").evaluate_all(
        "ts => ts.map(t => t.getBoundingClientRect().height)")
    assert len(heights) > 10 and min(heights) >= 12, min(heights)
    fill = text.evaluate("t => getComputedStyle(t).fill")
    assert (fill == "rgb(0, 0, 0)") == (scheme == "light"), fill


@pytest.mark.parametrize("n, button, step, node", [(0, "First NaN/inf", 2, "SqrtBackward0"),
                                                   (1, "First NaN/inf", 5, "LogBackward0"),
                                                   (3, "Smallest gradient", 9, "AddmmBackward0")])
def test_one_press_finds_the_nan_and_the_vanishing_layer(browser, urls, n, button, step, node):
    """Debugging gradients: the NaN's first node (made in the backward pass, and in the forward
    pass, which the step says), and the layer whose gradient vanishes, are one press away."""
    page = open_page(browser, urls["debugging_gradients"], width=PHONE, height=844, reduced_motion="reduce")
    viewer = page.locator("figure.snippet-steps").nth(n)
    press(viewer.get_by_role("button", name=button, exact=True))
    counter = viewer.locator(".snippet-steps__counter").inner_text()
    assert counter.startswith(f"Step {step} of ")
    said = viewer.locator("[aria-live=polite]").inner_text()
    assert said.startswith(f"{counter}: {node}")
    assert ("The forward pass made the first NaN or inf here" in said) == (node == "LogBackward0"), said
    shown = viewer.evaluate(STEP_ON_SCREEN)
    assert shown["wrong"] == [] and shown["lines"] and shown["nodes"], shown
    assert page.errors == []


def test_the_back_to_top_button_gives_way_to_a_viewer_under_the_pointer(browser, urls):
    """Scrolled up to a viewer, Material's back-to-top button shows at the top of the screen, over
    the viewer's controls held there; the pointer that comes over the viewer to press the button
    under it sends it away, and the press lands on the viewer's button, not on the way back up."""
    page = open_page(browser, urls["debugging_gradients"], height=800, reduced_motion="reduce")
    viewer = page.locator("figure.snippet-steps").first
    jump = viewer.get_by_role("button", name="First NaN/inf", exact=True)
    # Come up to the button from 600 px below, so that it ends 90 px from the top.
    jump.evaluate("b => scrollTo(0, b.getBoundingClientRect().top + scrollY - 90 + 600)")
    for _ in range(4):
        page.mouse.wheel(0, -150)
        page.wait_for_timeout(50)
    top = page.locator(".md-top")
    assert top.is_visible()
    pill, box = top.bounding_box(), jump.bounding_box()
    assert box["y"] < pill["y"] + pill["height"] and pill["x"] < box["x"] + box["width"], "the button lies under it"
    x, y = box["x"] + box["width"] - 4, box["y"] + box["height"] - 4  # a place the button shares with the pill
    page.mouse.move(x, y + 300)  # over the viewer, below
    page.mouse.move(x, y, steps=10)
    page.evaluate(TWO_FRAMES)
    assert not top.is_visible()
    page.mouse.down()
    page.mouse.up()
    assert viewer.locator(".snippet-steps__counter").inner_text().startswith("Step 2 of "), "the jump was made"
    assert page.evaluate("scrollY") > 1000, "the page did not go back to its top"
