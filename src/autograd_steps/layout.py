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
    from autograd_steps.recording import Data

SVG_NS = "http://www.w3.org/2000/svg"
ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", "http://www.w3.org/1999/xlink")
FILLS = {"leaf": "#dce6ff", "custom": "#ffe3cc", "op": "white"}
BADGES = {"nonfinite": "⚠ NaN/inf", "vanishing": "↓ vanishing", "exploding": "↑ exploding"}  # a marked node's last line
MAX_NODES = 300  # more than a viewer can show legibly, and than a reader can step through


MISSING = ("The graph needs Graphviz's dot program, which is not installed: apt install graphviz, "
           "brew install graphviz or conda install graphviz, then run the cell again.")


def quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def dot_source(steps: Data) -> str:
    """The graph as torchviz draws one: the leaves (each one's AccumulateGrad node) at the top,
    the output at the bottom; arrows point the way gradients flow, up from the output. A node
    names its module, and its marks in words."""
    lines = ['digraph {', 'graph [rankdir=BT nodesep=0.3 ranksep=0.35]',
             'node [fontsize=14 fontname=Helvetica shape=box style="rounded,filled" height=0.4]',
             'edge [arrowsize=0.7]']
    for node in steps["nodes"]:
        text = [node["label"], node["detail"]]
        if node["kind"] == "leaf":  # the node is the leaf's AccumulateGrad: its leaf's name and shape
            named = node["label"] != "AccumulateGrad"
            text = ["AccumulateGrad", f"{node['label']} ({node['detail']})" if named else node["detail"]]
        text += [node["module"]] + [BADGES[mark] for mark in node["marks"]]
        label = quoted("\n".join(t for t in text if t)).replace("\n", "\\n")
        marked = " peripheries=2" if node["marks"] else ""  # a double outline, besides the colour steps.css gives
        lines.append(f'n{node["id"]} [label={label} id="steps-node-{node["id"]}" fillcolor="{FILLS[node["kind"]]}"'
                     f"{marked}]")
    lines += [f'n{e["from"]} -> n{e["to"]} [id="steps-edge-{e["id"]}"]' for e in steps["edges"]]
    return "\n".join([*lines, "}"])


def svg(steps: Data) -> str | None:
    """The graph as SVG, sized in pixels: the group of node i marked data-node="i", of edge k
    data-edge="k", without ids, classes or titles (they would clash between two viewers of one
    page, or show as tooltips); None where Graphviz is not installed."""
    dot = shutil.which("dot")
    if dot is None:
        return None
    text = subprocess.run([dot, "-Tsvg"], input=dot_source(steps), capture_output=True, text=True, check=True).stdout
    root = ET.fromstring(text[text.index("<svg"):])
    for size in ("width", "height"):  # Graphviz's points as pixels: a label's 14 points are 14 px tall
        root.set(size, root.get(size, "").removesuffix("pt"))
    for parent in root.iter():
        for child in [c for c in parent if c.tag == f"{{{SVG_NS}}}title"]:
            parent.remove(child)
        mark = re.fullmatch(r"steps-(node|edge)-(\d+)", parent.get("id", ""))
        if mark:
            parent.set(f"data-{mark[1]}", mark[2])
        parent.attrib.pop("id", None)
        parent.attrib.pop("class", None)
    return ET.tostring(root, encoding="unicode")
