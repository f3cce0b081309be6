"""What the browser tests share: opening a page of the built site in Chromium (Playwright), pressing
a button as a reader does, and full-page screenshots (`make screenshots` keeps them in
test-artifacts/screenshots/ for a person to look at). The fixtures (the served site, the
browser, every page's URL) are in conftest.py."""

import os

from conftest import CHAPTERS, ROOT

from snippet_engine import kinds

SHOTS = ROOT / "test-artifacts" / "screenshots"
# The browser renders a block when it comes near the screen (docs/assets/site.css); this renders all.
RENDER_EVERY_BLOCK = ".md-typeset * { content-visibility: visible !important }"
RENDERED = "e => e.checkVisibility({contentVisibilityAuto: true})"  # false where content-visibility skips it
TWO_FRAMES = "new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"  # rendered by then
PHONE = 390  # px: the phone width the browser tests read pages at
PAGES = ["home", "notebooks", "errors", *CHAPTERS, *(f"notebooks/{chapter}" for chapter in CHAPTERS)]


# The tab of each set of settings, shared by the tests that open pages with them: a new tab
# costs more than loading a page in it (about 1.2 s of CPU here against 0.55 s).
TABS = {}


def open_page(browser, url, scheme="light", width=1280, height=900, **options):
    """A loaded page, with the console errors and the requests it made; `options` go to the
    browser context. Pages opened with the same settings are loaded in one tab, as a new document
    with the site's storage emptied and the mouse moved off the page: what a test did to the page
    before is gone, but for the browser's cache of the site's files."""
    key = (browser, scheme, width, height, repr(sorted(options.items())))
    page = TABS.get(key)
    if page is None or page.is_closed():
        context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme, **options)
        page = TABS[key] = context.new_page()
        page.scripts = options.get("java_script_enabled", True)
        page.on("console", lambda m: m.type == "error" and page.errors.append(m.text))
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.on("request", lambda r: page.requests.append(r.url))
        page.on("response", lambda r: r.status >= 400 and page.errors.append(f"{r.status} {r.url}"))
    else:
        page.evaluate("() => { try { localStorage.clear(); sessionStorage.clear(); } catch {} }")
        page.mouse.move(0, 0)
    page.errors, page.requests = [], []
    page.goto(url, wait_until="load")
    return page


# Resolves once the element has kept its place on screen for five frames in a row.
AT_REST = """async e => {
    let place = null, same = 0;
    while (same < 5) {
        await new Promise(done => requestAnimationFrame(done));
        const r = e.getBoundingClientRect(), now = [r.x, r.y, r.width, r.height].join();
        same = now === place ? same + 1 : 0;
        place = now;
    }
}"""


def press(button):
    """Click a button as a reader does: scrolled to, and at rest when clicked. Blocks that come
    near the screen are rendered then (docs/assets/site.css), and a block rendered above the
    screen at its real height moves what is below it: wait until the button has kept its place
    for five frames, watched in the page (one round trip), or where the page runs no scripts
    (open_page's `java_script_enabled=False`), for five looks from here, 20 ms apart."""
    button.scroll_into_view_if_needed()
    if button.page.scripts:
        button.evaluate(AT_REST)
    else:
        place, same = None, 0
        while same < 5:
            button.page.wait_for_timeout(20)
            box = button.bounding_box()
            same, place = (same + 1 if box == place else 0), box
    button.click()


def shot(page, name):
    """The whole page rendered: lazy images loaded and every block rendered (the browser renders a
    block when it comes near the screen, and a full-page screenshot does not scroll); then, with
    SCREENSHOTS=1 (`make screenshots`), a full-page screenshot for a person to look at (some 3 s
    a page, which `make test` does not spend)."""
    page.add_style_tag(content=RENDER_EVERY_BLOCK)
    page.evaluate("document.querySelectorAll('img[loading=lazy]').forEach(i => i.loading = 'eager')")
    page.wait_for_function("[...document.images].every(i => i.complete)")
    screenshot(page, name, full_page=True)


def screenshot(page, name, **options):
    """With SCREENSHOTS=1 (`make screenshots`), a screenshot of the page for a person to look at."""
    if os.environ.get("SCREENSHOTS"):
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=SHOTS / f"{name.replace('/', '_')}.png", **options)


CLIPBOARD = ["clipboard-read", "clipboard-write"]
COPY_BUTTON = "button.md-clipboard, button.md-code__button"
OUTPUT_BOXES = ", ".join(f".{kind.box}" for kind in kinds.KINDS)  # what a page shows under a block

# Open the folds around a block and select the content tab that holds it, as a reader would;
# read the block's code (its textContent: the block's line spans are grid items, and innerText
# would put a blank line after each), the text of the "Output" blocks under it and the copy the
# build wrote for it; bring the block's copy button on screen and return where its middle is.
REVEAL_AND_READ = """async b => {
    for (let d = b.closest('details'); d; d = d.parentElement.closest('details')) d.open = true;
    const tab = b.closest('.tabbed-block');
    if (tab) {
        const index = [...tab.parentElement.children].indexOf(tab);
        tab.closest('.tabbed-set').querySelectorAll(':scope > input')[index].click();
    }
    let shown = "", next = b.nextElementSibling;
    while (next && next.matches(OUTPUT_BOXES)) {
        if (next.matches(".snippet-stdout")) shown += next.querySelector("code").innerText + "\\n";
        next = next.nextElementSibling;
    }
    const button = b.querySelector(COPY_BUTTON);
    button.scrollIntoView({block: 'center', behavior: 'instant'});
    const r = button.getBoundingClientRect();
    return [b.querySelector("code").textContent, shown, b.dataset.copy, r.x + r.width / 2, r.y + r.height / 2];
}""".replace("COPY_BUTTON", repr(COPY_BUTTON)).replace("OUTPUT_BOXES", repr(OUTPUT_BOXES))

# REVEAL_AND_READ and a click on each block's copy button, in the page: [code, what the click
# copied, shown, the copy written, what lies over the button's middle ("" where the button is on
# top)]. The button's handler (Material's clipboard.js) selects the text in a textarea of its
# own and copies it at once with the browser's copy command, whose `copy` event tells what it
# copies: the selection. Read there, no block waits for the system clipboard (two round trips
# to the browser each), which the last block of the page is read from (`copy_with_buttons`).
PRESS_ALL = """async blocks => {
    const reveal = REVEAL_AND_READ, found = [];
    let copied = "";
    const selection = e => {
        const t = e.target;
        copied = t instanceof HTMLTextAreaElement ? t.value.slice(t.selectionStart, t.selectionEnd)
                                                  : String(document.getSelection());
    };
    document.addEventListener('copy', selection, true);
    try {
        for (const b of blocks) {
            const [code, shown, wrote, x, y] = await reveal(b);
            const button = b.querySelector(COPY_BUTTON), hit = document.elementFromPoint(x, y);
            copied = "";
            button.click();
            found.push([code, copied, shown, wrote, button.contains(hit) ? "" : hit ? hit.outerHTML.slice(0, 80) : "nothing"]);
        }
    } finally {
        document.removeEventListener('copy', selection, true);
    }
    return found;
}""".replace("REVEAL_AND_READ", REVEAL_AND_READ).replace("COPY_BUTTON", repr(COPY_BUTTON))

# Every block rendered and every image loaded, until the style element it returns is removed:
# meanwhile nothing on the page changes its height as the page scrolls.
HOLD_STILL = """style => {
    const sheet = document.createElement('style');
    sheet.textContent = style;
    document.head.append(sheet);
    document.querySelectorAll('img[loading=lazy]').forEach(i => i.loading = 'eager');
    return sheet;
}"""


def copy_blocks(page):
    """The snippets' code blocks a reader can see on a page: those shown, and those in a fold or a
    content tab, which the reader opens. The home page shows its step-through's code in the
    viewer only: the block itself is hidden there."""
    blocks = page.locator(".md-content div.highlight[data-copy]").element_handles()
    reachable = page.evaluate("bs => bs.map(b => b.checkVisibility() || !!b.closest('details, .tabbed-block'))", blocks)
    return [block for block, shown in zip(blocks, reachable) if shown]


def copy_with_buttons(page, last=False):
    """[(block text, clipboard, shown output)] of the page's code blocks (or of its last one),
    each copied with its button. Each must copy what the build wrote for the block (`data-copy`,
    which test_copies.py runs), and nothing may lie over the middle of a button. The last
    block's button is pressed with the mouse, on its middle, so that what lay over it would take
    the click, and its copy is read from the system clipboard; the others in one script in the
    page (`PRESS_ALL`: one round trip for the page, not three for each block), each brought on
    screen, the element at its middle checked to be the button, then clicked, and what it copied
    read from the copy command's event.

    A block that comes near the screen is rendered then (docs/assets/site.css), and one rendered
    above the screen at its real height would move the button below it after it was found: while
    the buttons are pressed, every block is rendered and every image loaded, so that nothing
    moves. The layout is the same as a reader's, who scrolled there (test_browser.py:
    test_blocks_render_when_scrolled_to_and_lay_out_as_if_always_rendered); the folds opened and
    the tabs chosen stay so afterwards, the rendering of every block does not."""
    sheet = page.evaluate_handle(HOLD_STILL, RENDER_EVERY_BLOCK)
    page.wait_for_function("[...document.images].every(i => i.complete)")
    blocks = copy_blocks(page)
    pressed = [] if last else page.evaluate(PRESS_ALL, blocks[:-1])
    for code, shown, wrote, x, y in [block.evaluate(REVEAL_AND_READ) for block in blocks[-1:]]:
        page.evaluate("navigator.clipboard.writeText('')")
        page.mouse.click(x, y)
        pressed.append([code, page.evaluate("navigator.clipboard.readText()"), shown, wrote, ""])
    sheet.evaluate("sheet => sheet.remove()")
    for code, clipboard, _, wrote, covered in pressed:
        assert not covered, f"{page.url}: the copy button of\n{code[:300]}\nis under {covered}"
        assert clipboard and clipboard.rstrip("\n") == wrote.rstrip("\n"), f"{page.url}: the copy button of\n{code[:300]}"
    return [(code, clipboard, shown) for code, clipboard, shown, *_ in pressed]


# The viewer's state, once drawn: its step counter; what is wrong with the Next button, the
# step's text, the highlighted line of code or a current node (off screen, or something drawn
# over its centre); how many current nodes are wrong so; whether Next can still be pressed, and
# where the middle of the button is.
STEP_ON_SCREEN = """async viewer => {
  await TWO_FRAMES;
  const next = viewer.querySelector(".snippet-steps__controls button[data-go='1']");
  const text = viewer.querySelector(".snippet-steps__description");
  const lines = viewer.querySelectorAll(".snippet-steps__code .is-current");
  // the current node, or in a graph collapsed by module its module's box: those on show
  const nodes = [...viewer.querySelectorAll("svg [data-node].is-current, svg [data-module].is-current")]
    .filter(e => e.getBoundingClientRect().width > 0);
  const wrong = e => {
    const r = e.getBoundingClientRect(), hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
    const out = r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth;
    return out ? "off screen" : !hit ? "nothing at its centre" : e.contains(hit) ? "" : "covered by " + hit.outerHTML.slice(0, 80);
  };
  const r = next.getBoundingClientRect(), box = viewer.querySelector(".snippet-steps__graph");
  const spans = nodes.map(e => e.getBoundingClientRect());
  const span = (a, b) => Math.max(...spans.map(s => s[b])) - Math.min(...spans.map(s => s[a]));
  return {counter: viewer.querySelector(".snippet-steps__counter").textContent,
          spread: spans.length > 1 && (span("top", "bottom") > box.clientHeight || span("left", "right") > box.clientWidth),
          lines: lines.length, nodes: nodes.length, last: next.getAttribute("aria-disabled") === "true",
          wrong: [next, text, ...lines, ...nodes].map(e => [e, wrong(e)]).filter(([, what]) => what)
                                           .map(([e, what]) => `${e.outerHTML.slice(0, 60)}: ${what}`),
          nodesWrong: [...nodes].filter(e => wrong(e)).length,
          x: r.x + r.width / 2, y: r.y + r.height / 2};
}""".replace("TWO_FRAMES", TWO_FRAMES)
