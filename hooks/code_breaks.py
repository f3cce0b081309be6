"""Let inline code break only where code may: before a `.` that starts an attribute and after
an `=` (`x.detach()` / `.cpu()`, `retain_graph=` / `True`), and at its spaces.

A line of text too narrow for a name (on a phone, in a table's cell) would otherwise break it
anywhere (Material's `word-break: break-word`: `loss.requir` / `es_grad`); a `<wbr>` marks each
place it may break instead. Code blocks and printed output (`<pre>`) are left as they are.
tests/test_every_page.py checks every page at 390 px.
"""

import re

CODE = re.compile(r"(<pre[^>]*>)?<code>([^<]*)</code>")  # inline code as Python-Markdown writes it, or a block's
BREAK = re.compile(r"(?<=[\w)\]])(?=\.[A-Za-z_])|(?<==)(?=[^\s=])")  # before .attribute, after =


def on_page_content(html, page, config, files):
    return CODE.sub(lambda m: m[0] if m[1] else f"<code>{BREAK.sub('<wbr>', m[2])}</code>", html)
