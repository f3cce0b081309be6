"""The kinds of output a snippet's run shows under its block, one module each.

A kind module has:

- `matches(out)`: whether it renders this nbformat output (the first kind in `KINDS`
  that matches renders it, so the most specific come first);
- `render(out, site, block)`: the HTML (`outputs_html` says what `site` and `block` are);
- optionally `capture(capture, module)` and `HOOKS`, the name of the module it hooks:
  hooks installed in the worker's child once the snippet imports that module (at once if the
  worker imported it ahead), which add outputs with `capture.add` (capture.py);
- optionally `MIME`, its own MIME type, which `display()` carries only for the objects that
  `displays(obj)` accepts (none without it);
- optionally `displayed(data)`: what it checks or completes in a bundle given to `display()`;
- optionally `ASSETS`: {name: file} the page loads where it shows the kind;
- optionally `WORDS`: the words of a fence's info it answers to (`step-through`): a block's
  options, without which a page's block does not show the kind.

Adding a kind is a module here and its place in `KINDS`.
"""

import functools
import importlib.abc
import importlib.machinery
import sys
import types
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any

from snippet_engine.kinds import figure, graph, steps, text, warning

KINDS = [warning, steps, graph, figure, text]


def outputs_html(outputs: list[dict[str, Any]], site: Any, block: dict[tuple[str, int], int] | None = None,
                 options: Collection[str] | None = None) -> str:
    """HTML for a list of outputs. `site.asset_url(name, data)` stores a file for the built
    site and returns the URL the page uses for it (figures are separate SVG files);
    `site.after_search(html)` returns a placeholder for HTML that the search index
    should not parse (the step-through's inline graph is thousands of tags), put in after it has;
    `site.shows(assets)` asks for the files of a kind's `ASSETS` on the page.
    `block` maps (snippet file name, line in it) to the line of the code block above
    the outputs, for the lines that block shows; None where the outputs are under no
    snippet's block. `options`: the words of that block's fence (chapter.Block.options); a kind
    that answers to words (its `WORDS`) is shown only under a block that says one of them."""
    parts = []
    for out in merged(outputs):
        kind = kind_of(out)
        if options is not None and getattr(kind, "WORDS", None) and not kind.WORDS & set(options):
            continue
        site.shows(getattr(kind, "ASSETS", {}))
        parts.append(kind.render(out, site, block))
    return "\n".join(parts)


def kind_of(out: dict[str, Any]) -> Any:
    for kind in KINDS:
        if kind.matches(out):
            return kind
    raise ValueError(f"no renderer for output {sorted(out.get('data', {})) or out['output_type']}")


def merged(outputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Adjacent text of the same stream as one output (lines of a block print one after another),
    and adjacent identical warnings as one that counts them."""
    result: list[dict[str, Any]] = []
    for out in outputs:
        last = result[-1] if result else None
        if last and (joined := text.joined(last, out) or warning.joined(last, out)):
            result[-1] = joined
        else:
            result.append(out)
    return result


def install(capture: Any) -> None:
    """Every kind's hooks, in the child that runs a snippet. A child imports no library for
    them: a snippet that never imports matplotlib does not wait for it."""
    for kind in KINDS:
        if hasattr(kind, "capture"):
            when_imported(kind.HOOKS, functools.partial(kind.capture, capture))


def when_imported(name: str, hook: Callable[[types.ModuleType], None]) -> None:
    """hook(module) once the module `name` is imported: now if it is, else right after its
    code has run, before the import returns to the code that asked for it."""
    if name in sys.modules:
        hook(sys.modules[name])
        return

    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname: str, path: Sequence[str] | None,
                      target: types.ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
            if fullname != name:
                return None
            sys.meta_path.remove(self)
            spec = next((found for finder in sys.meta_path if hasattr(finder, "find_spec")
                         and (found := finder.find_spec(fullname, path, target))), None)
            if spec is not None and spec.loader is not None:
                execute = spec.loader.exec_module

                def exec_module(module: types.ModuleType) -> None:
                    execute(module)
                    hook(module)

                spec.loader.exec_module = exec_module  # type: ignore[method-assign]
            return spec

    sys.meta_path.insert(0, Finder())


def displayed(obj: object, data: dict[str, Any]) -> None:
    """What each kind checks or completes in the bundle of `obj` that `display()` was given. A
    kind's own MIME type comes only from what the kind accepts (its `displays(obj)`): the engine
    makes it, and renders it as the kind's data."""
    for kind in KINDS:
        mime = getattr(kind, "MIME", None)
        if mime in data and not (hasattr(kind, "displays") and kind.displays(obj)):
            raise ValueError(f"display() was given {mime}, the engine's own MIME type for "
                             f"{kind.__name__.rpartition('.')[2]} output, which only the engine makes")
        if hasattr(kind, "displayed"):
            kind.displayed(data)


def words() -> frozenset[str]:
    """The words of a fence's info that some kind answers to."""
    return frozenset().union(*(getattr(kind, "WORDS", ()) for kind in KINDS))


def assets() -> dict[str, Path]:
    """The files of every kind's ASSETS, for the site."""
    return {name: path for kind in KINDS for name, path in getattr(kind, "ASSETS", {}).items()}
