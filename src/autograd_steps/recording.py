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
  frees it; what saved-tensor hooks packed (non-reentrant activation
  checkpointing, save_on_cpu) is left to backward, which unpacks it once
  (`packed`); a reentrant checkpoint's node is said to hide its block;
- of each gradient and saved tensor: how many values are NaN and inf, and the
  norm and range of the finite ones (`summary`); each node's marks (NaN or
  inf, a norm far below or above what its senders received) and the steps to
  jump to (`Recording.mark`);
- for the operations run within `watch_forward()`, whether what each returned
  held NaN or inf (`Results`, checked where the tensor is, without waiting for
  it): the first NaN or inf is then found where the forward pass made it, at
  its operation's node, not only where backward first carried one;
- where backward() raises: the steps until then, the node that raised and
  the forward call that made it, before the exception is raised again.

The result is shown with `display()` where one exists (Jupyter, and the
site's build, which draws it as a step-through viewer) and printed as a
table otherwise. `autograd_steps.show_backward` shows the viewer itself in a notebook.
"""

import ast
import bisect
import builtins
import contextlib
import csv
import functools
import gc
import html
import json
import linecache
import math
import os
import re
import sys
import textwrap
import threading
import types
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal, NotRequired, TypedDict, TypeGuard, cast

import torch
import torch.fx.traceback as fx_traceback
from torch.autograd.graph import Node as Fn
from torch.overrides import TorchFunctionMode
from torch.utils._pytree import tree_leaves

STEPS = "application/vnd.snippet.steps+json"
SMALL = 8  # tensors with at most this many elements are recorded value by value
MAX_NODES = 5000  # larger graphs are refused: more than Graphviz's dot lays out quickly
SHOWN_PER_LINE = 3  # recorded() shows the first backward() calls of a line; a training loop's others run plain
UNKNOWN = ("{count} of the graph's operations were made outside anomaly mode, so the line that made each "
           "is unknown: run the forward pass under autograd_steps.watch_forward() (or "
           "torch.autograd.set_detect_anomaly(True, check_nan=False)).")
# A gradient is "vanishing" ("exploding") where, followed down its path from the loss, its size has
# fallen (grown) by ORDERS orders of magnitude, one operation counting for at most STEP of them
# (`Recording.flow`): vanishing and exploding build up over layers, while a deliberate scaling (a
# loss scale, LayerScale's 1e-5, a zero it is multiplied by) is one operation.
ORDERS = 2
STEP = 0.5
Grads = tuple[torch.Tensor | None, ...]  # what a node's hooks are given
Mark = Literal["nonfinite", "vanishing", "exploding", "changed"]  # "changed": by `compare`
TORCH = os.path.join(os.path.dirname(torch.__file__), "")  # torch's own files
FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in [^\n]*\n(?P<code>[^\n]*)')


# The recording's data (`Recording.data()`), as the viewer reads it. A node's and an edge's
# "id" is its index in "nodes" and "edges"; a step's "node", an edge's "from" and "to" are ids.

class Frame(TypedDict):
    """A line of the recorded file in the stack that made a node (or the line that made a leaf)."""
    file: str  # the file's name, without its folder
    line: int
    code: str  # without a comment at its end
    place: str  # where a reader finds it: "line 9" of the recorded file, "models.py, line 9", "line 6 of another cell"


class Saved(TypedDict):
    """A tensor a node saved for backward."""
    name: str  # "self" of _saved_self; a custom Function's by its index in saved_tensors
    shape: list[int] | None  # None where it could not be read, or is nested
    dtype: str | None  # "float32"
    bytes: int | None
    summary: "Summary | None"
    error: str | None  # why it could not be read (it was modified in place since it was saved)


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
    marks: list[Mark]  # what is wrong with the gradients it received or sent (`mark`)
    made_nonfinite: bool | None  # whether its forward operation returned NaN or inf (None: not checked, made
    # outside watch_forward, or a leaf)
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
    shape: list[int] | None  # None: several outputs, or a nested tensor's components
    values: float | list[Any] | None  # the values (nested lists, as tolist()) of a small real dense tensor, all finite
    text: str
    nan: int  # how many values are NaN
    inf: int  # how many are inf or -inf
    norm: float  # of the finite values (complex: of their |z|)
    min: float | None  # the finite values' range (complex: of |z|); None where none is finite
    max: float | None
    dtype: str  # "float32"; several outputs: the first one's
    layout: str  # "strided", "sparse_coo", "sparse_csr", ..., or "nested"


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


class Jumps(TypedDict):
    """Steps to jump to (indexes into "steps"); None where there is none."""
    nonfinite: int | None  # the step of the node that made the first NaN or inf (`origin`)
    origin: Literal["forward", "backward"] | None  # the pass that made it: the forward (the node's operation
    # returned it) or the backward (the node received or sent it first)
    largest: int | None  # the one that received the largest gradient (by its norm)
    smallest: int | None  # the smallest
    changed: NotRequired[int | None]  # in a comparison (`compare`), the one whose gradient changed most


class Failure(TypedDict):
    """Where backward() raised."""
    node: int | None  # the node that was running (None: before any node ran)
    step: int | None
    message: str  # the exception's
    forward: str  # anomaly mode's traceback of the forward call that made the node ("" without one)


class Missing(TypedDict):
    """A parameter that requires grad and that the backward pass does not reach (`Recording.unreached`)."""
    name: str  # `model.encoder.0.weight`
    shape: str  # "8×4"


class Before(TypedDict):
    """What the node of another recording that is the same node received (`compare`)."""
    node: int | None  # its id there; None where no node there is the same
    received: Summary | None
    ratio: float | None  # the norm received here over the norm there, where both are finite and above 0


class Data(TypedDict):
    """What `Recording.data()` returns: a recorded backward pass (STEPS in a MIME bundle)."""
    file: str  # the name of the file whose code made the graph
    source: list[str]  # its lines
    nodes: list[Node]
    edges: list[Edge]
    steps: list[Step]  # in the order the engine ran them
    forward: list[ForwardLine]
    jumps: Jumps
    note: str  # why some nodes' lines are unknown (UNKNOWN), or ""
    missing: list[Missing]  # the parameters that get no gradient from this backward pass
    before: NotRequired[list["Before"]]  # per node, in a comparison (`compare`): what the same node received before
    error: NotRequired[Failure]  # where backward() raised: the steps are those that ran until then


class LaidOut(Data):
    """The data with its graph laid out (`autograd_steps.layout`), as the viewer shows it."""
    svg: str | None  # None where Graphviz is not installed


def step_through(output: torch.Tensor, gradient: torch.Tensor | None = None, *, max_nodes: int = MAX_NODES,
                 **backward_args: Any) -> None:
    """`output.backward(gradient, **backward_args)`, recorded and shown (where backward() raises,
    the steps until then, and the exception raised again). A graph of more than `max_nodes` nodes
    is refused before anything runs. Returns None, as backward() does (Jupyter would show a
    returned recording a second time)."""
    caller = sys._getframe(1)
    params = parameters(caller)
    recording = Recording(output, names(caller, params), caller.f_code.co_filename, "step_through", max_nodes, params)
    try:
        recording.run(lambda: output.backward(gradient, **backward_args))
    finally:
        show(recording)


class Note(str):
    """A sentence shown among the recordings: display() shows its text."""

    def __repr__(self) -> str:
        return str(self)

    def table(self) -> str:
        return str(self)


def show(shown: "Recording | Note") -> None:
    display = getattr(builtins, "display", None)
    display(shown) if display else print(shown.table())


@contextlib.contextmanager
def recorded(path: str, max_nodes: int = MAX_NODES) -> Iterator[None]:
    """Within the block, the forward pass is watched (`watch_forward`) and every `backward()` called
    from the code of the file `path` on one tensor is recorded and shown as it runs (as `step_through`
    does), up to SHOWN_PER_LINE calls from one line (a training loop's), which a note then says;
    other calls run as they are."""
    path = os.path.abspath(path)
    real = torch.autograd.backward
    calls: dict[int, int] = {}  # line of the file: backward() calls made from it

    def backward(tensors: Any, *args: Any, **kwargs: Any) -> None:
        frame: types.FrameType | None = sys._getframe(1)
        while frame is not None and frame.f_code.co_filename != path:
            frame = frame.f_back
        if frame is None or not isinstance(tensors, torch.Tensor) or tensors.grad_fn is None:
            return real(tensors, *args, **kwargs)
        calls[frame.f_lineno] = calls.get(frame.f_lineno, 0) + 1
        if calls[frame.f_lineno] > SHOWN_PER_LINE:
            if calls[frame.f_lineno] == SHOWN_PER_LINE + 1:
                show(Note(f"backward() on line {frame.f_lineno} runs again: the step-through shows its first "
                          f"{SHOWN_PER_LINE} calls, and lets the ones that follow run without recording them."))
            return real(tensors, *args, **kwargs)
        params = parameters(frame)
        recording = Recording(tensors, names(frame, params), path, "the step-through", max_nodes, params)
        try:
            recording.run(lambda: real(tensors, *args, **kwargs))
        finally:
            show(recording)

    torch.autograd.backward = backward
    try:
        with watch_forward():
            yield
    finally:
        torch.autograd.backward = real


def names(frame: types.FrameType, params: Sequence[tuple[str, torch.Tensor]] | None = None) -> dict[int, str]:
    """{id(tensor): name} for the leaves a frame's variables hold, and its modules' parameters
    (`params`, where the caller has them already: `parameters(frame)`)."""
    found: dict[int, str] = {}
    for name, value in scope(frame):
        if isinstance(value, torch.Tensor):
            found.setdefault(id(value), name)
    for name, param in parameters(frame) if params is None else params:
        found.setdefault(id(param), name)
    return found


def parameters(frame: types.FrameType) -> list[tuple[str, torch.Tensor]]:
    """(name, parameter) of the modules a frame's variables hold, by each variable that holds one:
    `model.0.weight`, and `encoder.weight` where `encoder` holds `model[0]` too."""
    found: dict[str, torch.Tensor] = {}
    for name, value in scope(frame):
        if isinstance(value, torch.nn.Module):
            for param_name, param in value.named_parameters():
                found.setdefault(f"{name}.{param_name}", param)
    return list(found.items())


def scope(frame: types.FrameType) -> Iterator[tuple[str, object]]:
    """A frame's variables, its locals first; not a global that a local of its name hides (a
    notebook's `model` from an earlier cell, where a function's own `model` calls backward)."""
    local = frame.f_locals
    yield from list(local.items())
    yield from [(name, value) for name, value in list(frame.f_globals.items()) if name not in local]


FORMAT_STACK = fx_traceback.format_stack
STACKS = threading.Lock()  # held while a block of watch_forward starts or ends, in any thread
WATCHING: list[None] = []  # one item a block of watch_forward running
MODULE = "autograd_steps.module"  # the key in a node's metadata of the path of the module whose forward made it


@contextlib.contextmanager
def watch_forward() -> Iterator[None]:
    """Put around a forward pass in place of `torch.autograd.set_detect_anomaly(True, check_nan=False)`:
    anomaly mode keeps each node's line, and each node made inside a module's forward keeps the
    path of that module (the innermost one), `model.layers.1.self_attn`, in its metadata under MODULE,
    and whether what its operation returned holds NaN or inf (`Results`).
    A path starts with the name the calling code gives the outermost module called (`model` of
    `model(x)`; its class's name where no variable holds it), as a parameter's leaf is named.
    While a block runs (in any thread), anomaly mode keeps stacks without their lines of code
    (`creating_stack`): torch's own report of a failing node made then lists its frames alone."""
    calls = ModuleCalls()
    handles = [torch.nn.modules.module.register_module_forward_pre_hook(calls.enter),
               torch.nn.modules.module.register_module_forward_hook(calls.exit, always_call=True)]
    with STACKS:  # the first block to start puts creating_stack in, the last to end takes it out
        WATCHING.append(None)
        if len(WATCHING) == 1:
            fx_traceback.format_stack = functools.partial(creating_stack, {})  # anomaly mode calls it for each node
    try:
        with torch.autograd.set_detect_anomaly(True, check_nan=False), Results():
            yield
    finally:
        with STACKS:
            WATCHING.pop()
            if not WATCHING:
                fx_traceback.format_stack = FORMAT_STACK
        for handle in handles:
            handle.remove()


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused, where it was on: a recording makes a few objects
    a node, and each of the collector's full passes walks all of them, and the model's, which made
    recording a graph of 5,000 nodes take 9 times as long as one of 1,000 (4.9 times paused)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def creating_stack(formatted: dict[tuple[types.CodeType, int], str]) -> list[str]:
    """A node's creating stack as anomaly mode keeps it (`traceback_`), as torch.fx.traceback's
    `format_stack` gives it but without each frame's line of code, which a recording reads from
    linecache for the reader's own frames alone (`Recording.where`). Each frame is formatted once
    per place it runs at (`formatted`, by its code and instruction): a frame's line number is
    worked out from its code's line table, and the callers of a forward pass are the same for
    every node it makes."""
    if fx_traceback.has_preserved_node_meta():  # torch.fx's own stacks, kept as they are
        return FORMAT_STACK()
    texts: list[str] = []
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        text = formatted.get((code, frame.f_lasti))
        if text is None:
            text = formatted[code, frame.f_lasti] = f'  File "{code.co_filename}", line {frame.f_lineno}, in {code.co_name}\n'
        texts.append(text)
        frame = frame.f_back
    texts.reverse()
    return texts


RESULTS = "autograd_steps.results"  # the key in a node's metadata of `Results`' checks of what its operation returned
# The key in a node's metadata marking it made while saved-tensor hooks packed what it saved
# (non-reentrant activation checkpointing, save_on_cpu): unpacking recomputes or copies it.
PACKED = "autograd_steps.packed"


class Results(TorchFunctionMode):
    """Checks what each operation of the forward pass returns, where it is and without waiting for
    it: for each tensor returned with a node (floating point or complex, dense), its least and
    largest values, on its device (NaN or inf where it holds NaN or inf), kept in the node's
    metadata under RESULTS. `Recording` reads them all in one transfer per device.
    Each node made while saved-tensor hooks pack what it saves is marked PACKED: a built-in
    operation's as it returns; a custom Function's (whose `apply` this mode does not see) by the
    operations its forward runs, without grad, right after its node was numbered, and marked when
    an operation takes what it returned."""

    def __init__(self) -> None:
        super().__init__()
        self.packed: set[int] = set()  # the numbers of custom Functions' nodes made under saved-tensor hooks

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        out = func(*args, **(kwargs or {}))
        if torch.compiler.is_compiling():
            return out  # traced: a compiled region's node is made when it runs
        packed = torch._C._autograd._top_saved_tensors_default_hooks(False) is not None
        if packed and not torch.is_grad_enabled():  # in a custom Function's forward, its node numbered last
            self.packed.add(torch.autograd._get_sequence_nr() - 1)
        for t in tree_leaves((args, kwargs)) if self.packed else ():
            fn = t.grad_fn if isinstance(t, torch.Tensor) else None
            if fn is not None and hasattr(fn, "_forward_cls") and fn._sequence_nr() in self.packed:
                cast(dict[str, Any], fn.metadata)[PACKED] = True
        for t in (out,) if isinstance(out, torch.Tensor) else tree_leaves(out):
            fn = t.grad_fn if isinstance(t, torch.Tensor) else None
            if fn is None:
                continue
            metadata = cast(dict[str, Any], fn.metadata)
            if packed:
                metadata[PACKED] = True
            if t.layout == torch.strided and not t.is_nested and not t.is_meta and t.numel() \
                    and (t.is_floating_point() or t.is_complex()):
                values = torch.view_as_real(t.detach()) if t.is_complex() else t.detach()
                metadata.setdefault(RESULTS, []).extend(torch.aminmax(values))
        return out


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
    def __init__(self, output: torch.Tensor, leaf_names: dict[int, str], path: str, caller: str = "step_through",
                 max_nodes: int = MAX_NODES, params: Sequence[tuple[str, torch.Tensor]] = ()) -> None:
        """The graph of `output`, for `caller` (the function the reader called, which errors name);
        `params`, the (name, parameter) of the modules in the caller's scope (`parameters`), for
        those that receive no gradient (`missing`)."""
        if output.grad_fn is None:
            raise ValueError(f"{caller} needs a tensor computed from tensors that require grad "
                             "(this one has no grad_fn)")
        self.output, self.folder, self.file = output, os.path.dirname(path), os.path.basename(path)
        self.cells = os.path.basename(self.folder).startswith("ipykernel_")  # a notebook's: IPython's cells' folder
        # The reader's code: the recorded file's folder, and in a notebook the notebook's (a models.py beside it).
        self.folders = {self.folder, os.getcwd()} if self.cells else {self.folder}
        self.prefixes = tuple(f'  File "{os.path.join(folder, "")}' for folder in self.folders)
        self.entries: dict[str, Frame | None] = {}  # an entry of a creating stack -> its frame (`where`)
        self.source = source_lines(path)
        self.nodes: list[RecordedNode] = []
        self.index: dict[int, object] = {}  # id(node) -> node, which the recording keeps alive
        self.edges: list[Edge] = []
        with gc_paused():
            self.visit(output.grad_fn, leaf_names, caller, max_nodes)
            self.place_leaves(path, self.nodes[0]["line"])
            self.read_results()
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
        self.seen: dict[int, tuple[weakref.ref[torch.Tensor], int, Summary]] = {}  # id(gradient) -> its version, summary
        self.error: Failure | None = None
        self.jumps: Jumps = {"nonfinite": None, "origin": None, "largest": None, "smallest": None}
        self.params = params
        self.grads = {id(p): grad_state(p) for _, p in params}  # each parameter's .grad before backward
        self.missing: list[Missing] = []  # once backward has run (`finish`)

    def visit(self, fn: Fn, leaf_names: dict[int, str], caller: str, max_nodes: int) -> None:
        """Every node reachable from `fn`, each once, with its edges; past `max_nodes` nodes, an error."""
        stack = [fn]
        while stack:
            fn = stack.pop()
            if id(fn) in self.index:
                continue
            if len(self.index) == max_nodes:
                raise ValueError(f"{caller} refuses this graph: it has more than {max_nodes:,} nodes "
                                 f"(max_nodes={max_nodes}), more than the viewer lays out quickly. Pass a "
                                 "larger max_nodes=, or record a part of the model (the loss of one block, "
                                 "its input detached); backward() has not run")
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
                                          size_text(variable), [])
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
            detail = where[-1]["place"] if where else ""  # the innermost line of the reader's code
        node: RecordedNode = {"fn": fn, "id": -1, "name": name, "sequence": sequence,  # numbered once sorted
                              "saved": packed(fn) if cast(dict[str, Any], fn.metadata).get(PACKED) else saved(fn),
                              "kind": kind, "label": label, "detail": detail, "where": where,
                              "lines": lines, "line": line, "marks": [], "made_nonfinite": None,
                              "module": cast(dict[str, Any], fn.metadata).get(MODULE, "")}
        if custom:  # what forward kept on ctx besides tensors (ctx.alpha = alpha)
            node["attributes"] = [{"name": k, "value": repr(v)} for k, v in vars(fn).items()]
        return node

    def unreached(self) -> list[Missing]:
        """The parameters that require grad and that this backward pass did not reach, of each
        module that has a parameter reached (an encoder detached by mistake): none of them got a
        gradient. A module none of whose parameters was reached is another model. Reached: in the
        graph, or given a gradient during the pass by a backward pass of its own (a reentrant
        checkpoint's block, whose nodes the graph does not hold)."""
        reached = {id(cast(Any, node["fn"]).variable) for node in self.nodes if node["kind"] == "leaf"}
        reached |= {id(param) for _, param in self.params if grad_state(param) != self.grads[id(param)]}
        modules = {name.split(".")[0] for name, param in self.params if id(param) in reached}
        missing: dict[int, Missing] = {}  # each parameter once, by the first variable that names it
        for name, param in self.params:
            if param.requires_grad and id(param) not in reached and name.split(".")[0] in modules:
                missing.setdefault(id(param), {"name": name, "shape": size_text(param)})
        return list(missing.values())

    def read_results(self) -> None:
        """Each node's `made_nonfinite`, from `Results`' checks, read in one transfer per device."""
        checks: dict[torch.device, list[tuple[RecordedNode, torch.Tensor]]] = {}
        for node in self.nodes:
            for extreme in cast(dict[str, Any], node["fn"].metadata).get(RESULTS, []):
                checks.setdefault(extreme.device, []).append((node, extreme))
        for found in checks.values():
            finite = torch.stack([extreme for _, extreme in found]).isfinite().tolist()  # stack promotes
            for (node, _), value in zip(found, finite):
                node["made_nonfinite"] = bool(node["made_nonfinite"]) or not value

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
                node["where"] = [{"file": self.file, "line": line, "code": code,
                                  "place": self.place(os.path.join(self.folder, self.file), line)}]
                node["lines"], node["line"] = [line], line

    def where(self, fn: Fn) -> list[Frame]:
        """The frames of the creating stack that are in the reader's code (`folders`), outermost first."""
        metadata = cast(dict[str, Any], fn.metadata)  # a dict, which torch's annotations call a method
        frames = [self.entries[entry] if entry in self.entries else self.read_entry(entry)
                  for entry in metadata.get("traceback_", [])]
        return [frame for frame in frames if frame]

    def read_entry(self, entry: str) -> Frame | None:
        """An entry of a creating stack as a frame of the reader's code, or None; read once for the
        recording (`entries`): `creating_stack` gives the same entry for each node that one place
        of the code makes, and every node of a forward pass shares the entries of its callers."""
        m = entry.startswith(self.prefixes) and FRAME.search(entry)
        frame: Frame | None = None
        if m and os.path.dirname(m["file"]) in self.folders:
            line = int(m["line"])
            code = (m["code"] or linecache.getline(m["file"], line)).split("  #")[0].strip()  # without a comment
            frame = {"file": os.path.basename(m["file"]), "line": line, "code": code, "place": self.place(m["file"], line)}
        self.entries[entry] = frame
        return frame

    def place(self, path: str, line: int) -> str:
        """A line as the reader finds it: in the recorded file, by its number; in another file of its
        folder, with the file's name; in a notebook, whose cells IPython runs as files named by a
        number in one folder (ipykernel_...), as another cell's, and a file of the notebook's
        folder by its name."""
        folder, name = os.path.split(path)
        if folder == self.folder and name == self.file:
            return f"line {line}"
        if folder == self.folder and self.cells:
            return f"line {line} of another cell"
        return f"{name}, line {line}"

    def run(self, backward: Callable[[], object]) -> None:
        """Call `backward()` (which runs this recording's backward pass) with every node watched;
        where it raises, the steps until then are kept, and the exception raised again."""
        running: dict[int, Step] = {}  # node id -> the step it is in
        outgoing: dict[int, dict[int, int]] = {node["id"]: {} for node in self.nodes}  # node id -> {slot: edge id}
        for edge in self.edges:
            outgoing[edge["from"]][edge["slot"]] = edge["id"]
        handles = []
        with gc_paused():
            for node in self.nodes:
                fn = node["fn"]
                handles.append(fn.register_prehook(self.prehook(node, running)))
                handles.append(fn.register_hook(self.hook(node, running, outgoing[node["id"]])))
            try:
                backward()
            except Exception as error:
                self.error = self.failure(error)
                raise
            finally:
                for handle in handles:
                    handle.remove()
                self.seen.clear()
                self.finish()

    def failure(self, error: Exception) -> Failure:
        """The node that raised: the last to start (a node's backward raises, or anomaly mode's
        check of what it returned, after its post-hook)."""
        if not self.steps:
            return {"node": None, "step": None, "message": str(error), "forward": ""}
        node = self.nodes[self.steps[-1]["node"]]
        metadata = cast(dict[str, Any], node["fn"].metadata)
        return {"node": node["id"], "step": len(self.steps) - 1, "message": str(error),
                "forward": "".join(with_code(entry) for entry in metadata.get("traceback_", []))}

    def finish(self) -> None:
        """What each step's contributions were, its text, the nodes' marks and the steps to jump to."""
        sent: dict[int, Summary | None] = {}  # edge id -> the gradient it carried
        for step in self.steps:
            for item in step["sent"]:
                sent[item["edge"]] = item["grad"]
        incoming: dict[int, list[Edge]] = {}  # node id -> the edges into it, in order
        for edge in self.edges:
            incoming.setdefault(edge["to"], []).append(edge)
        for step in self.steps:
            step["contributions"] = [{"edge": e["id"], "grad": sent.get(e["id"])}
                                     for e in incoming.get(step["node"], []) if e["id"] in sent]
        self.mark()
        self.missing = self.unreached()
        for number, step in enumerate(self.steps, 1):
            step["description"] = self.step_text(number, step)

    def mark(self) -> None:
        """Each node's marks: "nonfinite" where it received or sent NaN or inf, or made the first NaN
        or inf of the forward pass (`forward_origin`), which the jump then goes to; "vanishing" or
        "exploding" as `flow` judges it. The steps to jump to."""
        origin = self.forward_origin()
        if origin is not None:
            self.nodes[self.steps[origin]["node"]]["marks"].append("nonfinite")
            self.jumps["nonfinite"], self.jumps["origin"] = origin, "forward"
        for index, step in enumerate(self.steps):
            node, got = self.nodes[step["node"]], step["received"]
            grads = [got, *(s["grad"] for s in step["sent"])]
            if any(g and (g["nan"] or g["inf"]) for g in grads) and "nonfinite" not in node["marks"]:
                node["marks"].append("nonfinite")
                if self.jumps["nonfinite"] is None:
                    self.jumps["nonfinite"], self.jumps["origin"] = index, "backward"
        for node_id, mark in self.flow().items():
            self.nodes[node_id]["marks"].append(mark)
        ranked = sorted((s["received"]["norm"], i) for i, s in enumerate(self.steps) if finite(s["received"]))
        if ranked:
            self.jumps["smallest"], self.jumps["largest"] = ranked[0][1], ranked[-1][1]

    def flow(self) -> dict[int, Mark]:
        """The nodes whose gradient vanished or exploded, judged along its paths from the loss, as a
        gradient-flow plot is read down the depth of a network. A node's level is the size of the
        gradient it received, in orders of magnitude, followed down the path that keeps it largest,
        each operation's change counting for at most STEP (`step_size`): a drop of 1e-5 in one
        operation (LayerScale, a constant, a zero initial state multiplied in) counts as half an
        order, a fall by half in each of ten layers as three, and a rise pays back first what a
        fall above it was not counted for. A parameter is judged by the operation that sends it
        its gradient: what it gets besides (a bias before a batch norm gets almost nothing) is the
        size of its own input, not of the gradient flowing down. A node is "vanishing" where its level, and the
        level of every node below it (what it sends to, and on to the leaves: a side branch whose
        gradient is small, an attention's queries and keys, a gate, rejoins a larger one), is ORDERS
        or more below the highest level above it of a gradient of several values (the loss's own
        scalars do not count: a loss near its minimum is no vanishing). It is "exploding" where its
        level and every level below it (but those of gradients of exactly 0) are ORDERS or more above
        the level at which its path's gradient first had several values (where it entered the
        model, after a loss scale). Nodes with NaN or inf are left out: they are "nonfinite"."""
        norms = {s["node"]: s["received"] for s in self.steps if finite(s["received"])}
        order = list(dict.fromkeys(s["node"] for s in self.steps if s["node"] in norms))  # senders first
        senders: dict[int, list[int]] = {node: [] for node in order}
        for edge in self.edges:
            if edge["from"] in norms and edge["to"] in norms:
                senders[edge["to"]].append(edge["from"])
        level: dict[int, float] = {}
        owed: dict[int, float] = {}  # the node's falls not counted in full (`step_size`), along that path
        top: dict[int, float] = {}  # the highest level above a node of a gradient of several values
        entry: dict[int, float] = {}  # the level where the node's paths first carried several values
        for node in order:
            above = senders[node]
            leaf = self.nodes[node]["kind"] == "leaf"
            moves = [(level[p] + move, left) for p in above for move, left in
                     [(0.0, owed[p]) if leaf else step_size(norms[p]["norm"], norms[node]["norm"], owed[p])]]
            level[node], owed[node] = max(moves, default=(0.0, 0.0))
            top[node] = max((max(top[p], level[p] if wide(norms[p]) else -math.inf) for p in above), default=-math.inf)
            entry[node] = max((entry[p] for p in above), default=-math.inf)
            if entry[node] == -math.inf and wide(norms[node]):
                entry[node] = level[node]
        # The highest and the lowest level of a node and every node below it; a gradient of exactly 0
        # has no size to judge (a zero initial state multiplied in): it lowers none.
        highest = dict(level)
        lowest = {node: level[node] if norms[node]["norm"] else math.inf for node in order}
        for node in reversed(order):
            for p in senders[node]:
                highest[p], lowest[p] = max(highest[p], highest[node]), min(lowest[p], lowest[node])
        marks: dict[int, Mark] = {}
        for node in order:
            if highest[node] <= top[node] - ORDERS:
                marks[node] = "vanishing"
            elif norms[node]["norm"] and entry[node] > -math.inf and lowest[node] >= entry[node] + ORDERS:
                marks[node] = "exploding"
        return marks

    def forward_origin(self) -> int | None:
        """The step of the node made first (the nodes are in the order the forward pass made them)
        whose operation returned NaN or inf, where backward ran it."""
        made = next((node["id"] for node in self.nodes if node["made_nonfinite"]), None)
        return next((i for i, step in enumerate(self.steps) if step["node"] == made), None)

    def prehook(self, node: RecordedNode, running: dict[int, Step]) -> Callable[[Grads], None]:
        def hook(grad_outputs: Grads) -> None:
            step: Step = {"node": node["id"], "received": received(grad_outputs, self.summary), "sent": [],
                          "contributions": [], "description": ""}  # these two once the pass has run
            running[node["id"]] = step
            self.steps.append(step)
        return hook

    def hook(self, node: RecordedNode, running: dict[int, Step],
             edges: dict[int, int]) -> Callable[[Grads, Grads], None]:
        def hook(grad_inputs: Grads, grad_outputs: Grads) -> None:
            running[node["id"]]["sent"] = [{"edge": edges[slot], "grad": self.summary(g)}
                                           for slot, g in enumerate(grad_inputs) if slot in edges]
        return hook

    def summary(self, tensor: torch.Tensor | None) -> Summary | None:
        """`summary(tensor)`, once for a gradient that a node sends and the next receives (unless
        the engine added another to it in place, as where two paths meet)."""
        if tensor is None:
            return None
        known = self.seen.get(id(tensor))
        if known and known[0]() is tensor and known[1] == tensor._version:
            return known[2]
        found = cast(Summary, summary(tensor))
        self.seen[id(tensor)] = (weakref.ref(tensor), tensor._version, found)
        return found

    # What a reader sees

    def node_text(self, i: int) -> str:
        """An operation's node by its name; a leaf's by its AccumulateGrad: `x's AccumulateGrad`."""
        return node_text(self.nodes[i])

    def frame(self, node: Node) -> Frame | None:
        """The line that made a node: the innermost of the reader's code (a model's forward, in the
        recorded file or another of its folder)."""
        return node["where"][-1] if node["where"] else None

    def line_text(self, node: Node) -> str:
        frame = self.frame(node)
        if frame is None:
            return ""
        made = f"{node['label']} made" if node["kind"] == "leaf" else "made"
        return f" ({made} by {frame['place']}: {frame['code']})"

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
            return text + f", and adds it to {where}." + flow_text(node["marks"])
        if node["kind"] == "custom":
            kept = [f"saved tensor {t['name']} ({saved_text(t)})"
                    for t in node["saved"]] + [f"ctx.{a['name']} = {a['value']}" for a in node.get("attributes", [])]
            text += f"; its backward reads {', '.join(kept)}" if kept else ""
            if node["name"] == "CheckpointFunctionBackward":
                text += (" (a reentrant activation checkpoint: its backward runs the block's forward again and a "
                         "backward pass of its own through it, whose nodes this recording does not show)")
        sent = self.sent_text(step, " to ")
        text += (f", and sends {'; '.join(sent)}." if sent else ".") + flow_text(node["marks"])
        if self.jumps["origin"] == "forward" and self.jumps["nonfinite"] == number - 1:
            where = f", in {node['module']}," if node["module"] else ""
            text += f" The forward pass made the first NaN or inf here: this node's operation{where} returned it."
        if self.error and self.error["step"] == number - 1:
            text += f" Here backward() raised: {self.error['message']}"
        return text

    def forward_lines(self) -> list[ForwardLine]:
        """The top-level lines of the snippet in the order they ran, with the nodes each added."""
        lines: dict[int, list[int]] = {}
        for node in self.nodes:
            if node["line"] is not None:
                lines.setdefault(node["line"], []).append(node["id"])
        result: list[ForwardLine] = []
        for line, ids in sorted(lines.items()):
            code = next(f["code"] for f in self.nodes[ids[0]]["where"] if f["file"] == self.file and f["line"] == line)
            added = ", ".join(self.node_text(i) for i in ids)
            result.append({"line": line, "code": code, "nodes": ids,
                           "description": f"Line {line}, {code}, adds {added}."})
        return result

    def note(self) -> str:
        unknown = sum(n["kind"] != "leaf" and not n["where"] for n in self.nodes)
        return UNKNOWN.format(count=unknown) if unknown else ""

    def data(self) -> Data:
        data: Data = {"file": self.file, "source": self.source, "nodes": [public(n) for n in self.nodes],
                      "edges": self.edges, "steps": self.steps, "forward": self.forward_lines(), "jumps": self.jumps,
                      "note": self.note(), "missing": self.missing}
        if self.error:
            data["error"] = self.error
        return data

    def rows(self) -> Iterator[list[str]]:
        for number, step in enumerate(self.steps, 1):
            node = self.nodes[step["node"]]
            marks = f" [{', '.join(node['marks'])}]" if node["marks"] else ""
            yield [str(number), node_label(node) + marks, str(node["lines"][-1] if node["lines"] else ""),
                   self.received_text(step, ""), "; ".join(self.sent_text(step, " → "))]

    HEADER = ["Step", "Node", "Line", "Gradient received", "Gradients sent"]

    def table(self, width: int = 100) -> str:
        """The steps as rows of at most `width` characters (a long cell wraps), with what the
        data cannot show: lines made outside anomaly mode, and where backward() raised."""
        rows = [self.HEADER, *self.rows()]
        widths = [max(len(r[i]) for r in rows) for i in range(3)]
        widths[1] = min(widths[1], 30)
        rest = width - sum(widths) - 2 * 4
        widths += [rest * 2 // 5, rest - rest * 2 // 5]
        lines = []
        for row in rows:
            cells = [textwrap.wrap(c, w) or [""] for c, w in zip(row, widths)]
            for k in range(max(map(len, cells))):
                parts = [(c[k] if k < len(c) else "").ljust(w) for c, w in zip(cells, widths)]
                lines.append("  ".join(parts).rstrip())
        notes = [self.note()] if self.note() else []
        if self.missing:
            notes.append(missing_text(self.missing))
        if self.jumps["nonfinite"] is not None:
            notes.append(self.nonfinite_text())
        if self.error:
            at = self.error["step"]
            place = f"at step {at + 1}, {self.node_text(self.steps[at]['node'])}" if at is not None else "before any step"
            notes.append(f"backward() raised {place}: {self.error['message']}")
            if self.error["forward"]:
                notes.append("The forward call that made that node (anomaly mode's traceback):")
        wrapped = [line for note in notes for line in textwrap.wrap(note, width)]
        forward = self.error["forward"].rstrip().splitlines() if self.error else []
        return "\n".join([*lines, *([""] if wrapped else []), *wrapped, *forward])

    def nonfinite_text(self) -> str:
        """Where the first NaN or inf was made, as a sentence ("" where there is none)."""
        first = self.jumps["nonfinite"]
        if first is None:
            return ""
        node = self.nodes[self.steps[first]["node"]]
        module = f", in {node['module']}" if node["module"] else ""
        return (f"The first NaN or inf was made in the {self.jumps['origin']} pass: step {first + 1}, "
                f"{self.node_text(node['id'])}{self.line_text(node)}{module}.")

    # What a script asks of a recording

    @property
    def first_nonfinite(self) -> dict[str, Any] | None:
        """Where the first NaN or inf was made (`mark`): {"step": its number from 1, "node",
        "origin": "forward" or "backward", the "file", "line" and "code" of the reader's code that
        made it (None where unknown), "module"};
        None where every gradient and result checked was finite."""
        first = self.jumps["nonfinite"]
        if first is None:
            return None
        node = self.nodes[self.steps[first]["node"]]
        frame = self.frame(node)
        return {"step": first + 1, "node": node_label(node), "origin": self.jumps["origin"],
                "file": frame["file"] if frame else None, "line": frame["line"] if frame else None,
                "code": frame["code"] if frame else None,
                "module": node["module"]}

    def norms(self, by: Literal["parameter", "module"] = "parameter") -> dict[str, float]:
        """The norm of the gradient each named leaf received (`model.0.weight`), or by module, of
        its parameters' together (`model.0`), as a gradient-flow plot reads them: NaN where one held
        NaN or inf. A parameter that received none is not here (`missing`)."""
        found: dict[str, float] = {}
        for step in self.steps:
            node, got = self.nodes[step["node"]], step["received"]
            if node["kind"] == "leaf" and node["label"] != "AccumulateGrad" and got:
                found[node["label"]] = got["norm"] if finite(got) else math.nan
        if by == "parameter":
            return found
        modules: dict[str, list[float]] = {}
        for name, norm in found.items():
            modules.setdefault(name.rpartition(".")[0] or name, []).append(norm)
        return {module: math.hypot(*norms) for module, norms in modules.items()}

    def to_json(self, path: str | os.PathLike[str]) -> None:
        """Write the recording's data (`data()`, what the viewer reads) to `path` as JSON: strict,
        with no NaN or inf (the counts and texts say where there were some)."""
        with open(path, "w", encoding="utf-8") as file:
            json.dump(self.data(), file, allow_nan=False, ensure_ascii=False)

    CSV = ["step", "node", "module", "line", "received norm", "NaN", "inf", "marks"]

    def to_csv(self, path: str | os.PathLike[str]) -> None:
        """Write a row per step to `path` as CSV (`CSV`): what it received, its norm of the finite
        values and its counts of NaN and inf, and its marks."""
        with open(path, "w", newline="", encoding="utf-8") as file:
            writer = csv.writer(file)
            writer.writerow(self.CSV)
            for number, step in enumerate(self.steps, 1):
                node, got = self.nodes[step["node"]], step["received"]
                writer.writerow([number, node_label(node), node["module"], node["lines"][-1] if node["lines"] else "",
                                 *([got["norm"], got["nan"], got["inf"]] if got else ["", "", ""]),
                                 " ".join(node["marks"])])

    def summary_text(self) -> str:
        """The recording in a few lines, for a script (`show_backward(..., quiet=True)`): the steps,
        where the first NaN or inf was made, the largest and smallest gradient, the parameters that
        get none, where backward() raised."""
        lines = [f"backward() ran {len(self.steps)} steps through {len(self.nodes)} nodes."]
        lines.append(self.nonfinite_text() or "No NaN or inf.")
        for name, at in (("largest", self.jumps["largest"]), ("smallest", self.jumps["smallest"])):
            got = self.steps[at]["received"] if at is not None else None
            if at is not None and got is not None:
                lines.append(f"The {name} gradient, {got['norm']:.4g} in norm: step {at + 1}, "
                             f"{self.node_text(self.steps[at]['node'])}.")
        if self.missing:
            lines.append(missing_text(self.missing))
        if self.error:
            lines.append(f"backward() raised: {self.error['message']}")
        return "\n".join(textwrap.fill(line, 100) for line in lines)

    def _repr_html_(self) -> str:
        return html_table(self.HEADER, self.rows())

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, Any]:
        return {"text/plain": self.table(), "text/html": self._repr_html_(), STEPS: self.data()}

    def __repr__(self) -> str:
        return self.table()


def html_table(header: list[str], rows: Iterable[list[str]]) -> str:
    """A table of text cells as HTML, as a notebook shows it without the viewer."""
    head = "".join(f"<th>{h}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def flow_text(marks: list[Mark]) -> str:
    """What a "vanishing" or "exploding" mark says (`Recording.flow`), as a sentence; else ""."""
    if "vanishing" in marks:
        change = "Vanishing", "shrunk", "from the largest it had above"
    elif "exploding" in marks:
        change = "Exploding", "grown", "from where it entered the model"
    else:
        return ""
    return (f" {change[0]}: followed down its paths from the loss, no one operation counted for more than a "
            f"factor of {10 ** STEP:.1f}, the gradient here and below has {change[1]} {10 ** ORDERS:g} times or "
            f"more {change[2]}.")


def step_size(before: float, after: float, owed: float) -> tuple[float, float]:
    """How far a gradient's norm moved from one node to the next, in orders of magnitude (to or
    from 0: all the way), as far as one operation counts: at most STEP either way; and what is
    `owed`, the orders of the falls on the path above that counted for less than they were. A
    rise first pays that back and counts only for the rest: a gradient that falls 100 times in one
    operation (a softmax's, counted as half an order) and grows back over the next few has not
    grown."""
    if before == after:
        return 0.0, owed
    if before == 0 or after == 0:
        return (STEP if before == 0 else -STEP), owed
    change = math.log10(after / before)
    if change < 0:
        return max(-STEP, change), owed + max(0.0, -STEP - change)
    paid = min(change, owed)
    return min(STEP, change - paid), owed - paid


def wide(summary: Summary) -> bool:
    """Whether a gradient has several values (several outputs' gradients together count as several)."""
    return summary["shape"] is None or math.prod(summary["shape"]) > 1


def finite(summary: Summary | None) -> TypeGuard[Summary]:
    """Whether a gradient is there, has values (not a meta tensor's shape alone, not empty) and no NaN or
    inf (then its norm is of all its entries)."""
    return summary is not None and summary["min"] is not None and not summary["nan"] and not summary["inf"] \
        and math.isfinite(summary["norm"])


def missing_text(missing: list[Missing]) -> str:
    """The parameters that get no gradient, as a sentence."""
    count = f"{count_text(len(missing)).capitalize()} parameters" if len(missing) > 1 else "One parameter"
    listed = ", ".join(f"{m['name']} ({m['shape']})" for m in missing)
    return (f"{count} that require grad receive no gradient: this backward pass does not reach "
            f"{'them' if len(missing) > 1 else 'it'} (detached, or not used): {listed}.")


def with_code(entry: str) -> str:
    """A frame of a creating stack with its line of code, where `creating_stack` left it out."""
    m = FRAME.search(entry)
    code = linecache.getline(m["file"], int(m["line"])).strip() if m and not m["code"] else ""
    return f"{entry}    {code}\n" if code else entry


def public(node: RecordedNode) -> Node:
    """A node as the data has it: without its grad_fn and its place in the forward pass."""
    found: Node = {"id": node["id"], "name": node["name"], "kind": node["kind"], "label": node["label"],
                   "detail": node["detail"], "line": node["line"], "lines": node["lines"], "where": node["where"],
                   "module": node["module"], "saved": node["saved"], "marks": node["marks"],
                   "made_nonfinite": node["made_nonfinite"]}
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
    """The tensors a node keeps for backward, read before backward frees them; one modified in
    place since (which backward will refuse) with the error that reading it raised."""
    if hasattr(fn, "_forward_cls"):
        ctx: Any = fn  # a custom Function's node is its ctx
        try:
            return [read(str(i), t) for i, t in enumerate(ctx.saved_tensors)]
        except RuntimeError as error:
            return [unreadable("saved_tensors", str(error))]
    found: list[Saved] = []
    for attribute in saved_attributes(type(fn)):
        name = attribute.removeprefix("_saved_")
        try:
            value = getattr(fn, attribute)
        except RuntimeError as error:
            found.append(unreadable(name, str(error)))
            continue
        if isinstance(value, torch.Tensor):
            found.append(read(name, value))
    return found


@functools.cache
def saved_attributes(kind: type) -> tuple[str, ...]:
    """The attributes through which a type of node gives what it saved (`_saved_self`)."""
    return tuple(a for a in dir(kind) if a.startswith("_saved_"))


def grad_state(param: torch.Tensor) -> tuple[int, int] | None:
    """What tells whether a backward pass gave a parameter a gradient: its .grad and that tensor's version."""
    grad = param.grad
    return None if grad is None else (id(grad), grad._version)


def packed(fn: Fn) -> list[Saved]:
    """The tensors a node made under saved-tensor hooks keeps, by name, unread: reading one would
    unpack it, recomputing a checkpointed block (or copying it back from the CPU) once more than
    backward does, and a non-reentrant checkpoint's memory saving would be gone."""
    names = [str(i) for i in range(len(cast(Any, fn)._raw_saved_tensors))] if hasattr(fn, "_forward_cls") \
        else [a.removeprefix("_raw_saved_") for a in dir(fn) if a.startswith("_raw_saved_")]
    return [unreadable(name, "not read: saved-tensor hooks packed it (activation checkpointing, save_on_cpu), "
                             "and only backward unpacks it") for name in names]


def read(name: str, tensor: torch.Tensor) -> Saved:
    return {"name": name, "shape": None if tensor.is_nested else list(tensor.shape), "dtype": str(tensor.dtype).removeprefix("torch."),
            "bytes": tensor.numel() * tensor.element_size(), "summary": summary(tensor), "error": None}


def unreadable(name: str, why: str) -> Saved:
    return {"name": name, "shape": None, "dtype": None, "bytes": None, "summary": None, "error": why}


def saved_text(tensor: Saved) -> str:
    if tensor["error"] is not None:
        return f"unreadable: {tensor['error']}"
    return f"{shape_text(tensor['shape'] or [])} {tensor['dtype']}, {tensor['bytes']} bytes"


def shape_text(shape: Sequence[int]) -> str:
    return "×".join(map(str, shape)) or "scalar"


def size_text(tensor: torch.Tensor) -> str:
    """"3×4"; a nested tensor's components: "nested, two components (2×3, 4×3)"."""
    if not tensor.is_nested:
        return shape_text(tensor.shape)
    parts = tensor.detach().unbind()
    return f"nested, {count_text(len(parts))} components ({', '.join(shape_text(p.shape) for p in parts)})"


def number(value: float | complex) -> str:
    if isinstance(value, complex):
        return f"{number(value.real)}{'' if value.imag < 0 or not math.isfinite(value.imag) else '+'}{number(value.imag)}j"
    return f"{value:.4g}" if math.isfinite(value) else str(value)


def summary(tensor: torch.Tensor | None) -> Summary | None:
    """A tensor as a reader sees it: its values when small, and how many are NaN and inf, the norm
    and the range of the finite ones. Computed where the tensor is, in its dtype (of |z| where it
    is complex; of the values a sparse tensor holds; of a nested tensor's components), with one
    transfer of the results, and a second where the tensor has NaN or inf."""
    if tensor is None:
        return None
    t = tensor.detach()
    dtype, layout = str(t.dtype).removeprefix("torch."), "nested" if t.is_nested else str(t.layout).removeprefix("torch.")
    if t.is_meta:  # a shape and no values: nothing to count or measure
        return {"shape": list(t.shape), "values": None, "text": f"{size_text(t)} on the meta device, no values",
                "nan": 0, "inf": 0, "norm": 0.0, "min": None, "max": None, "dtype": dtype, "layout": layout}
    if layout == "strided" and t.numel() <= SMALL:
        return small(t.tolist(), list(t.shape), dtype)
    described = size_text(t)
    if t.is_nested:
        values = torch.cat([p.flatten() for p in t.unbind()])
    elif t.layout == torch.sparse_coo:
        values = t.coalesce().values()  # an index stored twice holds the sum of its values
    elif t.layout != torch.strided:
        values = t.values()
    else:
        values = t
    if layout.startswith("sparse"):
        described += f" sparse ({values.numel()} stored values)"
    if values.is_complex():
        values, described = values.abs(), f"{described} {dtype}"
    elif not values.is_floating_point():
        values = values.to(torch.float32)  # a saved mask or index
    nan, inf, norm, least, most = statistics(values)
    text = f"{described}, {f'{nan} NaN, ' if nan else ''}{f'{inf} inf, ' if inf else ''}"
    if least is None or most is None:
        text += "no finite values"
    else:
        finite = f" (of the {values.numel() - nan - inf} finite)" if nan or inf else ""
        size = "|z| " if t.is_complex() else ""
        text += f"norm {number(norm)}{finite}, {size}from {number(least)} to {number(most)}"
    return {"shape": None if t.is_nested else list(t.shape), "values": None, "text": text, "nan": nan, "inf": inf, "norm": norm,
            "min": least, "max": most, "dtype": dtype, "layout": layout}


def small(values: Any, shape: list[int], dtype: str) -> Summary:
    """A small dense tensor's summary, from its values (`tolist()`)."""
    flat = [abs(v) for v in flatten(values)] if "complex" in dtype else [float(v) for v in flatten(values)]
    finite = [v for v in flat if math.isfinite(v)]
    exact = "complex" not in dtype and len(finite) == len(flat)  # JSON has no NaN or inf: the text shows them
    return {"shape": shape, "values": values if exact else None, "text": nested_text(values),
            "nan": sum(map(math.isnan, flat)), "inf": sum(map(math.isinf, flat)),
            "norm": math.hypot(*finite), "min": min(finite, default=None),
            "max": max(finite, default=None), "dtype": dtype, "layout": "strided"}


def flatten(values: float | complex | list[Any]) -> list[Any]:
    return [v for item in values for v in flatten(item)] if isinstance(values, list) else [values]


def statistics(values: torch.Tensor) -> tuple[int, int, float, float | None, float | None]:
    """(NaN count, inf count, norm, min, max) of the finite values of a real tensor: computed where
    it is, in its dtype, with no copy of it in a wider one; at the edges of the dtype's range
    (`safe`), the norm scaled by the largest |value| (`scaled_norm`), so that it neither overflows
    nor underflows."""
    if values.numel() == 0:
        return 0, 0, 0.0, None, None
    least, most = torch.aminmax(values)
    plain = roomy(values)
    norm, low, high = torch.stack([torch.linalg.vector_norm(values) if plain else scaled_norm(values, least, most),
                                   least, most]).tolist()
    if not plain:
        norm *= scale(low, high)
    elif math.isfinite(low) and math.isfinite(high) and not safe(values, low, high):
        norm = scaled_norm(values, least, most).item() * scale(low, high)
    if math.isfinite(norm) and math.isfinite(low) and math.isfinite(high):
        return 0, 0, norm, low, high
    finite = torch.isfinite(values)
    least, most = torch.where(finite, values, math.inf).amin(), torch.where(finite, values, -math.inf).amax()
    results = [torch.isnan(values).sum(), finite.sum(), scaled_norm(torch.where(finite, values, 0), least, most),
               least, most]
    nan, kept, norm, low, high = torch.stack([r.to(torch.float64) for r in results]).tolist()
    inf = values.numel() - int(nan) - int(kept)
    return int(nan), inf, norm * scale(low, high), low if kept else None, high if kept else None


def bounds(values: torch.Tensor) -> tuple[float, float]:
    """The range of the largest |value| within which the plain norm of `values` is as exact as the
    scaled one: the sum of their squares cannot overflow their dtype, and the largest squares
    are no subnormals (the squares that underflow are then too small to count)."""
    info = torch.finfo(values.dtype)
    return math.sqrt(info.tiny / info.eps), math.sqrt(info.max / values.numel())


def roomy(values: torch.Tensor) -> bool:
    """Whether any range of values of this dtype and number has a plain norm as exact as the scaled
    one (`bounds`): not fp16 beyond a million values, whose bounds cross."""
    low, high = bounds(values)
    return low <= high


def safe(values: torch.Tensor, least: float, most: float) -> bool:
    """Whether the plain norm of finite `values` in their range [least, most] is as exact as the
    scaled one (`bounds`)."""
    low, high = bounds(values)
    largest = max(abs(least), abs(most))
    return largest == 0 or low <= largest <= high


def scale(least: float, most: float) -> float:
    """What `scaled_norm` divides by: the largest |value|, or 1 where that is 0 or not finite."""
    largest = max(abs(least), abs(most))
    return largest if 0 < largest < math.inf else 1.0


def scaled_norm(values: torch.Tensor, least: torch.Tensor, most: torch.Tensor) -> torch.Tensor:
    """The norm of `values` (their range [least, most], on their device) divided by `scale`: the
    squares of the scaled values are at most 1 and those that matter are not tiny, in any dtype
    (fp16 squares overflow from 256, fp32's underflow below 1e-19), as robust norm routines do."""
    largest = torch.maximum(least.abs(), most.abs())
    largest = torch.where((largest > 0) & (largest < math.inf), largest, torch.ones_like(largest))
    norm: torch.Tensor = torch.linalg.vector_norm(values / largest)
    return norm


def received(grads: Sequence[torch.Tensor | None],
             summarize: Callable[[torch.Tensor | None], Summary | None] = summary) -> Summary | None:
    """What arrived at a node: its one output's gradient, or each output's where it has several
    (torch.unbind, a custom Function returning two tensors), with their counts, norm and range together."""
    if len(grads) == 1:
        return summarize(grads[0])
    parts = [summarize(g) for g in grads]
    known = [p for p in parts if p]
    lows, highs = [p["min"] for p in known if p["min"] is not None], [p["max"] for p in known if p["max"] is not None]
    return {"shape": None, "values": None,
            "text": "; ".join(f"output {i}: {p['text'] if p else 'None'}" for i, p in enumerate(parts)),
            "nan": sum(p["nan"] for p in known), "inf": sum(p["inf"] for p in known),
            "norm": math.hypot(*(p["norm"] for p in known)),
            "min": min(lows, default=None), "max": max(highs, default=None),
            "dtype": known[0]["dtype"] if known else "", "layout": known[0]["layout"] if known else ""}


def nested_text(values: float | complex | list[Any]) -> str:
    if isinstance(values, list):
        return "[" + ", ".join(nested_text(v) for v in values) + "]"
    return number(values)
