"""The step-through viewer of a backward pass recorded by `autograd_steps.recording`: the one
viewer of the site (under a code block) and of a reader's notebook (`notebook_html`).

Under the code block whose backward pass the page steps through, the page shows:

    figure.snippet-steps
      figcaption                     which way the graph runs
      div.snippet-steps__viewer      hidden until steps.js starts: Previous / Next / Play, the
                                     step counter, the Backward / Forward mode switch
      div.snippet-steps__stage       side by side where there is room, else one above the other
                                     (in a notebook, hidden until steps.js starts):
        div.snippet-steps__code      the block's lines from the first that made a node, numbered
                                     as in the file: line n is [data-line=n]
        div.snippet-steps__graph     the recorded graph, inline SVG: node i is g[data-node=i],
                                     edge k is g[data-edge=k]; a hint shows when it scrolls
                                     (without Graphviz, a note that says how to get it)
        div.snippet-steps__now       hidden until steps.js starts: the step's description (aria-live)
        dl.snippet-steps__panel      the gradients the step received and sent (steps.js fills it)
      p.snippet-steps__note          where some nodes' lines are unknown, why
      details.snippet-steps__table   every step as a table, open: without JavaScript the page
                                     shows the steps (steps.js closes it); on a narrow screen each
                                     row is a card
      script.snippet-steps__data     JSON, what steps.js needs (`script_data`)

The viewer's own copy of the code keeps the line that made the current node next to the graph,
so that a reader who steps through sees both without scrolling back to the block above.
The site links the script and styles (`ASSETS`) from its pages; a notebook's output holds them.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from autograd_steps.layout import MISSING

if TYPE_CHECKING:  # the recorder imports torch, which the viewer does not need
    from autograd_steps.recording import Data, LaidOut, Node, Step, Summary

ASSETS = Path(__file__).parent / "assets"  # steps.js and steps.css
CAPTION = ("backward() runs up the arrows: from the output at the bottom to the leaves' "
           "AccumulateGrad nodes at the top.")
UNKNOWN = ("{count} of the graph's operations were made outside anomaly mode, so the line that made each "
           "is unknown: run the forward pass under torch.autograd.set_detect_anomaly(True, check_nan=False).")


def notebook_html(steps: LaidOut) -> str:
    """The viewer as a notebook's output shows it: its styles and script inline (nothing is fetched
    from another host, no extension is needed); without scripts, the table of steps shows."""
    style, script = ((ASSETS / name).read_text(encoding="utf-8") for name in ("steps.css", "steps.js"))
    return (f'<div class="snippet-steps-host"><style>{style}</style>{viewer(steps, steps["svg"], None, scripted=True)}'
            f"<script>{script}</script></div>")


def viewer(steps: Data, svg: str | None, block: dict[tuple[str, int], int] | None, scripted: bool = False) -> str:
    """The viewer's HTML; `svg` is the graph ready to inline (None: Graphviz is missing), `block`
    {(file name, line): line of the code block above} for the lines that block shows (None: no
    block, all the file's lines). `scripted`: the code and the graph show only once the script
    runs (in a notebook, whose sanitiser strips the SVG of an output it does not trust and leaves
    its labels as loose text; the table shows). Hidden parts are hidden="hidden": the sanitiser
    drops an attribute without a value."""
    first = steps["steps"][0]["description"]  # the root always runs: a recording has a step
    shown = shown_lines(steps, block)
    data = json.dumps(script_data(steps, shown), ensure_ascii=False, separators=(",", ":"))
    data = data.replace("<", "\\u003c")  # no "</script>" inside the script element
    label = (f"Graph that backward() ran through, recorded from {steps['file']}: {len(steps['nodes'])} nodes, "
             "the output at the bottom. The table below lists each step.")
    unknown = sum(node["kind"] != "leaf" and not node["where"] for node in steps["nodes"])
    note = f'<p class="snippet-steps__note">{html.escape(UNKNOWN.format(count=unknown))}</p>' if unknown else ""
    graph = svg if svg is not None else f'<p class="snippet-steps__missing">{html.escape(MISSING)}</p>'
    width = f' style="--steps-min-width: {min_width(svg)}px"' if svg is not None else ""
    hide = ' hidden="hidden"' if scripted else ""
    return (f'<figure class="snippet-steps"><figcaption>{html.escape(CAPTION)}</figcaption>'
            '<div class="snippet-steps__viewer" hidden="hidden"><div class="snippet-steps__controls">'
            '<button type="button" data-go="-1">Previous</button>'
            '<button type="button" data-go="1">Next</button>'
            '<button type="button" data-go="play">Play</button>'
            f'<span class="snippet-steps__counter">Step 1 of {len(steps["steps"])}</span>'
            '<span class="snippet-steps__modes" role="group" aria-label="Step through">'
            '<button type="button" data-mode="backward" aria-pressed="true">Backward</button>'
            '<button type="button" data-mode="forward" aria-pressed="false">Forward, line by line</button>'
            '</span></div></div>'
            f'<div class="snippet-steps__stage"{width}{hide}>{code_html(steps, shown)}'
            f'<div class="snippet-steps__graph" role="img" tabindex="0" aria-label="{html.escape(label)}">{graph}</div>'
            '<p class="snippet-steps__hint">Scroll the graph sideways to see all of it.</p>'
            f'<div class="snippet-steps__now" hidden="hidden"><p class="snippet-steps__description" aria-live="polite">'
            f'{html.escape(first)}</p></div><dl class="snippet-steps__panel"></dl></div>{note}'
            '<details class="snippet-steps__table" open="open"><summary>All steps as a table</summary>'
            f'<div class="snippet-steps__scroll">{table(steps)}</div></details>'
            f'<script type="application/json" class="snippet-steps__data">{data}</script>'
            "</figure>")


def shown_lines(steps: Data, block: dict[tuple[str, int], int] | None) -> list[int]:
    """The numbers of the file's lines that the viewer shows: those of the block, from the first
    that made a node (the lines before it, imports and the like, made nothing to point at)."""
    source = steps.get("source", [])
    lines = sorted(n for f, n in block if f == steps["file"]) if block else range(1, len(source) + 1)
    made = {n for node in steps["nodes"] for n in node["lines"]}
    first = min((n for n in lines if n in made), default=None)
    return [n for n in lines if first is not None and first <= n <= len(source)]


def code_html(steps: Data, shown: list[int]) -> str:
    """The shown lines of the file, highlighted as the block above, each with its number."""
    if not shown:
        return ""
    text = "\n".join(steps["source"][n - 1] for n in shown) + "\n"
    marked = highlight(text, PythonLexer(), HtmlFormatter(nowrap=True)).split("\n")
    lines = "".join(f'<span class="snippet-steps__line" data-line="{n}"><span class="snippet-steps__number">{n}'
                    f'</span><span>{code or " "}</span></span>' for n, code in zip(shown, marked))
    label = f"The code of {html.escape(steps['file'])}, numbered"
    return f'<div class="snippet-steps__code highlight"><pre><code aria-label="{label}">{lines}</code></pre></div>'


def min_width(svg: str) -> int:
    """The narrowest the graph may be drawn with its smallest label still 12 px tall (Graphviz
    gives the width and font sizes in points, so the ratio is the same in pixels)."""
    width = float(re.findall(r'<svg[^>]*?\swidth="([\d.]+)pt"', svg)[0])
    font = min(float(size) for size in re.findall(r'font-size="([\d.]+)"', svg))
    return math.ceil(width * 12 / font)


def shown_line(lines: Sequence[int], shown: Iterable[int]) -> int | None:
    """The line to highlight for a node made by `lines` of the file: the innermost shown."""
    return next((n for n in reversed(lines) if n in shown), None)


def script_data(steps: Data, shown: list[int]) -> dict[str, Any]:
    """What steps.js needs: per node the line of the file to highlight; edges' ends; per backward
    step the node, the edges it receives on and sends along, its description and its panel's
    rows; per forward line the line, the nodes it adds and its description."""
    return {
        "lines": [shown_line(node["lines"], shown) for node in steps["nodes"]],
        "edges": [[edge["from"], edge["to"]] for edge in steps["edges"]],
        "steps": [{"node": step["node"], "text": step["description"],
                   "in": [c["edge"] for c in step["contributions"]], "out": [s["edge"] for s in step["sent"]],
                   "rows": panel_rows(steps, step)} for step in steps["steps"]],
        "forward": [{"line": shown_line([entry["line"]], shown), "nodes": entry["nodes"],
                     "text": entry["description"]} for entry in steps["forward"]],
    }


def grad_text(summary: Summary | None) -> str:
    return summary["text"] if summary else "None (no gradient)"


def node_name(steps: Data, i: int) -> str:
    """An operation's node by its name, a leaf's by its AccumulateGrad (as autograd_steps.node_text)."""
    node = steps["nodes"][i]
    named = node["kind"] == "leaf" and node["label"] != "AccumulateGrad"
    return f"{node['label']}'s AccumulateGrad" if named else node["label"]


def sent_html(steps: Data, step: Step) -> str:
    """What a step sent to each node, once per node: with how many edges where two or more reach it."""
    by_target: dict[int, list[str]] = {}
    for s in step["sent"]:
        by_target.setdefault(steps["edges"][s["edge"]]["to"], []).append(grad_text(s["grad"]))
    parts = []
    for target, grads in by_target.items():
        values = " and ".join(f"<code>{html.escape(g)}</code>" for g in dict.fromkeys(grads))
        along = f" (along each of {len(grads)} edges)" if len(grads) > 1 else ""
        parts.append(f"{values} → {html.escape(node_name(steps, target))}{along}")
    return "<br>".join(parts)


def panel_rows(steps: Data, step: Step) -> list[list[str]]:
    """[kind, what, value] for the panel: what arrives (each contribution, and their sum where
    two paths meet) and what goes out along each edge."""
    edges, contributions = steps["edges"], step["contributions"]
    if not contributions:
        rows = [["in", "Received: backward() starts here with", grad_text(step["received"])]]
    elif len(contributions) == 1:
        sender = edges[contributions[0]["edge"]]["from"]
        rows = [["in", f"Received from {node_name(steps, sender)}", grad_text(contributions[0]["grad"])]]
    else:
        rows = [["in", f"From {node_name(steps, edges[c['edge']]['from'])} (its input {edges[c['edge']]['slot']})",
                 grad_text(c["grad"])] for c in contributions]
        rows.append(["sum", "Sum received", grad_text(step["received"])])
    targets = [edges[s["edge"]]["to"] for s in step["sent"]]
    rows += [["out", f"Sent to {node_name(steps, to)}" + (f" (input {edges[s['edge']]['slot']})"
                                                            if targets.count(to) > 1 else ""), grad_text(s["grad"])]
             for s, to in zip(step["sent"], targets)]
    node = steps["nodes"][step["node"]]
    if node["kind"] == "leaf":
        rows.append(["out", "Added to", grad_attribute(node)])
    return rows


def grad_attribute(node: Node) -> str:
    """Where a leaf's AccumulateGrad puts the gradient."""
    return f"{node['label']}.grad" if node["label"] != "AccumulateGrad" else "the leaf's .grad"


def saved_text(node: Node) -> str:
    """What a custom node saved for backward, and the attributes it keeps on ctx."""
    tensors = [f"{s['name']}: {'×'.join(map(str, s['shape'])) or 'scalar'} {s['dtype']} ({s['bytes']} bytes)"
               for s in node["saved"]]
    return "; ".join(tensors + [f"ctx.{a['name']} = {a['value']}" for a in node.get("attributes", [])])


def table(steps: Data) -> str:
    nodes = steps["nodes"]
    custom = any(node["kind"] == "custom" for node in nodes)
    head = ["Step", "Node", "Made by line", "Gradient received", "Gradients sent"] + ["Saved for backward"] * custom
    rows = []
    for number, step in enumerate(steps["steps"], 1):
        node = nodes[step["node"]]
        code = next((w["code"] for w in node["where"] if w["file"] == steps["file"] and w["line"] == node["line"]), "")
        made = f"{node['line']} <code>{html.escape(code)}</code>" if node["line"] else ""
        parts = [grad_text(c["grad"]) for c in step["contributions"]]
        received = " + ".join(parts) + " = " if len(parts) > 1 else ""
        received = f"<code>{html.escape(received + grad_text(step['received']))}</code>"
        sent = sent_html(steps, step)
        if node["kind"] == "leaf":
            sent = f"added to <code>{html.escape(grad_attribute(node))}</code>"
        label = f"AccumulateGrad ({node['label']})" if node_name(steps, node["id"]) != node["label"] else node["label"]
        cells = [str(number), html.escape(label), made, received, sent]
        cells += [html.escape(saved_text(node)) if node["kind"] == "custom" else ""] * custom
        rows.append("<tr>" + "".join(f'<td data-label="{h}">{cell}</td>' for h, cell in zip(head, cells)) + "</tr>")
    return ("<table><thead><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>"
            + "".join(rows) + "</tbody></table>")
