"""The one engine that runs snippets, for the docs build and for the tests.

`Runner.run(path)` returns what the snippet printed, warned, plotted and
drew, or how it failed. Results, failures included, are cached on disk by
content: the snippet's source, the source of every project file it imported
or read, the versions of the packages that shape its output, and a
fingerprint of this engine. An unchanged snippet never runs twice.

Snippets run in worker.py, warm processes (as many as the `workers` setting,
each running one snippet at a time) that the runner starts on their first
cache miss and stops with `close()`.
"""

import contextlib
import fcntl
import functools
import getpass
import hashlib
import json
import logging
import os
import platform
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Container, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, TypedDict, cast

import autograd_steps
import snippet_engine
from snippet_engine import capture, kinds, render, shapes, torch_settings
from snippet_engine import worker as snippet_worker
from snippet_engine.cache_file import CacheFolder, code_digest, entry_key, source
from snippet_engine.shapes import Failure, LineOutput, Reply, Request, Settings, failure

log = logging.getLogger("mkdocs.plugins.snippets")  # under "mkdocs": the build log shows it


class Printable(logging.Filter):
    """The engine's log lines as text a terminal shows as it is (`render.printable`, and a
    carriage return as `\\r`): a snippet's message in one cannot move the cursor, clear the
    screen, write over its line or reorder the text around it."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = render.printable(record.getMessage()).replace("\r", "\\r"), ()
        return True


log.addFilter(Printable())
# The variables of the build's environment that a snippet gets, when set: where programs and
# libraries are, the user and their home, language and time zone, the terminal, the GPUs to
# use, the threads of torch's pools, and where torch.compile keeps its cache. Nothing else (a
# token in the environment of a CI job never reaches a page); what they hold is part of every
# run's key (`Runner.result_key`), and a worker started with other values is started again.
ENVIRONMENT = ("PATH", "HOME", "USER", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "TERM", "LD_LIBRARY_PATH",
               "CUDA_VISIBLE_DEVICES", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OMP_WAIT_POLICY", "TORCHINDUCTOR_CACHE_DIR")
# The code that runs a snippet and captures its outputs, every module of the project that the
# worker and a snippet's child import (tests/engine/test_page_cache.py checks it): the worker's
# side, not the page's (the viewer's view.py and assets, a kind's styles, the pages, KaTeX), whose
# edits re-render pages and re-run nothing.
RUNS = (*map(source, (snippet_worker, capture, render, shapes, torch_settings)), *sorted(source(kinds).glob("*.py")),
        Path(snippet_engine.__file__),
        *(Path(autograd_steps.__file__).with_name(name) for name in ("__init__.py", "recording.py", "layout.py")))


class Fingerprint(TypedDict):
    """What besides a snippet's own files decides its output (`fingerprint`)."""
    engine: str  # the digest of the code that runs it and captures its outputs (`RUNS`)
    python: str
    packages: dict[str, str | None]  # None: not installed
    gpu: bool


def snippet_environment() -> dict[str, str]:
    return {name: os.environ[name] for name in ENVIRONMENT if name in os.environ}


@dataclass
class Result:
    path: Path
    outputs: list[LineOutput]
    seconds: float
    cached: bool
    error: Failure | None = None
    deps: list[Path] = field(default_factory=list)  # the project files it imported or read, the folders it listed
    programs: list[str] = field(default_factory=list)  # how it started other programs, whose reads are unknown
    source: str | None = None  # the digest of the code that ran (sha256)
    leaves: list[str] = field(default_factory=list)  # torch's settings it left changed (torch_settings)

    def select(self, first: int | None = None, last: int | None = None) -> list[dict[str, Any]]:
        """The nbformat outputs of lines first..last (all of them when no range)."""
        if first is None:
            return [i["output"] for i in self.outputs]
        assert last is not None, "a range has both ends"
        return [i["output"] for i in self.outputs if i["line"] is not None and first <= i["line"] <= last]

    @property
    def stdout(self) -> str:
        return "".join(o["text"] for o in self.select() if o.get("name") == "stdout")

    def describe(self) -> str:
        """file:line: Type: message, and the traceback."""
        err = self.error
        assert err is not None, "a run that failed"
        where = f"{self.path}:{err['line']}" if err["line"] else str(self.path)
        if err["where"] and not err["where"].startswith(f"{self.path}:"):
            where += f" (raised in {err['where']})"
        return f"{where}: {err['type']}: {err['message']}\n{err['traceback']}".rstrip()


class SnippetError(Exception):
    """A snippet failed: the message names the file, the line and the error."""

    def __init__(self, result: Result) -> None:
        self.result = result
        super().__init__(result.describe())


@functools.cache
def fingerprint(packages: tuple[str, ...] = Settings.packages) -> Fingerprint:
    """What besides the snippet's own files decides its output."""
    versions: dict[str, str | None] = {}
    for name in packages:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    gpu = os.path.exists("/proc/driver/nvidia/version") and os.environ.get("CUDA_VISIBLE_DEVICES") != ""
    return {"engine": code_digest(*RUNS), "python": platform.python_version(), "packages": versions, "gpu": gpu}


def well_formed(data: Any) -> bool:
    """A cache entry of the shape store() writes; the types, not only the keys."""
    error, number, line = data["error"], (int, float), (int, type(None))
    return (isinstance(data["path"], str) and isinstance(data["seconds"], number)
            and isinstance(data["timeout"], number) and all(isinstance(name, str) for name in data["leaves"])
            and all(isinstance(d, str) and isinstance(h, (str, type(None))) for d, h in data["deps"].items())
            and (error is None or all(isinstance(error[k], str) for k in ("type", "message", "traceback"))
                 and isinstance(error["line"], line) and isinstance(error["where"], (str, type(None))))
            and all(isinstance(i["line"], line) and isinstance(i["output"]["output_type"], str)
                    and isinstance(i["output"].get("text", ""), str) and isinstance(i["output"].get("data", {}), dict)
                    for i in data["outputs"]))


def sha256(path: str | os.PathLike[str]) -> str | None:
    """Digest of a file's bytes, or of the names in a folder; None for neither."""
    path = Path(path)
    if path.is_dir():
        return hashlib.sha256("\0".join(sorted(os.listdir(path))).encode(errors="surrogateescape")).hexdigest()
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


CANCEL = json.dumps({"cancel": True}) + "\n"  # stops the worker's running snippet (worker.py)


class WorkerDied(Exception):
    pass


class Worker:
    """The warm process that forks one child per snippet (worker.py)."""

    def __init__(self, preload: tuple[str, ...] = Settings.preload) -> None:
        self.proc: subprocess.Popen[str] | None = None
        self.tmp: str | None = None  # the worker's temporary folder, and its snippets'
        self.preload = preload  # what it imports when it starts
        self.imported: tuple[str, ...] = ()  # what the running one imported
        self.environment: dict[str, str] = {}  # what the running one got of the environment
        self.lock = threading.Lock()
        self.writing = threading.Lock()  # a request and a cancel never interleave on its stdin
        self.current: str | None = None  # the cache key of the snippet it runs, once sent

    def start(self) -> subprocess.Popen[str]:
        """The worker, started. A session of its own: Ctrl-C in the terminal reaches MkDocs, which
        stops the worker; and a folder of its own for temporary files, removed with it. torch.compile
        keeps what it compiles where it would for `python snippet.py` (outside that folder), as a
        reader's runs share it: a snippet that compiles does it once, not once per worker. Its
        kernels go to TORCHINDUCTOR_CACHE_DIR; its C++ headers to the folder of that name in the
        temporary folder whatever that variable says: there, a link to the same place. The threads
        of torch's OpenMP pool sleep while they wait for work instead of spinning (as many threads,
        the same results): spinning, each worker's would take the cores that the others' need."""
        self.tmp = tempfile.mkdtemp(prefix="snippet-worker-")
        cache = inductor_cache_dir()
        with contextlib.suppress(OSError):  # without the link (a file in its way), the headers are compiled here
            os.makedirs(cache, exist_ok=True)
            os.symlink(cache, os.path.join(self.tmp, os.path.basename(cache)))
        self.imported, self.environment = self.preload, snippet_environment()
        env = {"TORCHINDUCTOR_CACHE_DIR": cache, "OMP_WAIT_POLICY": "PASSIVE", **self.environment, "MPLBACKEND": "Agg",
               "TMPDIR": self.tmp}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "snippet_engine.worker", *self.preload], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            text=True, env=env, start_new_session=True,
        )
        return self.proc

    def ready(self) -> subprocess.Popen[str]:
        """The worker, started if it is not running. One that died while idle leaves its folder
        and session behind; one that imported less than it is now asked to is started again with
        more, and one that got other values of the environment (`ENVIRONMENT`) with these."""
        if (self.proc is None or self.proc.poll() is not None or not set(self.preload) <= set(self.imported)
                or self.environment != snippet_environment()):
            self.close()
            self.start()
        assert self.proc is not None
        return self.proc

    def warm(self) -> None:
        """Start the worker now, unless it runs a snippet: it imports `preload` while nothing waits for it."""
        if self.lock.acquire(blocking=False):
            try:
                self.ready()
            finally:
                self.lock.release()

    def run(self, request: Request, name: str, key: str | None = None, stale: Container[str] = ()) -> Reply:
        """The worker's reply; WorkerDied when it exits while running the snippet. `key`: the
        cache key of the run, by which `cancel` stops it; one in `stale` by the time it is sent
        was cancelled before it reached the worker, and is stopped at once."""
        with self.lock:
            proc = self.ready()
            assert proc.stdin and proc.stdout  # pipes, as start() asks
            try:
                with self.writing:
                    proc.stdin.write(json.dumps(request) + "\n" + (CANCEL if key in stale else ""))
                    proc.stdin.flush()
                    self.current = key
            except BrokenPipeError:
                pass  # seen below as an empty reply
            try:
                while line := proc.stdout.readline():
                    message = json.loads(line)
                    if "running" not in message:
                        return cast(Reply, message)
                    log.info(f"snippet {name} still running after {message['running']} s")
            finally:
                with self.writing:
                    self.current = None
            self.close()
            raise WorkerDied

    def cancel(self, key: str) -> None:
        """Stop the run of `key`, from another thread, if the worker runs it: it replies at once
        with a SnippetCancelled failure and stays up for the next snippet."""
        with self.writing:
            proc = self.proc
            if self.current == key and proc is not None and proc.stdin is not None:
                with contextlib.suppress(OSError, ValueError):  # it ended, or closed
                    proc.stdin.write(CANCEL)
                    proc.stdin.flush()

    def terminate(self) -> None:
        """Stop the worker from another thread than the one that waits on it (which then sees
        it die); the worker kills the snippet it runs on SIGTERM."""
        proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.terminate()

    def close(self) -> None:
        """Stop the worker and the snippet it runs: closing its stdin is the signal."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        for stream in (proc.stdin, proc.stdout):
            try:
                if stream is not None:  # pipes, as start() asks
                    stream.close()
            except OSError:
                pass
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            proc.terminate()  # the worker kills its child on SIGTERM too
            try:
                proc.wait(timeout=1)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        kill_session(proc.pid)  # a worker killed from outside leaves its snippet running
        if self.tmp:
            shutil.rmtree(self.tmp, ignore_errors=True)


def inductor_cache_dir() -> str:
    """Where torch.compile keeps its cache by default: torch._inductor.runtime.cache_dir_utils.
    default_cache_dir(), read here without importing torch, in the temporary folder of MkDocs's process."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = f"uid_{os.getuid()}"
    return os.path.join(tempfile.gettempdir(), "torchinductor_" + re.sub(r'[\\/:*?"<>|]', "_", user))


def done(result: Result) -> Future[Result]:
    """A run that has ended: its future, holding `result`."""
    future: Future[Result] = Future()
    future.set_result(result)
    return future


def kill_session(sid: int) -> None:
    """Kill every process left in the session `sid` (a worker's: its snippet, what that started)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rpartition(")")[2].split()[3]) == sid:  # after "pid (name)": the session
                os.kill(int(stat.parent.name), signal.SIGKILL)
        except (OSError, ValueError, IndexError):
            pass  # it has ended, or it is not ours to kill


class Runner:
    """Runs snippets under the settings' `snippets_dir` (their project is its parent) with a content cache."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.root = settings.snippets_dir.resolve()
        self.project = self.root.parent  # dependencies may live anywhere in it (data files)
        self.cache = CacheFolder(settings.cache_dir)
        self.workers = [Worker(settings.preload) for _ in range(max(1, settings.workers))]  # started when first used
        self.idle: queue.SimpleQueue[Worker] = queue.SimpleQueue()
        for worker in self.workers:
            self.idle.put(worker)
        self.heartbeat = 30  # seconds between "still running" lines in the log
        self.stopping = False  # set when a run is interrupted: a worker that dies is not started again for it
        self.pool = ThreadPoolExecutor(len(self.workers))  # a thread waits on each running snippet
        self.running: dict[str, Future[Result]] = {}  # by cache key
        self.latest: dict[tuple[Path, frozenset[str]], str] = {}  # the key of each snippet's last run started
        self.stale: set[str] = set()  # the keys of runs a later version replaced, until they stop
        self.killed: dict[str, Result] = {}  # by cache key: the runs killed from outside, kept in memory only
        self.lock = threading.Lock()

    def run(self, path: str | os.PathLike[str], options: frozenset[str] = frozenset()) -> Result:
        """Run one snippet (or take it from the cache); never raises for the snippet's failures.
        `options`: the words of its blocks' fences that kinds answer to (a step-through's)."""
        path = Path(path).resolve()
        source = sha256(path)
        key = self.result_key(path, options, source)
        cached = self.load(key, source) or self.killed.get(key)
        if cached is not None:
            return cached
        with self.claimed(key):
            return self.load(key, source) or self.run_claimed(path, options, key, source)

    def run_claimed(self, path: Path, options: frozenset[str], key: str, source: str | None) -> Result:
        """run() of a snippet that no other process sharing the cache is running now."""
        name = path.relative_to(self.root).as_posix()
        began = time.time()
        try:
            result = self.run_uncached({"path": str(path), "options": sorted(options)}, path, name, key)
        finally:
            self.stale.discard(key)
        result.source = source
        if result.error and result.error["type"] == "SnippetCancelled":
            log.info(f"snippet {name} was stopped: {result.error['message']}")
            return result  # neither kept nor shown: a later version of the file replaced it
        log.info(f"snippet {name} ran in {result.seconds:.2f} s" + (" and failed" if result.error else ""))
        changed = any(p.exists() and p.stat().st_mtime >= began for p in [path, *result.deps])
        if result.error and result.error["type"] in ("WorkerDied", "SnippetKilled"):
            if not self.stopping:  # killed from outside (out of memory?): run again by the next process only,
                self.killed[key] = result  # not by each of serve's rebuilds
        elif result.programs:
            log.info(f"snippet {name} is not cached: it started another program ({', '.join(result.programs)}), "
                     "whose reads are unknown")
        elif not changed:
            self.store(key, result)  # not when a file it read changed while it ran: its digest would lie
        return result

    @contextlib.contextmanager
    def claimed(self, key: str) -> Iterator[None]:
        """Hold the run of `key` for this process: another that shares the cache (the tests
        beside a build) waits for it, then finds its result in the cache, rather than running the
        same snippet at once. Without a cache folder it can write, nothing is held."""
        if self.cache.folder is None:
            yield
            return
        lock = self.cache.folder / f"{key}.lock"
        try:
            lock.parent.mkdir(parents=True, exist_ok=True)
            file = open(lock, "w")
        except OSError:
            yield
            return
        with file:
            held = False
            while not held and not self.stopping:  # stopping (Ctrl-C), it waits no longer
                try:
                    fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    held = True
                except BlockingIOError:
                    time.sleep(0.1)
            try:
                yield
            finally:
                if held:  # the result is stored by now: a process that comes later finds it
                    lock.unlink(missing_ok=True)

    def run_all(self, items: Iterable[tuple[Path, frozenset[str]]], once: bool = False) -> list[Result]:
        """Run snippets, [(path, options)], as run() does, as many at once as there are workers;
        the results in the same order. Each runs alone in a child of its own, so its output is
        what a run on its own gives. `once`: as start_all() says."""
        return [self.wait(future) for future, _ in self.start_all(items, once)]

    def start_all(self, items: Iterable[tuple[Path, frozenset[str]]], once: bool = False) -> list[tuple[Future[Result], bool]]:
        """start() each of [(path, options)]. With `once` (`mkdocs build`: the workers stop after
        these), they import `preload` ahead only when some will run more than one snippet: a
        worker that runs one would import torch and the rest for that snippet alone, which
        imports what it uses itself (the one snippet an edit makes run starts sooner).
        Under `mkdocs serve` they stay up across rebuilds, and import it ahead. Outputs are the
        same either way."""
        found = [(item, self.cached(*item)) for item in items]
        misses = sum(result is None for _, result in found)
        if misses:
            for worker in self.workers:
                worker.preload = () if once and misses <= len(self.workers) else self.settings.preload
        return [(done(result), False) if result else self.start(*item) for item, result in found]

    def warm(self) -> None:
        """Start every worker with `preload` now (`mkdocs serve`, between rebuilds), so that the
        next edit's snippet does not wait for a worker to import torch: without this the first
        edit that each worker runs waits for it."""
        for worker in self.workers:
            worker.preload = self.settings.preload
            worker.warm()

    def wait(self, future: Future[Result]) -> Result:
        """The result of a run started with start(). Interrupted (Ctrl-C), it stops the snippets
        that run, then the threads that wait on them, before it lets the interruption through."""
        try:
            return future.result()
        except BaseException:
            self.stopping = True
            for worker in self.workers:
                worker.terminate()
            for running in list(self.running.values()):
                running.cancel()
            raise

    def start(self, path: Path, options: frozenset[str] = frozenset()) -> tuple[Future[Result], bool]:
        """run() in the background: its future, and whether it started now. A snippet that is
        running already (`mkdocs serve` rebuilt while it ran) is not started a second time; the
        run of an earlier version of it (edited while it ran: an endless loop fixed) is stopped,
        so that it holds no worker."""
        key = self.result_key(path.resolve(), options, sha256(path))  # an edited snippet is another run
        with self.lock:
            self.running = {k: f for k, f in self.running.items() if not f.done()}  # those that ended are results
            earlier, self.latest[path.resolve(), options] = self.latest.get((path.resolve(), options)), key
            if earlier != key and earlier in self.running and not self.running[earlier].cancel():
                self.stale.add(earlier)  # on its way to a worker, or in one
                for worker in self.workers:
                    worker.cancel(earlier)
            future = self.running.get(key)
            if future is not None and not future.done() and key not in self.stale:
                return future, False
            self.stale.discard(key)  # a version restored while its stopped run ends: run it again
            future = self.running[key] = self.pool.submit(self.run, path, options)
            return future, True

    def run_code(self, code: str, cwd: str | os.PathLike[str] | None = None) -> Result:
        """Run `code` as `python -c code` would in an empty folder, or in `cwd` (never cached)."""
        return self.run_uncached({"code": code, **({"cwd": str(cwd)} if cwd else {})}, Path("<string>"), "python -c")

    def run_in_place(self, path: str | os.PathLike[str]) -> Result:
        """Run a file as `cd its/folder && python file.py` would: no display() (never cached)."""
        path = Path(path).resolve()
        return self.run_uncached({"path": str(path), "cwd": str(path.parent), "plain": True}, path, path.name)

    def run_uncached(self, request: Request, path: Path, name: str, key: str | None = None) -> Result:
        """Run a request in the worker; a worker that dies is started again once. `key`: the
        cache key of the run, by which `start` cancels it when a later version starts."""
        request.update(cast(Request, {"root": str(self.project), "heartbeat": self.heartbeat, **self.settings.request()}))
        worker = self.idle.get()
        try:
            reply = worker.run(request, name, key, self.stale)
        except WorkerDied:
            if not self.stopping:
                log.warning(f"the snippet worker died while running {name}; starting it again")
            try:
                if self.stopping:
                    raise
                reply = worker.run(request, name, key, self.stale)
            except WorkerDied:
                reply = {"outputs": [], "seconds": 0.0, "deps": [], "programs": [], "leaves": [],
                         "error": failure("WorkerDied", "the snippet worker died twice while running this snippet")}
        finally:
            self.idle.put(worker)
        if reply["error"] and reply["error"]["type"] == "SnippetTimeout":
            reply["error"]["message"] += " (the `timeout` setting of the snippets plugin)"
        return Result(path, reply["outputs"], reply["seconds"], False, reply["error"], [Path(d) for d in reply["deps"]],
                      reply["programs"], leaves=reply["leaves"])

    def close(self) -> None:
        """Stop the workers and the snippets they run (`mkdocs serve` may be running one in the
        background); the runner starts them again when it is used again."""
        self.stopping = True  # a worker stopped now is not started again for the snippet it ran
        for future in self.running.values():
            future.cancel()
        for worker in self.workers:
            worker.terminate()
        wait(list(self.running.values()))
        for worker in self.workers:
            worker.close()
        with contextlib.suppress(OSError):  # torch's cache folder, made for the workers, empty: nothing compiled
            os.rmdir(inductor_cache_dir())
        self.running, self.stopping = {}, False

    def cached(self, path: Path, options: frozenset[str] = frozenset()) -> Result | None:
        """The result of an unchanged snippet: from the cache, or kept in memory (`killed`)."""
        source = sha256(path)
        key = self.result_key(path.resolve(), options, source)
        return self.load(key, source) or self.killed.get(key)

    def result_key(self, path: Path, options: frozenset[str], source: str | None) -> str:
        """The cache key of a snippet's run, given the digest of its code (`source`)."""
        relative = path.relative_to(self.root).as_posix()
        return entry_key(relative, source, fingerprint(self.settings.packages), snippet_environment(), sorted(options),
                         self.settings.keyed())

    def load(self, key: str, source: str | None) -> Result | None:
        """The cached result, or None: a missing, corrupt, ill-formed or outdated entry is a miss."""
        try:
            data = self.cache.get(key)
            if data is None or not well_formed(data):
                return None
            deps = {self.project / rel: digest for rel, digest in data["deps"].items()}
            if any(sha256(dep) != digest for dep, digest in deps.items()):
                return None
            error = data["error"]
            if error and error["type"] == "SnippetTimeout" and data["timeout"] < self.settings.timeout:
                return None  # it may finish in the time it has now
            return Result(self.root / data["path"], data["outputs"], data["seconds"], True, error, list(deps),
                          source=source, leaves=data["leaves"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def store(self, key: str, result: Result) -> None:
        deps = {Path(d).relative_to(self.project).as_posix(): sha256(d) for d in result.deps}
        data = {"path": result.path.relative_to(self.root).as_posix(), "deps": deps, "outputs": result.outputs,
                "seconds": result.seconds, "error": result.error, "timeout": self.settings.timeout,
                "leaves": result.leaves}
        self.cache.put(key, data)

    def prune(self) -> None:
        """Delete cache entries that were not used since the last prune."""
        self.cache.prune()
