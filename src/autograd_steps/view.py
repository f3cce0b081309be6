"""The step-through viewer of a backward pass recorded by `autograd_steps.recording`: the one
viewer of the site (under a code block) and of a reader's notebook (`notebook_html`).

Under the code block whose backward pass the page steps through, the page shows:

    figure.snippet-steps
      figcaption                     which way the graph runs
      div.snippet-steps__error       where backward() raised, if it did, with the forward traceback
      div.snippet-steps__main
        div.snippet-steps__viewer    hidden until steps.js starts; sticks to the top of the screen:
                                     Previous / Next / Play, the step counter, buttons that go to
                                     the first NaN/inf and the largest and smallest gradient, the
                                     Backward / Forward mode switch, and the step's description
        div.snippet-steps__stage     side by side where there is room, else one above the other
                                     (in a notebook, hidden until steps.js starts):
          div.snippet-steps__code    the block's lines from the first that made a node, numbered
                                     as in the file: line n is [data-line=n]
          div.snippet-steps__tools   zoom out, in, reset (shown by steps.js)
          div.snippet-steps__graph   the recorded graph, inline SVG: node i is g[data-node=i],
                                     edge k is g[data-edge=k]; it scrolls and pans in its box, a
                                     hint says so (without Graphviz, a note that says how to get it)
          dl.snippet-steps__panel    the gradients the step received and sent, what the node
                                     saved for backward (steps.js fills it)
      p.snippet-steps__note          where some nodes' lines are unknown, why
      p.snippet-steps__unreached     the parameters that get no gradient, by name
      details.snippet-steps__overview  the gradient norms, a row per step, on a log scale
      details.snippet-steps__table   every step as a table, open: without JavaScript the page
                                     shows the steps (steps.js closes it); on a narrow screen each
                                     row is a card
      script.snippet-steps__data     JSON, what steps.js needs (`script_data`)

Nodes the recorder marks (a NaN or inf gradient, a vanishing or exploding one, where backward()
raised) say so in words in the graph and the tables, besides their colour.

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

from autograd_steps import layout
from autograd_steps.layout import MISSING

if TYPE_CHECKING:  # the recorder imports torch, which the viewer does not need
    from autograd_steps.recording import Data, LaidOut, Node, Saved, Step, Summary

ASSETS = Path(__file__).parent / "assets"  # steps.js and steps.css
INDENT = "\u00a0" * 2  # a module's name in the choice of module, under the module holding it
CAPTION = ("backward() runs up the arrows: from the output at the bottom to the leaves' "
           "AccumulateGrad nodes at the top.")


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
    first = steps["steps"][0]["description"] if steps["steps"] else error_text(steps)
    shown = shown_lines(steps, block)
    tree = layout.views(steps)
    data = json.dumps(script_data(steps, shown, tree), ensure_ascii=False, separators=(",", ":"))
    data = data.replace("<", "\\u003c")  # no "</script>" inside the script element
    label = (f"Graph that backward() ran through, recorded from {steps['file']}: {len(steps['nodes'])} nodes, "
             "the output at the bottom. The table below lists each step.")
    note = f'<p class="snippet-steps__note">{html.escape(steps["note"])}</p>' if steps["note"] else ""
    note += missing_html(steps)
    graph = svg if svg is not None else f'<p class="snippet-steps__missing">{html.escape(MISSING)}</p>'
    hide = ' hidden="hidden"' if scripted else ""
    return (f'<figure class="snippet-steps"><figcaption>{html.escape(CAPTION)}</figcaption>{error_html(steps)}'
            '<div class="snippet-steps__main"><div class="snippet-steps__viewer" hidden="hidden">'
            '<div class="snippet-steps__controls">'
            '<button type="button" data-go="-1">Previous</button>'
            '<button type="button" data-go="1">Next</button>'
            '<button type="button" data-go="play">Play</button>'
            f'<span class="snippet-steps__counter">Step 1 of {len(steps["steps"])}</span>'
            f"{jumps_html(steps)}"
            '<span class="snippet-steps__modes" role="group" aria-label="Step through">'
            '<button type="button" data-mode="backward" aria-pressed="true">Backward</button>'
            '<button type="button" data-mode="forward" aria-pressed="false">Forward, line by line</button>'
            '</span></div>'
            f'<p class="snippet-steps__description" aria-live="polite">{html.escape(first)}</p></div>'
            f'<div class="snippet-steps__stage"{hide}>{code_html(steps, shown)}'
            f'<div class="snippet-steps__tools" hidden="hidden">{tools_html(tree)}</div>'
            f'<div class="snippet-steps__graph" role="img" tabindex="0" aria-label="{html.escape(label)}">{graph}</div>'
            '<p class="snippet-steps__hint">Scroll or drag the graph to see all of it; click a node to go to its step.</p>'
            f'<dl class="snippet-steps__panel"></dl></div></div>{note}{overview(steps)}'
            '<details class="snippet-steps__table" open="open"><summary>All steps as a table</summary>'
            f'<div class="snippet-steps__scroll">{table(steps)}</div></details>'
            f'<script type="application/json" class="snippet-steps__data">{data}</script>'
            "</figure>")


def missing_html(steps: Data) -> str:
    """The parameters that require grad and get no gradient from this backward pass, by name (the
    search finds them too)."""
    if not steps["missing"]:
        return ""
    names = ", ".join(f"<code>{html.escape(m['name'])}</code> ({html.escape(m['shape'])})" for m in steps["missing"])
    return (f'<p class="snippet-steps__note snippet-steps__unreached">Received no gradient: this backward pass does '
            f"not reach {'them' if len(steps['missing']) > 1 else 'it'} (detached, or not used): {names}.</p>")


def tools_html(tree: list[layout.View]) -> str:
    """Above the graph: zoom out, in and reset; a search for a node or a parameter by name; for a
    graph drawn collapsed by module (`tree`, `layout.views`), a choice of module to show (each
    under the module holding it), and buttons up one level and back to all modules."""
    zoom = ('<span role="group" aria-label="Zoom the graph">'
            '<button type="button" data-zoom="out" aria-label="Zoom out">−</button>'
            '<button type="button" data-zoom="in" aria-label="Zoom in">+</button>'
            '<button type="button" data-zoom="reset">Reset zoom</button></span>')
    search = ('<input type="search" class="snippet-steps__search" placeholder="Find a node or parameter" '
              'aria-label="Find a node or parameter by name"><output class="snippet-steps__found"></output>')
    if not tree:
        return zoom + search
    depth = [0] * len(tree)
    for k, view in enumerate(tree[1:], 1):
        depth[k] = depth[view.parent] + 1
    options = "".join(f'<option value="{k}">{INDENT * depth[k]}{html.escape(view.path)}</option>'
                      for k, view in enumerate(tree) if k)
    return (zoom + '<select class="snippet-steps__modules" aria-label="Show a module">'
            f'<option value="0">All modules</option>{options}</select>'
            '<button type="button" data-view="up" hidden="hidden">Up one level</button>'
            '<button type="button" data-view="0" hidden="hidden">All modules</button>' + search)


def jumps_html(steps: Data) -> str:
    """Buttons that go to the step of the first non-finite value (its title says which pass made
    it), of the largest gradient, of the smallest, and in a comparison of the most changed: each
    only where the recording has that step."""
    jumps = steps["jumps"]
    found = [("nonfinite", jumps["nonfinite"], "First NaN/inf"), ("largest", jumps["largest"], "Largest gradient"),
             ("smallest", jumps["smallest"], "Smallest gradient"), ("changed", jumps.get("changed"), "Largest change")]
    origin = f' title="Made in the {jumps["origin"]} pass"'
    buttons = "".join(f'<button type="button" data-jump="{name}" data-step="{step}"'
                      f'{origin if name == "nonfinite" else ""}>{text}</button>'
                      for name, step, text in found if step is not None)
    return f'<span class="snippet-steps__jumps" role="group" aria-label="Go to">{buttons}</span>' if buttons else ""


def error_text(steps: Data) -> str:
    """Where backward() raised, and its message."""
    error = steps["error"]
    where = f" at {node_name(steps, error['node'])}" if error["node"] is not None else ""
    step = f" (step {error['step'] + 1})" if error["step"] is not None else ""
    return f"backward() raised{where}{step}: {error['message']}"


def error_html(steps: Data) -> str:
    """A failed recording's error, with the forward traceback anomaly mode keeps for the failing node."""
    error = steps.get("error")
    if error is None:
        return ""
    forward = (f'<details class="snippet-steps__traceback"><summary>Traceback of the forward call that made the node</summary>'
               f'<pre><code>{html.escape(error["forward"])}</code></pre></details>' if error["forward"] else "")
    before = "The steps before it are shown below." if steps["steps"] else ""
    return (f'<div class="snippet-steps__error" role="alert"><p>{html.escape(error_text(steps))} {before}</p>'
            f"{forward}</div>")


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


def shown_line(lines: Sequence[int], shown: Iterable[int]) -> int | None:
    """The line to highlight for a node made by `lines` of the file: the innermost shown."""
    return next((n for n in reversed(lines) if n in shown), None)


def marks(steps: Data, i: int) -> list[str]:
    """A node's marks, "failed" for the node where backward() raised."""
    error = steps.get("error")
    return steps["nodes"][i]["marks"] + (["failed"] if error and error["node"] == i else [])


def script_data(steps: Data, shown: list[int], tree: list[layout.View]) -> dict[str, Any]:
    """What steps.js needs: per node the line of the file to highlight, its name, its module's
    path and its marks;
    edges' ends; per backward step the node, the edges it receives on and sends along, its
    description and its panel's rows; per forward line the line, the nodes it adds and its
    description; in a graph collapsed by module, the view above each view (`tree`) and per node
    the view that draws it; the names of the parameters that get no gradient."""
    return {
        "lines": [shown_line(node["lines"], shown) for node in steps["nodes"]],
        "names": [node_name(steps, node["id"]) for node in steps["nodes"]],
        "paths": [node["module"] for node in steps["nodes"]],
        "marks": [marks(steps, node["id"]) for node in steps["nodes"]],
        "views": [view.parent for view in tree],
        "place": layout.placed(tree, len(steps["nodes"])) if tree else [],
        "edges": [[edge["from"], edge["to"]] for edge in steps["edges"]],
        "steps": [{"node": step["node"], "text": step["description"],
                   "in": [c["edge"] for c in step["contributions"]], "out": [s["edge"] for s in step["sent"]],
                   "rows": panel_rows(steps, step)} for step in steps["steps"]],
        "forward": [{"line": shown_line([entry["line"]], shown), "nodes": entry["nodes"],
                     "text": entry["description"]} for entry in steps["forward"]],
        "missing": [m["name"] for m in steps["missing"]],
    }


def grad_text(summary: Summary | None) -> str:
    return summary["text"] if summary else "None (no gradient)"


def nonfinite(summary: Summary | None) -> bool:
    return summary is not None and summary["nan"] + summary["inf"] > 0


def node_name(steps: Data, i: int) -> str:
    """An operation's node by its name, a leaf's by its AccumulateGrad (as autograd_steps.node_text)."""
    node = steps["nodes"][i]
    named = node["kind"] == "leaf" and node["label"] != "AccumulateGrad"
    return f"{node['label']}'s AccumulateGrad" if named else node["label"]


SIGNED = re.compile(r"-(?=[\d.])[\w.+-]*")  # -4.089e-14


def values_code(text: str) -> str:
    """Values as inline code, a negative number kept whole: a browser breaks a line after a minus sign."""
    kept = SIGNED.sub(lambda m: f'<span class="snippet-steps__signed">{m[0]}</span>', html.escape(text))
    return f"<code>{kept}</code>"


def sent_html(steps: Data, step: Step) -> str:
    """What a step sent to each node, once per node: with how many edges where two or more reach it."""
    by_target: dict[int, list[str]] = {}
    for s in step["sent"]:
        by_target.setdefault(steps["edges"][s["edge"]]["to"], []).append(grad_text(s["grad"]))
    parts = []
    for target, grads in by_target.items():
        values = " and ".join(values_code(g) for g in dict.fromkeys(grads))
        along = f" (along each of {len(grads)} edges)" if len(grads) > 1 else ""
        parts.append(f"{values} → {html.escape(node_name(steps, target))}{along}")
    return "<br>".join(parts)


def panel_rows(steps: Data, step: Step) -> list[list[str]]:
    """[kind, what, value, "nonfinite", "changed" or ""] for the panel: the line of the reader's code
    that made the node (the innermost) and the calls that led there, what arrives (each
    contribution, and their sum where two paths meet, or one gradient per output of a node with
    several), in a comparison what the same node received before, what goes out along each edge,
    and what the node saved for backward."""
    edges, contributions, received = steps["edges"], step["contributions"], step["received"]

    def row(kind: str, what: str, grad: Summary | None) -> list[str]:
        return [kind, what, grad_text(grad), "nonfinite" if nonfinite(grad) else ""]

    if not contributions:
        rows = [row("in", "Received: backward() starts here with", received)]
    elif len(contributions) == 1:
        sender = edges[contributions[0]["edge"]]["from"]
        rows = [row("in", f"Received from {node_name(steps, sender)}", contributions[0]["grad"])]
    else:
        rows = [row("in", f"From {node_name(steps, edges[c['edge']]['from'])} (its input {edges[c['edge']]['slot']})",
                    c["grad"]) for c in contributions]
        several = received is not None and received["shape"] is None
        rows.append(row("sum", "Received, one gradient per output" if several else "Sum received", received))
    before = steps.get("before")
    if before is not None:  # a comparison's (`compare`)
        there = before[step["node"]]
        ratio = f" (now {there['ratio']:.3g}×)" if there["ratio"] is not None else ""
        rows.append(["before", "Before", grad_text(there["received"]) + ratio if there["node"] is not None
                     else "no such node", "changed" if "changed" in steps["nodes"][step["node"]]["marks"] else ""])
    targets = [edges[s["edge"]]["to"] for s in step["sent"]]
    rows += [row("out", f"Sent to {node_name(steps, to)}" + (f" (input {edges[s['edge']]['slot']})"
                                                           if targets.count(to) > 1 else ""), s["grad"])
             for s, to in zip(step["sent"], targets)]
    node = steps["nodes"][step["node"]]
    if node["kind"] != "leaf" and node["where"]:  # the reader's line that made it, and the calls to it
        *calls, made = node["where"]
        rows.insert(0, ["made", "Made by", f"{made['place']}: {made['code']}", ""])
        if calls:
            rows.insert(1, ["made", "Called from", " ← ".join(f"{f['place']}: {f['code']}" for f in reversed(calls)), ""])
    if node["kind"] == "leaf":
        rows.append(["out", "Added to", grad_attribute(node), ""])
    for saved in node["saved"]:
        rows.append(["saved", f"Saved for backward: {saved['name']}", saved_tensor_text(saved),
                     "nonfinite" if nonfinite(saved["summary"]) else ""])
    rows += [["saved", f"ctx.{a['name']}", a["value"], ""] for a in node.get("attributes", [])]
    return rows


def saved_tensor_text(saved: Saved) -> str:
    """A saved tensor: its values or statistics, dtype and size; why not, where it could not be read."""
    if saved["shape"] is None:  # not read: only why
        return saved["error"] or "not readable"
    shape, size = "×".join(map(str, saved["shape"])) or "scalar", f"{saved['dtype']}, {saved['bytes']} bytes"
    if saved["error"] is not None:
        return f"{shape} {size}: {saved['error']}"
    return f"{saved['summary']['text'] if saved['summary'] else shape} ({size})"


def grad_attribute(node: Node) -> str:
    """Where a leaf's AccumulateGrad puts the gradient."""
    return f"{node['label']}.grad" if node["label"] != "AccumulateGrad" else "the leaf's .grad"


def saved_text(node: Node) -> str:
    """What a custom node saved for backward, and the attributes it keeps on ctx."""
    tensors = [f"{s['name']}: {saved_tensor_text(s)}" for s in node["saved"]]
    return "; ".join(tensors + [f"ctx.{a['name']} = {a['value']}" for a in node.get("attributes", [])])


MARKS = {"nonfinite": "NaN/inf", "vanishing": "vanishing", "exploding": "exploding", "changed": "changed",
         "failed": "raised"}


def marks_html(steps: Data, i: int) -> str:
    """A node's marks as badges: said in words, not by colour alone."""
    return "".join(f' <span class="snippet-steps__mark is-{m}">{MARKS[m]}</span>' for m in marks(steps, i))


def row_class(steps: Data, i: int) -> str:
    found = " ".join(f"is-{m}" for m in marks(steps, i))
    return f' class="{found}"' if found else ""


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
        several = step["received"] is not None and step["received"]["shape"] is None
        received = " + ".join(parts) + " = " if len(parts) > 1 and not several else ""
        received = values_code(received + grad_text(step["received"]))
        sent = sent_html(steps, step)
        if node["kind"] == "leaf":
            sent = f"added to <code>{html.escape(grad_attribute(node))}</code>"
        label = f"AccumulateGrad ({node['label']})" if node_name(steps, node["id"]) != node["label"] else node["label"]
        module = f' <span class="snippet-steps__module">{html.escape(node["module"])}</span>' if node["module"] else ""
        cells = [str(number), html.escape(label) + module + marks_html(steps, node["id"]), made, received, sent]
        cells += [html.escape(saved_text(node)) if node["kind"] == "custom" else ""] * custom
        rows.append(f"<tr{row_class(steps, node['id'])}>"
                    + "".join(f'<td data-label="{h}">{cell}</td>' for h, cell in zip(head, cells)) + "</tr>")
    return ("<table><thead><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>"
            + "".join(rows) + "</tbody></table>")


KINDS = {"leaf": "leaf", "op": "operation", "custom": "custom"}


def bar_widths(norms: list[float | None]) -> list[float]:
    """Each norm's bar, 0 to 1 on a log scale from the smallest positive norm (a twentieth) to the
    largest (all); 0 for none or zero."""
    positive = [n for n in norms if n]
    if not positive:
        return [0.0] * len(norms)
    low, high = math.log10(min(positive)), math.log10(max(positive))
    return [0.0 if not n else 0.05 + 0.95 * ((math.log10(n) - low) / (high - low) if high > low else 1.0)
            for n in norms]


def overview(steps: Data) -> str:
    """The gradient each node received, a row per step, its norm on a log scale: a layer whose
    gradient vanishes or explodes shows without stepping (steps.js sorts it and goes to a row's step)."""
    norms = [s["received"]["norm"] if s["received"] else None for s in steps["steps"]]
    rows = []
    for number, (step, norm, width) in enumerate(zip(steps["steps"], norms, bar_widths(norms)), 1):
        node = steps["nodes"][step["node"]]
        got = step["received"]
        value = "None" if got is None else f"{norm:.3g}" + "".join(
            f", {got[k]} {k if k == 'inf' else 'NaN'}" for k in ("nan", "inf") if got[k])  # norm of the finite
        rows.append(f'<tr data-step="{number - 1}"{row_class(steps, node["id"])}><td>{number}</td>'
                    f'<td>{html.escape(node_name(steps, node["id"]))}{marks_html(steps, node["id"])}</td>'
                    f'<td>{html.escape(node["module"])}</td><td>{KINDS[node["kind"]]}</td>'
                    f'<td data-value="{-1 if norm is None else norm}"><span class="snippet-steps__norm">{value}</span>'
                    f'<span class="snippet-steps__bar" style="--bar: {width:.3f}"></span></td></tr>')
    head = "".join(f"<th>{h}</th>" for h in ("Step", "Node", "Module", "Kind", "Gradient norm (log scale)"))
    return ('<details class="snippet-steps__overview"><summary>Gradient norms, node by node</summary>'
            f'<div class="snippet-steps__scroll"><table class="snippet-steps__norms"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div></details>')
