"""Reading every block of the built site at a desktop width (1280 px) and a phone width (390 px).

Each page is measured with every fold open and every content tab shown, so that
hidden blocks are measured too. The rule the site's stylesheet follows, and
these tests check:

- Output text wraps at the edge of its box, so an error, a warning, a message
  or text printed to stderr reads in full without sideways scrolling; PyTorch's
  tensor printouts (at most 80 characters a line) keep one screen line per
  printed line at 1280 px, so their columns stay aligned.
- The page never scrolls sideways; a display formula too wide for the column
  breaks after a relation or an operator, and what still does not fit scrolls
  inside the formula's own box.
- A block's copy button covers none of the block's text.
"""

import pytest
from browsing import PAGES, RENDER_EVERY_BLOCK, open_page

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

    // The screen lines each printed line of a <code> takes (its text is one text node per output).
    const screenLines = code => {
        const found = [];
        let offset = 0;
        for (const node of code.childNodes) {
            if (node.nodeType !== Node.TEXT_NODE) return null;
            for (const line of node.data.split('\n')) {
                if (line.trim()) {
                    const tops = new Set(rectsOf(node, offset, offset + line.length).map(r => Math.round(r.top)));
                    found.push({line, count: tops.size});
                }
                offset += line.length + 1;
            }
        }
        return found;
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
            scrollWidth: box.scrollWidth, clientWidth: box.clientWidth,
            wrappedTensorRows: lines ? lines.filter(l => tensorRow.test(l.line) && l.count > 1).map(l => l.line) : [],
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


def measured(browser, urls, name, width, scheme, style=""):
    page = open_page(browser, urls[name], scheme=scheme, width=width)
    page.add_style_tag(content=RENDER_EVERY_BLOCK)
    if style:
        page.add_style_tag(content=style)
    found = page.evaluate(MEASURE)
    page.context.close()
    return found


def must_read_in_full(block):
    """Errors, warnings, stderr, and printed output with a sentence in it."""
    return block["kind"] != "stdout" or block["prose"]


def scrolling(blocks):
    return [f'{b["kind"]} {b["scrollWidth"]} px in {b["clientWidth"]} px: {b["text"]!r}' for b in blocks
            if must_read_in_full(b) and b["scrollWidth"] > b["clientWidth"]]


@pytest.mark.parametrize("name", PAGES)
def test_output_text_reads_in_full_at_1280_px(browser, urls, name):
    found = measured(browser, urls, name, 1280, "light")
    assert scrolling(found["blocks"]) == [], f"{name}: output that scrolls sideways"
    wrapped = [row for b in found["blocks"] for row in b["wrappedTensorRows"]]
    assert wrapped == [], f"{name}: tensor rows broken over two lines, their columns out of line"
    assert found["covered"] == [], f"{name}: text under a copy button"
    assert found["page"] <= found["inner"], f"{name} is {found['page']} px wide"


@pytest.mark.parametrize("name", PAGES)
def test_a_390_px_screen_shows_every_output_and_formula(browser, urls, name):
    found = measured(browser, urls, name, 390, "dark")
    assert found["page"] <= found["inner"], f"{name} is {found['page']} px wide"
    assert scrolling(found["blocks"]) == [], f"{name}: output that scrolls sideways"
    for formula in found["formulas"]:
        fits = formula["scrollWidth"] <= formula["clientWidth"]
        assert fits or formula["overflowX"] in ("auto", "scroll"), f"{name}: {formula['tex']!r} is cut off"
        assert formula["partsOutOfView"] == [], f"{name}: {formula['tex']!r} hides {formula['partsOutOfView']}"
    assert found["covered"] == [], f"{name}: text under a copy button"


# The page as it would be without the site's rules: output that never wraps, the copy button over the text.
UNRULED = """.md-typeset .snippet-output pre > code { white-space: pre !important; }
.md-typeset .highlight > .filename + pre { position: relative !important; }"""


def test_the_measures_find_output_that_scrolls_and_text_under_a_copy_button(browser, urls):
    found = measured(browser, urls, "autograd_basics", 1280, "light", style=UNRULED)
    assert any("RuntimeError: Trying to backward" in line for line in scrolling(found["blocks"]))
    assert found["covered"], "the copy button lies over the first line of long output"
    assert any(b["text"].startswith("tensor([[") for b in found["blocks"])
    assert found["formulas"]
