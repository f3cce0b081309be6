"""Every page of the built site in Chromium, as a reader meets it: opened once at 1280x800 in
light and once 390 px wide in dark, and checked there (the other browser tests open a page of
their own where a check needs a state of its own). Loading a page costs more than most checks
(about 0.55 s of CPU here), so each width's checks share one load; each check is a subtest, named
where it fails (`SUBFAILED[every copy button copies its block's runnable copy] ...`). They run
in an order where none finds the page changed in a way it does not expect: first what needs the
page as it loads (a notebook page's first heading), then what scrolls and clicks (graphs coming
on screen, the copy buttons, which open folds and switch tabs as a reader does), then what
renders every block for good and measures it. So the page's errors are checked once the clicks
are done, and `make screenshots` shows a page at 1280 px after them.

Reading every block: each page is measured with every fold open and every content tab shown,
so that hidden blocks are measured too. The rule the site's stylesheet follows, and these
tests check:

- Output text wraps at the edge of its box, so an error, a warning, a message
  or text printed to stderr reads in full without sideways scrolling; PyTorch's
  tensor printouts (at most 80 characters a line) keep one screen line per
  printed line at 1280 px, so their columns stay aligned.
- The page never scrolls sideways; a display formula too wide for the column
  breaks after a relation or an operator, and what still does not fit scrolls
  inside the formula's own box, and no two parts of a formula, nor two formulas, cover each other.
- A block's copy button covers none of the block's text.
- A figure fits the column, on a phone too, and opens full size.
- The lines of a printed table keep their columns, one screen line each, on a phone too: the
  block scrolls sideways as code does, its other lines still wrapping.
- A box that the browser renders only near the screen draws all it holds once rendered.
"""


import pytest
from browsing import (
    CLIPBOARD,
    PAGES,
    PHONE,
    RENDER_EVERY_BLOCK,
    TWO_FRAMES,
    copy_with_buttons,
    open_page,
    screenshot,
    shot,
)
from conftest import KIND_OF_BOX

from snippet_engine.kinds import steps

# Every fold opened and every tab's content shown (and, by measured(), every block rendered:
# test_browser.py checks that rendering changes nothing in the layout);
# then {"page": ..., "blocks": [...], "formulas": [...], "covered": [...]}, measured as a reader sees the page.
MEASURE = r"""() => {
    document.querySelectorAll('.md-content details').forEach(d => d.open = true);
    const style = document.createElement('style');
    style.textContent = '.tabbed-set > .tabbed-content > .tabbed-block { display: block !important; }';
    document.head.append(style);

    // Four plain words in a row: a sentence, not a tensor, a dict or a table of names and numbers.
    const prose = /(?:\b[A-Za-z]+[,.:;)]? ){3}[A-Za-z]+\b/;
    // A line of a tensor printout: its first row, or a further row (indented, opening a row or a number).
    const tensorRow = /^tensor\(\[|^\s+[\[\d-]/;
    const shown = e => e.getClientRects().length > 0;
    const rectsOf = (node, start, end) => {
        const range = document.createRange();
        range.setStart(node, start);
        range.setEnd(node, end);
        return [...range.getClientRects()].filter(r => r.width > 0);
    };
    const meets = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5
        && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;

    // The screen lines each printed line of a <code> takes (a line lies in one text node: the
    // output's text, or a table's line in its span), and whether it is a table's.
    const screenLines = code => {
        const found = [];
        const texts = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
        for (let node; (node = texts.nextNode());) {
            let offset = 0;
            for (const line of node.data.split('\n')) {
                if (line.trim()) {
                    const tops = new Set(rectsOf(node, offset, offset + line.length).map(r => Math.round(r.top)));
                    found.push({line, count: tops.size, columns: node.parentElement.matches('.snippet-columns')});
                }
                offset += line.length + 1;
            }
        }
        return found;
    };
    // How wide the block's text is without its tables' lines, which scroll rather than wrap.
    const proseWidth = code => {
        const tables = [...code.querySelectorAll('.snippet-columns')];
        tables.forEach(s => s.style.display = 'none');
        const width = code.scrollWidth;
        tables.forEach(s => s.style.display = '');
        return width;
    };

    const blocks = [];
    for (const b of document.querySelectorAll('.md-content :is(.snippet-output, .snippet-warning, .snippet-error)')) {
        const box = b.matches('.snippet-warning') ? b : b.querySelector('pre > code');
        if (!box || !shown(box)) continue;
        const kind = b.matches('.snippet-warning') ? 'warning' : b.matches('.snippet-error') ? 'error'
            : b.matches('.snippet-stderr') ? 'stderr' : 'stdout';
        const text = box.innerText;
        const lines = b.matches('.snippet-output') ? screenLines(box) : null;
        blocks.push({
            kind, text: text.slice(0, 100), prose: text.split('\n').some(l => prose.test(l)),
            scrollWidth: b.matches('.snippet-output') ? proseWidth(box) : box.scrollWidth, clientWidth: box.clientWidth,
            wrappedTensorRows: lines ? lines.filter(l => tensorRow.test(l.line) && l.count > 1).map(l => l.line) : [],
            wrappedTableRows: lines ? lines.filter(l => l.columns && l.count > 1).map(l => l.line) : [],
        });
    }

    const formulas = [];
    for (const math of document.querySelectorAll('.md-content .katex-display')) {
        const box = math.closest('.arithmatex') || math.parentElement;
        if (!shown(box)) continue;
        const edges = box.getBoundingClientRect();
        const out = [...math.querySelectorAll('.katex-html > .base')].filter(part => {
            const r = part.getBoundingClientRect();
            return r.width <= box.clientWidth && (r.left < edges.left - 0.5 || r.right > edges.right + 0.5);
        });
        formulas.push({
            tex: (math.querySelector('annotation') || math).textContent.slice(0, 100),
            scrollWidth: box.scrollWidth, clientWidth: box.clientWidth,
            overflowX: getComputedStyle(box).overflowX, partsOutOfView: out.map(p => p.textContent),
        });
    }

    // Characters of a block that its copy button lies over (text scrolled out of its box is not shown).
    const covered = [];
    for (const nav of document.querySelectorAll('.md-content .md-code__nav')) {
        if (!shown(nav)) continue;
        const button = nav.getBoundingClientRect();
        const block = nav.closest('.highlight');
        const walker = document.createTreeWalker(block, NodeFilter.SHOW_TEXT);
        for (let node; (node = walker.nextNode());) {
            if (nav.contains(node) || !node.data.trim()) continue;
            if (!rectsOf(node, 0, node.length).some(r => meets(r, button))) continue;
            const clip = (node.parentElement.closest('code') || block).getBoundingClientRect();
            let hit = '';
            for (let i = 0; i < node.length; i++) {
                if (/\s/.test(node.data[i])) continue;
                if (rectsOf(node, i, i + 1).some(r => meets(r, button) && meets(r, clip))) hit += node.data[i];
            }
            if (hit) covered.push({block: block.innerText.slice(0, 80), hit});
        }
    }
    return {page: document.documentElement.scrollWidth, inner: innerWidth, blocks, formulas, covered};
}"""


def measured(page, style=""):
    page.add_style_tag(content=RENDER_EVERY_BLOCK)
    if style:
        page.add_style_tag(content=style)
    return page.evaluate(MEASURE)


def must_read_in_full(block):
    """Errors, warnings, stderr, and printed output with a sentence in it."""
    return block["kind"] != "stdout" or block["prose"]


def scrolling(blocks):
    return [f'{b["kind"]} {b["scrollWidth"]} px in {b["clientWidth"]} px: {b["text"]!r}' for b in blocks
            if must_read_in_full(b) and b["scrollWidth"] > b["clientWidth"]]


# A box with `content-visibility` clips what it holds to its padding box and its clip
# margin. For each such box of the article, rendered: what of the boxes of the elements and
# texts in it, cut to the scrolling boxes they are in, reaches beyond, in px.
OUTSIDE_THEIR_BOX = """([renderEveryBlock, kinds]) => {
  const article = document.querySelector("article");
  const boxes = [...article.querySelectorAll("*")].filter(e => getComputedStyle(e).contentVisibility === "auto")
    .map(e => [e, parseFloat(getComputedStyle(e).overflowClipMargin)]);
  const style = document.createElement("style");
  style.textContent = renderEveryBlock;
  document.head.append(style);
  const found = [];
  for (const [box, margin] of boxes) {
    const b = box.getBoundingClientRect(), s = getComputedStyle(box);
    const edge = [b.top + parseFloat(s.borderTopWidth) - margin, b.bottom - parseFloat(s.borderBottomWidth) + margin,
                  b.left + parseFloat(s.borderLeftWidth) - margin, b.right - parseFloat(s.borderRightWidth) + margin];
    const parts = [...box.querySelectorAll("*")].flatMap(e => [...e.getClientRects()].map(r => [e, r]));
    const texts = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    for (let text; (text = texts.nextNode()); ) {
      const range = document.createRange();
      range.selectNodeContents(text);
      parts.push(...[...range.getClientRects()].map(r => [text, r]));
    }
    for (const [part, r] of parts) {
      let [top, bottom, left, right] = [r.top, r.bottom, r.left, r.right];
      for (let a = part; a !== box; ) {
        a = a.parentElement;  // up to the box itself: a box that scrolls cuts what it holds anyway
        const clip = getComputedStyle(a).overflow !== "visible" && a.getBoundingClientRect();
        if (clip) [top, bottom, left, right] = [Math.max(top, clip.top), Math.min(bottom, clip.bottom),
                                                Math.max(left, clip.left), Math.min(right, clip.right)];
      }
      const beyond = [edge[0] - top, bottom - edge[1], edge[2] - left, right - edge[3]];
      if (bottom > top && right > left && beyond.some(d => d > 0.5))
        found.push(`${box.tagName}.${box.className} holds ${part.nodeName} ${(part.textContent).slice(0, 30)}: ${beyond.map(Math.round)}`);
    }
  }
  style.remove();
  // A box in what a kind of output shows under a block is that kind's; the others, the site's own.
  const kindOf = box => Object.entries(kinds).find(([cls]) => box.closest(`.${cls}`));
  const names = boxes.map(([box]) => kindOf(box)?.[1] ?? `${box.tagName}.${box.classList[0] || ""}`);
  return [[...new Set(names)], found];
}"""

# What the site's stylesheet renders when it comes near the screen: of the pages' own, code
# blocks, display formulas, notes, tables and paragraphs with math; and what each kind of output
# shows under a block (the kinds' registry), but the step-through viewer, drawn as the page loads.
SITE_BOXES = {"CODE.md-code__content", "DIV.arithmatex", "DIV.admonition", "DIV.prose-table", "P."}
BOX_KINDS = SITE_BOXES | set(KIND_OF_BOX.values()) - {steps.KIND.name}


def nothing_beyond_its_box(page, name):
    """Rendered, each box that the browser renders near the screen draws all it holds: a
    paragraph's math, a warning's icon, a figure's caption (docs/assets/site.css). Measured
    before a check renders every block for good."""
    checked, found = page.evaluate(OUTSIDE_THEIR_BOX, [RENDER_EVERY_BLOCK, KIND_OF_BOX])
    assert found == [], f"{name}: {found[:5]}"
    assert set(checked) <= BOX_KINDS, f"{name}: boxes of a kind this check does not know"
    return set(checked)


# KaTeX breaks a display formula into boxes (`.base`) at relations and `\\allowbreak`; on a
# narrow screen they wrap into lines: those of one formula that cover each other, and formulas
# that cover each other.
OVERLAPS = """() => {
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
}"""

# The smallest node text of each graph in CSS px as the page shows it: the graph's SVG,
# inline at the size its image has on the page, measured as the browser draws it.
NODE_TEXT = """async images => {
    const sizes = [];
    for (const image of images) {
        const holder = document.createElement('div');
        holder.innerHTML = await (await fetch(image.src)).text();
        const svg = holder.querySelector('svg'), box = image.getBoundingClientRect();
        svg.setAttribute('width', box.width);
        svg.setAttribute('height', box.height);
        document.body.append(holder);
        const texts = [...svg.querySelectorAll('text')];
        sizes.push(Math.min(...texts.map(t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)));
        holder.remove();
    }
    return sizes;
}"""


def node_text_is_legible(page, name):
    """Each graph's node text is at least 12 px on screen (the graphs' images loaded)."""
    sizes = page.evaluate(NODE_TEXT, page.locator(".snippet-graph img").element_handles())
    small = {f"graph {n}": round(size, 1) for n, size in enumerate(sizes, 1) if size < 12}
    assert small == {}, f"{name}: node text under 12 px"


def formulas_do_not_overlap(page, name):
    overlaps = page.evaluate(OVERLAPS)
    assert overlaps == [], f"{name}: {overlaps}"


def reads_in_full(found, name):
    """What both widths ask of every block, measured(): the page does not scroll sideways, no
    output that must read in full scrolls (but its tables' lines), each line of a table is one
    screen line, no copy button lies over text."""
    assert found["page"] <= found["inner"], f"{name} is {found['page']} px wide"
    assert scrolling(found["blocks"]) == [], f"{name}: output that scrolls sideways"
    wrapped = [row for b in found["blocks"] for row in b["wrappedTableRows"]]
    assert wrapped == [], f"{name}: lines of a table broken over two screen lines, their columns out of line"
    assert found["covered"] == [], f"{name}: text under a copy button"


FIGURES = """() => [...document.querySelectorAll('figure.snippet-figure')].map(f => {
    const img = f.querySelector('img'), link = f.querySelector('a');
    return {src: img.getAttribute('src'), shown: img.getBoundingClientRect().width, column: f.clientWidth,
            href: link && link.getAttribute('href'), label: link && link.textContent}})"""


# The contrast of each copy button's icon with the block behind it (WCAG 2.1, 1.4.11: at least 3
# for the parts of a control), its colour laid over the first opaque background under it;
# and the blank space between the header and the title, and under the title, in px.
CHROME = """() => {
    const rgba = c => c.match(/[\\d.]+/g).map(Number).concat([1]).slice(0, 4);
    const backdrop = e => {
        for (; e; e = e.parentElement) {
            const c = rgba(getComputedStyle(e).backgroundColor);
            if (c[3] === 1) return c;
        }
        return rgba(getComputedStyle(document.body).backgroundColor);
    };
    const over = (c, b) => c.slice(0, 3).map((v, i) => v * c[3] + b[i] * (1 - c[3]));
    const luminance = c => {
        const [r, g, b] = c.map(v => v / 255).map(v => v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const ratio = (a, b) => (Math.max(luminance(a), luminance(b)) + 0.05) / (Math.min(luminance(a), luminance(b)) + 0.05);
    const contrasts = [...document.querySelectorAll('.md-content .md-code__button')].slice(0, 20).map(b => {
        const back = backdrop(b);
        return [ratio(over(rgba(getComputedStyle(b).color), back), back),
                `${getComputedStyle(b).color} on ${back} in ${b.closest('.highlight').innerText.slice(0, 40)}`];
    });
    const h1 = document.querySelector('.md-content h1'), header = document.querySelector('.md-header');
    const next = h1 && h1.nextElementSibling;
    return {contrasts, above: h1 && h1.getBoundingClientRect().top - header.getBoundingClientRect().bottom,
            under: next && next.getBoundingClientRect().top - h1.getBoundingClientRect().bottom};
}"""


def title_close_and_copy_buttons_seen(page, name):
    """The title starts within 40 px of the header and its text within 24 px under it; every copy
    button's icon has a contrast of at least 3 with its block, the one pressed last (under the
    pointer, focused) too."""
    found = page.evaluate(CHROME)
    if found["above"] is not None:
        assert found["above"] <= 40 and found["under"] <= 24, f"{name}: blank space by the title {found}"
    faint = [(round(c, 2), where) for c, where in found["contrasts"] if c < 3]
    assert faint == [], f"{name}: copy buttons at contrast {faint}"


# Each graph and figure scrolled to, as a reader scrolls (its image loads lazily then), in one
# round trip for the page: [src, width and height on the page, width of the image loaded (0 where
# it did not load, or not within 10 s)].
SCROLLED_TO = """async () => {
    const found = [];
    for (const image of document.querySelectorAll('.snippet-graph img, .snippet-figure img')) {
        image.scrollIntoView({block: 'nearest', behavior: 'instant'});
        for (const end = performance.now() + 10000; !image.complete && performance.now() < end;)
            await new Promise(done => setTimeout(done, 20));
        const box = image.getBoundingClientRect();
        found.push([image.getAttribute('src'), box.width, box.height, image.naturalWidth]);
    }
    return found;
}"""


# The navigation beside the page (Material's primary sidebar), once it has scrolled to the
# current page's link (overrides/main.html): how far it scrolled, whether that link shows whole
# below the navigation's sticky title, whether it would show with the navigation at its top, and
# the links half under the title.
NAVIGATION = """async () => {
    await TWO_FRAMES;
    const wrap = document.querySelector(".md-sidebar--primary .md-sidebar__scrollwrap");
    const active = wrap.querySelector(".md-nav__link--active[href]").getBoundingClientRect();
    const box = wrap.getBoundingClientRect(), top = box.top - wrap.scrollTop, bottom = box.top + wrap.clientHeight;
    const under = wrap.querySelector(".md-nav--primary > .md-nav__title").getBoundingClientRect().bottom;
    return {scrolled: wrap.scrollTop, shown: active.top >= under - 0.5 && active.bottom <= bottom + 0.5,
            fitsAtTop: active.bottom - top <= wrap.clientHeight,
            halfHidden: [...wrap.querySelectorAll(".md-nav__link")].map(l => l.getBoundingClientRect())
                .filter(r => r.height && r.top < under - 0.5 && r.bottom > under + 0.5).length};
}""".replace("TWO_FRAMES", TWO_FRAMES)


# Inline code (not a block's) that a line breaks inside a name, between two of its letters or
# digits where no <wbr> lets it (a long name's `find_unused_` / `parameters`), or after a dash that
# leads a word (`(-|loss)`, `--no-|deps`), rather than where code may break
# (hooks/code_breaks.py): its first 60 characters.
BROKEN_NAMES = r"""() => {
    const found = new Set();
    for (const code of document.querySelectorAll('.md-content :not(pre) > code')) {
        const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
        let before = null, last = '', marked = false;
        for (let node; (node = walker.nextNode());) {
            if (node.nodeType === Node.ELEMENT_NODE) {
                marked ||= node.localName === 'wbr';
                continue;
            }
            for (let i = 0; i < node.length; i++) {
                const range = document.createRange();
                range.setStart(node, i);
                range.setEnd(node, i + 1);
                const box = range.getClientRects()[0];
                if (!box) continue;
                const inName = /\w/.test(last) && /\w/.test(node.data[i]) && !marked;
                const afterDash = last === '-' && /\w/.test(node.data[i]);
                if (before && box.top >= before.bottom - 1 && (inName || afterDash))
                    found.add(code.textContent.slice(0, 60));
                before = box;
                last = node.data[i];
                marked = false;
            }
        }
    }
    return [...found];
}"""


def test_the_pages_tested_one_by_one_are_the_site(urls):
    assert sorted(urls) == sorted(PAGES)


@pytest.mark.parametrize("name", PAGES)
def test_a_page_at_1280_px_in_light(browser, urls, site_url, subtests, name):
    page = open_page(browser, urls[name], height=800, permissions=CLIPBOARD)
    if name.startswith("notebooks/"):
        with subtests.test("a notebook page opens on its chapter, not on setup"):
            # The install cell is only in the .ipynb, the helper modules' code is folded.
            top = page.evaluate("document.querySelector('.md-content h2').getBoundingClientRect().top + scrollY")
            assert top <= 1.5 * 800, f"the first section starts at {top:.0f} px"
            assert not page.locator(".md-content details.snippet-setup[open]").count()
    with subtests.test("the navigation shows the current page from its top where it can, no link half hidden"):
        nav = page.evaluate(NAVIGATION)
        assert nav["shown"] and nav["halfHidden"] == 0 and (nav["scrolled"] == 0 or not nav["fitsAtTop"]), nav
    with subtests.test("every graph and figure is visible"):
        for src, width, height, natural in page.evaluate(SCROLLED_TO):
            assert width > 20 and height > 20, f"{name}: an invisible graph or figure {src}"
            assert natural > 0, f"{name}: {src} did not load"
    with subtests.test("every copy button copies its block's runnable copy"):
        # What the build wrote for the block, which test_copies.py runs alone and compares with what it shows.
        for code, clipboard, _ in copy_with_buttons(page):
            assert "pip install" not in clipboard, f"{name}: {code[:200]}"
    with subtests.test("nothing in a box rendered near the screen reaches beyond it"):
        nothing_beyond_its_box(page, name)
    with subtests.test("loads cleanly and requests nothing from other hosts"):
        shot(page, f"{name}-light")
        assert page.errors == [], f"{name}: {page.errors}"
        foreign = [r for r in page.requests if not r.startswith(site_url) and not r.startswith("data:")]
        assert foreign == [], f"{name} requested {foreign}"
    with subtests.test("graph node text is at least 12 px and no graph scrolls in its box"):
        node_text_is_legible(page, name)
        wide = page.locator("a.snippet-graph__open").evaluate_all("all => all.filter(a => a.scrollWidth > a.clientWidth)")
        assert wide == [], f"{name}: a graph scrolls in its box"
    with subtests.test("display formulas do not overlap"):
        formulas_do_not_overlap(page, name)
    with subtests.test("the copy buttons are seen"):
        title_close_and_copy_buttons_seen(page, name)
    with subtests.test("output text reads in full"):
        found = measured(page)
        reads_in_full(found, name)
        wrapped = [row for b in found["blocks"] for row in b["wrappedTensorRows"]]
        assert wrapped == [], f"{name}: tensor rows broken over two lines, their columns out of line"
    with subtests.test("inline code breaks only where code may, never inside a name"):
        page.add_style_tag(content=RENDER_EVERY_BLOCK)
        assert page.evaluate(BROKEN_NAMES) == [], name


@pytest.mark.parametrize("name", PAGES)
def test_a_page_390_px_wide_in_dark(browser, urls, subtests, name):
    page = open_page(browser, urls[name], scheme="dark", width=PHONE)
    with subtests.test("nothing in a box rendered near the screen reaches beyond it"):
        nothing_beyond_its_box(page, name)
    with subtests.test("fits the screen"):
        shot(page, f"{name}-dark-390")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE, f"{name} is {width} px wide"
    with subtests.test("graph node text is at least 12 px"):
        node_text_is_legible(page, name)
    with subtests.test("the title sits by the header and the copy buttons are seen"):
        title_close_and_copy_buttons_seen(page, name)
    with subtests.test("figures fit the column and open full size"):
        for figure in page.evaluate(FIGURES):
            assert figure["shown"] <= figure["column"] + 0.5, f"{name}: {figure['src']} is cut off"
            assert figure["href"] == figure["src"] and "Open full size" in figure["label"], figure
        if page.locator("figure.snippet-figure").count():
            page.locator("figure.snippet-figure").first.scroll_into_view_if_needed()
            screenshot(page, f"figure-390-{name}")
    with subtests.test("display formulas do not overlap"):
        formulas_do_not_overlap(page, name)
    with subtests.test("inline code breaks only where code may, never inside a name"):
        page.add_style_tag(content=RENDER_EVERY_BLOCK)
        assert page.evaluate(BROKEN_NAMES) == [], name
    with subtests.test("shows every output and formula"):
        found = measured(page)
        reads_in_full(found, name)
        for formula in found["formulas"]:
            fits = formula["scrollWidth"] <= formula["clientWidth"]
            assert fits or formula["overflowX"] in ("auto", "scroll"), f"{name}: {formula['tex']!r} is cut off"
            assert formula["partsOutOfView"] == [], f"{name}: {formula['tex']!r} hides {formula['partsOutOfView']}"


@pytest.mark.parametrize("width", [1280, PHONE])
def test_the_boxes_checked_are_of_every_kind(browser, urls, width):
    """The pages that hold them all between them: each kind of box is measured somewhere."""
    measured = set()
    for name in ["custom_functions", "performance", "debugging_gradients", "higher_order"]:
        page = open_page(browser, urls[name], width=width)
        measured |= nothing_beyond_its_box(page, name)
    assert measured == BOX_KINDS


# The page as it would be without the site's rules: output that never wraps, the copy button over the text.
UNRULED = """.md-typeset .snippet-output pre > code { white-space: pre !important; }
.md-typeset .highlight > .filename + pre { position: relative !important; }"""


def test_the_measures_find_output_that_scrolls_and_text_under_a_copy_button(browser, urls):
    page = open_page(browser, urls["autograd_basics"])
    found = measured(page, style=UNRULED)
    assert any("RuntimeError: Trying to backward" in line for line in scrolling(found["blocks"]))
    assert found["covered"], "the copy button lies over the first line of long output"
    assert any(b["text"].startswith("tensor([[") for b in found["blocks"])
    assert found["formulas"]


def test_the_measures_find_a_table_broken_over_screen_lines(browser, urls):
    page = open_page(browser, urls["saving_memory"], width=PHONE)
    found = measured(page, style=".md-typeset .snippet-output pre > code .snippet-columns { white-space: pre-wrap; }")
    assert any(b["wrappedTableRows"] for b in found["blocks"])
