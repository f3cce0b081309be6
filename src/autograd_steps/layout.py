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
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:  # the recorder imports torch, which laying out a recording does not need
    from autograd_steps.recording import Data, Node

SVG_NS = "http://www.w3.org/2000/svg"
ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", "http://www.w3.org/1999/xlink")
FILLS = {"leaf": "#dce6ff", "custom": "#ffe3cc", "op": "white"}
BADGES = {"nonfinite": "⚠ NaN/inf", "vanishing": "↓ vanishing", "exploding": "↑ exploding", "changed": "≠ changed"}  # a marked node's last line
COLLAPSE = 150  # a graph of more nodes is drawn collapsed by module (`svg`)
WIDE = 24  # the most boxes a view holds before it holds runs of them, and modules where it opens a ModuleList


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


class View(NamedTuple):
    """A view of a graph drawn collapsed by module (`views`): what it shows ("" for the whole
    graph, a module's path, or "first … last" for a run of the modules a view holds), the view
    whose box opens it (-1: none), the views it draws as boxes, and the ids of the nodes it draws
    as themselves."""
    path: str
    parent: int
    boxes: list[int]
    nodes: list[int]


def homes(steps: Data) -> list[str]:
    """Each node's module: the innermost one whose forward made it; a parameter's AccumulateGrad
    is its module's, or where that module made no node itself (`F.linear(x, self.proj.weight)`),
    the innermost module holding it that did."""
    made = {node["module"] for node in steps["nodes"] if node["module"]}
    paths = {".".join(parts[:k]) for path in made for parts in [path.split(".")] for k in range(1, len(parts) + 1)}

    def home(node: Node) -> str:
        if node["module"] or node["kind"] != "leaf":
            return node["module"]
        parts = node["label"].split(".")[:-1]
        return next((p for k in range(len(parts), 0, -1) if (p := ".".join(parts[:k])) in paths), "")
    return [home(node) for node in steps["nodes"]]


def views(steps: Data) -> list[View]:
    """The graph as a tree of views, the whole graph first, then each module's, depth first. A view
    draws the modules its module holds as boxes, in the order the forward pass ran them, and its
    module's own nodes. A module of one node is drawn as that node; a module that made no node
    itself (a ModuleList, a Sequential) is drawn as the modules it holds, where the view then
    draws at most WIDE modules; a view that would hold one box holds what that box holds (the
    model itself); and a view of more than WIDE boxes holds runs of them (a Sequential of a
    thousand layers), each a box of at most WIDE. Empty where the graph is drawn whole
    (`collapsed`, and a graph whose modules all fold into one view)."""
    if not collapsed(steps):
        return []
    children: dict[str, dict[str, None]] = {}  # module -> the modules it holds, in the order of their first node
    direct: dict[str, list[int]] = {}  # module -> its own nodes
    size: dict[str, int] = {}  # module -> the number of nodes it holds, its own and its modules'
    for node, path in sorted(zip(steps["nodes"], homes(steps)), key=lambda pair: pair[0]["kind"] == "leaf"):
        direct.setdefault(path, []).append(node["id"])
        parts = path.split(".") if path else []
        for k in range(len(parts) + 1):
            prefix = ".".join(parts[:k])
            size[prefix] = size.get(prefix, 0) + 1
            if k < len(parts):
                children.setdefault(prefix, {})[".".join(parts[:k + 1])] = None

    def nodes_in(path: str) -> list[int]:
        return direct.get(path, []) + [i for child in children.get(path, {}) for i in nodes_in(child)]

    found: list[View] = []

    def add(path: str, parent: int, run: list[str] | None = None) -> int:
        """The view of a module, or of a `run` of the modules a view holds (named `path`)."""
        own, inside = ([], list(run)) if run is not None else (list(direct.get(path, [])), list(children.get(path, {})))
        drawn: list[str] = []  # the modules drawn in the view, boxes and modules of one node, in order
        while True:
            while inside:
                child = inside.pop(0)
                held = list(children.get(child, {}))
                if size[child] > 1 and child not in direct and len(drawn) + len(inside) + len(held) <= WIDE:
                    inside[:0] = held
                else:
                    drawn.append(child)
            boxes = [child for child in drawn if size[child] > 1]
            if len(boxes) != 1 or run is not None:
                break
            drawn.remove(boxes[0])
            own += direct.get(boxes[0], [])
            inside = list(children.get(boxes[0], {}))
        k = len(found)
        found.append(View(path, parent, [], sorted(own + [i for c in drawn if size[c] == 1 for i in nodes_in(c)])))
        if len(boxes) <= WIDE:
            found[k].boxes.extend(add(child, k) for child in boxes)
            return k
        per = -(-len(boxes) // WIDE)  # runs of `per` boxes, each with the one-node modules after it
        runs: list[list[str]] = [[]]
        for child in drawn:
            if size[child] > 1 and sum(size[c] > 1 for c in runs[-1]) == per:
                runs.append([])
            runs[-1].append(child)
        found[k] = View(path, parent, [], sorted(own))
        found[k].boxes.extend(add(f"{r[0]} … {r[-1]}", k, r) if len(r) > 1 else add(r[0], k) for r in runs)
        return k

    add("", -1)
    return found if len(found) > 1 else []


def collapsed(steps: Data) -> bool:
    return len(steps["nodes"]) > COLLAPSE and any(node["module"] for node in steps["nodes"])


def placed(tree: list[View], n: int) -> list[int]:
    """For each of the `n` nodes, the view that draws it as itself."""
    place = [0] * n
    for k, view in enumerate(tree):
        for i in view.nodes:
            place[i] = k
    return place


def sources(steps: Data, tree: list[View]) -> list[str]:
    """Each view as DOT, drawn as torchviz draws a graph (the leaves at the top, the output at the
    bottom, arrows the way gradients flow): each view it holds one box (its path, its number of
    nodes, its nodes' marks), its own nodes, and an edge between two of them where a node of one
    sends to a node of the other. An edge is drawn in one view, the deepest holding both its ends:
    above it, one box holds both."""
    place, parent = placed(tree, len(steps["nodes"])), [view.parent for view in tree]
    depth, count = [0] * len(tree), [len(view.nodes) for view in tree]
    marks: list[set[str]] = [{m for i in view.nodes for m in steps["nodes"][i]["marks"]} for view in tree]
    for k in range(1, len(tree)):  # parents come first
        depth[k] = depth[parent[k]] + 1
    for k in range(len(tree) - 1, 0, -1):
        count[parent[k]] += count[k]
        marks[parent[k]] |= marks[k]

    def ends(a: int, b: int) -> tuple[int, str, str]:
        """The view an edge from node a to node b is drawn in, and what draws each end there."""
        x, y, ea, eb = place[a], place[b], f"n{a}", f"n{b}"
        while x != y:
            if depth[x] >= depth[y]:
                x, ea = parent[x], f"m{x}"
            else:
                y, eb = parent[y], f"m{y}"
        return x, ea, eb

    lines = [["digraph {", *HEAD] for _ in tree]
    for k, view in enumerate(tree):
        for box in view.boxes:
            text = [tree[box].path, f"{count[box]} nodes", *(BADGES[m] for m in sorted(marks[box]))]
            lines[k].append(f'm{box} [label={label(text)} id="steps-module-{box}" fillcolor="#eeeeee"'
                            + (" peripheries=2]" if marks[box] else "]"))
        lines[k] += [node_line(steps["nodes"][i]) for i in view.nodes]
    between: set[tuple[int, str, str]] = set()  # edges that a box draws, once each
    for edge in steps["edges"]:
        k, a, b = ends(edge["from"], edge["to"])
        if a[0] == b[0] == "n":
            lines[k].append(f'{a} -> {b} [id="steps-edge-{edge["id"]}"]')
        elif a != b and (k, a, b) not in between:
            between.add((k, a, b))
            lines[k].append(f"{a} -> {b}")
    return ["\n".join([*view_lines, "}"]) for view_lines in lines]


def svg(steps: Data) -> str | None:
    """The graph as SVG, sized in pixels: the group of node i marked data-node="i", of edge k
    data-edge="k", without ids, classes or titles (they would clash between two viewers of one
    page, or show as tooltips); None where Graphviz is not installed. A graph of more than
    COLLAPSE nodes is several views in one SVG (`views`), the k-th an <svg data-view="k"> the
    size of the whole (its own in data-width and data-height), a box in it data-module="j" for
    the view it opens; the first, the whole graph, shows."""
    dot = shutil.which("dot")
    if dot is None:
        return None
    tree = views(steps) or [View("", -1, [], [node["id"] for node in steps["nodes"]])]
    out = subprocess.run([dot, "-Tsvg"], input="\n".join(sources(steps, tree)), capture_output=True, text=True,
                         check=True).stdout
    drawings = [cleaned(ET.fromstring(text[text.index("<svg"):])) for text in out.split("<?xml")[1:]]
    if len(drawings) == 1:
        return ET.tostring(drawings[0], encoding="unicode")
    root = ET.Element(f"{{{SVG_NS}}}svg", {k: drawings[0].get(k, "") for k in ("width", "height")})
    for k, view in enumerate(drawings):
        view.attrib.update({"data-view": str(k), "data-width": view.get("width", ""),
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
