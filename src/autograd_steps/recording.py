"""Watch PyTorch's autograd engine run one backward pass, recorded from the engine itself.

This module is the recorder of the `autograd_steps` package, and a file that works on its
own beside a reader's script (the site serves it as downloads/step_through.py): it needs
only torch and the standard library.

Two ways in:

- `step_through(loss)` does what `loss.backward()` does, and shows the recording;
- `with recorded("my_script.py"):` records every `backward()` that the code of that
  file calls while the block runs, unchanged (the site's build runs a snippet this way,
  so that the snippet itself calls plain `loss.backward()`).

What is recorded:

- the graph: every node (`grad_fn`) reachable from the output, its edges
  (`next_functions`), and for an `AccumulateGrad` the name the code gave
  its leaf (`x`, or `model.0.weight` for a parameter of `model`);
- the line that created each node, for nodes made under anomaly mode (which
  `recorded` turns on; `step_through` needs the forward pass run within
  `watch_forward()`, or `torch.autograd.set_detect_anomaly(True, check_nan=False)`),
  in which every node keeps the Python stack of the operation that created it
  (`node.metadata["traceback_"]`), and the line that made each named leaf;
- the module whose forward made each node (`model.layers.1.self_attn`), for
  nodes made within `watch_forward()` (which `recorded` runs);
- a region that torch.compile compiled as one node, AOTAutograd's
  `CompiledFunctionBackward`, labelled "compiled region";
- the order in which the engine ran the nodes, seen by a pre-hook on each
  node, and the gradients that arrived at each node and that it sent on
  along each edge (seen by a hook on each node);
- what each node saved for backward (`_saved_*` of built-in nodes,
  `saved_tensors` of a custom Function's `ctx`), read before backward
  frees it.

The result is shown with `display()` where one exists (Jupyter, and the
site's build, which draws it as a step-through viewer) and printed as a
table otherwise. `autograd_steps.show_backward` shows the viewer itself in a notebook.
"""

import ast
import bisect
import builtins
import contextlib
import linecache
import math
import os
import re
import sys
import threading
import types
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal, NotRequired, TypedDict, cast

import torch
from torch.autograd.graph import Node as Fn
from torch.utils._pytree import tree_leaves

STEPS = "application/vnd.snippet.steps+json"
SMALL = 8  # tensors with at most this many elements are recorded value by value
Grads = tuple[torch.Tensor | None, ...]  # what a node's hooks are given
TORCH = os.path.join(os.path.dirname(torch.__file__), "")  # torch's own files
FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in [^\n]*\n(?P<code>[^\n]*)')


# The recording's data (`Recording.data()`), as the viewer reads it. A node's and an edge's
# "id" is its index in "nodes" and "edges"; a step's "node", an edge's "from" and "to" are ids.

class Frame(TypedDict):
    """A line of the recorded file in the stack that made a node (or the line that made a leaf)."""
    file: str  # the file's name, without its folder
    line: int
    code: str  # without a comment at its end


class Saved(TypedDict):
    """A tensor a node saved for backward."""
    name: str  # "self" of _saved_self; a custom Function's by its index in saved_tensors
    shape: list[int]
    dtype: str  # "float32"
    bytes: int


class Attribute(TypedDict):
    """What a custom Function's forward kept on ctx besides tensors (ctx.alpha = alpha)."""
    name: str
    value: str  # its repr


class Node(TypedDict):
    """A node of the graph: a grad_fn, or a leaf's AccumulateGrad."""
    id: int
    name: str  # the type of the grad_fn: "MulBackward0", "AccumulateGrad"
    kind: Literal["leaf", "op", "custom"]
    label: str  # a leaf's name ("x", "model.0.weight", or "AccumulateGrad"); a custom Function's "Name (custom)";
    # "compiled region" (kind "custom") for the node of a region torch.compile compiled (CompiledFunctionBackward)
    detail: str  # a leaf's shape ("3×4", "scalar"); an operation's "line n", or ""
    line: int | None  # the line of the file that made it (a leaf: that bound its name)
    lines: list[int]  # every line of the file in the stack that made it, outermost first
    where: list[Frame]  # the frames of the stack that made it in the file's folder, outermost first
    module: str  # the path of the innermost module whose forward made it ("model.layers.1.self_attn"), or ""
    saved: list[Saved]
    attributes: NotRequired[list[Attribute]]  # a custom Function's only (not a compiled region's)


class RecordedNode(Node):
    """A node as the recording keeps it while it runs: with its grad_fn, and where it was made."""
    fn: Fn
    sequence: int  # the order the forward pass made it in (leaves first)


Edge = TypedDict("Edge", {
    "from": int,  # the node that sends the gradient
    "to": int,  # the node it is sent to, the one at `slot` of the sender's next_functions
    "slot": int,
    "id": int,
})


class Summary(TypedDict):
    """A gradient as a reader sees it (`summary`), or the gradients of a node's several outputs (`received`)."""
    shape: list[int] | None  # None: several outputs
    values: float | list[Any] | None  # the values (nested lists, as tolist()) of a small tensor
    text: str
    norm: float
    min: float
    max: float


class Carried(TypedDict):
    """The gradient along an edge; None where the node sent none along it."""
    edge: int
    grad: Summary | None


class Step(TypedDict):
    """A node's run in the backward pass."""
    node: int
    received: Summary | None  # what arrived at the node (None: no gradient)
    sent: list[Carried]  # along each of its edges
    contributions: list[Carried]  # what each edge into the node carried, which add up to `received`
    description: str


class ForwardLine(TypedDict):
    """A top-level line of the file, with the nodes it added."""
    line: int
    code: str
    nodes: list[int]
    description: str


class Data(TypedDict):
    """What `Recording.data()` returns: a recorded backward pass (STEPS in a MIME bundle)."""
    file: str  # the name of the file whose code made the graph
    source: list[str]  # its lines
    nodes: list[Node]
    edges: list[Edge]
    steps: list[Step]  # in the order the engine ran them
    forward: list[ForwardLine]


class LaidOut(Data):
    """The data with its graph laid out (`autograd_steps.layout`), as the viewer shows it."""
    svg: str | None  # None where Graphviz is not installed


def step_through(output: torch.Tensor, gradient: torch.Tensor | None = None, **backward_args: Any) -> None:
    """`output.backward(gradient, **backward_args)`, recorded and shown. Returns None, as
    backward() does (Jupyter would show a returned recording a second time)."""
    caller = sys._getframe(1)
    recording = Recording(output, names(caller), caller.f_code.co_filename)
    recording.run(lambda: output.backward(gradient, **backward_args))
    show(recording)


def show(recording: "Recording") -> None:
    display = getattr(builtins, "display", None)
    display(recording) if display else print(recording.table())


@contextlib.contextmanager
def recorded(path: str) -> Iterator[None]:
    """Within the block, the forward pass is watched (`watch_forward`) and every `backward()` called
    from the code of the file `path` on one tensor is recorded and shown as it runs; other calls run
    as they are."""
    path = os.path.abspath(path)
    real = torch.autograd.backward

    def backward(tensors: Any, *args: Any, **kwargs: Any) -> None:
        frame: types.FrameType | None = sys._getframe(1)
        while frame is not None and frame.f_code.co_filename != path:
            frame = frame.f_back
        if frame is None or not isinstance(tensors, torch.Tensor) or tensors.grad_fn is None:
            return real(tensors, *args, **kwargs)
        recording = Recording(tensors, names(frame), path)
        recording.run(lambda: real(tensors, *args, **kwargs))
        show(recording)

    torch.autograd.backward = backward
    try:
        with watch_forward():
            yield
    finally:
        torch.autograd.backward = real


def names(frame: types.FrameType) -> dict[int, str]:
    """{id(tensor): name} for the leaves a frame's variables hold, modules' parameters included."""
    found: dict[int, str] = {}
    for scope in (frame.f_locals, frame.f_globals):
        for name, value in scope.items():
            if isinstance(value, torch.Tensor):
                found.setdefault(id(value), name)
            elif isinstance(value, torch.nn.Module):
                for param_name, param in value.named_parameters():
                    found.setdefault(id(param), f"{name}.{param_name}")
    return found


MODULE = "autograd_steps.module"  # the key in a node's metadata of the path of the module whose forward made it


@contextlib.contextmanager
def watch_forward() -> Iterator[None]:
    """Put around a forward pass in place of `torch.autograd.set_detect_anomaly(True, check_nan=False)`:
    anomaly mode keeps each node's line, and each node made inside a module's forward keeps the
    path of that module (the innermost one), `model.layers.1.self_attn`, in its metadata under MODULE.
    A path starts with the name the calling code gives the outermost module called (`model` of
    `model(x)`; its class's name where no variable holds it), as a parameter's leaf is named."""
    calls = ModuleCalls()
    handles = [torch.nn.modules.module.register_module_forward_pre_hook(calls.enter),
               torch.nn.modules.module.register_module_forward_hook(calls.exit, always_call=True)]
    try:
        with torch.autograd.set_detect_anomaly(True, check_nan=False):
            yield
    finally:
        for handle in handles:
            handle.remove()


class Call(TypedDict):
    """A module's call: the sequence numbers of the nodes made during it, from `start` up to `end`."""
    path: str
    start: int
    end: int
    parent: int  # the index of the call it was made in; -1 for the outermost


class ModuleCalls:
    """The module calls of a forward pass, seen by global forward hooks. Autograd numbers the nodes
    a thread makes in order (`fn._sequence_nr()`), so a call holds the nodes numbered from where the
    count stood when it began to where it stood when it returned: when the outermost call returns,
    each node it made that its outputs reach is tagged with the innermost call holding its number."""

    def __init__(self) -> None:
        self.thread = threading.get_ident()  # the thread of the forward pass: another's numbers are its own
        self.paths: dict[int, str] = {}  # id(module) -> path, for the outermost module and those it holds
        self.calls: list[Call] = []  # the outermost call and those made in it, in the order they began
        self.starts: list[int] = []  # their start, in that order
        self.running: list[int] = []  # the calls not yet returned, outermost first

    def enter(self, module: torch.nn.Module, args: object) -> None:
        if torch.compiler.is_compiling() or threading.get_ident() != self.thread:
            return  # traced by torch.compile: the compiled region's node is made by the call that runs it
        if not self.running:
            root = module_name(module)
            self.paths = {id(m): f"{root}.{name}" if name else root for name, m in module.named_modules()}
            self.calls, self.starts = [], []
        start = torch.autograd._get_sequence_nr()  # the number the next node made will have
        self.calls.append({"path": self.paths.get(id(module)) or module_name(module), "start": start,
                           "end": start, "parent": self.running[-1] if self.running else -1})
        self.starts.append(start)
        self.running.append(len(self.calls) - 1)

    def exit(self, module: torch.nn.Module, args: object, output: object) -> None:
        if torch.compiler.is_compiling() or threading.get_ident() != self.thread:
            return
        self.calls[self.running.pop()]["end"] = torch.autograd._get_sequence_nr()
        if not self.running:
            self.tag(output)

    def tag(self, output: object) -> None:
        """Each node the outermost call made that its output reaches (an error's None reaches none)."""
        start, end = self.calls[0]["start"], self.calls[0]["end"]
        stack = [t.grad_fn for t in tree_leaves(output) if isinstance(t, torch.Tensor)]
        seen: dict[int, Fn] = {}  # kept alive while walking: a node's Python object, once freed, may get a new id
        while stack:
            fn = stack.pop()
            if fn is None or id(fn) in seen or not start <= fn._sequence_nr() < end:
                continue  # made before the call (or a leaf's AccumulateGrad, which has no number)
            seen[id(fn)] = fn
            cast(dict[str, Any], fn.metadata)[MODULE] = self.innermost(fn._sequence_nr())
            stack.extend(next_fn for next_fn, _ in fn.next_functions)

    def innermost(self, number: int) -> str:
        """The path of the innermost call holding a node's number: calls nest, so it is the last to
        begin before the node was made, or the one that call was made in, and so on out."""
        i = bisect.bisect_right(self.starts, number) - 1
        while self.calls[i]["end"] <= number:
            i = self.calls[i]["parent"]
        return self.calls[i]["path"]


def compiled(function: type) -> bool:
    """Whether a Function is the one AOTAutograd makes of a region torch.compile compiled."""
    return function.__module__.startswith("torch._functorch.")


def module_name(module: torch.nn.Module) -> str:
    """The name of the first variable holding the module in the code that called it (the first frame
    outside torch; not `_`, IPython's last output), or its class's name where none does."""
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None and (frame.f_code.co_filename.startswith(TORCH) or frame.f_code.co_filename == __file__):
        frame = frame.f_back
    if frame is not None:
        for scope in (frame.f_locals, frame.f_globals):
            name = next((n for n, value in scope.items() if value is module and not n.startswith("_")), None)
            if name:
                return name
    return type(module).__name__


class Recording:
    def __init__(self, output: torch.Tensor, leaf_names: dict[int, str], path: str) -> None:
        if output.grad_fn is None:
            raise ValueError("step_through needs a tensor computed from tensors that require grad "
                             "(this one has no grad_fn)")
        self.output, self.folder, self.file = output, os.path.dirname(path), os.path.basename(path)
        self.source = source_lines(path)
        self.nodes: list[RecordedNode] = []
        self.index: dict[int, object] = {}  # id(node) -> node, which the recording keeps alive
        self.edges: list[Edge] = []
        self.visit(output.grad_fn, leaf_names)
        self.place_leaves(path, self.nodes[0]["line"])
        self.nodes.sort(key=lambda n: n["sequence"])
        order = {id(n["fn"]): i for i, n in enumerate(self.nodes)}
        for i, node in enumerate(self.nodes):
            node["id"] = i
        for edge in self.edges:
            edge["from"], edge["to"] = order[edge["from"]], order[edge["to"]]
        self.edges.sort(key=lambda e: (e["from"], e["slot"]))
        for k, edge in enumerate(self.edges):
            edge["id"] = k
        self.steps: list[Step] = []

    def visit(self, fn: Fn, leaf_names: dict[int, str]) -> None:
        """Every node reachable from `fn`, each once, with its edges."""
        stack = [fn]
        while stack:
            fn = stack.pop()
            if id(fn) in self.index:
                continue
            self.index[id(fn)] = fn
            self.nodes.append(self.describe(fn, leaf_names))
            for slot, (next_fn, _input) in enumerate(fn.next_functions):
                if next_fn is not None:
                    edge: Edge = {"from": id(fn), "to": id(next_fn), "slot": slot, "id": -1}  # numbered once sorted
                    self.edges.append(edge)
                    stack.append(next_fn)

    def describe(self, fn: Fn, leaf_names: dict[int, str]) -> RecordedNode:
        name = type(fn).__name__
        kind: Literal["leaf", "op", "custom"]
        custom = None
        if hasattr(fn, "variable"):
            variable = fn.variable
            kind, label, detail, where = ("leaf", leaf_names.get(id(variable), "AccumulateGrad"),
                                          shape_text(variable.shape), [])
            sequence = -1  # leaves first: they were made before any operation on them
        else:
            custom = getattr(fn, "_forward_cls", None)
            kind, label = ("custom", f"{custom.__name__} (custom)") if custom else ("op", name)
            if custom and compiled(custom):  # its ctx holds AOTAutograd's state, not the reader's
                label, custom = "compiled region", None
            where = self.where(fn)
            sequence = fn._sequence_nr()
        lines = [frame["line"] for frame in where if frame["file"] == self.file]
        line = lines[0] if lines else None
        if kind != "leaf":
            detail = f"line {line}" if line else ""
        node: RecordedNode = {"fn": fn, "id": -1, "name": name, "sequence": sequence,  # numbered once sorted
                              "saved": saved(fn), "kind": kind, "label": label, "detail": detail, "where": where,
                              "lines": lines, "line": line, "module": cast(dict[str, Any], fn.metadata).get(MODULE, "")}
        if custom:  # what forward kept on ctx besides tensors (ctx.alpha = alpha)
            node["attributes"] = [{"name": k, "value": repr(v)} for k, v in vars(fn).items()]
        return node

    def place_leaves(self, path: str, before: int | None) -> None:
        """A named leaf's line: the last statement of the file's own code (not inside its functions)
        before line `before` (where the output was made) that binds its name (`x` of `x.grad`,
        `model` of `model.0.weight`)."""
        made = bindings(self.source)
        for node in self.nodes:
            if node["kind"] != "leaf":
                continue
            made_here = made.get(node["label"].split(".")[0], [])
            lines = [(n, code) for n, code in made_here if before is None or n <= before]
            if lines:
                line, code = lines[-1]
                node["where"] = [{"file": self.file, "line": line, "code": code}]
                node["lines"], node["line"] = [line], line

    def where(self, fn: Fn) -> list[Frame]:
        """The frames of the creating stack that are in the snippet's folder, outermost first."""
        frames: list[Frame] = []
        prefix = f'  File "{os.path.join(self.folder, "")}'
        metadata = cast(dict[str, Any], fn.metadata)  # a dict, which torch's annotations call a method
        for entry in metadata.get("traceback_", []):
            m = entry.startswith(prefix) and FRAME.search(entry)
            if m and os.path.dirname(m["file"]) == self.folder:
                code = m["code"].split("  #")[0].strip()  # without a comment at its end
                frames.append({"file": os.path.basename(m["file"]), "line": int(m["line"]), "code": code})
        return frames

    def run(self, backward: Callable[[], object]) -> None:
        """Call `backward()` (which runs this recording's backward pass) with every node watched."""
        running: dict[int, Step] = {}  # node id -> the step it is in
        outgoing: dict[int, dict[int, int]] = {node["id"]: {} for node in self.nodes}  # node id -> {slot: edge id}
        for edge in self.edges:
            outgoing[edge["from"]][edge["slot"]] = edge["id"]
        handles = []
        for node in self.nodes:
            fn = node["fn"]
            handles.append(fn.register_prehook(self.prehook(node, running)))
            handles.append(fn.register_hook(self.hook(node, running, outgoing[node["id"]])))
        try:
            backward()
        finally:
            for handle in handles:
                handle.remove()
        sent: dict[int, Summary | None] = {}  # edge id -> the gradient it carried
        for step in self.steps:
            for item in step["sent"]:
                sent[item["edge"]] = item["grad"]
        for step in self.steps:
            step["contributions"] = [{"edge": e["id"], "grad": sent.get(e["id"])}
                                     for e in self.edges if e["to"] == step["node"] and e["id"] in sent]
        for number, step in enumerate(self.steps, 1):
            step["description"] = self.step_text(number, step)

    def prehook(self, node: RecordedNode, running: dict[int, Step]) -> Callable[[Grads], None]:
        def hook(grad_outputs: Grads) -> None:
            step: Step = {"node": node["id"], "received": received(grad_outputs), "sent": [],
                          "contributions": [], "description": ""}  # these two once the pass has run
            running[node["id"]] = step
            self.steps.append(step)
        return hook

    def hook(self, node: RecordedNode, running: dict[int, Step],
             edges: dict[int, int]) -> Callable[[Grads, Grads], None]:
        def hook(grad_inputs: Grads, grad_outputs: Grads) -> None:
            running[node["id"]]["sent"] = [{"edge": edges[slot], "grad": summary(g)}
                                           for slot, g in enumerate(grad_inputs) if slot in edges]
        return hook

    # What a reader sees

    def node_text(self, i: int) -> str:
        """An operation's node by its name; a leaf's by its AccumulateGrad: `x's AccumulateGrad`."""
        return node_text(self.nodes[i])

    def line_text(self, node: Node) -> str:
        frame = next((f for f in reversed(node["where"]) if f["file"] == self.file), None) \
            or (node["where"][-1] if node["where"] else None)
        if frame is None:
            return ""
        made = f"{node['label']} made" if node["kind"] == "leaf" else "made"
        return f" ({made} by line {frame['line']}: {frame['code']})"

    def received_text(self, step: Step, nothing: str) -> str:
        """What arrived, as the sum of what each edge carried where two or more paths meet."""
        received = step["received"]["text"] if step["received"] else nothing
        parts = [c["grad"]["text"] if c["grad"] else "None" for c in step["contributions"]]
        return f"{' + '.join(parts)} = {received}" if len(parts) > 1 else received

    def sent_text(self, step: Step, to: str) -> list[str]:
        """What went to each node: once for a node that two or more edges reach, with how many."""
        by_target: dict[int, list[str]] = {}
        for s in step["sent"]:
            by_target.setdefault(self.edges[s["edge"]]["to"], []).append(s["grad"]["text"] if s["grad"] else "None")
        texts = []
        for target, grads in by_target.items():
            name = self.node_text(target)
            if len(grads) == 1:
                texts.append(f"{grads[0]}{to}{name}")
            elif len(set(grads)) == 1:
                texts.append(f"{grads[0]} along each of its {count_text(len(grads))} edges{to}{name}")
            else:
                texts.append(f"{' and '.join(grads)}, one along each of its {count_text(len(grads))} edges,{to}{name}")
        return texts

    def step_text(self, number: int, step: Step) -> str:
        node = self.nodes[step["node"]]
        text = (f"Step {number} of {len(self.steps)}: {self.node_text(step['node'])}{self.line_text(node)}"
                f" receives {self.received_text(step, 'nothing')}")
        if node["kind"] == "leaf":
            where = f"{node['label']}.grad" if node["label"] != "AccumulateGrad" else "the leaf's .grad"
            return text + f", and adds it to {where}."
        if node["kind"] == "custom":
            kept = [f"saved tensor {t['name']} ({shape_text(t['shape'])} {t['dtype']}, {t['bytes']} bytes)"
                    for t in node["saved"]] + [f"ctx.{a['name']} = {a['value']}" for a in node.get("attributes", [])]
            text += f"; its backward reads {', '.join(kept)}" if kept else ""
        sent = self.sent_text(step, " to ")
        return text + (f", and sends {'; '.join(sent)}." if sent else ".")

    def forward_lines(self) -> list[ForwardLine]:
        """The top-level lines of the snippet in the order they ran, with the nodes each added."""
        lines: dict[int, list[int]] = {}
        for node in self.nodes:
            if node["line"] is not None:
                lines.setdefault(node["line"], []).append(node["id"])
        result: list[ForwardLine] = []
        for line, ids in sorted(lines.items()):
            code = next(f["code"] for f in self.nodes[ids[0]]["where"] if f["line"] == line)
            added = ", ".join(self.node_text(i) for i in ids)
            result.append({"line": line, "code": code, "nodes": ids,
                           "description": f"Line {line}, {code}, adds {added}."})
        return result

    def data(self) -> Data:
        return {"file": self.file, "source": self.source, "nodes": [public(n) for n in self.nodes],
                "edges": self.edges, "steps": self.steps, "forward": self.forward_lines()}

    def rows(self) -> Iterator[list[str]]:
        for number, step in enumerate(self.steps, 1):
            node = self.nodes[step["node"]]
            yield [str(number), node_label(node), str(node["line"] or ""), self.received_text(step, ""),
                   "; ".join(self.sent_text(step, " → "))]

    HEADER = ["Step", "Node", "Line", "Gradient received", "Gradients sent"]

    def table(self) -> str:
        rows = [self.HEADER, *self.rows()]
        widths = [max(len(r[i]) for r in rows) for i in range(len(self.HEADER) - 1)]
        return "\n".join("  ".join([*(c.ljust(w) for c, w in zip(r, widths)), r[-1]]).rstrip() for r in rows)

    def _repr_html_(self) -> str:
        def esc(text: str) -> str:
            return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        head = "".join(f"<th>{h}</th>" for h in self.HEADER)
        body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in self.rows())
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, Any]:
        return {"text/plain": self.table(), "text/html": self._repr_html_(), STEPS: self.data()}

    def __repr__(self) -> str:
        return self.table()


def public(node: RecordedNode) -> Node:
    """A node as the data has it: without its grad_fn and its place in the forward pass."""
    found: Node = {"id": node["id"], "name": node["name"], "kind": node["kind"], "label": node["label"],
                   "detail": node["detail"], "line": node["line"], "lines": node["lines"], "where": node["where"],
                   "module": node["module"], "saved": node["saved"]}
    if "attributes" in node:
        found["attributes"] = node["attributes"]
    return found


def source_lines(path: str) -> list[str]:
    """The lines of a file, or of a notebook's cell (which IPython keeps in linecache under the
    file name its code runs as); none where there are none."""
    linecache.checkcache(path)  # a file changed since it was read; a cell's lines stay
    return [line.rstrip("\n") for line in linecache.getlines(path)]


def bindings(lines: list[str]) -> dict[str, list[tuple[int, str]]]:
    """{name: [(line, code)]}: the statements of a file's own code (not of its functions or
    classes) that bind each name, in order; a statement inside `with` or `for` is its own line."""
    try:
        tree = ast.parse("\n".join(lines))
    except (SyntaxError, ValueError):
        return {}
    found: dict[str, list[tuple[int, str]]] = {}

    def visit(node: ast.AST, statement: ast.stmt | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                assert statement is not None  # a name is bound inside a statement
                code = lines[statement.lineno - 1].split("  #")[0].strip()
                found.setdefault(child.id, []).append((statement.lineno, code))
            visit(child, child if isinstance(child, ast.stmt) else statement)

    visit(tree, None)
    return {name: sorted(set(made)) for name, made in found.items()}


def node_label(node: Node) -> str:
    """A node as a table names it: a leaf by its AccumulateGrad and the leaf's name."""
    if node["kind"] != "leaf" or node["label"] == "AccumulateGrad":
        return node["label"]
    return f"AccumulateGrad ({node['label']})"


def node_text(node: Node) -> str:
    """A node as a sentence names it: `x's AccumulateGrad` for the leaf x."""
    if node["kind"] != "leaf" or node["label"] == "AccumulateGrad":
        return node["label"]
    return f"{node['label']}'s AccumulateGrad"


def count_text(n: int) -> str:
    return {2: "two", 3: "three", 4: "four"}.get(n, str(n))


def saved(fn: Fn) -> list[Saved]:
    """The tensors a node keeps for backward, read before backward frees them."""
    found: list[Saved] = []
    if hasattr(fn, "_forward_cls"):
        ctx: Any = fn  # a custom Function's node is its ctx
        items = [(str(i), t) for i, t in enumerate(ctx.saved_tensors)]
    else:
        items = [(a.removeprefix("_saved_"), getattr(fn, a)) for a in dir(fn) if a.startswith("_saved_")]
    for name, value in items:
        if isinstance(value, torch.Tensor):
            found.append({"name": name, "shape": list(value.shape), "dtype": str(value.dtype).removeprefix("torch."),
                          "bytes": value.numel() * value.element_size()})
    return found


def shape_text(shape: Sequence[int]) -> str:
    return "×".join(map(str, shape)) or "scalar"


def number(value: float) -> str:
    return f"{value:.4g}" if math.isfinite(value) else str(value)


def summary(tensor: torch.Tensor | None) -> Summary | None:
    """A gradient as a reader sees it: its values when small, its norm and range otherwise."""
    if tensor is None:
        return None
    t = tensor.detach().to("cpu", torch.float64)
    if t.numel() <= SMALL:
        values = t.tolist()
        flat = t.flatten().tolist()
        return {"shape": list(t.shape), "values": values, "text": nested_text(values),
                "norm": math.sqrt(sum(v * v for v in flat)), "min": min(flat), "max": max(flat)}
    low, high = torch.aminmax(t)
    norm, least, most = t.norm().item(), low.item(), high.item()
    return {"shape": list(t.shape), "values": None, "norm": norm, "min": least, "max": most,
            "text": f"{shape_text(t.shape)}, norm {number(norm)}, from {number(least)} to {number(most)}"}


def received(grads: Sequence[torch.Tensor | None]) -> Summary | None:
    """What arrived at a node: its one output's gradient, or each output's where it has several
    (torch.unbind, a custom Function returning two tensors), with their norm and range together."""
    if len(grads) == 1:
        return summary(grads[0])
    parts = [summary(g) for g in grads]
    known = [p for p in parts if p]
    return {"shape": None, "values": None,
            "text": "; ".join(f"output {i}: {p['text'] if p else 'None'}" for i, p in enumerate(parts)),
            "norm": math.sqrt(sum(p["norm"] ** 2 for p in known)),
            "min": min((p["min"] for p in known), default=0.0), "max": max((p["max"] for p in known), default=0.0)}


def nested_text(values: float | list[Any]) -> str:
    if isinstance(values, list):
        return "[" + ", ".join(nested_text(v) for v in values) + "]"
    return number(values)
