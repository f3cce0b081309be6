"""`show_backward(loss)`: a reader's own backward pass, recorded and shown as the site's viewer in
a notebook (JupyterLab, VS Code), or printed as the table of steps where nothing can display it."""

import builtins
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

import torch

from autograd_steps import layout, view
from autograd_steps.recording import FRAME, MAX_NODES, STEPS, Data, LaidOut, Recording, names, parameters

__all__ = ["show_backward", "show_grad", "save_html", "Shown", "Viewer"]
shown: list[Recording] = []  # the last backward pass show_backward showed, which save_html writes


def show_backward(output: torch.Tensor, gradient: torch.Tensor | None = None, *, max_nodes: int = MAX_NODES,
                  quiet: bool = False, **backward_args: Any) -> "Shown":
    """`output.backward(gradient, **backward_args)`, recorded from the engine and shown as the
    step-through viewer (where backward() raises: the steps until then, and the exception raised
    again), or where nothing can display it, printed as the table of steps; with `quiet=True`,
    printed as a summary of a few lines (`Recording.summary_text`). The lines (and modules) that
    made the nodes are known for the operations run under `watch_forward()` (the lines alone
    under `torch.autograd.set_detect_anomaly(True, check_nan=False)`). A graph of more than
    `max_nodes` nodes is refused before anything runs.

    Returns the recording, which answers in code (`first_nonfinite`, `norms()`, `missing`) and
    writes `to_json` and `to_csv`; Jupyter does not show it again under the viewer, but shows it
    where a later cell names it."""
    caller = sys._getframe(1)
    params = parameters(caller)
    return show(Shown(output, names(caller, params), made_in(output, caller.f_code.co_filename), "show_backward",
                      max_nodes, params), lambda: output.backward(gradient, **backward_args), quiet)


def show_grad(output: torch.Tensor, inputs: torch.Tensor | Sequence[torch.Tensor],
              grad_outputs: torch.Tensor | None = None, *, max_nodes: int = MAX_NODES, quiet: bool = False,
              **grad_args: Any) -> tuple[torch.Tensor | None, ...]:
    """`torch.autograd.grad(output, inputs, grad_outputs, **grad_args)`, recorded and shown as
    show_backward shows a backward pass; returns what it returns, the gradients of `inputs`
    (their .grad is left as it is). The engine hands each input's gradient back rather than
    running its AccumulateGrad: the last step that sends to it shows what it got. The recording
    is `autograd_steps.notebook.shown[0]` (which save_html writes); no parameter is reported as
    getting no gradient, as torch.autograd.grad gives gradients only to `inputs`."""
    caller = sys._getframe(1)
    found: list[tuple[torch.Tensor | None, ...]] = []
    show(Shown(output, names(caller), made_in(output, caller.f_code.co_filename), "show_grad", max_nodes),
         lambda: found.append(torch.autograd.grad(output, inputs, grad_outputs, **grad_args)), quiet)
    return found[0]


def show(recording: "Shown", run: Callable[[], object], quiet: bool) -> "Shown":
    """Run the recording's pass, then show it: the viewer, the table of steps where nothing can
    display it, or with `quiet` a summary."""
    try:
        recording.run(run)
    finally:
        shown[:] = [recording]
        display: Callable[[object], object] | None = getattr(builtins, "display", None)  # IPython's, in a notebook
        if quiet:
            print(recording.summary_text())
        elif display is None:
            print(recording.table())
        else:
            display(Viewer(recording))
        recording.shown_in = cell_run()
    return recording


def save_html(path: str | os.PathLike[str], recording: Recording | None = None) -> None:
    """Write the viewer of `recording` (by default, of the backward pass that show_backward showed
    last) to `path`, as a page that needs no other file (for a script, where show_backward prints
    the table)."""
    if recording is None and not shown:
        raise ValueError("save_html writes what show_backward showed: call show_backward(loss) first, "
                         "or pass the recording it returned")
    html = view.notebook_html(laid_out((recording if recording is not None else shown[0]).data()))
    with open(path, "w", encoding="utf-8") as file:
        file.write(f'<!DOCTYPE html>\n<html lang="en"><meta charset="utf-8"><title>backward()</title>\n{html}\n</html>\n')


def made_in(output: torch.Tensor, caller: str) -> str:
    """The file whose code made `output`: in a notebook, the cell of the forward pass (each cell runs
    as a file of one folder), which may not be the cell that calls show_backward."""
    folder = os.path.dirname(caller)
    metadata: dict[str, Any] = getattr(output.grad_fn, "metadata", {})  # none without a grad_fn: Recording says why
    frames = [FRAME.search(entry) for entry in metadata.get("traceback_", [])]
    return next((m["file"] for m in frames if m and os.path.dirname(m["file"]) == folder), caller)


class Shown(Recording):
    """What show_backward returns: the recording, which IPython shows as the viewer (`Viewer`)
    where a cell names it, but not again in the cell run that show_backward showed it in."""

    shown_in: int | None = None  # the IPython cell run that showed it

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, Any]:
        return Viewer(self)._repr_mimebundle_()

    def _ipython_display_(self) -> None:
        import IPython.display  # in IPython, which calls this

        show: Callable[..., object] = IPython.display.display
        run = cell_run()
        if run is None or run != self.shown_in:
            self.shown_in = run
            show(self._repr_mimebundle_(), raw=True)


def cell_run() -> int | None:
    """The number of the IPython cell run now (None outside IPython)."""
    ipython = sys.modules.get("IPython")
    return getattr(ipython.get_ipython(), "execution_count", None) if ipython else None


class Viewer:
    """A recording as a notebook shows it: the viewer (text/html, with the table of steps that shows
    without scripts), the summary for a front-end that shows text alone (text/plain), and the
    recording's data (STEPS) without the graph's drawing, which the viewer holds. A recording of
    476 nodes adds 2.2 MB to a notebook, where its whole table as text and its drawing twice made
    it 2.8 MB."""

    def __init__(self, recording: Recording) -> None:
        self.data = recording.data()
        self.html = view.notebook_html(laid_out(self.data))
        self.text = recording.summary_text()

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, Any]:
        return {"text/plain": self.text, "text/html": self.html, STEPS: self.data}


def laid_out(data: Data) -> LaidOut:
    return {**data, "svg": layout.svg(data)}
