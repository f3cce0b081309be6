"""Two recordings side by side (`compare`): before and after a fix, two training steps, two seeds."""

from __future__ import annotations

import html
import math
from typing import Any, Literal, TypedDict

from autograd_steps import view
from autograd_steps.notebook import laid_out
from autograd_steps.recording import Before, Data, Recording, Summary, finite, html_table, node_text, number

CHANGED = 10  # a node's gradient "changed" where its norm grew or shrank this many times (or to or from 0, NaN, inf, None)
LISTED = 10  # the nodes whose gradient changed most that the printed comparison lists


def compare(before: Recording, after: Recording, by: Literal["parameter", "module"] = "parameter") -> Comparison:
    """Two recordings side by side (before and after a fix, two training steps, two seeds): for
    each parameter (or module, `by="module"`), the norm of the gradient it received in each
    (`Recording.norms`) and how many times the second is the first; where each made its first
    NaN or inf; and node by node, the second's viewer with what the same node received in the
    first, its node marked "changed" where its gradient grew or shrank CHANGED times or more, or
    became or stopped being 0, NaN, inf or None, of the nodes the second ran (`Comparison`)."""
    return Comparison(before, after, by)


class Compared(TypedDict):
    """A row of a `Comparison`."""
    name: str
    before: float | None
    after: float | None
    ratio: float | None


class Comparison:
    """What `compare` returns: `rows`, one {"name", "before", "after", "ratio"} per parameter (or
    module) of either recording, in the order the first names them; a norm is None where that
    recording's parameter got no gradient, NaN where it held NaN or inf; the ratio is None where
    either is missing, zero or not finite. `data`: the second recording's data, each node with
    what the same node received in the first (`Data.before`) and the mark "changed"; `changes`,
    the lines that list the nodes that changed most. Printed, the table and those lines; in a
    notebook, the viewer and the table."""

    HEADER = ["Parameter", "Before", "After", "After / before"]

    def __init__(self, before: Recording, after: Recording, by: Literal["parameter", "module"]) -> None:
        old, new = before.norms(by), after.norms(by)
        self.rows: list[Compared] = []
        for name in dict.fromkeys([*old, *new]):
            a, b = old.get(name), new.get(name)
            ratio = b / a if a is not None and b is not None and math.isfinite(a) and math.isfinite(b) and a > 0 \
                else None
            self.rows.append({"name": name, "before": a, "after": b, "ratio": ratio})
        self.header = ["Module" if by == "module" else "Parameter", *self.HEADER[1:]]
        self.notes = [f"{when}: {recording.nonfinite_text() or 'No NaN or inf.'}"
                      for when, recording in (("Before", before), ("After", after))]
        self.data = side_by_side(before.data(), after.data())
        self.changes = self.changed()

    def cells(self) -> list[list[str]]:
        def norm(value: float | None) -> str:
            return "no gradient" if value is None else number(value)
        return [[r["name"], norm(r["before"]), norm(r["after"]), "" if r["ratio"] is None else f"{r['ratio']:.3g}×"]
                for r in self.rows]

    def changed(self) -> list[str]:
        """The nodes whose gradient changed, the most changed first, as lines (`changes`)."""
        steps = {s["node"]: (i, s["received"]) for i, s in enumerate(self.data["steps"])}
        befores = self.data.get("before", [])
        marked = sorted((n for n in self.data["nodes"] if "changed" in n["marks"]),
                        key=lambda n: (-change(befores[n["id"]]["received"], steps[n["id"]][1]), steps[n["id"]][0]))
        lines = [f"  step {steps[n['id']][0] + 1}, {node_text(n)}{' in ' + n['module'] if n['module'] else ''}: "
                 f"{size(befores[n['id']]['received'])} → "
                 f"{size(steps[n['id']][1])}" + (f" ({r:.3g}×)" if (r := befores[n["id"]]["ratio"]) else "")
                 for n in marked[:LISTED]]
        more = [f"  and {len(marked) - LISTED} more"] if len(marked) > LISTED else []
        return [f"The second's nodes whose gradient grew or shrank {CHANGED} times or more, or became or stopped "
                f"being 0, NaN, inf or None: {len(marked) or 'none'}{':' if marked else '.'}", *lines, *more]

    def table(self) -> str:
        rows = [self.header, *self.cells()]
        widths = [max(len(row[i]) for row in rows) for i in range(4)]
        lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
        return "\n".join([*lines, "", *self.notes, *self.changes])

    def __repr__(self) -> str:
        return self.table()

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, Any]:
        data = laid_out(self.data)
        paragraphs = "".join(f"<p>{html.escape(line)}</p>" for line in [*self.notes, self.changes[0]])
        return {"text/plain": self.table(),
                "text/html": view.notebook_html(data) + html_table(self.header, self.cells()) + paragraphs}


def side_by_side(before: Data, after: Data) -> Data:
    """`after` with, for each node, what the same node received in `before` (`same_nodes`), the
    node marked "changed" where that changed (`change`), and the step of the most changed (the
    first of those that changed as much)."""
    old = {s["node"]: s["received"] for s in before["steps"]}
    new = {s["node"]: s["received"] for s in after["steps"]}
    nodes, befores = [], []
    for node, there in zip(after["nodes"], same_nodes(before, after)):
        got, now = old.get(there) if there is not None else None, new.get(node["id"])
        ratio = now["norm"] / got["norm"] if finite(got) and finite(now) and got["norm"] > 0 and now["norm"] > 0 \
            else None
        befores.append(Before(node=there, received=got, ratio=ratio))
        changed = there is not None and node["id"] in new and change(got, now) >= math.log10(CHANGED)
        nodes.append({**node, "marks": [*node["marks"], "changed"]} if changed else node)
    scores = [(change(befores[s["node"]]["received"], s["received"]), i) for i, s in enumerate(after["steps"])
              if "changed" in nodes[s["node"]]["marks"]]
    most = min(scores, key=lambda c: (-c[0], c[1]))[1] if scores else None
    return {**after, "nodes": nodes, "before": befores, "jumps": {**after["jumps"], "changed": most}}


def same_nodes(before: Data, after: Data) -> list[int | None]:
    """For each node of `after`, the id of the same node in `before`: the node of the same type,
    module and name (a parameter's), counted in the order the forward passes made them (the
    second AddmmBackward0 of `model.0` is the second's); None where `before` has no such node."""
    found: dict[tuple[str, str, str], list[int]] = {}
    for node in before["nodes"]:
        found.setdefault((node["name"], node["module"], node["label"]), []).append(node["id"])
    seen: dict[tuple[str, str, str], int] = {}
    same: list[int | None] = []
    for node in after["nodes"]:
        key = node["name"], node["module"], node["label"]
        ids, k = found.get(key, []), seen.get(key, 0)
        seen[key] = k + 1
        same.append(ids[k] if k < len(ids) else None)
    return same


def change(before: Summary | None, after: Summary | None) -> float:
    """How far a node's gradient changed, in orders of magnitude: infinite where it became or
    stopped being None, 0, or NaN or inf."""
    if before is None or after is None:
        return 0.0 if before is after else math.inf
    if finite(before) != finite(after):
        return math.inf
    if not finite(before) or before["norm"] == after["norm"]:
        return 0.0
    if before["norm"] == 0 or after["norm"] == 0:
        return math.inf
    return abs(math.log10(after["norm"] / before["norm"]))


def size(summary: Summary | None) -> str:
    """A gradient's norm (of its finite values), and how many NaN and inf it holds; or None."""
    if summary is None:
        return "None"
    bad = ", ".join(f"{summary[k]} {k if k == 'inf' else 'NaN'}" for k in ("nan", "inf") if summary[k])
    if summary["min"] is None:  # none finite, or no values
        return bad or "no values"
    return f"norm {number(summary['norm'])}" + (f" and {bad}" if bad else "")
