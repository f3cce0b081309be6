"""Turn what a snippet produced into the HTML shown under its code block."""

import hashlib
import html
import re

PT_TO_PX = 4 / 3


def render(items, asset_url):
    """HTML for a list of captured items.

    `asset_url(name, data)` stores a file for the built site and returns the
    URL the page uses for it (figures are served as separate SVG files).
    """
    parts, text = [], None
    for item in items:
        kind = item["kind"]
        if kind in ("stdout", "stderr"):
            if text and text["kind"] == kind:
                text["text"] += item["text"]
            else:
                text = {"kind": kind, "text": item["text"]}
                parts.append(text)
            continue
        text = None
        parts.append(item)
    return "\n".join(RENDERERS[p["kind"]](p, asset_url) for p in parts)


def text_block(item, asset_url):
    title = "Output" if item["kind"] == "stdout" else "Printed to stderr"
    return (f'<div class="highlight snippet-output snippet-{item["kind"]}"><span class="filename">{title}</span>'
            f'<pre><code>{html.escape(item["text"].rstrip())}</code></pre></div>')


def warning_block(item, asset_url):
    where = f" (line {item['line']})" if item["line"] else ""
    return (f'<div class="admonition warning snippet-warning"><p class="admonition-title">'
            f'{html.escape(item["category"])}{where}</p><p>{html.escape(item["text"])}</p></div>')


def svg_size(svg):
    """Width and height in CSS pixels, from the SVG's own attributes."""
    def px(name):
        m = re.search(rf'<svg[^>]*?\s{name}="([\d.]+)(pt|px)?"', svg)
        return round(float(m.group(1)) * (PT_TO_PX if m.group(2) == "pt" else 1)) if m else None
    return px("width"), px("height")


def figure_block(item, asset_url):
    data = item["svg"].encode()
    url = asset_url(hashlib.sha256(data).hexdigest()[:16] + ".svg", data)
    width, height = svg_size(item["svg"])
    return (f'<figure class="snippet-figure"><img src="{url}" alt="{html.escape(item["alt"])}" '
            f'width="{width}" height="{height}" loading="lazy"></figure>')


def graph_block(item, asset_url):
    edges = [f"{a} → {b}" for a, b in item["edges"]]
    label = f"Computation graph with {len(item['nodes'])} nodes. Edges: " + "; ".join(edges)
    svg = item["svg"][item["svg"].index("<svg"):]
    svg = re.sub(r"<!--.*?-->\s*|<title>.*?</title>\s*", "", svg, flags=re.S)
    svg = re.sub(r'\s(id|class)="[^"]*"', "", svg)  # several graphs share one page
    return (f'<figure class="snippet-graph"><div class="snippet-graph__svg" role="img" '
            f'aria-label="{html.escape(label)}">{svg}</div>'
            f'<details class="snippet-graph__text"><summary>This graph as text</summary><ul>'
            + "".join(f"<li>{html.escape(e)}</li>" for e in edges)
            + "</ul></details></figure>")


def error_block(message):
    return (f'<div class="admonition failure snippet-error"><p class="admonition-title">'
            f'This snippet failed</p><pre><code>{html.escape(message)}</code></pre></div>')


RENDERERS = {"stdout": text_block, "stderr": text_block, "warning": warning_block,
             "figure": figure_block, "graph": graph_block}
