"""Cache files written whole or not at all: the one atomic write of the engine and the hooks;
and the digest of the engine's own code, which every cache of the engine keys on."""

import contextlib
import functools
import hashlib
import json
import logging
import os
from pathlib import Path

log = logging.getLogger("mkdocs.plugins.snippets")


def write_json(path, data):
    """`data` as JSON at `path`, through a temporary file renamed over it, so that a reader finds
    the old file or the new one, never half of one. A cache that cannot be written (a read-only
    or full disk) is a warning, never a failed build; no temporary file is left behind."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(data), encoding="utf-8")
        tmp.replace(path)
    except OSError as err:
        log.warning(f"could not write the cache file {path}: {err}")
    finally:
        with contextlib.suppress(OSError):  # none was made, or it cannot be removed either
            tmp.unlink(missing_ok=True)


@functools.cache
def engine_digest():
    """A digest of every file of this package and of autograd_steps (the recording the worker
    runs around a step-through, and its viewer): a change of the engine's code makes every cached
    result a miss."""
    package = Path(__file__).resolve().parent
    files = sorted(p for p in package.rglob("*") if p.is_file() and p.suffix in (".py", ".mjs", ".js", ".css"))
    steps = sorted(p for p in (package.parent / "autograd_steps").rglob("*") if p.suffix in (".py", ".js", ".css"))
    digest = hashlib.sha256()
    for path in [*files, *steps]:
        digest.update(path.read_bytes())
    return digest.hexdigest()
