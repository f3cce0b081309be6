"""The recorded graph laid out by Graphviz's `dot`, as the viewer inlines it.

The DOT text is written here and piped to the `dot` program rather than through the `graphviz`
Python binding: the package's one dependency stays torch, and a reader without Graphviz still
gets the viewer (the table of steps, the code, the step's text), with a note on how to get the
picture (`MISSING`).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the recorder imports torch, which laying out a recording does not need
    from autograd_steps.recording import Data, Node

SVG_NS = "http://www.w3.org/2000/svg"
ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", "http://www.w3.org/1999/xlink")
FILLS = {"leaf": "#dce6ff", "custom": "#ffe3cc", "op": "white"}
BADGES = {"nonfinite": "⚠ NaN/inf", "vanishing": "↓ vanishing", "exploding": "↑ exploding"}  # a marked node's last line
COLLAPSE = 150  # a graph of more nodes is drawn collapsed by module (`svg`)


MISSING = ("The graph needs Graphviz's dot program, which is not installed: apt install graphviz, "
           "brew install graphviz or conda install graphviz, then run the cell again.")


def quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def node_line(node: Node) -> str:
    """A node as DOT: the leaves' AccumulateGrad nodes with their leaf's name and shape, a node
    with its module and its marks in words (and a double outline, besides the colour steps.css
    gives)."""
    text = [node["label"], node["detail"]]
    if node["kind"] == "leaf":
        named = node["label"] != "AccumulateGrad"
        text = ["AccumulateGrad", f"{node['label']} ({node['detail']})" if named else node["detail"]]
    text += [node["module"]] + [BADGES[mark] for mark in node["marks"]]
    marked = " peripheries=2" if node["marks"] else ""
    return (f'n{node["id"]} [label={label(text)} id="steps-node-{node["id"]}" fillcolor="{FILLS[node["kind"]]}"'
            f"{marked}]")


def label(lines: list[str]) -> str:
    return quoted("\n".join(t for t in lines if t)).replace("\n", "\\n")


HEAD = ['graph [rankdir=BT nodesep=0.3 ranksep=0.35]',
        'node [fontsize=14 fontname=Helvetica shape=box style="rounded,filled" height=0.4]', 'edge [arrowsize=0.7]']


def dot_source(steps: Data, shown: set[int] | None = None) -> str:
    """The graph (or the nodes `shown` and the edges between them) as torchviz draws one: the
    leaves at the top, the output at the bottom; arrows point the way gradients flow, up from
    the output."""
    nodes = [n for n in steps["nodes"] if shown is None or n["id"] in shown]
    edges = [e for e in steps["edges"] if shown is None or (e["from"] in shown and e["to"] in shown)]
    lines = ["digraph {", *HEAD, *map(node_line, nodes)]
    lines += [f'n{e["from"]} -> n{e["to"]} [id="steps-edge-{e["id"]}"]' for e in edges]
    return "\n".join([*lines, "}"])


def modules(steps: Data) -> dict[str, list[int]]:
    """{module path: its nodes' ids}, in the order of their first node; nodes of no known module apart."""
    found: dict[str, list[int]] = {}
    for node in steps["nodes"]:
        if node["module"]:
            found.setdefault(node["module"], []).append(node["id"])
    return found


def collapsed(steps: Data) -> bool:
    return len(steps["nodes"]) > COLLAPSE and bool(modules(steps))


def modules_source(steps: Data) -> str:
    """The graph with each module one box (its path, its number of nodes, its nodes' marks) and
    an edge between two boxes where a node of one sends to a node of the other."""
    box = {i: f"m{k}" for k, ids in enumerate(modules(steps).values()) for i in ids}
    lines = ["digraph {", *HEAD]
    for k, (path, ids) in enumerate(modules(steps).items()):
        marks = sorted({m for i in ids for m in steps["nodes"][i]["marks"]})
        text = [path, f"{len(ids)} nodes", *(BADGES[m] for m in marks)]
        lines.append(f'm{k} [label={label(text)} id="steps-module-{k}" fillcolor="#eeeeee"'
                     + (" peripheries=2]" if marks else "]"))
    lines += [node_line(n) for n in steps["nodes"] if n["id"] not in box]
    ends = {(box.get(e["from"], f"n{e['from']}"), box.get(e["to"], f"n{e['to']}")) for e in steps["edges"]}
    lines += [f"{a} -> {b}" for a, b in sorted(ends) if a != b]
    return "\n".join([*lines, "}"])


def svg(steps: Data) -> str | None:
    """The graph as SVG, sized in pixels: the group of node i marked data-node="i", of edge k
    data-edge="k", without ids, classes or titles (they would clash between two viewers of one
    page, or show as tooltips); None where Graphviz is not installed. A graph of more than
    COLLAPSE nodes is several views in one SVG, each an <svg data-view> the size of the whole
    (its own in data-width and data-height): the modules, each one box (data-module="k", the k-th
    of `modules`), then each module's own nodes; the first shows."""
    dot = shutil.which("dot")
    if dot is None:
        return None
    sources = [modules_source(steps), *(dot_source(steps, set(ids)) for ids in modules(steps).values())] \
        if collapsed(steps) else [dot_source(steps)]
    out = subprocess.run([dot, "-Tsvg"], input="\n".join(sources), capture_output=True, text=True, check=True).stdout
    views = [cleaned(ET.fromstring(text[text.index("<svg"):])) for text in out.split("<?xml")[1:]]
    if len(views) == 1:
        return ET.tostring(views[0], encoding="unicode")
    root = ET.Element(f"{{{SVG_NS}}}svg", {k: views[0].get(k, "") for k in ("width", "height")})
    for k, view in enumerate(views):
        view.attrib.update({"data-view": str(k - 1), "data-width": view.get("width", ""),  # -1: the modules
                            "data-height": view.get("height", ""), "width": "100%", "height": "100%"})
        if k:
            view.set("display", "none")
        root.append(view)
    return ET.tostring(root, encoding="unicode")


def cleaned(root: ET.Element) -> ET.Element:
    """Graphviz's SVG sized in pixels (a label's 14 points 14 px tall), its ids as data-node,
    data-edge and data-module, without titles, ids or classes."""
    for size in ("width", "height"):
        root.set(size, root.get(size, "").removesuffix("pt"))
    for parent in root.iter():
        for child in [c for c in parent if c.tag == f"{{{SVG_NS}}}title"]:
            parent.remove(child)
        mark = re.fullmatch(r"steps-(node|edge|module)-(\d+)", parent.get("id", ""))
        if mark:
            parent.set(f"data-{mark[1]}", mark[2])
        parent.attrib.pop("id", None)
        parent.attrib.pop("class", None)
    return root
