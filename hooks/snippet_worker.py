"""Run snippet files in forked children of one warm process.

snippet_runner starts this script once per build (or once per `mkdocs serve`).
It imports torch, matplotlib and torchviz once; then, for each request, it
forks a child that runs one snippet as `__main__`, the way
`python snippets/<chapter>/<name>.py` would, and sends back what the snippet
produced: stdout, stderr, warnings, matplotlib figures shown with
`plt.show()` and graphs rendered with graphviz's `.render()`. Each item
records the snippet line that produced it, so a page can show the output of
one section of a file under that section.

The worker itself never runs a torch op: a child forked after the parent ran
one hangs, because torch's intra-op thread pool does not survive fork.

Protocol: one JSON object per line. Request {"path", "root", "timeout"}, root
being the project folder (files under it that a snippet imports or reads are
its dependencies); 
reply {"ok", "items", "seconds", "deps"} or {"ok": false, "error", ...}.
"""

import io
import json
import os
import re
import runpy
import select
import signal
import sys
import tempfile
import time
import traceback
import warnings

os.environ.setdefault("MPLBACKEND", "Agg")
import graphviz  # noqa: E402
import matplotlib  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import torch  # noqa: E402,F401  (imported once here so children start warm)
import torchviz  # noqa: E402,F401

matplotlib.rcParams["svg.hashsalt"] = "autograd-inside-out"  # stable SVG ids


class Capture:
    """Everything one snippet produces, each item tagged with its line."""

    def __init__(self, path):
        self.path = path
        self.items = []

    def current_line(self):
        """The top-level statement of the snippet that is running: output made inside
        a function belongs under the block that calls it, not the one defining it."""
        frame, line = sys._getframe(1), None
        while frame is not None:
            if frame.f_code.co_filename == self.path:
                line = frame.f_lineno
            frame = frame.f_back
        return line

    def add(self, kind, line=None, **data):
        line = line or self.current_line()
        last = self.items[-1] if self.items else None
        if kind in ("stdout", "stderr") and last and last["kind"] == kind and last["line"] == line:
            last["text"] += data["text"]
        else:
            self.items.append({"kind": kind, "line": line, **data})


class Stream(io.TextIOBase):
    def __init__(self, capture, kind):
        self.capture, self.kind = capture, kind

    def writable(self):
        return True

    def write(self, text):
        if text:
            self.capture.add(self.kind, text=text)
        return len(text)


def figure_alt(fig):
    """A text alternative built from what the figure says about itself."""
    parts = [fig._suptitle.get_text()] if fig._suptitle else []
    for ax in fig.axes:
        labels = [line.get_label() for line in ax.get_lines() if not line.get_label().startswith("_")]
        desc = ", ".join(filter(None, [
            ax.get_title() and f"“{ax.get_title()}”",
            ax.get_xlabel() and f"x: {ax.get_xlabel()}",
            ax.get_ylabel() and f"y: {ax.get_ylabel()}",
            labels and "curves: " + ", ".join(labels),
        ]))
        parts.append(f"Plot ({desc})" if desc else "Plot")
    return "; ".join(parts) or "Figure"


def graph_text(source):
    """Node labels and edges of a DOT graph, for its text alternative."""
    label = r'(?:"((?:[^"\\]|\\.)*)"|([^\s\]"]+))'
    names = {node: " ".join((quoted or bare).replace("\\n", " ").split()) or "(unnamed)"
             for node, quoted, bare in re.findall(r"^\s*(\w+) \[label=" + label, source, re.M)}
    edges = [(names.get(a, a), names.get(b, b)) for a, b in re.findall(r"^\s*(\w+) -> (\w+)", source, re.M)]
    return {"nodes": list(names.values()), "edges": edges}


def install_capture(capture):
    sys.stdout = Stream(capture, "stdout")
    sys.stderr = Stream(capture, "stderr")

    def showwarning(message, category, filename, lineno, file=None, line=None):
        capture.add("warning", category=category.__name__, text=str(message))

    warnings.showwarning = showwarning

    def show(*args, **kwargs):
        for number in plt.get_fignums():
            fig = plt.figure(number)
            svg = io.StringIO()
            fig.savefig(svg, format="svg", bbox_inches="tight", metadata={"Date": None})
            capture.add("figure", svg=svg.getvalue(), alt=figure_alt(fig))
        plt.close("all")

    plt.show = show

    render = graphviz.rendering.Render.render

    def render_and_capture(self, *args, **kwargs):
        written = render(self, *args, **kwargs)
        if str(written).endswith(".svg"):
            with open(written, encoding="utf-8") as f:
                svg = f.read()
        else:
            svg = self.pipe(format="svg", encoding="utf-8")
        capture.add("graph", svg=svg, **graph_text(self.source))
        return written

    graphviz.rendering.Render.render = render_and_capture


def is_local(filename, root):
    """A project file: under root, but not part of the installed packages."""
    return filename.startswith(root + os.sep) and not filename.startswith(sys.prefix + os.sep)


def watch_reads(root, workdir):
    """Collect the project files a snippet opens for reading (data it loads)."""
    reads = set()

    def hook(event, args):
        if event == "open" and isinstance(args[0], (str, os.PathLike)) and not set(args[1] or "r") & set("wax+"):
            name = os.path.abspath(os.fspath(args[0]))
            if is_local(name, root) and not name.startswith(workdir):
                reads.add(name)

    sys.addaudithook(hook)
    return reads


def local_deps(path, root, reads):
    """Project files this snippet imported or tried to open, besides itself. A file
    that did not exist is one too: the output changes when it appears."""
    modules = {getattr(m, "__file__", None) for m in list(sys.modules.values())}
    files = {f for f in modules if f and os.path.isfile(f)} | reads
    return sorted(f for f in files if f != path and is_local(f, root))


def error_report(exc, path, root):
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if is_local(f.filename, root)]
    in_snippet = [f for f in frames if f.filename == path]
    # Hide the worker's own frames: the traceback starts at the snippet.
    start = next((i for i, f in enumerate(frames) if f.filename == path), 0)
    text = "".join(traceback.format_list(frames[start:]))
    text = "Traceback (most recent call last):\n" + text
    text += "".join(traceback.format_exception_only(type(exc), exc))
    return {
        "type": type(exc).__name__,
        "message": str(exc),
        "line": in_snippet[-1].lineno if in_snippet else None,
        "where": f"{ours[-1].filename}:{ours[-1].lineno}" if ours else None,
        "traceback": text,
    }


def run_child(path, root, out_fd, workdir):
    """Runs in the forked child: execute the snippet, write one JSON reply."""
    sys.stdin = open(os.devnull)
    capture = Capture(path)
    os.chdir(workdir)  # files a snippet writes (rendered graphs) stay out of the project
    sys.path[0] = os.path.dirname(path)
    sys.argv = [path]
    install_capture(capture)
    reads = watch_reads(root, workdir)
    reply = {"ok": True}
    start = time.perf_counter()
    try:
        runpy.run_path(path, run_name="__main__")
    except SystemExit as exc:
        if exc.code not in (None, 0):
            reply = {"ok": False, "error": error_report(exc, path, root)}
    except BaseException as exc:  # noqa: BLE001 - report anything the snippet raised
        reply = {"ok": False, "error": error_report(exc, path, root)}
    reply.update(seconds=time.perf_counter() - start, items=capture.items, deps=local_deps(path, root, reads))
    data = json.dumps(reply).encode()
    while data:
        data = data[os.write(out_fd, data):]
    os._exit(0)


def run(path, root, timeout):
    with tempfile.TemporaryDirectory(prefix="snippet-") as workdir:
        return supervise(path, root, timeout, workdir)


def supervise(path, root, timeout, workdir):
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        try:
            run_child(path, root, write_fd, workdir)
        finally:
            os._exit(1)
    os.close(write_fd)
    chunks, deadline = [], time.monotonic() + timeout
    with os.fdopen(read_fd, "rb") as pipe:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([pipe], [], [], left)[0]:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return {"ok": False, "items": [], "seconds": timeout, "deps": [], "error": {
                    "type": "TimeoutError", "message": f"snippet still running after {timeout} s",
                    "line": None, "where": None, "traceback": ""}}
            chunk = pipe.read1(1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    if not chunks:
        return {"ok": False, "items": [], "seconds": 0.0, "deps": [], "error": {
            "type": "ChildProcessError", "message": f"snippet process died ({describe_status(status)})",
            "line": None, "where": None, "traceback": ""}}
    return json.loads(b"".join(chunks))


def describe_status(status):
    if os.WIFSIGNALED(status):
        return f"killed by signal {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exit status {os.WEXITSTATUS(status)}"


def main():
    protocol = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # stray prints from imports must not corrupt replies
    for line in sys.stdin:
        request = json.loads(line)
        reply = run(request["path"], request["root"], request["timeout"])
        protocol.write(json.dumps(reply) + "\n")
        protocol.flush()


if __name__ == "__main__":
    main()
