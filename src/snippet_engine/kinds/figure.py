"""A matplotlib figure (`plt.show()`) or an object's SVG or PNG (`display()`): a picture, as a file.

The page shows it scaled to the width of the column, on a phone too, as a link to the file
itself ("Open full size", as a graph is), where the reader zooms into it.
"""

import base64
import io
import struct
from pathlib import Path
from typing import Any

from snippet_engine.kinds.kind import Kind
from snippet_engine.render import asset, check_svg, escaped, safe_svg, size, svg_file


def capture(capture: Any, plt: Any) -> None:
    plt.rcParams["svg.hashsalt"] = "snippets"  # the same ids in every run's SVG

    def show(*args: Any, **kwargs: Any) -> None:
        for number in plt.get_fignums():
            fig = plt.figure(number)
            svg = io.StringIO()
            fig.savefig(svg, format="svg", bbox_inches="tight", metadata={"Date": None})
            capture.add({"output_type": "display_data", "metadata": {},
                         "data": {"image/svg+xml": svg.getvalue(), "text/plain": alt(fig)}})
        plt.close("all")

    plt.show = show


def alt(fig: Any) -> str:
    """A text alternative built from what the figure says about itself."""
    parts = [fig._suptitle.get_text()] if fig._suptitle else []
    for ax in fig.axes:
        labels = [line.get_label() for line in ax.get_lines() if not line.get_label().startswith("_")]
        desc = ", ".join(filter(None, [
            ax.get_title() and f"“{ax.get_title()}”",
            ax.get_xlabel() and f"x: {ax.get_xlabel()}",
            ax.get_ylabel() and f"y: {ax.get_ylabel()}",
            "curves: " + ", ".join(labels) if labels else "",
        ]))
        parts.append(f"Plot ({desc})" if desc else "Plot")
    return "; ".join(parts) or "Figure"


def displayed(data: dict[str, Any]) -> None:
    if "image/svg+xml" in data:
        check_svg(data["image/svg+xml"], "display() was given an SVG that is not well-formed XML ({})")


def matches(out: dict[str, Any]) -> bool:
    return bool({"image/svg+xml", "image/png"} & set(out.get("data", {})))


def render(out: dict[str, Any], site: Any, block: Any) -> str:
    """The SVG as a file, which the page shows with <img> (no script of an image runs) and which
    opens alone on the site's origin: sanitised all the same. Else the PNG, as a file."""
    data = out["data"]
    if "image/svg+xml" in data:
        svg = data["image/svg+xml"]
        url, width, height = svg_file(svg, site, safe_svg(svg, inline=False).encode())
    else:
        png = base64.b64decode(data["image/png"])
        url, (width, height) = asset(site, png, ".png"), struct.unpack(">II", png[16:24])  # the header's size
    return (f'<figure class="{KIND.box}"><a class="snippet-figure__open" href="{url}">'
            f'<img src="{url}" alt="{escaped(data.get("text/plain", "Figure"))}"{size(width, height)} loading="lazy">'
            "<span>Open full size</span></a></figure>")


KIND = Kind("figure", matches, render, "snippet-figure", hooks="matplotlib.pyplot", capture=capture,
            displayed=displayed, assets={"figure.css": Path(__file__).with_name("figure.css")})
