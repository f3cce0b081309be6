"""Where pages include snippets, and which lines of a snippet an include shows.

A page includes a snippet in a fence of its own, the pymdownx.snippets way:
`--8<-- "chapter/file.py"` (the whole file), `"chapter/file.py:name"` (the
lines between `# --8<-- [start:name]` and `# --8<-- [end:name]`) or
`"chapter/file.py:3:9"` (a line range).
"""

import re
from dataclasses import dataclass
from pathlib import Path

FENCE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)\n(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$",
    re.M | re.S,
)
INCLUDE = re.compile(r'^\s*--8<--\s+"(?P<file>[^":]+\.py)(?::(?P<select>[^"]+))?"\s*$')
MARKER = re.compile(r"--8<-- \[(start|end):(\w+)\]")


@dataclass
class Include:
    file: str  # as written on the page, relative to snippets/
    select: str | None
    path: Path


def includes_in(fence, snippets_dir):
    """The Python snippets one fence (a FENCE match) includes."""
    return [Include(m["file"], m["select"], Path(snippets_dir) / m["file"])
            for line in fence["body"].splitlines() if (m := INCLUDE.match(line))]


def fences(markdown, snippets_dir):
    """(fence match, includes) for every fence in the page that includes a Python snippet."""
    for fence in FENCE.finditer(markdown):
        if found := includes_in(fence, snippets_dir):
            yield fence, found


def line_range(path, select):
    """The (first, last) lines an include shows; (None, None) for the whole file."""
    if not select:
        return None, None
    if re.fullmatch(r"\d+(:\d+)?", select):
        first, _, last = select.partition(":")
        return int(first), int(last or first)
    marks = {m.group(1, 2): n for n, text in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1)
             if (m := MARKER.search(text))}
    if ("start", select) not in marks or ("end", select) not in marks:
        raise ValueError(f"{path}: no section '{select}' "
                         f"(expected '# --8<-- [start:{select}]' and '# --8<-- [end:{select}]')")
    return marks["start", select], marks["end", select]
