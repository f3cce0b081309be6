"""Let inline code break only where code may: before a `.` that starts an attribute and after
an `=` (`x.detach()` / `.cpu()`, `retain_graph=` / `True`), at its spaces, and in a part longer
than 20 characters after an underscore between words (`find_unused_` / `parameters=True`, in
a table's narrow column); never after a minus or dash that starts a word (`(-loss)`, `--no-deps`).

A line of text too narrow for a name (on a phone, in a table's cell) would otherwise break it
anywhere (Material's `word-break: break-word`: `loss.requir` / `es_grad`); a `<wbr>` marks each
place it may break instead, and a word led by a `-` is kept whole (docs/assets/site.css), where a
browser would break after a hyphen. Code blocks and printed output (`<pre>`) are left as they are.
tests/browser/test_every_page.py checks every page at 390 px and 1280 px.
"""

import re

CODE = re.compile(r"(<pre[^>]*>)?<code>([^<]*)</code>")  # inline code as Python-Markdown writes it, or a block's
BREAK = re.compile(r"(?<=[\w)\]])(?=\.[A-Za-z_])|(?<==)(?=[^\s=])")  # before .attribute, after =
JOINT = re.compile(r"(?<=[A-Za-z0-9]_)(?=[A-Za-z])")  # find_unused_ / parameters
LONG = 20  # characters: a part this long may break at its joints
LED_BY_A_DASH = re.compile(r"-+\w+")  # -loss, --no, -deps


def breaks(code):
    """Inline code's text with its break points marked and its words led by a dash kept whole."""
    parts = [JOINT.sub("<wbr>", part) if len(part) > LONG else part for part in BREAK.split(code)]
    return LED_BY_A_DASH.sub(r'<span class="code-word">\g<0></span>', "<wbr>".join(parts))


def on_page_content(html, page, config, files):
    return CODE.sub(lambda m: m[0] if m[1] else f"<code>{breaks(m[2])}</code>", html)
