"""A backward pass recorded from the engine (a `step-through` block): the step-through viewer.

The recording, its layout and the viewer are the package `autograd_steps`; this module is the
engine's side: the recording around the snippet's run (a block that says `step-through`), the
size limit and the layout, within that run; the viewer on the page, after search, with the
block's lines numbered (the viewer names lines by their number in the file); its script and
styles, and the page printed without its script (the table of steps stays open); in a notebook,
the viewer as HTML.
"""

from __future__ import annotations

import contextlib
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autograd_steps import layout
from snippet_engine.kinds.kind import Kind
from snippet_engine.render import safe_svg

if TYPE_CHECKING:  # the recorder imports torch, which the page's side does not need
    from autograd_steps.recording import Data, LaidOut

STEPS = "application/vnd.snippet.steps+json"
"""A backward pass recorded by `autograd_steps.recording`, plus "svg", the graph's layout
(`autograd_steps.layout`): node i is the group with data-node="i"."""
FOLDER = Path(layout.__file__).parent / "assets"
ASSETS = {name: FOLDER / name for name in ("steps.css", "steps.js")}


def displays(obj: object) -> bool:
    """A recording of `autograd_steps`: the one object whose display() carries STEPS."""
    recording = sys.modules.get("autograd_steps.recording")
    return recording is not None and isinstance(obj, recording.Recording)


def displayed(data: dict[str, Any]) -> None:
    """Laid out here, within the snippet's time limit (the recorder refuses a graph too big to lay
    out, at its backward() line)."""
    if STEPS in data:
        recorded: Data = data[STEPS]
        steps: LaidOut = {**recorded, "svg": layout.svg(recorded)}
        data[STEPS] = steps


def matches(out: dict[str, Any]) -> bool:
    return STEPS in out.get("data", {})


def render(out: dict[str, Any], site: Any, block: dict[tuple[str, int], int] | None) -> str:
    """The viewer (autograd_steps.view), its graph sanitised; all of it after search."""
    from autograd_steps import view  # not in the worker, which only records

    steps: LaidOut = out["data"][STEPS]
    svg = safe_svg(steps["svg"]) if steps["svg"] is not None else None  # None: Graphviz is not installed
    page: str = site.after_search(view.viewer(steps, svg, block))
    return page


def around(path: str) -> contextlib.AbstractContextManager[object]:
    """Each backward() the snippet at `path` calls, recorded from the engine and displayed; the
    snippet stays plain."""
    from autograd_steps.recording import recorded  # imports torch: only where a snippet is recorded

    return recorded(path)


def notebook(out: dict[str, Any]) -> dict[str, Any]:
    """The viewer as the output's HTML (autograd_steps.view), its table where the notebook is not
    trusted to run scripts."""
    from autograd_steps import view

    return {**out, "data": {**out["data"], "text/html": view.notebook_html(out["data"][STEPS])}}


def printed(page: str) -> str:
    return re.sub(r'<script src="[^"]*steps\.js"[^>]*></script>', "", page)


# Its box, "snippet-steps", is the figure autograd_steps.view writes.
KIND = Kind("steps", matches, render, "snippet-steps", mime=STEPS, displays=displays, displayed=displayed, notebook=notebook,
            printed=printed, assets=ASSETS, words=frozenset({"step-through"}), around=around, numbered=True)
