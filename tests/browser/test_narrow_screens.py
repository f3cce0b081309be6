"""The site on a phone (390 px) and in a desktop window (1280 px): code without sideways
scrolling, definitions side by side that stack on a phone, and a navigation that names each
page once (test_every_page.py checks every page's formulas at both widths, and its figures on
a phone).

With SCREENSHOTS=1 (`make screenshots`), a screenshot of the formula checked here lands in
test-artifacts/screenshots/.
"""

from io import BytesIO

import pytest
from browsing import PHONE, RENDER_EVERY_BLOCK, open_page, screenshot
from conftest import CHAPTERS, ROOT, SNIPPETS, soup
from PIL import Image

LINE_LIMIT = 88  # characters; docs/assets/site.css makes this many fit a code block at 1280 px


def test_snippet_lines_fit_a_code_block_at_1280_px():
    """Every line of a snippet is shown in a code block somewhere: one longer than the limit
    makes its block scroll sideways on a desktop screen."""
    long = [f"{path.relative_to(ROOT)}:{n}: {len(line)} characters"
            for path in sorted(SNIPPETS.rglob("*.py"))
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if len(line) > LINE_LIMIT]
    assert not long, f"{len(long)} lines over {LINE_LIMIT} characters:\n" + "\n".join(long)


def test_a_code_block_at_1280_px_holds_a_line_of_the_limit(browser, urls):
    page = open_page(browser, urls["autograd_basics"], width=1280)
    room = page.evaluate("""limit => {
        const code = document.querySelector('.md-content div.highlight:not(.snippet-output) pre > code');
        const style = getComputedStyle(code);
        const probe = document.createElement('span');  // a line in the block's font (the block is a grid)
        probe.textContent = 'x'.repeat(10);
        probe.style.cssText = `position: absolute; white-space: pre; font: ${style.font}`;
        document.body.append(probe);
        const inner = code.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        return [probe.getBoundingClientRect().width / 10 * limit, inner];
    }""", LINE_LIMIT)
    assert room[0] <= room[1], f"{LINE_LIMIT} characters take {room[0]:.0f} px of a block's {room[1]:.0f} px"


def test_two_definitions_side_by_side_go_one_under_the_other_on_a_phone(browser, urls):
    """custom_functions defines the ELU and its derivative in one display, `\\qquad` apart."""
    page = open_page(browser, urls["custom_functions"], width=PHONE)
    page.add_style_tag(content=RENDER_EVERY_BLOCK)
    formula = page.locator(".md-content div.arithmatex").first
    formula.scroll_into_view_if_needed()
    bases = formula.evaluate("""f => [...f.querySelectorAll('.katex-html > .base')].map(b => {
        const r = b.getBoundingClientRect();
        return {text: b.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom}})""")
    screenshot(page, "formula-390-custom_functions")
    (derivative,) = [b for b in bases if b["text"].startswith("ELU") and "′" in b["text"]]
    beside = [b["text"] for b in bases if b["right"] <= derivative["left"] + 1
              and b["top"] < derivative["bottom"] and derivative["top"] < b["bottom"]]
    assert not beside, f"the derivative's definition starts beside {beside}"


def test_the_navigation_names_each_notebook_apart_from_its_chapter(built_site):
    """The sidebar lists the chapters, then the notebooks: by file name, not the chapter titles again."""
    html = soup(built_site / "index.html")
    titles = [a.get_text(" ", strip=True) for a in html.select("nav.md-nav--primary a.md-nav__link[href]")]
    repeated = sorted({t for t in titles if titles.count(t) > 1})
    assert not repeated, repeated
    assert sorted(t for t in titles if t.endswith(".ipynb")) == [f"{c}.ipynb" for c in CHAPTERS]


def test_a_table_of_the_text_is_a_card_per_row_on_a_phone_each_cell_under_its_columns_name(browser, urls):
    """The errors index (three columns would leave each too narrow for its code), and the table of
    five columns of Controlling what is recorded."""
    for name, tables in (("errors", 7), ("controlling_recording", 1)):
        cards_are_full_width(open_page(browser, urls[name], width=PHONE), tables)


def cards_are_full_width(page, tables):
    page.add_style_tag(content=RENDER_EVERY_BLOCK)
    cards = page.evaluate("""() => [...document.querySelectorAll('.md-content div.prose-table table')].map(t => {
        const headers = [...t.querySelectorAll('thead th')].map(th => th.textContent.trim());
        const cells = [...t.querySelectorAll('tbody tr')].flatMap(tr => [...tr.children].map((td, i) =>
            [getComputedStyle(td, '::before').content, JSON.stringify(headers[i]), td.getBoundingClientRect().width]));
        return {headers: getComputedStyle(t.querySelector('thead')).display, cells,
                width: t.closest('.md-typeset__scrollwrap').clientWidth};
    })""")
    assert len(cards) == tables and all(table["headers"] == "none" for table in cards)
    for table in cards:
        assert all(label == header and width >= table["width"] - 40 for label, header, width in table["cells"]), table


def edge_shade(code):
    """How far the colours down a block's right edge are, all of them, from its background (its
    top left corner): text that reaches the edge changes a few, a shade every one."""
    shot = Image.open(BytesIO(code.screenshot())).convert("RGB")
    width, height = shot.size
    inside = shot.getpixel((1, 1))
    return min(sum(abs(a - b) for a, b in zip(shot.getpixel((width - 2, y)), inside)) for y in range(2, height - 2))


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_block_that_scrolls_sideways_shows_a_shade_where_more_of_it_lies(browser, urls, scheme):
    """On a phone: shaded at its right edge while lines go on past it, not once scrolled to their
    end, nor a block whose lines fit."""
    page = open_page(browser, urls["errors_inplace"], width=PHONE, scheme=scheme)
    page.add_style_tag(content=RENDER_EVERY_BLOCK)
    blocks = page.locator(".md-content div.highlight pre > code")
    widths = blocks.evaluate_all("all => all.map(c => c.scrollWidth - c.clientWidth)")
    scrolls, fits = blocks.nth(widths.index(max(widths))), blocks.nth(widths.index(0))
    for code in (scrolls, fits):
        code.scroll_into_view_if_needed()
    assert edge_shade(scrolls) > 20 and edge_shade(fits) < 5
    scrolls.evaluate("c => c.scrollLeft = c.scrollWidth")
    assert edge_shade(scrolls) < 5
