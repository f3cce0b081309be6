"""A graph a snippet renders with graphviz (torchviz's too): the picture, and the graph as text."""

import re
from pathlib import Path
from typing import Any

from snippet_engine.kinds.kind import Kind
from snippet_engine.render import check_svg, escaped, safe_svg, size, svg_file

GRAPH = "application/vnd.snippet.graph+json"
"""{"nodes", "edges"} of a graph, and "backward": the graph as a nested list, [{"text", "children"}]"""



def capture(capture: Any, graphviz: Any) -> None:
    render_file = graphviz.rendering.Render.render

    def render_and_capture(self: Any, *args: Any, **kwargs: Any) -> Any:
        written = render_file(self, *args, **kwargs)
        if str(written).endswith(".svg"):
            with open(written, encoding="utf-8") as f:
                svg = f.read()
        else:
            svg = self.pipe(format="svg", encoding="utf-8")
        check_svg(svg, "Graphviz wrote an SVG that is not well-formed XML ({}): a label, URL or tooltip "
                       "holds a character such as < or & that it did not escape")
        found = text(self.source)
        alt = (f"Computation graph with {len(found['nodes'])} nodes, each above the nodes it sends "
               f"gradients to:\n{outline(found['backward'])}")
        capture.add({"output_type": "display_data", "metadata": {},
                     "data": {"image/svg+xml": svg, "text/plain": alt, GRAPH: found}})
        return written

    graphviz.rendering.Render.render = render_and_capture


def text(source: str) -> dict[str, Any]:
    """Node labels and edges of a DOT graph, and the graph as a nested list for its text
    alternative. torchviz draws its arrows from the inputs to the output, so the list
    starts from each output and goes against them: under a node come the nodes it sends
    gradients to, down to the leaves. An undirected edge (a tensor torchviz shows as
    saved) lists the tensor under the node that has inputs. A node reached again is
    listed once more, as "(see above)", without what is under it."""
    label = r'(?:"((?:[^"\\]|\\.)*)"|([^\s\]"]+))'
    labels = {node: (quoted or bare).replace("\\n", "\n")
              for node, quoted, bare in re.findall(r"^\s*(\w+) \[label=" + label, source, re.M)}
    names = {node: " ".join(text.split()) or "(unnamed)" for node, text in labels.items()}
    links = re.findall(r"^\s*(\w+) -> (\w+)(.*)", source, re.M)
    under: dict[str, list[tuple[str, str]]] = {}  # node: [(a node it sends gradients to or a tensor it saved, words before its name)]
    for a, b, attributes in links:
        if "dir=none" not in attributes:
            under.setdefault(b, []).append((a, ""))
    for a, b, attributes in links:
        if "dir=none" in attributes:
            a, b = (a, b) if b in under else (b, a)
            under.setdefault(b, []).append((a, "saved tensor "))
    seen = set()

    def item(node: str, words: str) -> dict[str, Any]:
        text = words + names.get(node, node)
        if node in seen:
            return {"text": text + " (see above)", "children": []}
        seen.add(node)
        return {"text": text, "children": [item(*child) for child in under.get(node, [])]}

    below = {node for children in under.values() for node, _ in children}
    outputs = [node for node in dict.fromkeys([*labels, *under]) if node not in below]
    unnamed = {node for node, text in labels.items() if not text.split("\n")[0].strip()}
    backward = [item(node, "output " if node in unnamed else "") for node in outputs]
    edges = [[names.get(a, a), names.get(b, b)] for a, b, _ in links]
    return {"nodes": list(names.values()), "edges": edges, "backward": backward}


def outline(items: list[dict[str, Any]], depth: int = 0) -> str:
    """A nested list as indented lines."""
    return "".join("  " * depth + i["text"] + "\n" + outline(i["children"], depth + 1) for i in items)


def matches(out: dict[str, Any]) -> bool:
    return GRAPH in out.get("data", {})


def render(out: dict[str, Any], site: Any, block: Any) -> str:
    """A graph as its SVG file at its own size, its text as large as Graphviz set it; a
    link that opens the file alone, where it shows whole and zooms like any picture.
    Below it, the nodes as a nested list in the order backward visits them."""
    graph = out["data"][GRAPH]
    svg = out["data"]["image/svg+xml"]
    url, width, height = svg_file(svg, site, safe_svg(svg).encode())
    return (f'<figure class="{KIND.box}"><a class="snippet-graph__open" href="{url}">'
            f'<img src="{url}" alt="Computation graph with {len(graph["nodes"])} nodes"'
            f'{size(width, height)} loading="lazy"><span>Open full size</span></a>'
            f'<details class="snippet-graph__text"><summary>This graph as text</summary>'
            f'{nested_list(graph["backward"])}</details></figure>')


def nested_list(items: list[dict[str, Any]]) -> str:
    """Items {"text", "children"} as nested lists."""
    return "<ul>" + "".join(f"<li>{escaped(i['text'])}{nested_list(i['children']) if i['children'] else ''}"
                            "</li>" for i in items) + "</ul>"


KIND = Kind("graph", matches, render, "snippet-graph", hooks="graphviz", capture=capture, mime=GRAPH, tool="dot",
            written_by="render", assets={"graph.css": Path(__file__).with_name("graph.css")})
