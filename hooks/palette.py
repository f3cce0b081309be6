"""Run Material's light / dark toggle where the header is parsed, before the page's content.

Material's palette component starts after the whole page is parsed, and three of
its steps make the browser restyle every element of the page: it marks <body>
with `data-md-color-switching` (a stylesheet rule applies to every element under
that attribute), removes the mark again, and adds a `color-scheme` meta element
(any change to one restyles the whole document). On a chapter that is most of
the main thread's blocking time at load. hooks/palette.js does the same work as
the component (the colours from the stored choice, or from the first palette
whose media query matches; the toggle that is shown; the stored choice; the
`theme-color` and `color-scheme` metas; the change and Enter-key handlers) as an
inline script right after Material's palette form, when only the header exists
and restyling costs nothing. Material does not start its own component on the
form, since the form no longer carries `data-md-component="palette"`.
tests/test_browser.py presses the toggle, and checks that after the header no
script changes <body>'s attributes or the head's meta elements.
"""

from pathlib import Path

from mkdocs.exceptions import PluginError

FORM = '<form class="md-header__option" data-md-component="palette">'
SCRIPT = "<script>" + Path(__file__).with_name("palette.js").read_text() + "</script>"


def early_palette(output, name):
    head, found, rest = output.partition(FORM)
    if not found:
        raise PluginError(f"hooks/palette.py: {name} has no palette form ({FORM}); did Material's header change?")
    form, end, tail = rest.partition("</form>")
    return head + '<form class="md-header__option">' + form + end + SCRIPT + tail


def on_post_page(output, page, config):
    return early_palette(output, page.file.src_uri)


def on_post_template(output, template_name, config):
    return early_palette(output, template_name) if template_name == "404.html" else output
