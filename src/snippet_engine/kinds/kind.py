"""What a kind of output may provide: the one interface of kinds/ (each module's `KIND`)."""

import contextlib
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

Output = dict[str, Any]  # an nbformat output (stream, display_data)
Lines = dict[tuple[str, int], int]  # (snippet file name, line in it): line of the code block above the outputs


class Site(Protocol):
    """What a page gives the kinds it shows (pages.PageHtml)."""

    def asset_url(self, name: str, data: bytes) -> str:
        """Store `data` as a file of the built site; the URL the page uses for it."""

    def after_search(self, fragment: str) -> str:
        """A placeholder for HTML that the search index must not parse, put in after it has."""

    def shows(self, assets: dict[str, Path]) -> None:
        """Load these files (a kind's `assets`) on the page."""

    def first_time(self, what: object) -> bool:
        """True the first time the page shows `what`, False after."""


@dataclass(frozen=True)
class Kind:
    """A kind of output. It renders the outputs it `matches` (the first kind of `KINDS` that
    matches one renders it, so the most specific come first); all else is optional."""
    name: str
    matches: Callable[[Output], bool]
    render: Callable[[Output, Site, Lines | None], str]  # its HTML under a block (`outputs_html`)
    box: str  # the class of the element `render` writes: what a page shows under a block is these boxes
    # Capture, in the process that runs a snippet: `capture(capture, module)` hooks the module
    # named `hooks` once the snippet imports it, and adds outputs with `capture.add` (capture.py).
    hooks: str | None = None
    capture: Callable[[Any, types.ModuleType], None] | None = None
    # Its own MIME type, made by the engine: display() carries it only for an object that
    # `displays` accepts; `displayed` checks or completes a bundle display() was given.
    mime: str | None = None
    displays: Callable[[object], bool] = lambda obj: False
    displayed: Callable[[dict[str, Any]], None] | None = None
    joined: Callable[[Output, Output], Output | None] | None = None  # an output and the next as one
    notebook: Callable[[Output], Output] | None = None  # the output as a .ipynb holds it
    tool: str | None = None  # a program a notebook holding it needs (system_tools.TOOLS)
    # A top-level `obj.<method>(...)` that made it writes it to a file (graphviz's render): a
    # notebook's cell displays the object there instead.
    written_by: str | None = None
    printed: Callable[[str], str] | None = None  # a page that shows it, as printed (the book)
    assets: Mapping[str, Path] = field(default_factory=dict)  # files a page that shows it loads
    # The words of a fence's info it answers to (a block's options): a block shows it only if it
    # says one; its snippet then runs within `around(path)`, and the block's lines are numbered
    # by their line in the file where `numbered`.
    words: frozenset[str] = frozenset()
    around: Callable[[str], contextlib.AbstractContextManager[object]] | None = None
    numbered: bool = False
