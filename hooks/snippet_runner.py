"""The one engine that runs snippets, for the docs build and for the tests.

`SnippetRunner.run(path)` returns what the snippet printed, warned, plotted
and drew. Results are cached on disk by content: the snippet's source, the
source of every project file it imported, the versions of the packages that
shape its output, and a fingerprint of this engine. An unchanged snippet is
never run twice; editing one re-runs only the snippets that read it.

Snippets run in snippet_worker.py, one warm process shared by every runner
in this Python process and started on the first cache miss.
"""

import atexit
import functools
import hashlib
import json
import logging
import os
import platform
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORKER = HERE / "snippet_worker.py"
PACKAGES = ("torch", "torchviz", "graphviz", "matplotlib", "numpy")
log = logging.getLogger("mkdocs.snippets")  # under "mkdocs": the build log shows it


@dataclass
class Result:
    path: Path
    items: list
    seconds: float
    cached: bool
    error: dict | None = None
    deps: list = field(default_factory=list)

    def select(self, first=None, last=None):
        """Items produced by lines first..last (all items when no range)."""
        if first is None:
            return self.items
        return [i for i in self.items if i["line"] is not None and first <= i["line"] <= last]

    @property
    def stdout(self):
        return "".join(i["text"] for i in self.items if i["kind"] == "stdout")


class SnippetError(Exception):
    """A snippet raised: the message names the file, the line and the error."""

    def __init__(self, result):
        self.result = result
        err = result.error
        where = f"{result.path}:{err['line']}" if err["line"] else str(result.path)
        if err["where"] and not err["where"].startswith(f"{result.path}:"):
            where += f" (raised in {err['where']})"
        super().__init__(f"{where}: {err['type']}: {err['message']}\n{err['traceback']}".rstrip())


def execution_enabled():
    """EXECUTE_SNIPPETS=0 switches execution off: pages and notebooks show code only."""
    return os.environ.get("EXECUTE_SNIPPETS", "1") != "0"


@functools.cache
def fingerprint():
    """What besides the snippet's own files decides its output."""
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    engine = hashlib.sha256(WORKER.read_bytes() + Path(__file__).read_bytes()).hexdigest()
    gpu = os.path.exists("/proc/driver/nvidia/version") and os.environ.get("CUDA_VISIBLE_DEVICES") != ""
    return {"engine": engine, "python": platform.python_version(), "packages": versions, "gpu": gpu}


def sha256(path):
    """Digest of a file's bytes; None for a file that does not exist."""
    path = Path(path)
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


class Worker:
    """The warm process that forks one child per snippet."""

    def __init__(self):
        self.proc = None
        self.lock = threading.Lock()

    def start(self):
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen(
                [sys.executable, str(WORKER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                text=True, env={**os.environ, "MPLBACKEND": "Agg"},
            )

    def run(self, path, root, timeout):
        with self.lock:
            self.start()
            self.proc.stdin.write(json.dumps({"path": str(path), "root": str(root), "timeout": timeout}) + "\n")
            self.proc.stdin.flush()
            reply = self.proc.stdout.readline()
        if not reply:
            self.close()
            raise RuntimeError("the snippet worker exited; see the error printed above")
        return json.loads(reply)

    def close(self):
        if self.proc is not None:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
            self.proc = None


WORKER_PROCESS = Worker()
atexit.register(WORKER_PROCESS.close)


class SnippetRunner:
    def __init__(self, snippets_dir, cache_dir=None, timeout=600):
        self.root = Path(snippets_dir).resolve()
        self.project = self.root.parent  # dependencies may live anywhere in it (data files)
        self.cache_dir = Path(cache_dir) if cache_dir else None
        self.timeout = timeout

    def run(self, path):
        """Run one snippet (or take it from the cache); never raises for the snippet's errors."""
        path = Path(path).resolve()
        key = self.key(path)
        cached = self.load(key)
        if cached is not None:
            return cached
        reply = WORKER_PROCESS.run(path, self.project, self.timeout)
        result = Result(path, reply["items"], reply["seconds"], False, reply.get("error"), reply["deps"])
        log.info(f"snippet {path.relative_to(self.root).as_posix()} ran in {result.seconds:.2f} s")
        if result.error is None:
            self.store(key, result)
        return result

    def run_or_raise(self, path):
        result = self.run(path)
        if result.error:
            raise SnippetError(result)
        return result

    def key(self, path):
        relative = path.relative_to(self.root).as_posix()
        text = json.dumps([relative, sha256(path), fingerprint()], sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()

    def load(self, key):
        entry = self.cache_dir and self.cache_dir / f"{key}.json"
        if not entry or not entry.exists():
            return None
        data = json.loads(entry.read_text())
        deps = [self.project / rel for rel in data["deps"]]
        if any(sha256(dep) != digest for dep, digest in zip(deps, data["deps"].values())):
            return None
        return Result(self.root / data["path"], data["items"], data["seconds"], True, None, deps)

    def store(self, key, result):
        if not self.cache_dir:
            return
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        deps = {Path(d).relative_to(self.project).as_posix(): sha256(d) for d in result.deps}
        data = {"path": result.path.relative_to(self.root).as_posix(), "deps": deps,
                "items": result.items, "seconds": result.seconds}
        tmp = self.cache_dir / f"{key}.{os.getpid()}.tmp"
        tmp.write_text(json.dumps(data))
        tmp.replace(self.cache_dir / f"{key}.json")
