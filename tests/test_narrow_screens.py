"""The site on a phone (390 px) and in a desktop window (1280 px): figures legible, formulas
apart, code without sideways scrolling, and a navigation that names each page once.

Screenshots of the figures and formulas checked here land in test-artifacts/screenshots/.
"""

import re

import pytest
from browsing import RENDER_EVERY_BLOCK, open_page
from conftest import CHAPTERS, ROOT, SNIPPETS, soup

LINE_LIMIT = 88  # characters; docs/assets/site.css makes this many fit a code block at 1280 px
LEGIBLE_PX = 9   # the smallest text of a figure as displayed
PHONE = 390


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
    page.context.close()
    assert room[0] <= room[1], f"{LINE_LIMIT} characters take {room[0]:.0f} px of a block's {room[1]:.0f} px"


SMALLEST_GLYPH_SCALE = re.compile(r"scale\(([\d.]+) -[\d.]+\)")


@pytest.mark.parametrize("name", CHAPTERS)
def test_figures_are_legible_on_a_phone_and_open_full_size(browser, urls, site_url, name):
    """matplotlib draws a text glyph as a path scaled by font size / 100 in the SVG's own units
    (points); as displayed, text is that size times the image's width over the SVG's."""
    page = open_page(browser, urls[name], width=PHONE, scheme="dark")
    page.add_style_tag(content=RENDER_EVERY_BLOCK)
    figures = page.evaluate("""() => [...document.querySelectorAll('figure.snippet-figure')].map(f => {
        const img = f.querySelector('img'), link = f.querySelector('a');
        return {src: img.getAttribute('src'), shown: img.getBoundingClientRect().width,
                href: link && link.getAttribute('href'), label: link && link.textContent,
                page: document.documentElement.scrollWidth}})""")
    for figure in figures:
        svg = page.request.get(page.url + figure["src"]).text()
        width = float(re.search(r'viewBox="[\d.]+ [\d.]+ ([\d.]+)', svg)[1])
        text = 100 * min(float(s) for s in SMALLEST_GLYPH_SCALE.findall(svg)) * figure["shown"] / width
        assert text >= LEGIBLE_PX - 0.05, f"{name}: text {text:.1f} px high in {figure['src']}"
        assert figure["href"] == figure["src"] and "Open full size" in figure["label"], figure
        assert figure["page"] <= PHONE, f"{name}: the page is {figure['page']} px wide"
    if figures:
        page.locator("figure.snippet-figure").first.scroll_into_view_if_needed()
        page.screenshot(path=ROOT / "test-artifacts" / "screenshots" / f"figure-390-{name}.png")
    page.context.close()


@pytest.mark.parametrize("width", [PHONE, 1280])
def test_display_formulas_do_not_overlap(browser, urls, width):
    """KaTeX breaks a display formula into boxes (`.base`) at relations and `\\allowbreak`;
    on a narrow screen they wrap into lines, and no two may cover each other, nor two formulas."""
    for name in CHAPTERS:
        page = open_page(browser, urls[name], width=width)
        page.add_style_tag(content=RENDER_EVERY_BLOCK)
        overlaps = page.evaluate("""() => {
            const boxes = el => [...el.querySelectorAll('.katex-html > .base')].map(b => b.getBoundingClientRect());
            const cover = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
            const found = [];
            const formulas = [...document.querySelectorAll('.md-content div.arithmatex')];
            formulas.forEach((f, i) => {
                const bases = boxes(f);
                bases.forEach((a, j) => bases.slice(j + 1).forEach(b => cover(a, b) && found.push(f.textContent.slice(0, 60))));
                formulas.slice(i + 1).forEach(g => cover(f.getBoundingClientRect(), g.getBoundingClientRect()) && found.push('two formulas'));
            });
            return found;
        }""")
        page.context.close()
        assert not overlaps, f"{name} at {width} px: {overlaps}"


def test_two_definitions_side_by_side_go_one_under_the_other_on_a_phone(browser, urls):
    """custom_functions defines the ELU and its derivative in one display, `\\qquad` apart."""
    page = open_page(browser, urls["custom_functions"], width=PHONE)
    page.add_style_tag(content=RENDER_EVERY_BLOCK)
    formula = page.locator(".md-content div.arithmatex").first
    formula.scroll_into_view_if_needed()
    bases = formula.evaluate("""f => [...f.querySelectorAll('.katex-html > .base')].map(b => {
        const r = b.getBoundingClientRect();
        return {text: b.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom}})""")
    page.screenshot(path=ROOT / "test-artifacts" / "screenshots" / "formula-390-custom_functions.png")
    page.context.close()
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
