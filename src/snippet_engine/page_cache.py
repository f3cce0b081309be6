"""Rendered HTML kept by content: notebook pages, and highlighted setup folds.

A notebook page is generated from its chapter, so when neither the page's
Markdown nor what its markers stand for changed, its HTML is the same as in
the last build: the plugin takes it from here instead of converting the
Markdown (and highlighting every cell) again. Its links were checked when it
was first rendered, and they are the chapter's own links, which MkDocs checks
on the chapter's page on every build.
"""

import functools
from collections.abc import Iterable
from importlib import metadata
from typing import Any

from mkdocs.structure.toc import AnchorLink, TableOfContents, get_toc

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


class PageCache(CacheFolder):
    def page(self, key: str) -> tuple[str, TableOfContents] | None:
        """(html, table of contents) of a page stored with `put_page`, or None."""
        data = self.get(key)
        try:
            return data["html"], get_toc(data["toc"])
        except (KeyError, TypeError):
            return None

    def put_page(self, key: str, html: str, toc: TableOfContents) -> None:
        self.put(key, {"html": html, "toc": tokens(toc)})

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
