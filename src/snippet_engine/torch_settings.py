"""torch's process-wide settings that a snippet can leave changed when it ends: gradient
recording, anomaly detection, the default dtype and device, print options, deterministic
algorithms.

The build runs each snippet in a process of its own, where every setting starts at its default;
a chapter's notebook runs them all in one kernel, where a setting one snippet leaves changed
changes what the next ones print. The worker reads, when a snippet ends, which it left changed
(`changed`, in the run's Result); the notebook sets those back in a cell of its own before the
next snippet's cells (notebooks.py), with the lines a reader would write (`restore`)."""

import ast
import sys
import textwrap
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import ModuleType


@dataclass(frozen=True)
class Setting:
    left: str  # what a snippet that changed it leaves, as words after "leaves"
    read: Callable[[ModuleType], object]  # its value, from the torch module
    default: object  # its value in a fresh process, as `read` gives it
    restore: str  # the line that sets it back
    shows: bool = False  # whether `restore` returns an object (Jupyter would show it as the last line)


SETTINGS = {
    "grad": Setting("gradient recording off", lambda torch: torch.is_grad_enabled(), True,
                    "torch.set_grad_enabled(True)", shows=True),
    "anomaly": Setting("anomaly detection on", lambda torch: torch.is_anomaly_enabled(), False,
                       "torch.autograd.set_detect_anomaly(False)", shows=True),
    "dtype": Setting("another default dtype", lambda torch: str(torch.get_default_dtype()), "torch.float32",
                     "torch.set_default_dtype(torch.float32)"),
    "device": Setting("another default device", lambda torch: str(torch.get_default_device()), "cpu",
                      "torch.set_default_device(None)"),
    "print": Setting("print options of its own", lambda torch: vars(torch._tensor_str.PRINT_OPTS),
                     {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None},
                     'torch.set_printoptions(profile="default")'),
    "deterministic": Setting("deterministic algorithms on",
                             lambda torch: torch.are_deterministic_algorithms_enabled(), False,
                             "torch.use_deterministic_algorithms(False)"),
}


# The functions that change them, with the arguments that set the default: {"set_grad_enabled":
# "(True)"}. A copy keeps the last earlier call of each that sets another value (standalone/needs.py).
SETTERS = {call.partition("(")[0].rpartition(".")[2]: "(" + call.partition("(")[2]
           for call in (ast.unparse(ast.parse(s.restore)) for s in SETTINGS.values())}


def changed() -> list[str]:
    """The names of the SETTINGS that differ from their defaults now, in the thread that calls
    it (gradient recording is a thread's own); none where torch is not imported, or not whole
    (a snippet whose `import torch` failed)."""
    torch = sys.modules.get("torch")
    try:
        return [name for name, s in SETTINGS.items() if torch is not None and s.read(torch) != s.default]
    except AttributeError:
        return []


def restore(names: Iterable[str]) -> str:
    """A program that sets the named SETTINGS back to their defaults, saying why: what a
    notebook runs after a snippet that left them changed."""
    settings = [SETTINGS[name] for name in names]
    left = [s.left for s in settings]
    said = ", ".join(left[:-1]) + " and " + left[-1] if len(left) > 1 else left[0]
    lines = [s.restore for s in settings]
    lines[-1] += ";" if settings[-1].shows else ""  # a notebook shows no value for it
    why = (f"The example above leaves {said}: the site ran each example in a process of its own, and "
           "this notebook runs them all in one. Set back to the defaults:")
    return "\n".join(textwrap.wrap(why, 86, initial_indent="# ", subsequent_indent="# ")) + \
        "\nimport torch\n\n" + "\n".join(lines) + "\n"
