"""The shapes of what a snippet's run gives, as the worker sends them and the cache keeps them
(JSON): typed here once, for the worker, the runner and the pages."""

from typing import Any, TypedDict


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


def failure(kind: str, message: str, line: int | None = None, where: str | None = None,
            traceback: str = "") -> Failure:
    return {"type": kind, "message": message, "line": line, "where": where, "traceback": traceback}
