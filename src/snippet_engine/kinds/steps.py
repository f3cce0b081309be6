"""A backward pass recorded from the engine (a `step-through` block): the step-through viewer.

The recording, its layout and the viewer are the package `autograd_steps`; this module is the
engine's side: the size limit and the layout, within the snippet's run; the viewer on the
page, after search; its script and styles.
"""

from pathlib import Path
from typing import Any

from autograd_steps import layout
from snippet_engine.render import safe_svg

STEPS = "application/vnd.snippet.steps+json"
"""A backward pass recorded by `autograd_steps.recording`, plus "svg", the graph's layout
(`autograd_steps.layout`): node i is the group with data-node="i"."""
FOLDER = Path(layout.__file__).parent / "assets"
ASSETS = {name: FOLDER / name for name in ("steps.css", "steps.js")}


def displayed(data: dict[str, Any]) -> None:
    """Laid out here, within the snippet's time limit; a graph too big to show fails at its line."""
    if STEPS in data:
        steps = data[STEPS] = dict(data[STEPS])
        if len(steps["nodes"]) > layout.MAX_NODES:
            raise ValueError(f"this backward pass has {len(steps['nodes']):,} nodes, more than a "
                             f"step-through shows ({layout.MAX_NODES}): record a smaller model or batch")
        steps["svg"] = layout.svg(steps)


def matches(out: dict[str, Any]) -> bool:
    return STEPS in out.get("data", {})


def render(out: dict[str, Any], site: Any, block: Any) -> str:
    """The viewer (autograd_steps.view), its graph sanitised; all of it after search."""
    from autograd_steps import view  # not in the worker, which only records

    steps = out["data"][STEPS]
    return site.after_search(view.viewer(steps, safe_svg(steps["svg"]), block))
