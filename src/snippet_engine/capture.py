"""What a running snippet produces, captured as nbformat outputs.

Runs inside the forked child that executes one snippet. Its printed text is
captured here; each kind of output (kinds/) hooks the library that makes it
and adds it to the `Capture`, tagged with the top-level line of the snippet
that produced it.

Outputs use nbformat's shapes (`stream`, `display_data` with a MIME bundle),
so the page and the notebook render the same data; the kinds' own MIME types
carry what a page shows beyond the picture. A snippet shows rich output the
way a Jupyter notebook does: `display(obj)` takes the object's
`_repr_mimebundle_()` (or its `_repr_svg_()`, `_repr_html_()` and repr).
"""

import base64
import builtins
import codecs
import io
import json
import os
import re
import site
import sys
import sysconfig
import threading
import types
from collections import deque
from typing import Any, NotRequired, TextIO

from snippet_engine import kinds
from snippet_engine.shapes import LineOutput

# The engine's files, the step-through package's too: in every cache key, in no traceback.
ENGINE = (os.path.dirname(__file__) + os.sep,
          os.path.join(os.path.dirname(os.path.dirname(__file__)), "autograd_steps", ""))
# A frame of a stack as Python lists it (traceback.format_list): its place, its source line, the marks under it.
FRAME = re.compile(r'^  File "([^"\n]*)", line \d+, in .*\n(?:    .*\n(?: *[~^]+ *\n)?)?', re.M)
# Colour codes and OSC 8 hyperlinks (the link's text stays): a page shows plain text.
ESCAPES = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\]8;[^\x07\x1b]*(?:\x07|\x1b\\)")


class Item(LineOutput):
    """An output as the capture collects it: a stream's text as a list of chunks until finish()."""
    chunks: NotRequired[list[str]]


class Capture:
    """Every output of one snippet, each tagged with its line.

    Stream text is kept whole up to `limit` characters: half of it from the
    start, half from the end, and a line saying how much was cut between.
    Appending is linear in the output's size: the end is cut to its half
    once it holds twice as much.
    """

    def __init__(self, path: str, limit: int) -> None:
        self.path = path
        self.items: list[Item] = []  # {"line": n, "output": {...}}; stream text as a list of chunks until finish()
        self.head_left = limit // 2
        self.tail: deque[list[Any]] = deque()  # [line, stream, chunks, size] of the last output, cut from the left
        self.tail_size, self.tail_limit = 0, limit - limit // 2
        self.cut_chars = self.cut_lines = 0
        self.fd_streams: list[FdStream] = []
        self.last_line: int | None = None  # output seen after the snippet ended belongs to its last output's line
        self.module: types.FrameType | None = None  # the snippet's own frame while it runs (`current_line`)
        self.thread = threading.get_ident()  # the thread that runs it
        self.places = installation() + ([(os.path.dirname(path) + os.sep, "")] if os.path.isabs(path) else [])

    def terminal(self, text: str) -> str:
        """Text as a reader's terminal shows it when they run the snippet as `python name.py` in its
        folder: the snippet's folder left out of paths (`name.py`, `helper.py`), the Python
        installation's shortened (`…/site-packages/torch/…`, `…/lib/python3.11/…`), and the
        engine's frames, which started the snippet, gone from a stack's listing."""
        text = FRAME.sub(lambda frame: "" if engine_file(frame[1]) else frame[0], text)
        for folder, shown in self.places:
            text = text.replace(folder, shown)
        return text

    def current_line(self) -> int | None:
        """The top-level statement of the snippet that is running: output made inside
        a function belongs under the block that calls it, not the one defining it. That is
        the line of the outermost frame of the snippet's code on the stack: its module's,
        which once found answers at once in the thread that runs the snippet, until `ended`."""
        if self.module is not None and threading.get_ident() == self.thread:
            return self.module.f_lineno
        frame: types.FrameType | None = sys._getframe(1)
        outer = None
        while frame is not None:
            if frame.f_code.co_filename == self.path:
                outer = frame
            frame = frame.f_back
        if outer is None:
            return None
        if outer.f_code.co_name == "<module>" and threading.get_ident() == self.thread:
            self.module = outer
        return outer.f_lineno

    def ended(self) -> None:
        """The snippet's code has run: what it prints later (its exit functions, its threads)
        goes under the line of the snippet's code that runs then, found on the stack, or where
        none of it does, under the line of its last output."""
        self.module = None

    def add(self, output: dict[str, Any]) -> None:
        self.drain()
        self.last_line = self.current_line() or self.last_line
        self.items.append({"line": self.last_line, "output": output})

    def stream(self, name: str, text: str) -> None:
        if not text:
            return
        line = self.last_line = self.current_line() or self.last_line
        if self.head_left > 0:
            kept, text = text[:self.head_left], text[self.head_left:]
            self.head_left -= len(kept)
            self.append(self.items, line, name, kept)
        if text:
            last = self.tail[-1] if self.tail else None
            if last and last[0] == line and last[1] == name:
                last[2].append(text)
                last[3] += len(text)
            else:
                self.tail.append([line, name, [text], len(text)])
            self.tail_size += len(text)
            if self.tail_size > 2 * self.tail_limit:
                self.cut()

    def cut(self) -> None:
        """The end's text cut from the left to its last `tail_limit` characters."""
        while self.tail_size > self.tail_limit:
            oldest = self.tail[0]
            text, over = "".join(oldest[2]), self.tail_size - self.tail_limit
            dropped = text[:over]
            if len(dropped) == len(text):
                self.tail.popleft()
            else:
                oldest[2], oldest[3] = [text[over:]], len(text) - over
            self.cut_chars += len(dropped)
            self.cut_lines += dropped.count("\n")
            self.tail_size -= len(dropped)

    @staticmethod
    def append(items: list[Item], line: int | None, name: str, text: str) -> None:
        last = items[-1] if items else None
        if last and last["line"] == line and last["output"].get("name") == name:
            last["chunks"].append(text)
        else:
            items.append({"line": line, "output": {"output_type": "stream", "name": name}, "chunks": [text]})

    def drain(self) -> None:
        """Text written straight to file descriptor 1 or 2 (os.write, a subprocess), since the
        last drain: a single read of each where nothing was, the most frequent case (a drain
        comes before each line the snippet starts to write: `TextStream.write`)."""
        for stream in self.fd_streams:
            if data := os.read(stream.fd, READ):
                stream.drained(self, data)

    def finish(self) -> list[LineOutput]:
        """The outputs, with stream chunks joined and the cut marked."""
        self.drain()
        self.cut()
        items = self.items
        if self.tail:
            if self.cut_chars:
                what = f"{self.cut_lines:,} lines" if self.cut_lines else f"{self.cut_chars:,} characters"
                first = self.tail[0]
                self.append(items, first[0], first[1], f"\n… {what} of output cut here …\n")
            for line, name, chunks, _ in self.tail:
                self.append(items, line, name, "".join(chunks))
            self.tail.clear()
        for item in items:
            if "chunks" in item:
                item["output"]["text"] = self.terminal(as_shown("".join(item.pop("chunks"))))
        return [{"line": item["line"], "output": item["output"]} for item in items]


def engine_file(name: str) -> bool:
    """A file of the engine, or of the runpy module that runs a snippet as `__main__`."""
    return name.startswith(ENGINE) or name == "<frozen runpy>" or os.path.basename(name) == "runpy.py"


def installation() -> list[tuple[str, str]]:
    """(folder, as `terminal` shows it) of the Python installation's libraries, the longest first."""
    stdlib = sysconfig.get_paths()["stdlib"]
    places = [(folder, "…/site-packages") for folder in [*site.getsitepackages(), site.getusersitepackages()]]
    places.append((stdlib, "…/" + os.path.join(os.path.basename(os.path.dirname(stdlib)), os.path.basename(stdlib))))
    return sorted(((folder.rstrip(os.sep) + os.sep, shown + os.sep) for folder, shown in places),
                  key=lambda place: -len(place[0]))


def as_shown(text: str) -> str:
    """Printed text as a terminal shows it: without colour codes and link escapes, and of a line
    drawn again after carriage returns (a progress bar), its last frame."""
    text = ESCAPES.sub("", text)
    if "\r" not in text:
        return text
    return "\n".join(next((frame for frame in reversed(line.split("\r")) if frame), "") for line in text.split("\n"))


class TextStream(io.TextIOBase):
    """sys.stdout or sys.stderr: text goes to the capture; `.buffer` takes bytes. It goes to
    the file `journal` too, a line at a time (as a terminal shows it): what is left of the
    output when the snippet crashes, or is killed, before its outputs are written."""

    encoding = "utf-8"

    def __init__(self, capture: Capture, name: str, fd: int, journal: TextIO) -> None:
        self.capture, self.name, self.fd, self.journal = capture, name, fd, journal
        self.buffer = BytesStream(self)
        self.midline = False  # its last write left a line open (print() writes the text, then "\n")

    @property
    def errors(self) -> str:  # type: ignore[override]  # an attribute to typeshed, a read-only property to io
        return "strict" if self.name == "stdout" else "backslashreplace"  # as Python's own

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if not text.isascii():
            text = text.encode("utf-8", self.errors).decode("utf-8")  # a lone surrogate fails on stdout
        if not self.midline:  # what reached fd 1 and 2 below Python comes first, but not inside a line
            self.capture.drain()
        self.midline = not text.endswith("\n") if text else self.midline
        self.capture.stream(self.name, text)
        self.journal.write(text)
        if self.name == "stderr":
            self.journal.flush()
        return len(text)

    def flush(self) -> None:
        self.journal.flush()

    def fileno(self) -> int:
        return self.fd

    def isatty(self) -> bool:
        return False


class BytesStream(io.RawIOBase):
    def __init__(self, text: TextStream) -> None:
        self.text = text
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:  # type: ignore[override]  # what a stream's .buffer is given
        self.text.write(self.decoder.decode(bytes(data)))
        return len(data)

    def fileno(self) -> int:
        return self.text.fd


READ = 1 << 16  # bytes read at a time


class FdStream:
    """What reaches a file descriptor below Python (a file the worker reads back)."""

    def __init__(self, name: str, path: str) -> None:
        self.name, self.fd = name, os.open(path, os.O_RDONLY)
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def drained(self, capture: Capture, data: bytes) -> None:
        """`data` read, and what follows it, to the capture."""
        while len(data) % READ == 0 and (more := os.read(self.fd, READ)):
            data += more
        capture.stream(self.name, self.decoder.decode(data))


def capture_streams(capture: Capture, fd_files: list[str], journals: list[str]) -> None:
    """Python-level writes go to the capture directly (and to the files `journals`); fd 1 and 2
    go to files read back in order."""
    capture.fd_streams = [FdStream("stdout", fd_files[0]), FdStream("stderr", fd_files[1])]
    out, err = (open(name, "w", encoding="utf-8", errors="replace", buffering=1) for name in journals)
    sys.stdout = TextStream(capture, "stdout", 1, out)
    sys.stderr = TextStream(capture, "stderr", 2, err)


REPRS = {"text/html": "_repr_html_", "image/svg+xml": "_repr_svg_", "image/png": "_repr_png_"}


def mime_bundle(obj: object) -> dict[str, Any]:
    """What Jupyter's display() would show of `obj`, each MIME type's data checked (`checked`)."""
    if hasattr(obj, "_repr_mimebundle_"):
        data = obj._repr_mimebundle_()
        data = data[0] if isinstance(data, tuple) else data
        if not isinstance(data, dict):
            raise TypeError(f"display(): {type(obj).__name__}._repr_mimebundle_() returned "
                            f"{type(data).__name__}, not a dict of MIME types")
    else:
        data = {mime: text for mime, name in REPRS.items() if hasattr(obj, name) and (text := getattr(obj, name)())}
    return {mime: checked(mime, value) for mime, value in {"text/plain": repr(obj), **data}.items()}


def checked(mime: object, value: object) -> object:
    """A MIME type's data as a notebook stores it: text as a str, a PNG as base64 text, anything
    else as JSON; a TypeError that says what is wrong otherwise."""
    if not isinstance(mime, str):
        raise TypeError(f"display() was given a MIME bundle whose key {mime!r} is not a str")
    if mime == "image/png":
        try:
            data = value if isinstance(value, bytes) else base64.b64decode(value, validate=True)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise TypeError("display() was given image/png that is neither bytes nor base64 text") from None
        if not data.startswith(b"\x89PNG\r\n\x1a\n"):
            raise TypeError("display() was given image/png that is not a PNG")
        return base64.b64encode(data).decode()
    if (mime.startswith("text/") or mime.endswith("+xml")) and not isinstance(value, str):
        raise TypeError(f"display() was given {type(value).__name__} as {mime}, which must be a str")
    try:
        json.dumps(value)
    except (TypeError, ValueError) as err:
        raise TypeError(f"display() was given data for {mime} that is not JSON ({err})") from None
    return value


def capture_display(capture: Capture) -> None:
    def display(*objects: object, **kwargs: object) -> None:
        for obj in objects:
            data = mime_bundle(obj)
            kinds.displayed(obj, data)
            capture.add({"output_type": "display_data", "metadata": {}, "data": data})

    vars(builtins)["display"] = display


def install(capture: Capture, fd_files: list[str], journals: list[str], display: bool = True) -> None:
    """The capture installed in the snippet's process; `display`: with Jupyter's display() among
    the builtins, as a snippet and a notebook have it (plain Python has none)."""
    capture_streams(capture, fd_files, journals)
    if display:
        capture_display(capture)
    kinds.install(capture)
