"""A warning the snippet triggered: a warning box with its category."""

import re
from typing import Any

from snippet_engine.kinds.kind import Kind
from snippet_engine.render import escaped

WARNING = "application/vnd.snippet.warning+json"  # {"category", "message"}
BUILD_PLACE = re.compile(r"\s*\(Triggered internally at [^)]*\)\s*$")  # where in PyTorch's C++ it was raised



def capture(capture: Any, module: Any) -> None:
    def showwarning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                    file: Any = None, line: str | None = None) -> None:
        text = capture.terminal(BUILD_PLACE.sub("", str(message)))
        capture.add({"output_type": "display_data", "metadata": {}, "data": {
            "text/plain": f"{category.__name__}: {text}",
            WARNING: {"category": category.__name__, "message": text},
        }})

    module.showwarning = showwarning


def matches(out: dict[str, Any]) -> bool:
    return WARNING in out.get("data", {})


def joined(last: dict[str, Any], out: dict[str, Any]) -> dict[str, Any] | None:
    """The same warning again right after it, as one that counts them."""
    if matches(out) and last.get("data", {}).get(WARNING) == out["data"][WARNING]:
        return {**last, "times": last.get("times", 1) + 1}
    return None


def render(out: dict[str, Any], site: Any, block: Any) -> str:
    """A warning in full the first time a page shows it; after that, its first sentence."""
    warning = out["data"][WARNING]
    times = {1: "", 2: " (twice)"}.get(out.get("times", 1), f" ({out.get('times')} times)")
    message, rest = warning["message"], ""
    if not site.first_time((warning["category"], message)):
        message = "The same warning as above: " + re.split(r"(?<=\.)\s", message, maxsplit=1)[0]
    else:  # its lines after the first (a traceback) as printed
        message, _, rest = message.partition("\n")
    listing = f'<pre class="snippet-printed">{escaped(rest)}</pre>' if rest.strip() else ""
    return (f'<div class="admonition warning {KIND.box}"><p class="admonition-title">'
            f'{escaped(warning["category"])}{times}</p><p>{escaped(message)}</p>{listing}</div>')


KIND = Kind("warning", matches, render, "snippet-warning", hooks="warnings", capture=capture, mime=WARNING, joined=joined)
