"""What a running snippet produces, captured as nbformat outputs.

Runs inside the forked child that executes one snippet. Each scraper hooks
one kind of output and adds it to the `Capture`, tagged with the top-level
line of the snippet that produced it; a new kind of output is one more
scraper here plus its renderer in `render.py`.

Outputs use nbformat's shapes (`stream`, `display_data` with a MIME
bundle), so the page and the notebook render the same data. Two MIME types
of our own carry what a page shows beyond the picture:

- `application/vnd.snippet.warning+json`: {"category", "message"}
- `application/vnd.snippet.graph+json`: {"nodes", "edges"} of a graph, and
  "backward": the graph as a nested list, [{"text", "children"}] (`graph_text`)
- `application/vnd.snippet.steps+json`: a backward pass recorded by
  `autograd_steps.recording` (see that module), plus "svg", the graph's
  layout (`autograd_steps.layout`): node i is the group with data-node="i"

A snippet shows rich output the way a Jupyter notebook does: `display(obj)`
takes the object's `_repr_mimebundle_()` (or its `_repr_html_()` and repr).
"""

import builtins
import codecs
import io
import re
import sys
import types
import warnings
import xml.etree.ElementTree as ET
from collections import deque

from autograd_steps import layout

WARNING = "application/vnd.snippet.warning+json"
GRAPH = "application/vnd.snippet.graph+json"
STEPS = "application/vnd.snippet.steps+json"
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")  # colour codes: a page shows plain text


class Capture:
    """Every output of one snippet, each tagged with its line.

    Stream text is kept whole up to `limit` characters: half of it from the
    start, half from the end, and a line saying how much was cut between.
    Appending is linear in the output's size.
    """

    def __init__(self, path, limit):
        self.path = path
        self.items = []  # {"line": n, "output": {...}}; stream text as a list of chunks until finish()
        self.head_left = limit // 2
        self.tail: deque[list] = deque()  # [line, stream, text] of the last output, cut from the left
        self.tail_size, self.tail_limit = 0, limit - limit // 2
        self.cut_chars = self.cut_lines = 0
        self.fd_streams = []
        self.last_line = None  # output seen after the snippet ended belongs to its last output's line

    def current_line(self):
        """The top-level statement of the snippet that is running: output made inside
        a function belongs under the block that calls it, not the one defining it."""
        frame: types.FrameType | None = sys._getframe(1)
        line = None
        while frame is not None:
            if frame.f_code.co_filename == self.path:
                line = frame.f_lineno
            frame = frame.f_back
        return line

    def add(self, output):
        self.drain()
        self.last_line = self.current_line() or self.last_line
        self.items.append({"line": self.last_line, "output": output})

    def stream(self, name, text):
        if not text:
            return
        line = self.last_line = self.current_line() or self.last_line
        if self.head_left > 0:
            kept, text = text[:self.head_left], text[self.head_left:]
            self.head_left -= len(kept)
            self.append(self.items, line, name, kept)
        if text:
            self.tail.append([line, name, text])
            self.tail_size += len(text)
            while self.tail_size > self.tail_limit:
                oldest = self.tail[0]
                drop = min(len(oldest[2]), self.tail_size - self.tail_limit)
                self.cut_chars += drop
                self.cut_lines += oldest[2].count("\n", 0, drop)
                oldest[2] = oldest[2][drop:]
                self.tail_size -= drop
                if not oldest[2]:
                    self.tail.popleft()

    @staticmethod
    def append(items, line, name, text):
        last = items[-1] if items else None
        if last and last["line"] == line and last["output"].get("name") == name:
            last["chunks"].append(text)
        else:
            items.append({"line": line, "output": {"output_type": "stream", "name": name}, "chunks": [text]})

    def drain(self):
        """Text written straight to file descriptor 1 or 2 (os.write, a subprocess)."""
        for stream in self.fd_streams:
            stream.drain(self)

    def finish(self):
        """The outputs, with stream chunks joined and the cut marked."""
        self.drain()
        items = self.items
        if self.tail:
            if self.cut_chars:
                what = f"{self.cut_lines:,} lines" if self.cut_lines else f"{self.cut_chars:,} characters"
                first = self.tail[0]
                self.append(items, first[0], first[1], f"\n… {what} of output cut here …\n")
            for line, name, text in self.tail:
                self.append(items, line, name, text)
            self.tail.clear()
        for item in items:
            if "chunks" in item:
                item["output"]["text"] = ANSI.sub("", "".join(item.pop("chunks")))
        return items


class TextStream(io.TextIOBase):
    """sys.stdout or sys.stderr: text goes to the capture; `.buffer` takes bytes. It goes to
    the file `journal` too, flushed as Python flushes its streams: what is left of the output
    when the snippet crashes before its outputs are written."""

    encoding = "utf-8"

    def __init__(self, capture, name, fd, journal):
        self.capture, self.name, self.fd, self.journal = capture, name, fd, journal
        self.buffer = BytesStream(self)

    @property
    def errors(self):  # type: ignore[override]  # an attribute to typeshed, a read-only property to io
        return "strict" if self.name == "stdout" else "backslashreplace"  # as Python's own

    def writable(self):
        return True

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        text = text.encode("utf-8", self.errors).decode("utf-8")  # a lone surrogate fails on stdout
        self.capture.drain()
        self.capture.stream(self.name, text)
        self.journal.write(text)
        if self.name == "stderr":
            self.journal.flush()
        return len(text)

    def flush(self):
        self.journal.flush()

    def fileno(self):
        return self.fd

    def isatty(self):
        return False


class BytesStream(io.RawIOBase):
    def __init__(self, text):
        self.text = text
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def writable(self):
        return True

    def write(self, data):
        self.text.write(self.decoder.decode(bytes(data)))
        return len(data)

    def fileno(self):
        return self.text.fd


class FdStream:
    """What reaches a file descriptor below Python (a file the worker reads back)."""

    def __init__(self, name, path):
        self.name, self.file = name, open(path, "rb")
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def drain(self, capture):
        data = self.file.read()
        if data:
            capture.stream(self.name, self.decoder.decode(data))


def capture_streams(capture, fd_files, journals):
    """Python-level writes go to the capture directly (and to the files `journals`); fd 1 and 2
    go to files read back in order."""
    capture.fd_streams = [FdStream("stdout", fd_files[0]), FdStream("stderr", fd_files[1])]
    out, err = (open(name, "w", encoding="utf-8", errors="replace") for name in journals)
    sys.stdout = TextStream(capture, "stdout", 1, out)
    sys.stderr = TextStream(capture, "stderr", 2, err)


# PyTorch's warnings from C++ end with the place in PyTorch's own build that raised them.
BUILD_PLACE = re.compile(r"\s*\(Triggered internally at [^)]*\)\s*$")


def capture_warnings(capture):
    def showwarning(message, category, filename, lineno, file=None, line=None):
        message = BUILD_PLACE.sub("", str(message))
        capture.add({"output_type": "display_data", "metadata": {}, "data": {
            "text/plain": f"{category.__name__}: {message}",
            WARNING: {"category": category.__name__, "message": message},
        }})

    warnings.showwarning = showwarning


def figure_alt(fig):
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


def capture_matplotlib(capture):
    import matplotlib.pyplot as plt

    def show(*args, **kwargs):
        for number in plt.get_fignums():
            fig = plt.figure(number)
            svg = io.StringIO()
            fig.savefig(svg, format="svg", bbox_inches="tight", metadata={"Date": None})
            capture.add({"output_type": "display_data", "metadata": {},
                         "data": {"image/svg+xml": svg.getvalue(), "text/plain": figure_alt(fig)}})
        plt.close("all")

    plt.show = show


def graph_text(source):
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

    def item(node, words):
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


def outline(items, depth=0):
    """A nested list as indented lines."""
    return "".join("  " * depth + i["text"] + "\n" + outline(i["children"], depth + 1) for i in items)


def check_svg(svg, message):
    """An SVG the page cannot show fails the snippet where it made it: `message` says why."""
    try:
        ET.fromstring(svg[svg.index("<svg"):])
    except (ValueError, ET.ParseError) as err:
        raise ValueError(message.format(err)) from None


def capture_graphviz(capture):
    import graphviz

    render = graphviz.rendering.Render.render

    def render_and_capture(self, *args, **kwargs):
        written = render(self, *args, **kwargs)
        if str(written).endswith(".svg"):
            with open(written, encoding="utf-8") as f:
                svg = f.read()
        else:
            svg = self.pipe(format="svg", encoding="utf-8")
        check_svg(svg, "Graphviz wrote an SVG that is not well-formed XML ({}): a label, URL or tooltip "
                       "holds a character such as < or & that it did not escape")
        text = graph_text(self.source)
        alt = (f"Computation graph with {len(text['nodes'])} nodes, each above the nodes it sends "
               f"gradients to:\n{outline(text['backward'])}")
        capture.add({"output_type": "display_data", "metadata": {},
                     "data": {"image/svg+xml": svg, "text/plain": alt, GRAPH: text}})
        return written

    graphviz.rendering.Render.render = render_and_capture


REPRS = {"text/html": "_repr_html_", "image/svg+xml": "_repr_svg_"}  # those a page can show (render.py)


def mime_bundle(obj):
    """What Jupyter's display() would show of `obj`."""
    if hasattr(obj, "_repr_mimebundle_"):
        data = obj._repr_mimebundle_()
        data = data[0] if isinstance(data, tuple) else data
    else:
        data = {mime: text for mime, name in REPRS.items() if hasattr(obj, name) and (text := getattr(obj, name)())}
    return {"text/plain": repr(obj), **data}


def capture_display(capture):
    def display(*objects, **kwargs):
        for obj in objects:
            data = mime_bundle(obj)
            if "image/svg+xml" in data:
                check_svg(data["image/svg+xml"], f"display() was given an SVG that is not well-formed XML ({{}}) by "
                                                 f"{type(obj).__name__}")
            if STEPS in data:  # laid out here, within the snippet's time limit
                steps = data[STEPS] = dict(data[STEPS])
                if len(steps["nodes"]) > layout.MAX_NODES:
                    raise ValueError(f"this backward pass has {len(steps['nodes']):,} nodes, more than a "
                                     f"step-through shows ({layout.MAX_NODES}): record a smaller model or batch")
                steps["svg"] = layout.svg(steps)
            capture.add({"output_type": "display_data", "metadata": {}, "data": data})

    vars(builtins)["display"] = display


SCRAPERS = [capture_warnings, capture_matplotlib, capture_graphviz, capture_display]


def install(capture, fd_files, journals):
    capture_streams(capture, fd_files, journals)
    for scraper in SCRAPERS:
        try:
            scraper(capture)
        except ImportError:
            pass  # the library it hooks is not installed: nothing to capture
