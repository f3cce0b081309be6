"""The engine's one kind of cache: a folder of JSON entries (`CacheFolder`), each written whole
or not at all (`write_json`), under an `entry_key` that holds the digest of the code that makes it.
Snippet results (runner.py), rendered pages, copies and notebook cells (page_cache.py,
build.py), the kinds of torch names (api_links.py) and KaTeX's formulas (katex.py) are kept
this way."""

import contextlib
import functools
import hashlib
import json
import logging
import os
from pathlib import Path
from types import ModuleType
from typing import Any

log = logging.getLogger("mkdocs.plugins.snippets")


failed: list[str] = []  # the first cache write that failed in this process, noted


def unwritable(error: str) -> None:
    """The one note, at info level, that a cache cannot be written: a build never fails for it,
    strict or not, and what it did not keep is made again by the next."""
    if not failed:
        failed.append(error)
        log.info(f"the cache cannot be written, so what it would keep is made again next time ({error})")


def write_json(path: Path, data: Any) -> None:
    """`data` as JSON at `path`, through a temporary file renamed over it, so that a reader finds
    the old file or the new one, never half of one. A cache that cannot be written (a read-only
    or full disk) is noted once (`unwritable`); no temporary file is left behind."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(data), encoding="utf-8")
        tmp.replace(path)
    except OSError as err:
        unwritable(f"{path}: {err}")
    finally:
        with contextlib.suppress(OSError):  # none was made, or it cannot be removed either
            tmp.unlink(missing_ok=True)


class CacheFolder:
    """JSON entries by key, a file each, in `folder` (None: nothing is kept). `prune()` deletes
    the entries not read or written since the last prune: those of an older build."""

    def __init__(self, folder: Path | None) -> None:
        self.folder, self.used = folder, set[str]()

    def get(self, key: str) -> Any:
        """The entry's data, or None (the caller checks its shape: a file may hold anything)."""
        self.used.add(key)
        if self.folder is None:
            return None
        try:
            return json.loads((self.folder / f"{key}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def put(self, key: str, data: Any) -> None:
        self.used.add(key)
        if self.folder is not None:
            write_json(self.folder / f"{key}.json", data)

    def prune(self) -> None:
        if self.folder is not None and self.folder.is_dir():
            try:
                for entry in self.folder.glob("*.json"):
                    if entry.stem not in self.used:
                        entry.unlink(missing_ok=True)
            except OSError as err:  # a read-only cache: it stays as it is
                unwritable(f"{self.folder}: {err}")
        self.used = set()


def entry_key(*parts: Any) -> str:
    """The key of an entry made from `parts` (JSON, or their str()); among them the maker of the
    entry puts the `code_digest` of its own code."""
    return hashlib.sha256(json.dumps(list(parts), sort_keys=True, default=str).encode()).hexdigest()


def code_files(package: Path) -> list[Path]:
    """The files of a package's code (modules, scripts, styles), in a stable order."""
    return sorted(p for p in package.rglob("*") if p.is_file() and p.suffix in (".py", ".mjs", ".js", ".css"))


def source(module: ModuleType) -> Path:
    """Where a module's code is: a package's folder, or a module's file."""
    file = Path(module.__file__ or "")
    return file.parent if file.name == "__init__.py" else file


@functools.cache
def code_digest(*code: Path) -> str:
    """A digest of code (files, and the code files of folders), for the keys of the entries that
    code makes: a change of it, and only of it, makes them a miss."""
    digest = hashlib.sha256()
    for path in code:
        for file in code_files(path) if path.is_dir() else [path]:
            digest.update(file.read_bytes())
    return digest.hexdigest()
