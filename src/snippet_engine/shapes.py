"""The shapes of what a snippet's run gives, as the worker sends them and the cache keeps them
(JSON): typed here once, for the worker, the runner and the pages; and the settings that decide
how snippets run."""

import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, TypedDict

# What a field of Settings is, besides a setting: sent to the worker with every request
# (`Settings.request`), and a part of the cache key of every run (`Settings.keyed`), as a
# setting that changes what a run gives is.
WORKER = {"worker": True}
OUTPUT = {"worker": True, "keyed": True}


@dataclass(frozen=True)
class Settings:
    """The snippets plugin's settings that decide how snippets run, whole: the plugin builds them
    once from its config (whose defaults are these), the runner takes them, and the worker gets
    the part it needs with each request (`request`)."""
    snippets_dir: Path
    cache_dir: Path | None = None  # None: nothing is cached
    # Seconds a snippet may run: a run stopped at a shorter one is run again (Runner.load).
    timeout: float = field(default=600, metadata=WORKER)
    output_limit: int = field(default=20_000, metadata=OUTPUT)  # characters of printed output kept
    preload: tuple[str, ...] = ("torch", "matplotlib.pyplot", "graphviz", "torchviz")  # imported once by each worker
    packages: tuple[str, ...] = ("torch", "torchviz", "graphviz", "matplotlib", "numpy")  # their versions key every result
    workers: int = os.cpu_count() or 1  # snippets run at once, each in a worker of its own

    def keyed(self) -> dict[str, Any]:
        """The settings that change what a run gives, for its cache key."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.metadata.get("keyed")}

    def request(self) -> dict[str, Any]:
        """The settings the worker runs each request with."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.metadata.get("worker")}


class Failure(TypedDict):
    """How a snippet failed: an exception's type and message, or the engine's word for it
    (SnippetTimeout, SystemExit, WorkerDied, ...)."""
    type: str
    message: str
    line: int | None  # the snippet's line it failed at, where known
    where: str | None  # "file:line" of a project file other than the snippet where it was raised
    traceback: str


class LineOutput(TypedDict):
    """An nbformat output (stream, display_data) and the snippet's line that made it."""
    line: int | None
    output: dict[str, Any]


class Request(TypedDict, total=False):
    """What the runner asks the worker to run: a file ("path") or code ("code"), and how. The
    runner fills in root, heartbeat and the settings the worker gets (`Settings.request`) for
    every request."""
    path: str
    code: str  # run as `python -c code` would
    cwd: str  # the folder to run in, rather than a scratch one
    plain: bool  # as plain Python runs it, with no display() (a download, as the reader runs it)
    options: list[str]  # the words of its blocks' fences that kinds answer to (kinds.around)
    root: str  # the project folder: files under it that a snippet imports or reads are its dependencies
    timeout: float
    heartbeat: float
    output_limit: int


class Reply(TypedDict):
    """What a snippet's run gives, as the worker replies it: its outputs, how long it ran, the
    project files it imported or read and the folders it listed, the programs it started (whose
    reads are unknown), and how it failed (None: it did not)."""
    outputs: list[LineOutput]
    seconds: float
    deps: list[str]
    programs: list[str]
    leaves: list[str]  # the names of torch's settings it left changed (torch_settings.SETTINGS)
    error: Failure | None


def failure(kind: str, message: str, line: int | None = None, where: str | None = None,
            traceback: str = "") -> Failure:
    return {"type": kind, "message": message, "line": line, "where": where, "traceback": traceback}
