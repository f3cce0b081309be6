"""The kinds of output a snippet's run shows under its block, one module each.

Each module holds its `KIND` (kinds/kind.py says what a kind may provide): how the output is
captured in the snippet's run, shown on the page, held in a notebook, printed; the files its
page loads (its styles among them); the words of a fence it answers to. Adding a kind is a module here and its place in
`KINDS`: the rest of the engine asks this module.
"""

import contextlib
import functools
import importlib.abc
import importlib.machinery
import sys
import types
from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path
from typing import Any

from snippet_engine.kinds import figure, graph, steps, text, warning
from snippet_engine.kinds.kind import Kind, Lines, Output, Site
from snippet_engine.render import safe_svg

KINDS = [warning.KIND, steps.KIND, graph.KIND, figure.KIND, text.KIND]


def outputs_html(outputs: list[Output], site: Site, block: Lines | None = None,
                 hidden: Collection[str] = ()) -> str:
    """HTML for a list of outputs; `block` maps (snippet file name, line in it) to the line of
    the code block above the outputs, for the lines that block shows; None where the outputs are
    under no snippet's block. `hidden`: options the snippet ran with that this block does not say
    (another block of it does): the kinds that answer to them are not shown here."""
    parts = []
    for out in merged(outputs):
        kind = kind_of(out)
        if kind.words & set(hidden):
            continue
        site.shows(dict(kind.assets))
        parts.append(kind.render(out, site, block))
    return "\n".join(parts)


def kind_of(out: Output) -> Kind:
    for kind in KINDS:
        if kind.matches(out):
            return kind
    raise ValueError(f"no renderer for output {sorted(out.get('data', {})) or out['output_type']}")


def merged(outputs: list[Output]) -> list[Output]:
    """An output and the next as one where their kind joins them: adjacent text of the same
    stream (lines of a block print one after another), adjacent identical warnings."""
    result: list[Output] = []
    for out in outputs:
        last = result[-1] if result else None
        join = kind_of(out).joined
        if last and join and (joined := join(last, out)):
            result[-1] = joined
        else:
            result.append(out)
    return result


def install(capture: Any) -> None:
    """Every kind's hooks, in the child that runs a snippet. A child imports no library for
    them: a snippet that never imports matplotlib does not wait for it."""
    for kind in KINDS:
        if kind.hooks and kind.capture:
            when_imported(kind.hooks, functools.partial(kind.capture, capture))


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
    kind's own MIME type comes only from an object the kind `displays`: the engine makes it."""
    for kind in KINDS:
        if kind.mime in data and not kind.displays(obj):
            raise ValueError(f"display() was given {kind.mime}, the engine's own MIME type for "
                             f"{kind.name} output, which only the engine makes")
        if kind.displayed:
            kind.displayed(data)


def words() -> frozenset[str]:
    """The words of a fence's info that some kind answers to."""
    return frozenset(word for kind in KINDS for word in kind.words)


def around(options: Collection[str], path: str) -> contextlib.ExitStack:
    """What the snippet at `path` runs within, for a block that says `options`."""
    stack = contextlib.ExitStack()
    for kind in KINDS:
        if kind.around and kind.words & set(options):
            stack.enter_context(kind.around(path))
    return stack


def numbered(options: Collection[str]) -> bool:
    """Whether a block that says `options` numbers its lines by their line in the file."""
    return any(kind.numbered and kind.words & set(options) for kind in KINDS)


def notebook_output(out: Output) -> Output:
    """An output as a .ipynb holds it: its kind's way, or what the page shows of it: an SVG
    without its scripts, as the page's file of it (`render.safe_svg`, its ids kept: a figure's
    markers refer to them), and not the HTML that an object's `_repr_html_` gave display(), which
    the page does not show (its scripts would run in the reader's notebook)."""
    kind = kind_of(out)
    if kind.notebook:
        return kind.notebook(out)
    if "data" not in out:
        return out
    data = {mime: safe_svg(value, inline=False) if mime == "image/svg+xml" else value
            for mime, value in out["data"].items() if mime != "text/html"}
    return {**out, "data": data}


def tools(outputs: Iterable[Output]) -> set[str]:
    """The programs a notebook holding these outputs needs."""
    return {tool for out in outputs if (tool := kind_of(out).tool)}


def written_by(out: Output) -> str | None:
    """The method whose top-level call wrote this output to a file (graphviz's render), if any."""
    return kind_of(out).written_by


def printed(page: str) -> str:
    """A page as printed (the book), each kind's way."""
    for kind in KINDS:
        page = kind.printed(page) if kind.printed else page
    return page


URL = "assets/snippet-engine"  # where the site serves the kinds' assets


def assets() -> dict[str, Path]:
    """The files of every kind's assets, for the site (at `URL`)."""
    return {name: path for kind in KINDS for name, path in kind.assets.items()}


def tags(names: Iterable[str], url: str = URL) -> str:
    """The <head> tags that load these assets (their names) from `url`: a style, or a script."""
    return "".join(f'<link rel="stylesheet" href="{url}/{name}">' if name.endswith(".css")
                   else f'<script src="{url}/{name}" defer></script>' for name in sorted(names))
