"""A chapter, parsed once: its prose and the code blocks that include snippets.

A page includes a snippet in a fence of its own, the pymdownx.snippets way:
`--8<-- "chapter/file.py"` (the whole file), `"chapter/file.py:name"` (the
lines between `# --8<-- [start:name]` and `# --8<-- [end:name]`) or
`"chapter/file.py:3:9"` (a line range). The plugin expands these includes
itself rather than leaving them to pymdownx.snippets: it must know the
exact lines a block shows to place their output under it and to build the
block's runnable copy, and a broken include must become an error on the
page instead of an exception that stops `mkdocs serve`.

A word of a fence's info that a kind of output answers to is one of the block's
options (kinds/): ```` ```python step-through ```` asks for a step-through of the
backward pass its snippet runs (kinds/steps.py); the word is not left in the info.
"""

import difflib
import io
import os
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

from snippet_engine import kinds

FENCE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)\n(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$",
    re.M | re.S,
)
INCLUDE = re.compile(r'^[ \t]*--8<--[ \t]+(?P<quote>["\'])(?P<file>[^"\':\n]+)(?::(?P<select>[^"\'\n]+))?(?P=quote)[ \t]*$',
                     re.M)
OPENER = re.compile(r"^[ \t]*(`{3,}|~{3,})", re.M)
MARKER = re.compile(r"--8<-- \[(start|end):(\w+)\]")


@dataclass
class Include:
    file: str  # as written on the page, relative to snippets/
    select: str | None
    path: Path
    first: int | None = None  # lines of the file the block shows (None: the whole file)
    last: int | None = None
    problem: str | None = None  # why the include cannot be shown, and how to fix it

    @property
    def is_snippet(self) -> bool:
        return self.path.suffix == ".py"

    def numbered(self) -> list[tuple[int, str]]:
        """(line number in the file, text) of each line the block shows, without section markers."""
        lines = code_text(self.path, "replace").splitlines()  # a bad file fails its run
        first, last = self.first or 1, self.last or len(lines)
        return [(n, line) for n, line in enumerate(lines[first - 1:last], first) if not MARKER.search(line)]

    def shown(self) -> list[str]:
        """The lines the block shows, without section markers."""
        return [line for _, line in self.numbered()]


@dataclass
class Block:
    start: int  # character offsets of the fence in the chapter's Markdown
    end: int
    indent: str
    fence: str
    info: str
    includes: list[Include] = field(default_factory=list)
    options: frozenset[str] = frozenset()  # the words of its info that kinds answer to


@dataclass
class Chapter:
    src_uri: str
    markdown: str  # the page's Markdown, below its front matter
    blocks: list[Block]
    first_line: int = 1  # the line of the file where `markdown` begins

    def line(self, offset: int) -> int:
        """The line of the file at a character offset of `markdown`."""
        return self.markdown.count("\n", 0, offset) + self.first_line

    @property
    def snippets(self) -> list[Include]:
        """Every include of a snippet file that can run, in page order."""
        return [i for b in self.blocks for i in b.includes if i.is_snippet and not i.problem]

    @property
    def options(self) -> dict[Path, frozenset[str]]:
        """Each snippet that can run: the options of the blocks that include it, together."""
        found: dict[Path, frozenset[str]] = {}
        for block in self.blocks:
            for include in block.includes:
                if include.is_snippet and not include.problem:
                    found[include.path] = found.get(include.path, frozenset()) | block.options
        return found


def parse(src_uri: str, markdown: str, snippets_dir: str | os.PathLike[str], first_line: int = 1) -> Chapter:
    """The chapter's blocks: each fence with includes, and each include outside a fence as a
    block whose include has a problem (it would be pasted into the prose). `markdown` is the page's
    below its front matter, which takes the file's lines before `first_line`."""
    blocks, fences = [], list(FENCE.finditer(markdown))
    for m in fences:
        found = [include(i["file"], i["select"], Path(snippets_dir)) for i in INCLUDE.finditer(m["body"])]
        if found:
            words = m["info"].split()
            options = frozenset(words) & kinds.words()
            info = " ".join(w for w in words if w not in options) if options else m["info"]
            blocks.append(Block(m.start(), m.end(), m["indent"], m["fence"], info, found, options))
    inside = [range(m.start(), m.end()) for m in fences]
    for i in INCLUDE.finditer(markdown):
        if not any(i.start() in fence for fence in inside):
            stray = Include(i["file"], i["select"], Path(snippets_dir) / i["file"], problem=outside_fence(i, markdown, inside, first_line))
            blocks.append(Block(i.start(), i.end(), "", "", "", [stray]))
    return Chapter(src_uri, markdown, sorted(blocks, key=lambda b: b.start), first_line)


def included(docs_dir: str | os.PathLike[str], snippets_dir: str | os.PathLike[str]) -> dict[Path, frozenset[str]]:
    """Each snippet the pages of `docs_dir` include, with the options of its blocks together, as
    the build runs it."""
    found: dict[Path, frozenset[str]] = {}
    for page in sorted(Path(docs_dir).glob("*.md")):
        for path, words in parse(page.name, page.read_text(encoding="utf-8"), snippets_dir).options.items():
            found[path] = found.get(path, frozenset()) | words
    return found


def outside_fence(found: re.Match[str], markdown: str, fences: list[range], first_line: int) -> str:
    """Why an include outside every fence is not shown: the fence before it was never closed, or it has none."""
    opened = [m for m in OPENER.finditer(markdown, 0, found.start()) if not any(m.start() in f for f in fences)]
    if opened:
        line = markdown.count("\n", 0, opened[-1].start()) + first_line
        return f"the fence opened on line {line} is never closed: close it with {opened[-1][1]}"
    return "an include outside a code block: put it in a fence of its own (```python, the include, ```)"


def include(file: str, select: str | None, snippets_dir: Path) -> Include:
    path = snippets_dir / file
    found = Include(file, select, path)
    if not path.resolve().is_relative_to(snippets_dir.resolve()):
        found.problem = f"{file} is outside snippets/: a page includes only the examples under snippets/"
    elif path.is_dir():
        found.problem = f"snippets/{file} is a folder: an include names a file in it"
    elif not path.is_file():
        found.problem = missing_file(file, snippets_dir)
    elif select:
        try:
            found.first, found.last = line_range(path, select)
        except ValueError as err:
            found.problem = str(err)
    return found


def missing_file(file: str, snippets_dir: Path) -> str:
    folder = (snippets_dir / file).parent
    known = sorted(p.relative_to(snippets_dir).as_posix() for p in folder.glob("*") if p.is_file()) \
        if folder.is_dir() else []
    close = difflib.get_close_matches(file, known, n=1)
    hint = f" Did you mean \"{close[0]}\"?" if close else f" Files next to it: {', '.join(known)}." if known \
        else f" The folder snippets/{Path(file).parent} does not exist."
    return f"the included file snippets/{file} does not exist.{hint}"


def line_range(path: Path, select: str) -> tuple[int, int]:
    """The (first, last) lines an include shows: a section's marker lines, or a line range."""
    lines = code_text(Path(path), "replace").splitlines()
    if re.fullmatch(r"\d+(:\d+)?", select):
        start, _, end = select.partition(":")
        first, last = int(start), int(end or start)
        if not 1 <= first <= last <= len(lines):
            raise ValueError(f"lines {select} are not in {path.name}, which has {len(lines)} lines")
        return first, last
    marks: dict[tuple[str, str], int] = {}
    for n, text in enumerate(lines, 1):
        if m := MARKER.search(text):
            marks.setdefault((m[1], m[2]), n)
    names = sorted({name for _, name in marks})
    how = f"(mark it with '# --8<-- [start:{select}]' and '# --8<-- [end:{select}]')"
    if ("start", select) not in marks and ("end", select) not in marks:
        known = f"; its sections: {', '.join(names)}" if names else "; it has no sections"
        raise ValueError(f"{path.name} has no section '{select}' {how}{known}")
    if ("end", select) not in marks:
        raise ValueError(f"{path.name}: section '{select}' is opened on line {marks['start', select]} "
                         f"but never closed: add '# --8<-- [end:{select}]'")
    if ("start", select) not in marks or marks["start", select] > marks["end", select]:
        raise ValueError(f"{path.name}: section '{select}' is closed on line {marks['end', select]} "
                         f"without being opened before: add '# --8<-- [start:{select}]'")
    return marks["start", select], marks["end", select]


COOKIE = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+", re.ASCII)


def code_text(path: Path, errors: str = "strict") -> str:
    """A file's code as Python reads it, as text: decoded as its BOM or coding cookie says
    (UTF-8 by default), without the BOM, and without a cookie that names another encoding
    (a blank line in its place, so that line numbers hold): a copy is UTF-8 text. `errors`:
    what to do with bytes that do not decode, as bytes.decode takes it."""
    data = path.read_bytes()
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:  # a cookie naming no encoding Python knows: the run says so
        if errors == "strict":
            raise
        encoding = "utf-8"
    text = data.decode(encoding, errors)  # utf-8-sig: the BOM goes
    if encoding in ("utf-8", "utf-8-sig"):
        return text
    lines = text.split("\n")
    cookie = next(n for n in range(2) if COOKIE.match(lines[n]))
    lines[cookie] = ""
    return "\n".join(lines)
