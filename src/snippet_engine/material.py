"""What Material for MkDocs does to a page in the browser, done once at build time instead."""

import itertools
import re

# A code block as Material finds it (`pre:not(.mermaid) > code`), with its line spans if it has them.
CODE_BLOCK = re.compile(r'(<pre(?![^>]*\bmermaid\b)[^>]*>(?:<span></span>)?)<code>(?=(<span id="__span)?)')


def with_copy_buttons(page: str) -> str:
    """Every code block's copy button, written as Material's `content.code.copy` would add it.

    Material adds the button in the browser, block after block, reading each block's
    size after changing it: on a page of 50 code blocks that lays the whole page out 50
    times and blocks a phone for seconds. Written here, with the class Material adds to
    a block of line spans, Material's code blocks find nothing to change, and its
    clipboard (which listens on the whole document) copies the block's `data-copy`."""
    count = itertools.count(1)

    def button(m: re.Match[str]) -> str:
        n = next(count)
        lines = ' class="md-code__content"' if m[2] else ""
        return (f'{m[1]}<nav class="md-code__nav"><button class="md-code__button" title="Copy to clipboard" '
                f'data-clipboard-target="#__copy_{n}" data-md-type="copy"></button></nav>'
                f'<code id="__copy_{n}"{lines}>')

    return CODE_BLOCK.sub(button, page)
