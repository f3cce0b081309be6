"""`show_backward(loss)`: a reader's own backward pass, recorded and shown as the site's viewer in
a notebook (JupyterLab, VS Code), or printed as the table of steps where nothing can display it."""

import builtins
import os
import sys
from collections.abc import Callable
from typing import Any

import torch

from autograd_steps import layout, view
from autograd_steps.layout import MAX_NODES
from autograd_steps.recording import FRAME, STEPS, LaidOut, Recording, names


def show_backward(output: torch.Tensor, gradient: torch.Tensor | None = None, *, max_nodes: int = MAX_NODES,
                  **backward_args: Any) -> None:
    """`output.backward(gradient, **backward_args)`, recorded from the engine and shown as the
    step-through viewer. The lines that made the nodes are known for the operations run under
    `torch.autograd.set_detect_anomaly(True, check_nan=False)`. A graph of more than `max_nodes`
    nodes is refused before anything runs. Returns None, as backward() does."""
    caller = sys._getframe(1)
    recording = Recording(output, names(caller), made_in(output, caller.f_code.co_filename))
    if len(recording.nodes) > max_nodes:
        raise ValueError(f"this graph has {len(recording.nodes)} nodes, more than the viewer shows "
                         f"(max_nodes={max_nodes}): record a smaller model or batch, or pass max_nodes=; "
                         "backward() has not run")
    recording.run(lambda: output.backward(gradient, **backward_args))
    display: Callable[[object], object] | None = getattr(builtins, "display", None)  # IPython's, in a notebook
    if display is None:
        print(recording.table())
    else:
        display(Viewer(recording))


def made_in(output: torch.Tensor, caller: str) -> str:
    """The file whose code made `output`: in a notebook, the cell of the forward pass (each cell runs
    as a file of one folder), which may not be the cell that calls show_backward."""
    folder = os.path.dirname(caller)
    metadata: dict[str, Any] = getattr(output.grad_fn, "metadata", {})  # none without a grad_fn: Recording says why
    frames = [FRAME.search(entry) for entry in metadata.get("traceback_", [])]
    return next((m["file"] for m in frames if m and os.path.dirname(m["file"]) == folder), caller)


class Viewer:
    """A recording as a notebook shows it: the viewer (text/html, with the table of steps that shows
    without scripts), the table as text (text/plain) and the recording's data (STEPS)."""

    def __init__(self, recording: Recording) -> None:
        data = recording.data()
        self.data: LaidOut = {**data, "svg": layout.svg(data)}
        self.text = recording.table()

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, Any]:
        return {"text/plain": self.text, "text/html": view.notebook_html(self.data), STEPS: self.data}
