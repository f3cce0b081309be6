"""Watch PyTorch's autograd engine run a backward pass, step by step, recorded from the engine.

In a notebook (JupyterLab, VS Code), on your own model:

    from autograd_steps import show_backward, watch_forward

    with watch_forward():  # each node keeps its line and the path of the module that made it
        loss = model(x).pow(2).mean()
    show_backward(loss)  # runs loss.backward() and shows the step-through viewer

In a script, show_backward prints the table of steps (with `quiet=True`, a summary);
`save_html("steps.html")` then writes the viewer as a page of its own. show_backward returns
the recording, which answers in code: `first_nonfinite`, `missing`, `norms()`, `to_json()`,
`to_csv()`; `compare(before, after)` puts two recordings side by side. `show_grad(loss, inputs)`
records `torch.autograd.grad` the same way and returns its gradients.

Modules, one concern each:

- recording.py  the recorder (`Recording`; `recorded`, which the site's build runs around a
                snippet; `step_through`, which prints the table of steps; `watch_forward`, put
                around a forward pass); a file that also works alone, beside a script
- layout.py     the recorded graph laid out by Graphviz's dot
- view.py       the viewer's HTML (the site's and the notebook's), with assets/steps.js and
                assets/steps.css
- notebook.py   `show_backward` and `show_grad`: the viewer as a notebook's output; `save_html`: as a file
- comparison.py `compare`: two recordings side by side, as a table and node by node in the viewer

The names below load their module when first used: the site's build imports the viewer in a
process that has no use for torch (1.3 s to import).
"""

import importlib

MODULES = {"show_backward": "notebook", "show_grad": "notebook", "save_html": "notebook", "Viewer": "notebook",
           "step_through": "recording", "recorded": "recording", "Recording": "recording", "STEPS": "recording",
           "watch_forward": "recording", "compare": "comparison"}
__all__ = list(MODULES)


def __getattr__(name: str) -> object:
    if name not in MODULES:
        raise AttributeError(f"module 'autograd_steps' has no attribute {name!r}")
    return getattr(importlib.import_module(f"autograd_steps.{MODULES[name]}"), name)
