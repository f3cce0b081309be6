"""A page's Markdown as the engine writes it, and the HTML that its markers stand in for.

One protocol carries HTML from the Markdown to the page: `PageHtml.marker(html)` is
a paragraph of the Markdown, replaced by `html` once Markdown is converted; the
HTML may in turn hold comments (`PageHtml.after_search`) for what the search index
must not parse, put in once search has read the page. A marker made with `copy=`
is what the copy button of the code block right after it copies.

- a chapter's code block (`block_markdown`): its setup fold, the code, the copy, the
  outputs of the lines it shows or its failures;
- a chapter's notebook page (`notebook_markdown`): the notebook's cells as the
  chapter's blocks are shown.
"""

import html
import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from mkdocs.utils import get_relative_url

from snippet_engine import kinds, notebooks, render
from snippet_engine.chapter import Block, Chapter, Include
from snippet_engine.releases import ReleaseCheck
from snippet_engine.runner import Result
from snippet_engine.standalone import Program

MARK = "snippetengine0mark"  # in markers that a page's HTML has until the plugin replaces them
PARAGRAPH = re.compile(rf'<p>{MARK}(?P<n>\d+)</p>(?:\s*<div class="(?P<cls>[^"]*highlight))?')
COMMENT = re.compile(rf"<!--{MARK}(\d+)-->")
ASSETS = "assets/snippet-outputs"  # figures and graphs, as files of the site
NOTEBOOK_FRONT_MATTER = "---\nsearch:\n  exclude: true\n---\n"  # search finds the chapter, not its notebook


@dataclass
class PageHtml:
    """What one page's markers stand for, and what its outputs add to the site (render.py's `site`)."""
    url: str
    assets: dict[str, bytes]  # the site's output files, shared by every page of a build
    items: list[tuple[str, str]] = field(default_factory=list)  # (how it goes in, HTML)
    shown: set[object] = field(default_factory=set)  # warnings shown in full on the page
    scripts: dict[str, Path] = field(default_factory=dict)  # the files of the kinds it shows (their ASSETS)

    def add(self, how: str, text: str) -> int:
        self.items.append((how, text))
        return len(self.items) - 1

    def marker(self, text: str, copy: bool = False) -> str:
        """A paragraph that becomes `text`, or with `copy`, the copy of the code block after it."""
        return f"{MARK}{self.add('copy' if copy else 'content', text)}"

    def after_search(self, fragment: str) -> str:
        return f"<!--{MARK}{self.add('late', fragment)}-->"  # a comment: the search index skips it

    def asset_url(self, name: str, data: bytes) -> str:
        self.assets[name] = data
        return get_relative_url(f"{ASSETS}/{name}", self.url)

    def shows(self, assets: dict[str, Path]) -> None:
        self.scripts.update(assets)

    def first_time(self, what: object) -> bool:
        """True the first time the page shows `what` (a warning), False after."""
        seen = what in self.shown
        self.shown.add(what)
        return not seen

    def content(self, text: str) -> str:
        """The converted page with its markers replaced; what goes in after search stays a comment."""
        def place(m: re.Match[str]) -> str:
            how, value = self.items[int(m["n"])]
            following = m["cls"] and f'<div class="{m["cls"]}'
            if how == "copy":  # an attribute of the code block right after it
                return f'<div data-copy="{html.escape(value)}" class="{m["cls"]}' if following else ""
            return (value if how == "content" else f"<!--{MARK}{m['n']}-->") + (following or "")

        return PARAGRAPH.sub(place, text)

    def late(self, text: str) -> str:
        """The page as served, with the HTML kept from the search index."""
        return COMMENT.sub(lambda m: self.items[int(m[1])][1], text)


class BuildView(Protocol):
    """What page assembly needs of the build (build.py)."""
    releases: ReleaseCheck | None
    def result(self, path: Path) -> Result: ...
    def program(self, path: Path, first: int | None = None, last: int | None = None) -> Program: ...
    def failure(self, chapter: Chapter, include: Include) -> str | None: ...
    def is_running(self, path: Path) -> bool: ...
    def highlighted(self, code: str) -> str: ...


def chapter_markdown(chapter: Chapter, markdown: str, build: BuildView, page: PageHtml) -> str:
    """The chapter's Markdown with its code blocks as the page shows them, and under it, where it
    runs snippets, which releases of torch their outputs were checked on."""
    parts, done = list[str](), 0
    for block in chapter.blocks:
        parts += [markdown[done:block.start], block_markdown(chapter, block, build, page)]
        done = block.end
    parts.append(markdown[done:])
    if build.releases and chapter.snippets:
        changed = sum(bool(release_lines(build.releases, block)) for block in chapter.blocks)
        unchecked = {i.path for i in chapter.snippets if build.releases.differs(i.file, i.path, None, None) is None}
        parts.append("\n\n" + page.marker(build.releases.summary(changed, len(unchecked))) + "\n")
    return "".join(parts)


def release_lines(releases: ReleaseCheck, block: Block) -> list[dict[str, Any]]:
    """The lines of the block's snippets whose output is something else on the release checked."""
    return [d for i in block.includes if i.is_snippet and not i.problem
            for d in releases.differs(i.file, i.path, i.first, i.last) or []]


def block_markdown(chapter: Chapter, block: Block, build: BuildView, page: PageHtml) -> str:
    """A code block as the page shows it: setup fold, code, copy, outputs or errors."""
    indent = block.indent
    failures = [f for i in block.includes if (f := build.failure(chapter, i))]
    if any(i.problem for i in block.includes):
        error = render.error_block("This code block cannot be shown", "\n\n".join(failures))
        return f"\n{indent}{page.marker(error)}\n"  # a paragraph of its own, even where prose is right above
    numbered = [(i.path.name, n, line) for i in block.includes for n, line in i.numbered()]
    info = block.info if "title=" in block.info else f'{block.info} title="{block.includes[0].file}"'
    if kinds.numbered(block.options):  # a step-through names lines by their number in the file
        info += f' linenums="{block.includes[0].first or 1}"'
    lines = [indent + line for *_, line in numbered]
    fence = longer_fence(block.fence, lines)
    parts = ["\n".join([indent + fence + info, *lines, indent + fence])]
    snippets = [i for i in block.includes if i.is_snippet]
    if len(block.includes) == 1 and snippets:
        include = block.includes[0]
        program = build.program(include.path, include.first, include.last)
        if program.setup:
            # Rendered here (cached) and put in after search: the same code is on the page already.
            setup = fold(build, program.setup, "setup, run before the code below and copied with it")
            parts.insert(0, indent + page.marker(page.after_search(setup)))
        parts.insert(-1, indent + page.marker(program.copy + "\n", copy=True))
    outputs = [o for i in snippets for o in build.result(i.path).select(i.first, i.last)]
    if outputs:
        code = list(itertools.dropwhile(lambda n: not n[2], numbered))  # the highlighter drops leading empty lines
        shown = {(name, n): k for k, (name, n, _) in enumerate(code, 1)}
        ran_with = frozenset().union(*(chapter.options[i.path] for i in snippets))
        parts.append(indent + page.marker(kinds.outputs_html(outputs, page, shown, ran_with - block.options)))
    if outputs and build.releases and (elsewhere := release_lines(build.releases, block)):
        parts.append(indent + page.marker(build.releases.note(elsewhere)))
    if failures:
        parts.append(indent + page.marker(render.error_block("This snippet failed", "\n\n".join(failures))))
    if running := [i.file for i in snippets if build.is_running(i.path)]:
        parts.append(indent + page.marker(render.running_block(running)))
    return "\n\n".join(parts) + "\n"  # a marker is a paragraph of its own, even when prose follows the fence


def longer_fence(fence: str, lines: list[str]) -> str:
    """`fence`, or one of its character longer than every run of it that starts a line of the
    code: a line of backticks in the code (Markdown that a string holds) would close a fence no
    longer than it, and every block after it would be prose."""
    runs = [len(m[1]) for line in lines if (m := re.match(rf"[ \t]*({re.escape(fence[0])}+)", line))]
    return fence[0] * max([len(fence), *(run + 1 for run in runs)])


def fold(build: BuildView, code: str, what: str) -> str:
    """Code folded away: "N lines of <what>", opened on demand."""
    lines = code.count("\n") + 1
    title = f"{lines} line{'s' * (lines != 1)} of {what}"
    return f'<details class="snippet-setup"><summary>{title}</summary>{build.highlighted(code + chr(10))}</details>'


def with_notebook_link(markdown: str, link: str) -> str:
    """The chapter with `link` (HTML) under its title."""
    title, _, rest = markdown.partition("\n")
    return f"{title}\n\n{link}\n{rest}" if title.startswith("# ") else f"{link}\n\n{markdown}"


def notebook_markdown(title: str, ipynb_url: str, cells: list[notebooks.Cell], build: BuildView, page: PageHtml) -> str:
    """Markdown for the page that shows a chapter's notebook: its cells in order, each code
    cell with its copy and outputs; a collapsed cell folded."""
    parts = [f"# {title}: the notebook\n",
             f'<p class="notebook-download"><a href="{ipynb_url}" download>'
             f'Download {ipynb_url.rsplit("/", 1)[-1]}</a></p>\n']
    for n, cell in enumerate(cells):
        if cell["cell_type"] == "markdown":
            text = cell["source"]
            if n == 0 and text.startswith("# "):  # the page has its own title
                text = text.partition("\n")[2]
            parts.append(text + "\n")
            continue
        if cell["metadata"] == notebooks.HIDDEN:
            what = f"the helper modules (In [{cell['execution_count']}])"
            parts.append(page.marker(page.after_search(fold(build, cell["source"], what))) + "\n")
            continue
        fence = longer_fence("```", cell["source"].splitlines())
        parts.append(page.marker(cell.get("copy", cell["source"] + "\n"), copy=True) + "\n")
        parts.append(f'{fence}python title="In [{cell["execution_count"]}]"\n{cell["source"]}\n{fence}\n')
        if cell["outputs"]:
            parts.append(page.marker(kinds.outputs_html(cell["outputs"], page)) + "\n")
    return "\n".join(parts)
