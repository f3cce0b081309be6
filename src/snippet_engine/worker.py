"""The warm process that runs snippets: `python -m snippet_engine.worker`.

It imports the modules named on its command line once (torch,
matplotlib, torchviz: the plugin's `preload` setting); then, for each request, it
forks a child that runs one snippet as `__main__`, the way
`python snippets/<chapter>/<name>.py` would, and replies with what the
snippet produced (see capture.py).

The worker itself never runs a torch op: a child forked after the parent ran
one hangs, because torch's intra-op thread pool does not survive fork.

Each child:
- gets an empty stdin, its own process group, and fd 1 and 2 pointing at
  files (so output written below Python reaches the page); it holds none
  of the worker's pipes, so the worker's death is seen at once;
- runs in a scratch working folder (files it writes stay out of the project);
- raises `SnippetTimeout` inside the snippet when the time is up, so the
  output printed so far and the line it was stuck on are kept; one that
  catches it is stopped where it is a second later; a child that does not
  stop is killed a few seconds later;
- waits for the snippet's threads and runs its atexit handlers, as Python
  does at exit (what is still running at the timeout fails it), and writes
  its reply to a file; whatever it leaves running is killed, in its group or
  not (the worker is the subreaper of the processes it starts).

Protocol, one JSON object per line. Request: {"path" (or "code"), "root",
"timeout", "heartbeat", "output_limit", "options"}, and "cwd" to run in that folder
rather than a scratch one; "options", the words of its blocks' fences, name the kinds
that the snippet runs within (kinds.around: a step-through records each backward() it
calls); root is the project folder (files under it
that a snippet imports or reads are its dependencies, and it may change none of them
outside the folder it runs in: PermissionError). Replies:
{"running": seconds} every `heartbeat` seconds while a snippet runs, then {"outputs", "seconds", "deps", "programs", "error"}.
A line written while a snippet runs ({"cancel": true}) kills it: the reply is a SnippetCancelled
failure; one that comes after the run ended is ignored.
The worker exits when its stdin closes, killing a running child first.
"""

import ast
import atexit
import contextlib
import ctypes
import errno
import faulthandler
import gc
import importlib
import json
import os
import re
import runpy
import select
import shutil
import signal
import sys
import sysconfig
import tempfile
import threading
import time
import traceback
import types
import weakref
from typing import IO, Any, BinaryIO, NoReturn, cast

from snippet_engine import kinds, torch_settings
from snippet_engine.capture import ENGINE, Capture, install
from snippet_engine.shapes import Failure, LineOutput, Reply, Request, failure

PR_SET_CHILD_SUBREAPER = 36  # prctl's option, from <linux/prctl.h>
EXIT = os._exit  # as Python has it: run_child replaces it in the snippet's process
GRACE = 5  # seconds a child gets to stop after its timeout before it is killed
STUCK = "stuck"  # the file of a child's stack a second before it is killed (faulthandler's)


class SnippetTimeout(BaseException):
    """Raised inside a snippet that ran past its time (BaseException: `except Exception` cannot hide it)."""


def is_local(filename: str, root: str) -> bool:
    """A project file: under root, but not part of the installed packages."""
    return filename.startswith(root + os.sep) and not filename.startswith(sys.prefix + os.sep)


LISTINGS = ("os.listdir", "os.scandir")  # audit events of a folder's listing (glob, os.walk and pathlib's too)
# The audit events of another program started, and where each has the program's arguments (None: a shell command).
PROGRAMS = {"subprocess.Popen": 1, "os.exec": 1, "os.posix_spawn": 1, "os.spawn": 2, "os.system": None}
IMPORT_SYSTEM = "<frozen importlib._bootstrap_external>"
WRITING = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC  # the flags of an open() that changes a file
# The audit events that change the file system, and where each has the paths it changes.
CHANGES = {"os.remove": (0,), "os.rename": (0, 1), "os.rmdir": (0,), "os.mkdir": (0,), "os.truncate": (0,),
           "shutil.rmtree": (0,), "os.symlink": (1,), "os.link": (1,), "os.chmod": (0,), "os.chown": (0,),
           "os.utime": (0,), "os.setxattr": (0,), "os.removexattr": (0,), "sqlite3.connect": (0,)}
REFUSED = "a snippet may change no file of the project outside the folder it runs in"
STDLIB = (sysconfig.get_paths()["stdlib"] + os.sep, "<frozen ")


class Watch:
    """What a snippet and its forked children read: the project files they open for reading (data
    they load), the project folders they list (the names in them are input too; not the import
    system's listings: what it imports is a dependency already), and the programs the project's
    code starts, whose reads no one sees (a program an installed library starts, Graphviz's or
    torch.compile's, reads what that library gives it). A forked child's go to the parent
    through `seen`, a file. And the project files they tried to change (`change`)."""

    def __init__(self, root: str, workdir: str, private: str) -> None:
        self.root, self.workdir, self.seen = root, workdir, os.path.join(private, "seen")
        self.real_root = os.path.realpath(root)  # the project as the system names it, for `change`
        # The folders the run may change, as the system names them (no link in the way): where it
        # runs, its temporary files, torch.compile's cache (in MkDocs's temporary folder).
        self.own = [os.path.realpath(folder) for folder in (workdir, private, os.environ.get("TORCHINDUCTOR_CACHE_DIR"))
                    if folder]
        self.reads: set[str] = set()
        self.programs: set[str] = set()
        self.changed: set[str] = set()
        self.pid = os.getpid()
        self.fd = os.open(self.seen, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)  # inherited by forked children
        sys.addaudithook(self.hook)

    def hook(self, event: str, args: tuple[Any, ...]) -> None:
        if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
            if isinstance(args[2], int) and args[2] & WRITING:
                self.change(args[0])
            else:
                self.read(args[0])
        elif event in CHANGES:
            for where in CHANGES[event]:
                self.change(args[where])
        elif event in LISTINGS and not isinstance(args[0], int):
            if sys._getframe(1).f_code.co_filename != IMPORT_SYSTEM:
                self.read(args[0] if args[0] is not None else ".")
        elif (event in PROGRAMS or event in LISTINGS) and self.by_project(sys._getframe(1)):
            self.note("p", program(event, args))  # or a folder listed by its descriptor: which one is unknown

    def by_project(self, frame: types.FrameType | None) -> bool:
        """Whether the project's own code (a snippet, a helper module) called what runs in `frame`."""
        while frame is not None and frame.f_code.co_filename.startswith(STDLIB):
            frame = frame.f_back
        return frame is None or is_local(frame.f_code.co_filename, self.root) and \
            not frame.f_code.co_filename.startswith(ENGINE)

    def read(self, name: str | bytes | os.PathLike[Any]) -> None:
        name = os.path.abspath(os.fsdecode(name))
        if is_local(name, self.root) and not name.startswith(self.workdir) and not name.endswith(".pyc"):
            self.note("r", name)

    def change(self, name: object) -> None:
        """Refuse a change to a project file outside the folders of the run (`own`), as the
        system refuses a change it does not permit (its bytecode caches, the import system's, aside);
        noted, so that a snippet that catches the PermissionError fails all the same."""
        if not isinstance(name, (str, bytes, os.PathLike)):
            return  # a file descriptor
        path = os.path.realpath(os.fsdecode(name))
        if not is_local(path, self.real_root) or sys._getframe(2).f_code.co_filename == IMPORT_SYSTEM \
                or any(path == folder or path.startswith(folder + os.sep) for folder in self.own):
            return
        self.note("w", path)
        raise PermissionError(errno.EACCES, REFUSED, os.path.relpath(path, self.real_root))

    def note(self, kind: str, name: str) -> None:
        if os.getpid() == self.pid:
            self.noted(kind).add(name)
        else:
            os.write(self.fd, f"{kind}{name}\0".encode(errors="surrogateescape"))

    def noted(self, kind: str) -> set[str]:
        return {"r": self.reads, "p": self.programs, "w": self.changed}[kind]

    def children(self) -> None:
        """Add what the forked children noted."""
        with open(self.seen, "rb") as f:
            for entry in f.read().decode(errors="surrogateescape").split("\0")[:-1]:
                self.noted(entry[0]).add(entry[1:])

    def refused(self) -> Failure | None:
        """The failure of a snippet that tried to change project files, whose code went on past
        the refusal (it caught the error, or a library did)."""
        if not self.changed:
            return None
        names = ", ".join(sorted(os.path.relpath(path, self.real_root) for path in self.changed))
        return failure("PermissionError", f"{REFUSED}: it tried to change {names} (refused), and went on past the "
                                          "error")


def program(event: str, args: tuple[Any, ...]) -> str:
    """The name of the program an audit event starts, or the event's."""
    where = PROGRAMS.get(event)
    argv = args[where] if where is not None else None
    first = argv[0] if isinstance(argv, (list, tuple)) and argv else None
    return os.path.basename(os.fsdecode(first)) if isinstance(first, (str, bytes, os.PathLike)) else event


def local_deps(path: str, root: str, reads: set[str], loaded: set[str | None]) -> list[str]:
    """Project files this snippet imported, tried to open or listed, besides itself. A file
    that did not exist is one too: the output changes when it appears. What the worker had
    loaded before the snippet ran (`loaded`) and the engine are in every run's key already; a
    module of the step-through package that the snippet imports itself (`compare`) is not."""
    modules = {getattr(m, "__file__", None) for m in list(sys.modules.values())} - loaded
    files = {f for f in modules if f and is_local(f, root) and os.path.isfile(f)} | reads
    return sorted(f for f in files if f != path and not f.startswith(ENGINE[0]))


def message(exc: BaseException) -> str:
    """str(exc), or what Python prints where that raises."""
    try:
        return str(exc)
    except Exception:  # noqa: BLE001 - the snippet's __str__, whatever it raises
        return "<exception str() failed>"


def error_report(exc: BaseException, path: str, root: str,
                 frames: list[traceback.FrameSummary] | None = None) -> Failure:
    """The error of an exception; `frames` in place of its traceback's (a stack)."""
    if isinstance(exc, SyntaxError) and exc.filename == path:
        text = "".join(traceback.format_exception_only(type(exc), exc))
        return failure(type(exc).__name__, str(exc.msg), exc.lineno, traceback=text)
    frames = [f for f in frames or traceback.extract_tb(exc.__traceback__) if not f.filename.startswith(ENGINE)]
    ours = [f for f in frames if is_local(f.filename, root)]
    in_snippet = [f for f in frames if f.filename == path]
    # Hide the worker's own frames: the traceback starts at the snippet.
    start = next((i for i, f in enumerate(frames) if f.filename == path), len(frames))
    text = "Traceback (most recent call last):\n" + "".join(traceback.format_list(frames[start:]))
    text += "".join(traceback.format_exception_only(type(exc), exc))
    return failure(type(exc).__name__, message(exc), in_snippet[-1].lineno if in_snippet else None,
                   f"{ours[-1].filename}:{ours[-1].lineno}" if ours else None, text)


def exit_error(code: int) -> Failure:
    return failure("SystemExit", f"the snippet exited with status {code}")


def timeout_message(timeout: float) -> str:
    return f"the snippet was still running after {timeout} s"


def still_running(timeout: float, path: str) -> Failure:
    """The error of a snippet whose code ended but whose threads or processes did not: plain
    Python would wait for them."""
    frames, left, line = sys._current_frames(), list[str](), None
    for thread in threading.enumerate():
        frame = frames.get(thread.ident or 0)  # none for a thread that has just ended
        if not thread.daemon and thread is not threading.current_thread() and frame:
            here = [f.lineno for f in traceback.extract_stack(frame) if f.filename == path]
            line = line or (here[-1] if here else None)
            left.append(f"thread {thread.name!r}" + (f" (at line {here[-1]})" if here else ""))
    if "multiprocessing" in sys.modules:
        left += [f"process {p.name!r}" for p in sys.modules["multiprocessing"].active_children()]
    return failure("SnippetTimeout", f"still running after its code ended: {', '.join(left) or 'an atexit function'} "
                   f"it started had not ended within the {timeout} s timeout (plain Python waits for it)", line)


def outcome(raised: BaseException | None, path: str, root: str) -> Failure | None:
    """The error of the exception the snippet's code ended with, if any: a SystemExit whose
    status is 0 or None is none, unless it ended the snippet early (`ended_early`)."""
    if isinstance(raised, SystemExit):
        if raised.code in (None, 0):
            frames = [frame for frame in traceback.extract_tb(raised.__traceback__) if frame.filename == path]
            return ended_early(frames[0] if frames else None, path, "sys.exit()")
        return exit_error(raised.code) if isinstance(raised.code, int) else error_report(raised, path, root)
    return None if raised is None else error_report(raised, path, root)


def ended_early(frame: traceback.FrameSummary | None, path: str, how: str) -> Failure | None:
    """A failure for a successful exit (`how`: sys.exit(), os._exit(0)) in the snippet's top-level
    code at `frame`, before its last top-level statement starts (on an earlier line, or earlier
    on that statement's line: `sys.exit(0); print()`): the code after it never runs, and the
    blocks that show that code would show nothing."""
    try:
        with open(path, "rb") as f:
            last = ast.parse(f.read()).body[-1]
    except (OSError, SyntaxError, ValueError, IndexError):  # python -c code, or a file gone
        return None
    start = min([(last.lineno, last.col_offset)] + [(d.lineno, d.col_offset) for d in getattr(last, "decorator_list", [])])
    if frame is None or frame.lineno is None or (frame.lineno, frame.colno or 0) >= start:
        return None
    return failure("SystemExit", f"{how} at line {frame.lineno} ended the snippet before its last statement (line "
                   f"{start[0]}): the code after it never ran, and the blocks that show it would show nothing",
                   frame.lineno)


def running_frame(path: str) -> traceback.FrameSummary | None:
    """Where in the snippet's top-level code its main thread is."""
    frame = sys._current_frames().get(threading.main_thread().ident or 0)
    frames = [f for f in traceback.extract_stack(frame) if f.filename == path] if frame else []
    return frames[0] if frames else None


def at_exit() -> None:
    """What Python does at exit: wait for the threads the snippet started, run its atexit
    functions (multiprocessing stops its daemons, waits for its other processes)."""
    try:
        threading._shutdown()  # type: ignore[attr-defined]
        atexit._run_exitfuncs()
    except BaseException:  # noqa: BLE001 - the snippet's own result stands
        pass


def forked() -> None:
    """In a process the snippet forks (os.fork, multiprocessing, a DataLoader's workers): its
    prints go to fd 1 and 2 a line at a time, as a terminal shows them, where the capture reads
    them in turn with the snippet's own; it exits with its own status, replying nothing."""
    sys.stdout = open(1, "w", buffering=1, encoding="utf-8", closefd=False)
    sys.stderr = open(2, "w", buffering=1, encoding="utf-8", errors="backslashreplace", closefd=False)
    os._exit = EXIT


def exit_forked(raised: BaseException | None, path: str, root: str) -> NoReturn:
    """A forked process that ran to the end of the snippet's code ends as Python ends it: its
    exception's traceback printed, its exit functions run, with its own exit status."""
    status = 0
    if isinstance(raised, SystemExit) and isinstance(raised.code, int | None):
        status = raised.code or 0
    elif isinstance(raised, SystemExit):  # sys.exit("message")
        print(raised.code, file=sys.stderr)
        status = 1
    elif raised is not None:
        sys.stderr.write(error_report(raised, path, root)["traceback"])
        status = 1
    at_exit()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def run_tmp(private: str) -> str:
    """The run's own temporary folder, removed with `private`: no run sees the files of another.
    torch.compile's C++ headers go to a folder named as its cache in it: there, a link to the
    cache, as in the worker's own (runner.Worker.start)."""
    tmp = os.path.join(private, "tmp")
    os.mkdir(tmp)
    if cache := os.environ.get("TORCHINDUCTOR_CACHE_DIR"):
        os.symlink(cache, os.path.join(tmp, os.path.basename(cache)))
    return tmp


def run_child(request: Request, private: str, workdir: str) -> NoReturn:
    """Runs in the forked child: execute the snippet, write the reply, exit. A request
    with "code" instead of a file runs it as `python -c code` would."""
    code = request.get("code")
    path, root = ("<string>" if code is not None else request["path"]), request["root"]
    os.setpgid(0, 0)  # its own process group: whatever it starts is killed with it
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)  # an empty stdin, as `python snippet.py < /dev/null`
    fd_files = [os.path.join(private, "fd1"), os.path.join(private, "fd2")]
    for fd, name in zip((1, 2), fd_files):
        os.dup2(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600), fd)
    faulthandler.enable(file=2)
    os.chdir(workdir)
    tempfile.tempdir = os.environ["TMPDIR"] = run_tmp(private)
    sys.path[0] = "" if code is not None else os.path.dirname(path)
    sys.argv = ["-c"] if code is not None else [path]
    sys.stdin = open(0, closefd=False)
    capture = Capture(path, request["output_limit"])
    # Plain Python has no display(): a copy (`python -c`) or a download run in place that calls it
    # fails as it would for the reader.
    install(capture, fd_files, [os.path.join(private, name) for name in ("stdout", "stderr")],
            display=code is None and not request.get("plain"))
    watch = Watch(root, workdir, private)
    loaded = {getattr(m, "__file__", None) for m in list(sys.modules.values())}
    start = time.perf_counter()

    def finish(error: Failure | None) -> None:
        seconds = time.perf_counter() - start
        signal.setitimer(signal.ITIMER_REAL, 0)
        faulthandler.cancel_dump_traceback_later()
        sys.stdout.flush()
        sys.stderr.flush()
        watch.children()
        error = error or watch.refused()
        reply: Reply = {"error": error, "seconds": seconds, "outputs": capture.finish(),
                        "deps": local_deps(path, root, watch.reads, loaded), "programs": sorted(watch.programs),
                        "leaves": torch_settings.changed()}
        tmp = os.path.join(private, "reply.tmp")
        with open(tmp, "w", encoding="utf-8", errors="replace") as f:  # a lone surrogate (in an error) as "?"
            json.dump(reply, f, ensure_ascii=False)
        os.replace(tmp, os.path.join(private, "reply.json"))

    def exit_now(status: int) -> NoReturn:  # os._exit skips atexit and finally, as in plain Python; the output is kept
        finish(ended_early(running_frame(path), path, "os._exit(0)") if status == 0 else exit_error(status))
        EXIT(status)

    error: Failure | None = None
    ended = timed_out = False

    def time_is_up(signum: int, frame: types.FrameType | None) -> None:
        nonlocal timed_out
        if ended:  # its code is done; a thread or process it started is not
            finish(error or still_running(request["timeout"], path))
            EXIT(1)
        timeout = SnippetTimeout(timeout_message(request["timeout"]))
        if timed_out:  # it caught the first one and went on: stop it where it is
            finish(error_report(timeout, path, root, traceback.extract_stack(frame)))
            EXIT(1)
        timed_out = True
        raise timeout

    os._exit = exit_now
    os.register_at_fork(after_in_child=forked)
    snippet_pid = os.getpid()
    signal.signal(signal.SIGALRM, time_is_up)
    signal.setitimer(signal.ITIMER_REAL, request["timeout"], 1)  # then every second until it stops
    # Stuck in code that Python cannot interrupt (no signal handler runs), its stack is written
    # from a thread of faulthandler's own, for the worker to read once it has killed it.
    faulthandler.dump_traceback_later(request["timeout"] + GRACE - 1, file=open(os.path.join(private, STUCK), "w"))
    namespace: dict[str, Any] = {}  # the snippet's globals: alive until its exit functions have run
    raised: BaseException | None = None
    try:
        if code is None:
            with kinds.around(request.get("options", []), path):
                namespace = runpy.run_path(path, run_name="__main__")
        else:
            main = sys.modules["__main__"] = types.ModuleType("__main__")
            exec(compile(code, path, "exec"), main.__dict__)
    except BaseException as exc:  # noqa: BLE001 - report anything the snippet raised
        raised = exc
    if os.getpid() != snippet_pid:  # a process it forked, at the end of the snippet's code
        exit_forked(raised, path, root)
    error = outcome(raised, path, root)
    ended = True
    capture.ended()
    at_exit()
    del namespace
    finish(error)
    EXIT(0)


class Cancelled(Exception):
    """The runner asked, while the snippet ran, for its run to stop (its code changed)."""


def wait_for(pid: int, request: Request, stdin: BinaryIO, protocol: IO[str]) -> int | None:
    """The child's exit status; None when the worker's own stdin closed first; Cancelled when a
    line came on it (the child is killed on the way out, as for a closed stdin)."""
    start, timeout, heartbeat = time.monotonic(), request["timeout"], request["heartbeat"]
    pidfd = os.pidfd_open(pid) if hasattr(os, "pidfd_open") else None
    beat, killed = heartbeat, False
    try:
        while True:
            waited = [stdin] + ([pidfd] if pidfd is not None else [])
            ready = select.select(waited, [], [], 1.0 if pidfd is not None else 0.05)[0]
            if stdin in ready:
                if not stdin.read(1 << 16):
                    return None  # MkDocs is gone: stop at once
                raise Cancelled
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return status
            elapsed = time.monotonic() - start
            if elapsed >= beat:
                protocol.write(json.dumps({"running": round(elapsed)}) + "\n")
                protocol.flush()
                beat += heartbeat
            if not killed and elapsed > timeout + GRACE:
                kill_group(pid)
                killed = True
    finally:
        if pidfd is not None:
            os.close(pidfd)


def describe_status(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)} ({signal.Signals(os.WTERMSIG(status)).name})"
    return f"exit status {os.WEXITSTATUS(status)}"


def kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def kill_orphans() -> None:
    """Kill the processes a snippet started outside its group (`start_new_session=True`): they
    come to the worker, their subreaper, when their parent ends, and theirs in turn."""
    while children := orphans():
        for pid in children:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)


def orphans() -> list[int]:
    """The worker's children, once the snippet's has ended (Linux: read from /proc)."""
    found = []
    for pid in os.listdir("/proc") if os.path.isdir("/proc") else []:
        with contextlib.suppress(OSError, ValueError), open(f"/proc/{pid}/stat") as f:
            if int(f.read().rpartition(")")[2].split()[1]) == os.getpid():
                found.append(int(pid))
    return found


def run(request: Request, stdin: BinaryIO, protocol: IO[str]) -> Reply | None:
    """Run one snippet in a forked child; None when the worker must stop."""
    private = tempfile.mkdtemp(prefix="snippet-capture-")
    workdir = request.get("cwd") or tempfile.mkdtemp(prefix="snippet-")
    pid = status = None
    start = time.monotonic()
    try:
        pid = os.fork()
        if pid == 0:
            try:
                os.close(protocol.fileno())
                run_child(request, private, workdir)
            except BaseException:  # noqa: BLE001 - the engine's own failure: its traceback goes to fd 2
                traceback.print_exc()
            finally:
                os._exit(1)
        try:
            os.setpgid(pid, pid)
        except OSError:
            pass  # the child did it first
        try:
            status = wait_for(pid, request, stdin, protocol)
        except Cancelled:
            return {"outputs": [], "seconds": time.monotonic() - start, "deps": [], "programs": [], "leaves": [],
                    "error": failure("SnippetCancelled", "its code changed while it ran: the new version runs instead")}
        if status is None:
            return None
        kill_group(pid)  # whatever the snippet left running
        reply_file = os.path.join(private, "reply.json")
        if os.path.exists(reply_file):
            with open(reply_file, encoding="utf-8") as f:
                return cast(Reply, json.load(f))
        return died(private, request, status, time.monotonic() - start)
    finally:
        if pid:
            kill_group(pid)
            if status is None:
                os.waitpid(pid, 0)
            kill_orphans()
        shutil.rmtree(private, ignore_errors=True)
        if not request.get("cwd"):
            shutil.rmtree(workdir, ignore_errors=True)


def died(private: str, request: Request, status: int, seconds: float) -> Reply:
    """A child that ended without a reply: crashed, killed from outside, or killed while stuck past
    its timeout in code that Python cannot interrupt (a SnippetTimeout). Killed from outside before
    that (the out-of-memory killer), it is a SnippetKilled, which is not cached. What it printed is
    kept; faulthandler's report names its line: of a crash, or where it was stuck (STUCK)."""
    def read(*names: str) -> str:
        text = b""
        for name in names:
            with contextlib.suppress(FileNotFoundError), open(os.path.join(private, name), "rb") as f:
                text += f.read()
        return text.decode("utf-8", "replace")

    printed, report, stuck = read("stdout", "fd1"), read("stderr", "fd2"), read(STUCK)
    killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    where = report.partition("\nCurrent thread ")[2]
    if killed and seconds > request["timeout"] + GRACE:
        kind, why = "SnippetTimeout", (timeout_message(request["timeout"]) + ", in code that Python cannot "
                                       f"interrupt: it was killed {GRACE} s later")
        report, where = report + stuck, stuck
    elif killed:
        kind, why = "SnippetKilled", f"the snippet process died ({describe_status(status)}, not by the engine: out of memory?)"
    else:
        kind, why = "ChildProcessError", f"the snippet process died ({describe_status(status)})"
    found = re.search(rf'File "{re.escape(request.get("path", "<string>"))}", line (\d+)', where)
    line = int(found[1]) if found else None
    outputs: list[LineOutput] = [{"line": line, "output": {"output_type": "stream", "name": "stdout", "text": printed}}] if printed else []
    return {"outputs": outputs, "seconds": seconds, "deps": [], "programs": [], "leaves": [],
            "error": failure(kind, why, line, traceback=report[-4000:])}


def main() -> None:
    os.environ.setdefault("MPLBACKEND", "Agg")
    for name in sys.argv[1:]:
        importlib.import_module(name)  # once, so that every child starts warm
    # What the worker imported moves out of the garbage collector's sight (it imports nothing
    # later; its children do): their collections neither walk it nor write to it, so its memory
    # stays shared with the worker (each write would copy a page). A snippet's own objects are
    # collected as they would be.
    gc.freeze()
    # What the imports left to be finalized at exit (torch: one finalizer per operator library,
    # some 130, each undoing its registrations) is left to the process's end: a child would
    # otherwise spend time on it in each run, after the snippet's own exit functions. It
    # prints nothing, and the snippet's own finalizers still run at its exit.
    for finalizer in list(weakref.finalize._registry):  # type: ignore[attr-defined]
        finalizer.atexit = False
    protocol = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # stray prints from imports must not corrupt replies
    if hasattr(ctypes.CDLL(None), "prctl"):  # Linux: the orphans of snippets' processes come to us
        ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # MkDocs decides; it closes our stdin to stop us
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # unwinds: the running child is killed
    stdin = os.fdopen(0, "rb", buffering=0)
    try:
        while line := stdin.readline():
            request = json.loads(line)
            if "cancel" in request:
                continue  # for a run that ended before it came
            reply = run(request, stdin, protocol)
            if reply is None:
                break
            protocol.write(json.dumps(reply) + "\n")
            protocol.flush()
    except SystemExit:
        pass  # SIGTERM: run() has killed the snippet and removed its folders on the way out
    finally:
        os._exit(0)  # no interpreter teardown: with torch loaded it takes seconds


if __name__ == "__main__":
    main()
