"""Snippet outputs (nbformat shapes) and failures as the HTML under a code block.

Each kind of output has one renderer; `RENDERERS` picks it by output type
and MIME type, most specific first. A renderer is called with the output, the
site (`outputs_html`) and the block the output is under.
"""

import hashlib
import html
import re
import xml.etree.ElementTree as ET

from autograd_steps import view as steps_view
from snippet_engine.scrapers import GRAPH, STEPS, WARNING

PT_TO_PX = 4 / 3
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")  # but tab, newline and carriage return
SVG_NS, XLINK_NS = "http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"
ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", XLINK_NS)


def merged(outputs):
    """Adjacent text of the same stream as one output (lines of a block print one after another),
    and adjacent identical warnings as one that counts them."""
    result: list[dict] = []
    for out in outputs:
        last = result[-1] if result else None
        if out["output_type"] == "stream" and last and last["output_type"] == "stream" and last["name"] == out["name"]:
            result[-1] = {**last, "text": last["text"] + out["text"]}
        elif WARNING in out.get("data", {}) and last and last.get("data", {}).get(WARNING) == out["data"][WARNING]:
            result[-1] = {**last, "times": last.get("times", 1) + 1}
        else:
            result.append(out)
    return result


def outputs_html(outputs, site, block=None):
    """HTML for a list of outputs. `site.asset_url(name, data)` stores a file for the built
    site and returns the URL the page uses for it (figures are separate SVG files);
    `site.after_search(html)` returns a placeholder for HTML that the search index
    should not parse (an inline graph is thousands of tags), put in after it has.
    `block` maps (snippet file name, line in it) to the line of the code block above
    the outputs, for the lines that block shows; None where the outputs are under no
    snippet's block."""
    return "\n".join(renderer(out)(out, site, block) for out in merged(outputs))


def renderer(out):
    data = out.get("data", {})
    for test, render in RENDERERS:
        if test(out, data):
            return render
    raise ValueError(f"no renderer for output {sorted(data) or out['output_type']}")


def escaped(text):
    """Text as HTML, its control characters shown as Python writes them (\\x07): a terminal acts on
    them, a page would hide them or break."""
    return html.escape(CONTROL.sub(lambda m: f"\\x{ord(m[0]):02x}", text))


def text_block(out, site, block):
    name = out.get("name", "stdout")
    title = "Output" if name == "stdout" else "Printed to stderr"
    text = out["text"] if "text" in out else out["data"]["text/plain"]
    return (f'<div class="highlight snippet-output snippet-{name}"><span class="filename">{title}</span>'
            f'<pre><code>{escaped(text.rstrip())}</code></pre></div>')


def warning_block(out, site, block):
    """A warning in full the first time a page shows it; after that, its first sentence."""
    warning = out["data"][WARNING]
    times = {1: "", 2: " (twice)"}.get(out.get("times", 1), f" ({out.get('times')} times)")
    message = warning["message"]
    if not site.first_time((warning["category"], message)):
        message = "The same warning as above: " + re.split(r"(?<=\.)\s", message, maxsplit=1)[0]
    return (f'<div class="admonition warning snippet-warning"><p class="admonition-title">'
            f'{html.escape(warning["category"])}{times}</p><p>{html.escape(message)}</p></div>')


def svg_size(svg):
    """Width and height in CSS pixels, from the SVG's own attributes."""
    def px(name):
        m = re.search(rf'<svg[^>]*?\s{name}="([\d.]+)(pt|px)?"', svg)
        return round(float(m.group(1)) * (PT_TO_PX if m.group(2) == "pt" else 1)) if m else None
    return px("width"), px("height")


def svg_file(svg, site, data):
    """The URL of `data` (the SVG `svg` as served) stored as a file of the site, and the SVG's size."""
    return (site.asset_url(hashlib.sha256(data).hexdigest()[:16] + ".svg", data), *svg_size(svg))


def figure_block(out, site, block):
    """A figure as its SVG file, which the page shows with <img> (no script of an image runs) and
    which opens alone on the site's origin: sanitised all the same."""
    svg = out["data"]["image/svg+xml"]
    url, width, height = svg_file(svg, site, safe_svg(svg, inline=False).encode())
    alt = out["data"].get("text/plain", "Figure")
    return (f'<figure class="snippet-figure"><img src="{url}" alt="{html.escape(alt)}" '
            f'width="{width}" height="{height}" loading="lazy"></figure>')


def safe_svg(svg, inline=True):
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


def graph_block(out, site, block):
    """A graph as its SVG file at its own size, its text as large as Graphviz set it; a
    link that opens the file alone, where it shows whole and zooms like any picture.
    Below it, the nodes as a nested list in the order backward visits them."""
    graph = out["data"][GRAPH]
    svg = out["data"]["image/svg+xml"]
    url, width, height = svg_file(svg, site, safe_svg(svg).encode())
    return (f'<figure class="snippet-graph"><a class="snippet-graph__open" href="{url}">'
            f'<img src="{url}" alt="Computation graph with {len(graph["nodes"])} nodes" '
            f'width="{width}" height="{height}" loading="lazy"><span>Open full size</span></a>'
            f'<details class="snippet-graph__text"><summary>This graph as text</summary>'
            f'{nested_list(graph["backward"])}</details></figure>')


def nested_list(items):
    """Items {"text", "children"} as nested lists."""
    return "<ul>" + "".join(f"<li>{html.escape(i['text'])}{nested_list(i['children']) if i['children'] else ''}"
                            "</li>" for i in items) + "</ul>"


def steps_block(out, site, block):
    """The step-through viewer (autograd_steps.view), its graph sanitised; all of it after search."""
    steps = out["data"][STEPS]
    return site.after_search(steps_view.viewer(steps, safe_svg(steps["svg"]), block))


def running_block(files):
    """Under a block whose snippet `mkdocs serve` runs in the background."""
    return ('<div class="admonition info snippet-running"><p class="admonition-title">Still running</p>'
            f"<p>{html.escape(', '.join(files))} is still running: the page reloads with its output "
            "when it ends.</p></div>")


def error_block(title, message):
    return (f'<div class="admonition failure snippet-error"><p class="admonition-title">'
            f'{html.escape(title)}</p><pre><code>{escaped(message)}</code></pre></div>')


RENDERERS = [
    (lambda out, data: out["output_type"] == "stream", text_block),
    (lambda out, data: WARNING in data, warning_block),
    (lambda out, data: STEPS in data, steps_block),
    (lambda out, data: GRAPH in data, graph_block),
    (lambda out, data: "image/svg+xml" in data, figure_block),
    (lambda out, data: "text/plain" in data, text_block),
]
