"""What a test proved about a run, kept under the key of what ran, in .cache/tests/: the program's
text, the code of the engine that runs it (runner.fingerprint: the worker, the capture, the kinds,
autograd_steps), the versions of the packages that shape its output, Python, and what a snippet gets
of the environment (runner.ENVIRONMENT). A run whose key is
kept is not run again, in this test run (another pytest-xdist worker made it) or a later one, until
one of those changes. Only runs that succeeded, read no project file and started no program are
kept: anything else runs each time."""

import ast
import fcntl
import re
from importlib import metadata
from pathlib import Path

from conftest import ROOT, engine_settings

from snippet_engine.cache_file import CacheFolder, entry_key
from snippet_engine.runner import Result, fingerprint, snippet_environment

STORE = ROOT / ".cache" / "tests"
# What a program can read of where it runs: its file, its name, its lines, its frames, its folder;
# and processes started afresh, which import the main module again. A program that does none of
# these does the same as `python -c` and as a file (`program`).
WHERE = re.compile(r"__file__|argv|inspect|getsource|_getframe|currentframe|linecache|traceback|cwd|listdir|scandir"
                   r"|glob|iterdir|walk\(|multiprocessing|spawn")


def program(code):
    """What decides a run of `code` besides the engine: its syntax tree (its comments and blank
    lines aside), or its text where it reads where it runs (`WHERE`) or does not parse."""
    if WHERE.search(code):
        return code
    try:
        return ast.dump(ast.parse(code))
    except SyntaxError:
        return code


def key(kind, content, *more):
    settings = engine_settings().settings(ROOT)
    return entry_key(kind, content, fingerprint(settings.packages), snippet_environment(), settings.request(), *more)


def once(kind, content, make, *more):
    """make(), or what it returned before for the same `kind`, `content` (what runs) and `more`
    (what else decides the run); make returns (data, keep), and only data it says to keep is kept.
    Two processes asking at once: the second waits for the first."""
    cache, entry = CacheFolder(STORE / kind), key(kind, content, *more)
    held = STORE / kind / f"{entry}.lock"
    held.parent.mkdir(parents=True, exist_ok=True)
    with open(held, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            data = cache.get(entry)
            if data is None:
                data, keep = make()
                if keep:
                    cache.put(entry, data)
        finally:
            held.unlink(missing_ok=True)  # what was kept is kept by now: who comes later finds it
    return data


def run(runner, kind, code, run_it):
    """The Result of `run_it()`, which runs `code` (a copy as `python -c`, a download as a file:
    `program` says when they are the same run), kept as `once` says, with the names of the files
    the run wrote (`written`, relative to the folder it ran in)."""
    def make():
        result, written = run_it()
        data = {"outputs": result.outputs, "seconds": result.seconds, "error": result.error,
                "written": [p.as_posix() for p in written]}
        return data, not result.error and not result.deps and not result.programs

    data = once(kind, program(code), make)
    return Result(Path("<string>"), data["outputs"], data["seconds"], False, data["error"]), data["written"]


def versions(*names):
    """{name: version} of installed packages, for the key of a run that they decide."""
    return {name: metadata.version(name) for name in names}
