"""Put each table of a page's text in a box of its own, which docs/assets/site.css renders
only when it comes near the screen; and let the code in its cells break only where code may.

Material's script moves every table into a scrolling wrapper once the page is parsed. Moved
straight under the article, it makes the browser restyle the whole article (Material's
stylesheet has rules on an element's next sibling, such as `table + *` and `h2 + h3`), and
the table itself, cells full of typeset math, can be a thousand elements. Moved inside a box
that is not rendered yet, it costs nothing until the reader scrolls to it.
tests/browser/test_browser.py checks that the box is not rendered at load and that rendering it
moves nothing on the page.

On a phone each row is a card of its cells, each named by its column's header (`data-label`,
written here), rather than three columns too narrow for their code, which would break inside
names (hooks/code_breaks.py). tests/browser/test_every_page.py checks every page at 390 px.
"""

import html
import re

TABLE = re.compile(r"<table>\n.*?</table>", re.S)  # as Python-Markdown's tables extension writes one
HEADER = re.compile(r"<th[^>]*>(.*?)</th>", re.S)
ROW = re.compile(r"<tr>(.*?)</tr>", re.S)
CELL = re.compile(r"<td(?=[\s>])")
TAG = re.compile(r"<[^>]+>")
WIDE = 8  # columns: a table with more prints in small type (docs/assets/site.css), to fit the paper


def on_page_content(text, page, config, files):
    def boxed(table):
        labels = [html.escape(html.unescape(TAG.sub("", header)).strip()) for header in HEADER.findall(table[0])]

        def labelled(row):
            cells = iter(labels)
            return "<tr>" + CELL.sub(lambda m: f'<td data-label="{next(cells, "")}"', row[1]) + "</tr>"

        wide = " prose-table--wide" if len(labels) > WIDE else ""
        return f'<div class="prose-table{wide}">{ROW.sub(labelled, table[0])}</div>'

    return TABLE.sub(boxed, text)
