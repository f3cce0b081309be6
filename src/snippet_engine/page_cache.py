"""Rendered HTML kept by content: pages as MkDocs converts them, and highlighted setup folds.

When the Markdown that MkDocs converts for a page is the same as in an earlier build (and so is
everything else its conversion reads: the extensions and their settings, the page's URL, the
site's files), its HTML is the same: the plugin takes what the conversion made from here
(`Converted`) instead of converting the Markdown and highlighting every code block again. What
MkDocs checks once every page is made (the links to other pages' anchors) is checked on every
build, from what the conversion found; a conversion that logged a warning is not kept, so a
strict build fails on it every time.
"""

import functools
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from importlib import metadata
from typing import Any

from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import AnchorLink, get_toc

import autograd_steps
import snippet_engine
from snippet_engine import cache_file
from snippet_engine.cache_file import CacheFolder, source

RENDERERS = ("markdown", "pymdown-extensions", "pygments", "mkdocs", "mkdocs-material")


@functools.cache
def renderer() -> dict[str, str]:
    """What renders a page besides its content and the engine (which every key holds): the
    versions of the Markdown stack. A change makes every entry a miss."""
    return {name: metadata.version(name) for name in RENDERERS}


# The code that renders or makes a page's parts: the engine and the viewer, but KaTeX's, which
# typesets a page's formulas after it, with a cache of its own (katex.formulas_key).
RENDERS = tuple(p for package in (source(snippet_engine), source(autograd_steps)) for p in cache_file.code_files(package)
                if p.name not in ("katex.py", "katex_render.mjs"))


def made_key(*parts: Any) -> str:
    """The key of what the engine renders or makes for a page from `parts`: any of that code (`RENDERS`) may take part."""
    return cache_file.entry_key(renderer(), cache_file.code_digest(*RENDERS), *parts)


def tokens(toc: Iterable[AnchorLink]) -> list[dict[str, Any]]:
    """A table of contents as the tokens `get_toc` takes."""
    return [{"level": a.level, "id": a.id, "name": a.title, "children": tokens(a.children)} for a in toc]


@dataclass
class Converted:
    """What MkDocs's conversion of a page's Markdown made (Page.render): its HTML, as the first
    on_page_content gets it, its table of contents (`tokens`), the title its first heading gives,
    the ids of its anchors, and its links to anchors of other pages, by the page they go to."""
    html: str
    toc: list[Any]  # the tokens get_toc takes
    title: str | None
    anchors: list[str]
    links: dict[str, dict[str, str]]

    @classmethod
    def of(cls, page: Page, html: str) -> "Converted":
        links = {file.src_uri: dict(found) for file, found in (page.links_to_anchors or {}).items()}
        return cls(html, tokens(page.toc), page._title_from_render, sorted(page.present_anchor_ids or ()), links)

    def restore(self, page: Page, files: Files) -> str:
        """Set on the page what its conversion would have set (Page.render, MkDocs 1.6); its HTML."""
        page.toc = get_toc(self.toc)
        page._title_from_render = self.title
        page.present_anchor_ids = set(self.anchors)
        page.links_to_anchors = {file: dict(found) for uri, found in self.links.items()
                                 if (file := files.get_file_from_path(uri)) is not None}
        return self.html


class PageCache(CacheFolder):
    def converted(self, key: str) -> Converted | None:
        """A page's conversion stored with `put_converted`, or None."""
        data = self.get(key)
        try:
            converted = Converted(**data)
            get_toc(converted.toc)
        except (KeyError, TypeError, AttributeError):
            return None
        return converted

    def put_converted(self, key: str, converted: Converted) -> None:
        self.put(key, asdict(converted))

    def highlighted(self, code: str) -> str:
        """Python code as Pygments HTML in a `pre` of the highlight's own, without the `code`
        element of a fence: the page's scripts leave it alone (no copy button, no measuring)."""
        entry = made_key("highlight-pre", code)
        data = self.get(entry)
        if isinstance(data, str):
            return data
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import PythonLexer

        html: str = highlight(code, PythonLexer(), HtmlFormatter())
        self.put(entry, html)
        return html
