"""What the HTML under a code block is made with: text escaped for a page, SVG checked,
sanitised and stored as a file; and the blocks that say a snippet failed or still runs.
Each kind of output renders itself (kinds/)."""

import hashlib
import html
import re
import xml.etree.ElementTree as ET
from typing import Any

PT_TO_PX = 4 / 3
# Control characters but tab, newline and carriage return; and those that reorder text (bidi).
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
SVG_NS, XLINK_NS = "http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"
ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", XLINK_NS)


def escaped(text: str) -> str:
    """Text as HTML, its control characters shown as Python writes them (\\x07, \\u202e): a terminal
    acts on them, a page would hide them, break, or show the text around them reordered."""
    return html.escape(CONTROL.sub(lambda m: repr(m[0])[1:-1], text))


def svg_size(svg: str) -> tuple[int | None, int | None]:
    """Width and height in CSS pixels, from the SVG's own attributes."""
    def px(name: str) -> int | None:
        m = re.search(rf'<svg[^>]*?\s{name}="([\d.]+)(pt|px)?"', svg)
        return round(float(m.group(1)) * (PT_TO_PX if m.group(2) == "pt" else 1)) if m else None
    return px("width"), px("height")


def svg_file(svg: str, site: Any, data: bytes) -> tuple[str, int | None, int | None]:
    """The URL of `data` (the SVG `svg` as served) stored as a file of the site, and the SVG's size."""
    return (asset(site, data, ".svg"), *svg_size(svg))


def asset(site: Any, data: bytes, suffix: str) -> str:
    """The URL of `data` stored as a file of the site, named by its content."""
    url: str = site.asset_url(hashlib.sha256(data).hexdigest()[:16] + suffix, data)
    return url


def size(width: int | None, height: int | None) -> str:
    """The width and height attributes of an image, those that are known."""
    return "".join(f' {name}="{value}"' for name, value in (("width", width), ("height", height)) if value is not None)


def safe_svg(svg: str, inline: bool = True) -> str:
    """An SVG fit to inline in a page or to open on its own: no scripts, event handlers,
    foreign content or links other than to anchors and web pages. Inline, also no ids,
    classes, comments, styles or titles, which would clash between the graphs of one page."""
    root = ET.fromstring(svg[svg.index("<svg"):])
    removed = ("script", "foreignObject") + (("title", "style") if inline else ())
    for parent in root.iter():
        for child in list(parent):
            if child.tag.split("}")[-1] in removed:
                parent.remove(child)
    for element in root.iter():
        for name, value in list(element.attrib.items()):
            local = name.split("}")[-1]
            link = local == "href" and not re.match(r"\s*(#|https?://)", value, re.I)
            if local.lower().startswith("on") or (inline and local in ("id", "class")) or link:
                del element.attrib[name]
    return ET.tostring(root, encoding="unicode")


def check_svg(svg: str, message: str) -> None:
    """An SVG the page cannot show fails the snippet where it made it: `message` says why."""
    try:
        ET.fromstring(svg[svg.index("<svg"):])
    except (ValueError, ET.ParseError) as err:
        raise ValueError(message.format(err)) from None


def running_block(files: list[str]) -> str:
    """Under a block whose snippet `mkdocs serve` runs in the background."""
    return ('<div class="admonition info snippet-running"><p class="admonition-title">Still running</p>'
            f"<p>{html.escape(', '.join(files))} is still running: the page reloads with its output "
            "when it ends.</p></div>")


def error_block(title: str, message: str) -> str:
    return (f'<div class="admonition failure snippet-error"><p class="admonition-title">'
            f'{html.escape(title)}</p><pre><code>{escaped(message)}</code></pre></div>')
