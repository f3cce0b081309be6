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


def printable(text: str) -> str:
    """Text with its control characters shown as Python writes them (\\x07, \\u202e): a terminal
    acts on them, a page would hide them, break, or show the text around them reordered."""
    return CONTROL.sub(lambda m: repr(m[0])[1:-1], text)


def escaped(text: str) -> str:
    """Text as HTML, `printable`."""
    return html.escape(printable(text))


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


# What an SVG may hold, an allow-list: the elements and attributes that draw (those of
# matplotlib's figures, Graphviz's graphs and the step-through's, and the rest of SVG's shapes,
# text, paint servers, clips and markers), the step-through's data-* attributes, and links.
# Not scripts, animation (which can set a link to javascript:), foreign or HTML content, or
# anything in another namespace (a figure's RDF metadata).
SVG_ELEMENTS = frozenset({
    "svg", "g", "defs", "symbol", "use", "switch", "a", "title", "desc", "style",
    "path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "image",
    "text", "tspan", "textPath", "clipPath", "mask", "pattern", "marker",
    "linearGradient", "radialGradient", "stop"})
SVG_ATTRIBUTES = frozenset("""
    id class style type version viewBox preserveAspectRatio transform x y x1 y1 x2 y2 cx cy r rx ry
    width height d points pathLength fill fill-opacity fill-rule stroke stroke-width stroke-opacity
    stroke-linecap stroke-linejoin stroke-miterlimit stroke-dasharray stroke-dashoffset opacity
    clip-path clip-rule clipPathUnits mask maskUnits maskContentUnits color display visibility
    overflow shape-rendering text-rendering image-rendering vector-effect font-family font-size
    font-weight font-style font-variant font-stretch text-anchor dominant-baseline
    alignment-baseline baseline-shift letter-spacing word-spacing text-decoration writing-mode dx
    dy rotate textLength lengthAdjust startOffset href target space markerWidth markerHeight refX
    refY orient markerUnits marker-start marker-mid marker-end gradientUnits gradientTransform
    offset stop-color stop-opacity fx fy spreadMethod patternUnits patternContentUnits
    patternTransform""".split())
NAMESPACES = (SVG_NS, XLINK_NS, "http://www.w3.org/XML/1998/namespace")
# Where a link may go: an anchor, a web page, or (an image) a picture given as a data: URL.
LINK = re.compile(r"#|https?://|data:image/(png|jpeg|gif|webp)[;,]", re.I)
SCRIPT_URL = re.compile(r"(java|vb)script:|data:text/html", re.I)


def safe_svg(svg: str, inline: bool = True) -> str:
    """An SVG fit to inline in a page or to open on its own: the elements and attributes of the
    allow-list (`SVG_ELEMENTS`, `SVG_ATTRIBUTES`, `data-*`), links to anchors and web pages only,
    no value that names a script URL. Inline, also no ids, classes, comments, styles or titles,
    which would clash between the graphs of one page."""
    root = ET.fromstring(svg[svg.index("<svg"):])

    def allowed(name: str, kinds: frozenset[str]) -> bool:
        space, _, local = name.rpartition("}")
        return local in kinds and space.lstrip("{") in ("", *NAMESPACES)

    for parent in root.iter():
        for child in list(parent):
            if not allowed(child.tag, SVG_ELEMENTS) or (inline and child.tag.endswith(("title", "style"))):
                parent.remove(child)
    for element in root.iter():
        for name, value in list(element.attrib.items()):
            local, plain = name.rpartition("}")[2], re.sub(r"[\x00-\x20]", "", value)
            keep = (allowed(name, SVG_ATTRIBUTES) or re.fullmatch(r"data-[\w-]+", name)) and not (
                inline and local in ("id", "class")) and not SCRIPT_URL.search(plain)
            if not keep or (local == "href" and not LINK.match(plain)):
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
