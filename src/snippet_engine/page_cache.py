"""Rendered HTML kept by content: notebook pages, and highlighted setup folds.

A notebook page is generated from its chapter, so when neither the page's
Markdown nor what its markers stand for changed, its HTML is the same as in
the last build: the plugin takes it from here instead of converting the
Markdown (and highlighting every cell) again. Its links were checked when it
was first rendered, and they are the chapter's own links, which MkDocs checks
on the chapter's page on every build.
"""

import functools
import hashlib
import json
from importlib import metadata

from mkdocs.structure.toc import get_toc

from snippet_engine.cache_file import engine_digest, write_json

RENDERERS = ("markdown", "pymdown-extensions", "pygments", "mkdocs", "mkdocs-material")


@functools.cache
def renderer():
    """What renders a page besides its content: the engine's own code (every module and asset of
    this package) and the versions of the Markdown stack. A change makes every entry a miss."""
    return [engine_digest(), {name: metadata.version(name) for name in RENDERERS}]


def key(*parts):
    return hashlib.sha256(json.dumps([renderer(), *parts], sort_keys=True, default=str).encode()).hexdigest()


def tokens(toc):
    """A table of contents as the tokens `get_toc` takes."""
    return [{"level": a.level, "id": a.id, "name": a.title, "children": tokens(a.children)} for a in toc]


class PageCache:
    def __init__(self, folder):
        self.folder, self.used = folder, set()

    def get(self, key):
        """The data stored under `key`, or None."""
        self.used.add(key)
        try:
            return json.loads((self.folder / f"{key}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def put(self, key, data):
        self.used.add(key)
        write_json(self.folder / f"{key}.json", data)

    def page(self, key):
        """(html, table of contents) of a page stored with `put_page`, or None."""
        data = self.get(key)
        try:
            return data["html"], get_toc(data["toc"])
        except (KeyError, TypeError):
            return None

    def put_page(self, key, html, toc):
        self.put(key, {"html": html, "toc": tokens(toc)})

    def highlighted(self, code):
        """Python code as Pygments HTML in a `pre` of the highlight's own, without the `code`
        element of a fence: the page's scripts leave it alone (no copy button, no measuring)."""
        entry = key("highlight-pre", code)
        data = self.get(entry)
        if not isinstance(data, str):
            from pygments import highlight
            from pygments.formatters import HtmlFormatter
            from pygments.lexers import PythonLexer

            data = highlight(code, PythonLexer(), HtmlFormatter())
            self.put(entry, data)
        return data

    def prune(self):
        if self.folder.is_dir():
            for entry in self.folder.glob("*.json"):
                if entry.stem not in self.used:
                    entry.unlink(missing_ok=True)
        self.used = set()
