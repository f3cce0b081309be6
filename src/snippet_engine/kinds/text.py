"""Printed text (a stream), and an object display() shows as text: an "Output" block."""

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


def render(out: dict[str, Any], site: Any, block: Any) -> str:
    name = out.get("name", "stdout")
    title = "Output" if name == "stdout" else "Printed to stderr"
    text = out["text"] if "text" in out else out["data"]["text/plain"]
    return (f'<div class="highlight snippet-output snippet-{name}"><span class="filename">{title}</span>'
            f'<pre><code>{escaped(text.rstrip())}</code></pre></div>')


KIND = Kind("text", matches, render, joined=joined)
