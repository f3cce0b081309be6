"""Printed text (a stream), and an object display() shows as text: an "Output" block.

Text wraps at the edge of its box (docs/assets/site.css), but the lines of a table keep their
columns: where two or more lines have columns (two spaces or more between words), each such line
is a `snippet-columns` span, which does not wrap, and the block scrolls sideways as code does.
"""

import re
from pathlib import Path
from typing import Any

from snippet_engine.kinds.kind import Kind
from snippet_engine.render import escaped


def matches(out: dict[str, Any]) -> bool:
    return out["output_type"] == "stream" or "text/plain" in out.get("data", {})


def joined(last: dict[str, Any], out: dict[str, Any]) -> dict[str, Any] | None:
    """Two prints in a row to one stream, as one output."""
    if out["output_type"] == last["output_type"] == "stream" and last["name"] == out["name"]:
        return {**last, "text": last["text"] + out["text"]}
    return None


COLUMNS = re.compile(r"\S {2,}\S")


def lines_html(text: str) -> str:
    """The text as HTML, the lines of a table in spans of their own."""
    lines = text.split("\n")
    if sum(bool(COLUMNS.search(line)) for line in lines) < 2:
        return escaped(text)
    return "\n".join(f'<span class="snippet-columns">{escaped(line)}</span>' if COLUMNS.search(line) else escaped(line)
                     for line in lines)


def render(out: dict[str, Any], site: Any, block: Any) -> str:
    name = out.get("name", "stdout")
    title = "Output" if name == "stdout" else "Printed to stderr"
    text = out["text"] if "text" in out else out["data"]["text/plain"]
    return (f'<div class="highlight {KIND.box} snippet-{name}"><span class="filename">{title}</span>'
            f'<pre><code>{lines_html(text.rstrip())}</code></pre></div>')


KIND = Kind("text", matches, render, "snippet-output", joined=joined,
            assets={"text.css": Path(__file__).with_name("text.css")})
