"""The step-through viewer of a backward pass recorded by `autograd_steps.step_through`.

Under the code block that called `step_through`, the page shows:

    figure.snippet-steps
      div.snippet-steps__graph       the recorded graph, inline SVG: node i is g[data-node=i],
                                     edge k is g[data-edge=k]
      div.snippet-steps__viewer      hidden until steps.js starts: Previous / Next / Play, the
                                     step counter, the Backward / Forward mode switch, the step's
                                     description (aria-live) and a panel of its gradients
      details.snippet-steps__table   every step as a table, open: without JavaScript the page
                                     shows the steps (steps.js closes it)
      script.snippet-steps__data     JSON, what steps.js needs (`script_data`)

steps.js highlights line `n` of the code block above by its n-th line span
(pymdownx.highlight's `line_spans`); `block` maps the lines of the snippet
files that block shows to those numbers.
"""

import html
import json
import re


def with_data_attributes(svg):
    """Graphviz's ids `steps-node-i` and `steps-edge-k` as data-node and data-edge attributes,
    which survive sanitising (ids would clash between two viewers of one page)."""
    return re.sub(r'\bid="steps(?:-|&#45;)(node|edge)(?:-|&#45;)(\d+)"', r'data-\1="\2"', svg)


def viewer(steps, svg, block):
    """The viewer's HTML; `svg` is the graph ready to inline, `block` {(file name, line): line
    of the code block above} for the lines that block shows (None: no block to highlight)."""
    first = steps["steps"][0]["description"]  # the root always runs: a recording has a step
    data = json.dumps(script_data(steps, block or {}), ensure_ascii=False, separators=(",", ":"))
    data = data.replace("<", "\\u003c")  # no "</script>" inside the script element
    label = (f"Graph that backward() ran through, recorded from {steps['file']}: {len(steps['nodes'])} nodes. "
             "The table below lists each step.")
    return (f'<figure class="snippet-steps"><div class="snippet-steps__graph" role="img" tabindex="0" '
            f'aria-label="{html.escape(label)}" style="--steps-min-width: {min_width(steps["svg"])}px">{svg}</div>'
            '<div class="snippet-steps__viewer" hidden><div class="snippet-steps__controls">'
            '<button type="button" data-go="-1">Previous</button>'
            '<button type="button" data-go="1">Next</button>'
            '<button type="button" data-go="play">Play</button>'
            f'<span class="snippet-steps__counter">Step 1 of {len(steps["steps"])}</span>'
            '<span class="snippet-steps__modes" role="group" aria-label="Step through">'
            '<button type="button" data-mode="backward" aria-pressed="true">Backward</button>'
            '<button type="button" data-mode="forward" aria-pressed="false">Forward, line by line</button>'
            '</span></div>'
            f'<p class="snippet-steps__description" aria-live="polite">{html.escape(first)}</p>'
            '<dl class="snippet-steps__panel"></dl></div>'
            '<details class="snippet-steps__table" open><summary>All steps as a table</summary>'
            f'<div class="snippet-steps__scroll">{table(steps)}</div></details>'
            f'<script type="application/json" class="snippet-steps__data">{data}</script>'
            "</figure>")


def min_width(svg):
    """The narrowest the graph may be drawn with its smallest label still 12 px tall (Graphviz
    gives the width and font sizes in points, so the ratio is the same in pixels)."""
    width = float(re.search(r'<svg[^>]*?\swidth="([\d.]+)pt"', svg)[1])
    font = min(float(size) for size in re.findall(r'font-size="([\d.]+)"', svg))
    return round(width * 12 / font)


def block_line(steps, lines, block):
    """The line of the code block to highlight for `lines` of the snippet: the innermost it shows."""
    return next((block[steps["file"], n] for n in reversed(lines) if (steps["file"], n) in block), None)


def script_data(steps, block):
    """What steps.js needs: per node the block line to highlight; edges' ends; per backward step
    the node, the edges it receives on and sends along, its description and its panel's rows;
    per forward line the block line, the nodes it adds and its description."""
    return {
        "lines": [block_line(steps, node["lines"], block) for node in steps["nodes"]],
        "edges": [[edge["from"], edge["to"]] for edge in steps["edges"]],
        "steps": [{"node": step["node"], "text": step["description"],
                   "in": [c["edge"] for c in step["contributions"]], "out": [s["edge"] for s in step["sent"]],
                   "rows": panel_rows(steps, step)} for step in steps["steps"]],
        "forward": [{"line": block_line(steps, [entry["line"]], block), "nodes": entry["nodes"],
                     "text": entry["description"]} for entry in steps["forward"]],
    }


def grad_text(summary):
    return summary["text"] if summary else "None (no gradient)"


def node_name(steps, i):
    node = steps["nodes"][i]
    return f"the leaf {node['label']}" if node["kind"] == "leaf" else node["label"]


def panel_rows(steps, step):
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


def grad_attribute(node):
    """Where a leaf's AccumulateGrad puts the gradient."""
    return f"{node['label']}.grad" if node["label"] != "AccumulateGrad" else "the leaf's .grad"


def saved_text(node):
    """What a custom node saved for backward, and the attributes it keeps on ctx."""
    tensors = [f"{s['name']}: {'×'.join(map(str, s['shape'])) or 'scalar'} {s['dtype']} ({s['bytes']} bytes)"
               for s in node["saved"]]
    return "; ".join(tensors + [f"ctx.{a['name']} = {a['value']}" for a in node.get("attributes", [])])


def table(steps):
    nodes, edges = steps["nodes"], steps["edges"]
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
        sent = "<br>".join(f"<code>{html.escape(grad_text(s['grad']))}</code> → "
                           f"{html.escape(node_name(steps, edges[s['edge']]['to']))}" for s in step["sent"])
        if node["kind"] == "leaf":
            sent = f"added to <code>{html.escape(grad_attribute(node))}</code>"
        cells = [str(number), html.escape(node["label"]), made, received, sent]
        cells += [html.escape(saved_text(node)) if node["kind"] == "custom" else ""] * custom
        rows.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>")
    return ("<table><thead><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>"
            + "".join(rows) + "</tbody></table>")
