"""Put each table of a page's text in a box of its own, which docs/assets/site.css renders
only when it comes near the screen.

Material's script moves every table into a scrolling wrapper once the page is parsed. Moved
straight under the article, it makes the browser restyle the whole article (Material's
stylesheet has rules on an element's next sibling, such as `table + *` and `h2 + h3`), and
the table itself, cells full of typeset math, can be a thousand elements. Moved inside a box
that is not rendered yet, it costs nothing until the reader scrolls to it.
tests/test_browser.py checks that the box is not rendered at load and that rendering it
moves nothing on the page.
"""

import re

TABLE = re.compile(r"<table>\n.*?</table>", re.S)  # as Python-Markdown's tables extension writes one


def on_page_content(html, page, config, files):
    return TABLE.sub(lambda m: f'<div class="prose-table">{m[0]}</div>', html)
