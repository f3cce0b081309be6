"""Printed text (a stream), and an object display() shows as text: an "Output" block.

Text wraps at the edge of its box (docs/assets/site.css), but the lines of a table keep their
columns: where two or more lines have columns (two spaces or more between words), each such line
is a `snippet-columns` span, which does not wrap, and the block scrolls sideways as code does.
Two spaces are not columns after a sentence's end (`parameters.  This flag`, as PyTorch's C++
messages write it), between the words of a sentence (`autograd engine  hooks have fired`,
`every iteration,  which can`), or after the prefix of a line of torch's log
(`W1207 14:38:44.854000 24905 file.py:1759] [0/0]    `):
those lines are prose, and wrap.
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


GAP = re.compile(r"\S {2,}\S")
SENTENCE_END = re.compile(r"[.!?] {2,}[A-Z(]")
IN_A_SENTENCE = re.compile(r"(?:[A-Za-z]+ ){2}[A-Za-z]+[,;]? {2,}[A-Za-z]+ [A-Za-z]+\b")
# The prefix of a line of torch's log: level, date, time, process, the file that logs, its frame
# (`W1203 17:15:39.295000 14941 torch/_dynamo/variables/tensor.py:1759] [0/0] `).
TORCH_LOG = re.compile(r"^[IWEF]\d{4} [\d:.]+ +\d+ \S+:\d+\] (\[[\d/]+\] )?", re.M)


def has_columns(line: str) -> bool:
    """Whether two spaces or more between words in the line set columns apart (module docstring)."""
    text = TORCH_LOG.sub("", line)
    prose = [m.span() for m in IN_A_SENTENCE.finditer(text)]
    return any(not SENTENCE_END.match(text, gap.start()) and not any(a <= gap.start() < b for a, b in prose)
               for gap in GAP.finditer(text))


def lines_html(text: str) -> str:
    """The text as HTML, the lines of a table in spans of their own."""
    lines = text.split("\n")
    table = [has_columns(line) for line in lines]
    if sum(table) < 2:
        return escaped(text)
    return "\n".join(f'<span class="snippet-columns">{escaped(line)}</span>' if row else escaped(line)
                     for line, row in zip(lines, table))


def render(out: dict[str, Any], site: Any, block: Any) -> str:
    name = out.get("name", "stdout")
    title = "Output" if name == "stdout" else "Printed to stderr"
    text = out["text"] if "text" in out else out["data"]["text/plain"]
    return (f'<div class="highlight {KIND.box} snippet-{name}"><span class="filename">{title}</span>'
            f'<pre><code>{lines_html(text.rstrip())}</code></pre></div>')


KIND = Kind("text", matches, render, "snippet-output", joined=joined,
            assets={"text.css": Path(__file__).with_name("text.css")})
