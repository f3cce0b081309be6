"""The nav of mkdocs.yml: its pages in reading order, and the notebooks' pages listed in it."""

from typing import Any


def pages_of(nav: list[Any] | None) -> list[str]:
    """The Markdown files of a nav, in reading order."""
    found: list[str] = []
    for entry in nav or []:
        item = next(iter(entry.values())) if isinstance(entry, dict) else entry
        found.extend(pages_of(item) if isinstance(item, list) else [item])
    return found


def list_notebooks(nav: list[Any] | None, index: str, notebooks: list[tuple[str, str]]) -> None:
    """Each chapter's notebook page, `(title, src_uri)` in the order of its chapter, in the nav
    section that holds the notebooks' index page (`index`), after what that section lists; a
    nav without that page is left as it is."""
    for entry in nav or []:
        items = next(iter(entry.values())) if isinstance(entry, dict) else None
        if not isinstance(items, list):
            continue
        if index in [next(iter(i.values())) if isinstance(i, dict) else i for i in items]:
            listed = pages_of(items)
            items.extend({title: uri} for title, uri in notebooks if uri not in listed)
        else:
            list_notebooks(items, index, notebooks)
