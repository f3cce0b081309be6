"""The snippet engine: the runner in-process, and the plugin on throwaway sites that use
the real mkdocs.yml (strict, every plugin and hook) with pages of their own."""

import contextlib
import html
import json
import logging
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
import urllib.request

import pytest
import yaml
from bs4 import BeautifulSoup
from conftest import SNIPPETS, free_port, graphs, kind, mkdocs, sharing, snippet, warnings_in

from snippet_engine.kinds.graph import GRAPH
from snippet_engine.runner import Runner
from snippet_engine.shapes import Settings

PAGE = """\
# Page

```python
--8<-- "{}"
```
"""


@pytest.fixture
def engine(tmp_path, worker):
    """A runner over tmp_path/snippets with a cache, sharing the module's warm worker (conftest)."""
    return sharing(worker, tmp_path, timeout=20)


def ran(log):
    """Snippets the build log says were executed (not taken from the cache)."""
    return sorted(re.findall(r"snippet (\S+) ran in", log))


def build(project):
    return mkdocs(project.root, "build", "--strict")


# The runner: what a snippet produces


def test_runner_captures_warnings_figures_graphs_and_both_streams(engine, tmp_path):
    path = snippet(tmp_path, "everything.py", """\
import sys
import matplotlib.pyplot as plt
import torch
from torchviz import make_dot

x = torch.ones(3, requires_grad=True)
y = (x * 2).sum()
y.backward()
(x * 2).grad
plt.plot([0, 1], [1, 0], label="falling")
plt.title("A line")
plt.legend()
plt.show()
make_dot(y).render("graph", format="svg")
print("to stderr", file=sys.stderr)
""")
    result = engine.run(path)
    assert result.error is None
    assert [(kind(i["output"]), i["line"]) for i in result.outputs] == [
        ("warning", 9), ("figure", 13), ("graph", 14), ("stderr", 15)]
    (warning,) = warnings_in(result.select())
    assert warning["category"] == "UserWarning" and "not a leaf Tensor" in warning["message"]
    figure = result.outputs[1]["output"]["data"]
    assert figure["image/svg+xml"].lstrip().startswith("<?xml")
    assert figure["text/plain"] == "Plot (“A line”, curves: falling)"
    assert ["MulBackward0", "SumBackward0"] in graphs(result.select())[0]["edges"]
    assert not (tmp_path / "snippets" / "graph.svg").exists(), "files a snippet writes stay out of the project"


def test_output_behaves_as_in_plain_python(engine, tmp_path):
    path = snippet(tmp_path, "streams.py", """\
import os, subprocess, sys
sys.stdout.buffer.write(b"bytes through the buffer\\n")
os.write(1, b"straight to fd 1\\n")
subprocess.run(["echo", "from a subprocess"])
print("\\x1b[31mred\\x1b[0m")
def report():
    print("inside a function")
report()
""")
    result = engine.run(path)
    assert result.error is None
    assert result.stdout == ("bytes through the buffer\nstraight to fd 1\nfrom a subprocess\nred\n"
                             "inside a function\n")
    assert result.outputs[-1]["line"] == 8, "output made in a function belongs to the line calling it"


def test_stdin_is_empty_and_leftover_processes_are_killed(engine, tmp_path):
    path = snippet(tmp_path, "children.py", """\
import multiprocessing, subprocess, time
print(repr(subprocess.run(["head", "-c", "10"], stdout=subprocess.PIPE).stdout))
def loop():
    while True:
        time.sleep(1)
daemon = multiprocessing.Process(target=loop, daemon=True)
daemon.start()
background = subprocess.Popen(["sleep", "300"])
print(daemon.pid, background.pid)
""")
    result = engine.run(path)
    assert result.error is None, "not a false timeout: plain Python exits past a daemon process"
    empty, pids = result.stdout.splitlines()
    assert empty == "b''"
    time.sleep(0.5)
    for pid in map(int, pids.split()):
        assert not os.path.exists(f"/proc/{pid}") or "zombie" in open(f"/proc/{pid}/status").read().lower()
    assert engine.run(snippet(tmp_path, "after.py", "print('next')\n")).stdout == "next\n"


def test_exits_and_syntax_errors_are_reported_as_python_would(engine, tmp_path):
    clean = engine.run(snippet(tmp_path, "exit_zero.py", "print('before')\nimport os\nos._exit(0)\n"))
    assert clean.error is None and clean.stdout == "before\n"
    failed = engine.run(snippet(tmp_path, "exit_three.py", "import sys\nsys.exit(3)\n")).error
    assert failed["type"] == "SystemExit" and "status 3" in failed["message"]
    syntax = engine.run(snippet(tmp_path, "syntax.py", "x = 1\ndef (:\n")).error
    assert syntax["type"] == "SyntaxError" and syntax["line"] == 2


def test_a_successful_exit_before_the_last_statement_is_a_failure_at_its_line(engine, tmp_path):
    """sys.exit(0) or os._exit(0) halfway (in a function the top-level code calls too, or before
    the last statement on its line): Python
    stops there, silently, and every block after it would show nothing; the snippet fails at the
    line, saying so. As the last statement, or in the last statement's `if __name__ ==
    "__main__":`, it is the end of the snippet."""
    early = engine.run(snippet(tmp_path, "early.py", "import sys\n\nprint('first')\nsys.exit(0)\nprint('never')\n"))
    assert early.stdout == "first\n" and early.error["type"] == "SystemExit" and early.error["line"] == 4
    assert early.error["message"] == ("sys.exit() at line 4 ended the snippet before its last statement (line 5): the "
                                      "code after it never ran, and the blocks that show it would show nothing")
    hard = engine.run(snippet(tmp_path, "hard.py", "import os\n\n\ndef stop():\n    os._exit(0)\n\n\n"
                                                   "print('first')\nstop()\nprint('never')\n"))
    assert hard.stdout == "first\n" and hard.error["type"] == "SystemExit" and hard.error["line"] == 9
    assert hard.error["message"].startswith("os._exit(0) at line 9 ended the snippet before its last statement (line 10)")
    one_line = engine.run(snippet(tmp_path, "one_line.py", "import sys\n\nprint('first'); sys.exit(0); print('never')\n"))
    assert one_line.stdout == "first\n" and one_line.error["line"] == 3, one_line.error
    last = engine.run(snippet(tmp_path, "last.py", "import sys\n\nprint('all')\nsys.exit()\n"))
    main = engine.run(snippet(tmp_path, "main.py", "import sys\n\n\ndef main():\n    print('main')\n    return 0\n\n\n"
                                                   "if __name__ == '__main__':\n    sys.exit(main())\n"))
    decorated = engine.run(snippet(tmp_path, "decorated.py", "import sys\n\n\ndef run(main):\n    main()\n    sys.exit(0)\n\n\n"
                                                             "@run\ndef main():\n    print('decorated')\n"))
    assert (last.error, last.stdout, main.error, main.stdout) == (None, "all\n", None, "main\n")
    assert (decorated.error, decorated.stdout) == (None, "decorated\n"), "the decorator's line is the statement's"


def test_a_hang_is_stopped_with_its_output_and_line_and_a_crash_is_reported(tmp_path, caplog):
    (tmp_path / "snippets").mkdir()
    runner = Runner(Settings(tmp_path / "snippets", tmp_path / "cache", timeout=3, preload=()))
    runner.heartbeat = 1
    try:
        hang = snippet(tmp_path, "hang.py", "print('started')\nimport time\nwhile True:\n    time.sleep(0.1)\n")
        with caplog.at_level(logging.INFO, logger="mkdocs.plugins.snippets"):
            result = runner.run(hang)
        assert result.error["type"] == "SnippetTimeout" and result.error["line"] == 4
        assert "timeout" in result.error["message"] and result.stdout == "started\n"
        assert "snippet hang.py still running after 1 s" in caplog.text
        assert runner.run(hang).cached, "a failure is remembered like a success"
        crash = runner.run(snippet(tmp_path, "crash.py", "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n"))
        assert crash.error["type"] == "ChildProcessError" and "SIGSEGV" in crash.error["message"]
        assert "Fatal Python error" in crash.error["traceback"], "faulthandler's report is kept"
    finally:
        runner.close()


def test_output_is_capped_head_and_tail(engine, tmp_path):
    path = snippet(tmp_path, "loud.py", "print('x' * 10_000_000)\nfor i in range(100_000):\n    print(i)\n")
    result = engine.run(path)
    text = result.stdout
    assert len(text) < 25_000 and text.startswith("xxx") and text.endswith("99999\n")
    assert re.search(r"… [\d,]+ lines of output cut here …", text)


def test_a_killed_worker_is_restarted_once_then_the_snippet_fails(engine, tmp_path):
    killer = snippet(tmp_path, "killer.py", "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n")
    result = engine.run(killer)
    assert result.error["type"] == "WorkerDied" and "twice" in result.error["message"]
    assert engine.run(snippet(tmp_path, "fine.py", "print('fine')\n")).stdout == "fine\n"


def test_a_corrupt_or_vanished_cache_is_a_miss(engine, tmp_path):
    path = snippet(tmp_path, "cached.py", "print('cached')\n")
    assert not engine.run(path).cached and engine.run(path).cached
    for entry in (tmp_path / "cache").glob("*.json"):
        entry.write_text('{"path": "cached.py", "deps": {')
    again = engine.run(path)
    assert not again.cached and again.stdout == "cached\n"
    for entry in (tmp_path / "cache").glob("*.json"):
        entry.unlink()
    (tmp_path / "cache").rmdir()
    assert not engine.run(path).cached and engine.run(path).cached


def test_a_data_file_the_snippet_reads_is_a_dependency_even_before_it_exists(engine, tmp_path):
    data = tmp_path / "results" / "numbers.json"
    path = snippet(tmp_path, "show.py", "import json, pathlib\n"
                   "path = pathlib.Path(__file__).parents[1] / 'results' / 'numbers.json'\n"
                   "try:\n"
                   "    print(sum(json.loads(path.read_text())))\n"
                   "except FileNotFoundError:\n"
                   "    print('no data')\n"
                   "pathlib.Path('scratch.txt').write_text('written, not read')\n")
    assert engine.run(path).stdout == "no data\n" and engine.run(path).cached
    data.parent.mkdir()
    data.write_text("[1, 2]")
    first = engine.run(path)
    assert first.stdout == "3\n" and [str(d) for d in first.deps] == [str(data)]
    assert engine.run(path).cached
    data.write_text("[1, 2, 3]")
    assert engine.run(path).stdout == "6\n"


# The plugin, on a site with the real mkdocs.yml


def test_every_failure_is_on_the_page_and_listed_once_and_the_strict_build_fails(project):
    project.write("snippets/broken.py", "print('about to fail')\nscale = 0\nprint(1 / scale)\n")
    project.write("snippets/sections.py", "# --8<-- [start:open]\nprint('never closed')\n")
    project.write("docs/index.md", PAGE.format("broken.py") + PAGE.format("broken.py") + PAGE.format("broken.py")
                  + PAGE.format("sections.py:open") + PAGE.format("sections.py:nothing") + PAGE.format("brokn.py"))
    done = build(project)
    assert done.returncode != 0
    log = done.stderr
    assert ran(log).count("broken.py") == 1, "a snippet included three times runs once"
    assert f"index.md:3: snippet {project.root}/snippets/broken.py:3: ZeroDivisionError" in log
    assert log.count("index.md:3: snippet") == 2, "logged once, and listed once in the summary"
    assert "index.md:8: snippet" not in log and "index.md:13: snippet" not in log
    assert 'line 3, in <module>' in log and "Traceback (most recent call last)" in log
    assert "section 'open' is opened on line 1 but never closed: add '# --8<-- [end:open]'" in log
    assert "has no section 'nothing'" in log and "its sections: open" in log
    assert 'snippets/brokn.py does not exist. Did you mean "broken.py"?' in log
    assert "4 snippet failure(s)" in log
    second = build(project)
    assert ran(second.stderr) == [], "an unchanged failing snippet does not run again"


def test_a_snippet_python_cannot_parse_fails_on_its_page_and_the_build_goes_on(project):
    project.write("snippets/unparsable.py", "print('a'\n")
    (project.root / "snippets" / "latin1.py").write_bytes("print('café')\n".encode("latin-1"))
    project.write("snippets/unused.py", "def broken(:\n")  # no page includes it: an error all the same
    project.write("docs/index.md", PAGE.format("unparsable.py") + PAGE.format("latin1.py"))
    done = build(project)
    assert done.returncode != 0 and "3 snippet failure(s)" in done.stderr, done.stderr
    assert "mkdocs/__main__.py" not in done.stderr, "the build ends with its list of failures, not a crash"
    assert f"index.md:3: snippet {project.root}/snippets/unparsable.py:1: SyntaxError" in done.stderr
    assert f"index.md:8: snippet {project.root}/snippets/latin1.py" in done.stderr
    page = (project.root / "site" / "index.html").read_text()
    assert page.count("This snippet failed") == 2 and "SyntaxError" in page


def test_an_include_outside_snippets_is_an_error_naming_the_page_and_single_quotes_are_includes(project):
    project.write("snippets/inside.py", "print('inside')\n")
    project.write("snippets/quoted.py", "print('single quotes run too')\n")
    project.write("docs/index.md", PAGE.format("../mkdocs.yml") + PAGE.format("/etc/hostname")
                  + PAGE.format("../docs/index.md") + PAGE.format("inside.py")
                  + PAGE.replace('"{}"', "'{}'").format("quoted.py"))
    done = build(project)
    assert "4 snippet failure(s)" not in done.stderr and "3 snippet failure(s)" in done.stderr, done.stderr
    for line, file in ((3, "../mkdocs.yml"), (8, "/etc/hostname"), (13, "../docs/index.md")):
        assert f'index.md:{line}: the include "{file}": {file} is outside snippets/' in done.stderr
    page = (project.root / "site" / "index.html").read_text()
    assert "site_name" not in page and "inside" in page
    assert "single quotes run too</code>" in page, "a single-quoted include (pymdownx syntax) is run as well"


def test_snippets_run_at_once_with_the_outputs_of_one_at_a_time(tmp_path, tmp_path_factory):
    """Two snippets that can only finish together (each waits for the other's file, outside the
    project, which a snippet may not change) finish with two workers; the chapter's snippets give
    the same outputs with one or two: byte for byte, but for the SVG of a torchviz graph, whose
    node ids are `id()`s, different in every run (its structure, GRAPH, is compared)."""
    meet = tmp_path_factory.mktemp("meet")
    (tmp_path / "snippets").mkdir()
    waits = [snippet(tmp_path, f"wait_{n}.py", textwrap.dedent(f"""\
        import pathlib, time
        pathlib.Path({str(meet / str(n))!r}).touch()
        while not pathlib.Path({str(meet / str(1 - n))!r}).exists():
            time.sleep(0.01)
        print("met")
        """)) for n in (0, 1)]
    parallel = Runner(Settings(tmp_path / "snippets", timeout=60, preload=(), workers=2))
    try:
        assert [r.stdout for r in parallel.run_all([(p, frozenset()) for p in waits])] == ["met\n", "met\n"]
    finally:
        parallel.close()
    chapter = sorted((SNIPPETS / "autograd_basics").glob("*.py"))[:6]
    outputs = []
    for workers in (1, 2):
        runner = Runner(Settings(SNIPPETS, workers=workers))
        try:
            results = runner.run_all([(p, frozenset()) for p in chapter])
            for output in (i["output"] for r in results for i in r.outputs):
                if GRAPH in output.get("data", {}):
                    del output["data"]["image/svg+xml"]
            outputs.append([json.dumps(r.outputs) for r in results])
        finally:
            runner.close()
    assert outputs[0] == outputs[1]


def test_workers_import_the_preload_ahead_only_when_one_runs_more_than_one_snippet(tmp_path):
    """An edit that makes one snippet run in `mkdocs build` starts workers that import nothing
    ahead; a batch of more snippets than workers restarts them with `preload`; under serve (not
    `once`) they import it for one snippet too. The outputs are the same: the kinds hook
    matplotlib when the snippet imports it, its SVG ids salted alike either way."""
    (tmp_path / "snippets").mkdir()
    code = textwrap.dedent("""\
        import sys
        print("wave" in sys.modules)
        import matplotlib.pyplot as plt
        plt.plot([1, 2])
        plt.show()
        """)
    runner = Runner(Settings(tmp_path / "snippets", tmp_path / "cache", preload=("wave", "matplotlib.pyplot"), workers=2))
    try:
        (alone,) = runner.run_all([(snippet(tmp_path, "alone.py", code), frozenset())], once=True)
        batch = runner.run_all([(snippet(tmp_path, f"batch_{n}.py", code), frozenset()) for n in range(3)], once=True)
    finally:
        runner.close()
    serving = Runner(Settings(tmp_path / "snippets", tmp_path / "cache", preload=("wave", "matplotlib.pyplot"), workers=2))
    try:
        (served,) = serving.run_all([(snippet(tmp_path, "served.py", code), frozenset())])
    finally:
        serving.close()
    assert alone.stdout == "False\n" and [r.stdout for r in [*batch, served]] == ["True\n"] * 4
    figures = [[i["output"]["data"]["image/svg+xml"] for i in r.outputs if kind(i["output"]) == "figure"]
               for r in [alone, *batch, served]]
    assert figures[0] and all(f == figures[0] for f in figures)


def test_an_edit_stops_the_run_of_the_old_version_and_a_restored_one_runs_again(tmp_path):
    """One worker, held by an endless loop: the edited snippet's run stops the loop's at once
    (it fails as SnippetCancelled, which is not cached) and runs in the same worker; the loop
    restored runs again, and is stopped again by the next edit."""
    (tmp_path / "snippets").mkdir()
    runner = Runner(Settings(tmp_path / "snippets", tmp_path / "cache", preload=(), workers=1))
    loop, fixed = "print('spinning', flush=True)\nwhile True:\n    pass\n", "print('fixed')\n"
    path = snippet(tmp_path, "spin.py", loop)
    try:
        first, _ = runner.start(path)
        time.sleep(1)  # running in the worker by now
        path.write_text(fixed)
        second, started = runner.start(path)
        assert started and second.result(timeout=30).stdout == "fixed\n"
        stopped = first.result(timeout=5)
        assert stopped.error["type"] == "SnippetCancelled" and runner.cached(path) is not None
        path.write_text(loop)
        assert runner.cached(path) is None, "a stopped run is not cached"
        third, started = runner.start(path)
        time.sleep(1)
        assert started and not third.done()
        path.write_text(fixed)
        runner.start(path)
        assert third.result(timeout=5).error["type"] == "SnippetCancelled"
    finally:
        runner.close()


def test_warm_starts_every_worker_with_the_preload_before_a_snippet_asks(tmp_path):
    """Under serve the plugin warms the workers after each build: the next edit's snippets find
    them running, their preload imported, and restart none (each worker once took ~4 s here)."""
    (tmp_path / "snippets").mkdir()
    runner = Runner(Settings(tmp_path / "snippets", tmp_path / "cache", preload=("wave",), workers=2))
    try:
        runner.warm()
        pids = [worker.proc.pid for worker in runner.workers if worker.proc and worker.proc.poll() is None]
        assert len(pids) == 2, "warm() started both workers"
        code = "import sys\nprint('wave' in sys.modules)\n"
        results = runner.run_all([(snippet(tmp_path, f"edit_{n}.py", code), frozenset()) for n in range(4)])
        assert [r.stdout for r in results] == ["True\n"] * 4
        assert [worker.proc.pid for worker in runner.workers if worker.proc] == pids, "no worker was started again"
    finally:
        runner.close()


def test_torch_compile_keeps_its_kernels_and_headers_where_python_snippet_py_would(engine, tmp_path):
    """The snippets' temporary files go to the worker's own folder, removed with it; torch.compile's
    cache and C++ headers do not: they are where plain Python keeps them, shared by every worker
    and by later runs (performance/fused_elu_check.py ran in 9.1 s when each worker compiled the
    headers anew, 2.8 s now). OpenMP's threads wait without spinning (runner.Worker.start)."""
    from torch._inductor.runtime.cache_dir_utils import default_cache_dir

    code = textwrap.dedent("""\
        import os, tempfile
        from torch._inductor import codecache
        print(os.environ['TORCHINDUCTOR_CACHE_DIR'])
        print(tempfile.gettempdir())
        print(os.path.realpath(codecache._HEADER_DIR))
        print(os.environ['OMP_WAIT_POLICY'])
        """)
    cache, scratch, headers, wait = engine.run(snippet(tmp_path, "where.py", code)).stdout.splitlines()
    assert cache == default_cache_dir()
    assert not cache.startswith(scratch)
    assert headers == os.path.join(default_cache_dir(), "precompiled_headers")
    assert wait == "PASSIVE"


def test_a_worker_starts_where_torchs_cache_folder_cannot_be_linked(tmp_path, monkeypatch):
    """A file where torch's cache folder would be: no link, the snippet runs all the same."""
    import tempfile

    from snippet_engine.runner import inductor_cache_dir

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    in_the_way = tmp_path / os.path.basename(inductor_cache_dir())
    in_the_way.write_text("in the way")
    (tmp_path / "snippets").mkdir()
    runner = Runner(Settings(tmp_path / "snippets", tmp_path / "cache", preload=(), workers=1))
    try:
        assert runner.run(snippet(tmp_path, "runs.py", "print('ran')\n")).stdout == "ran\n"
    finally:
        runner.close()
    assert in_the_way.read_text() == "in the way"


def test_what_the_worker_imported_is_frozen_and_a_snippets_own_garbage_is_collected(engine, tmp_path):
    """The worker freezes what it imported before it forks (a cold build's snippets used some 12%
    less CPU): the child's collections skip it, and collect the snippet's own cycles as
    `python snippet.py` would."""
    code = textwrap.dedent("""\
        import gc

        class Node:
            def __del__(self):
                print("collected")

        a, b = Node(), Node()
        a.other, b.other = b, a
        del a, b
        print(gc.collect() >= 2, gc.get_freeze_count() > 1000)
        """)
    assert engine.run(snippet(tmp_path, "cycle.py", code)).stdout == "collected\ncollected\nTrue True\n"


def test_the_imports_finalizers_are_left_to_the_process_end_and_a_snippets_own_run_at_its_exit(engine, tmp_path):
    """What the worker's imports registered to be finalized at exit (torch's operator libraries)
    is not run in each child; what the snippet registers runs at its exit, after its atexit
    functions, as in `python snippet.py` (where the snippet's globals live until then)."""
    code = textwrap.dedent("""\
        import atexit
        import weakref

        import torch

        class Model:
            pass

        model = Model()
        weakref.finalize(model, print, "finalized")
        atexit.register(print, "atexit")
        print(sum(f.atexit for f in weakref.finalize._registry))
        """)
    assert engine.run(snippet(tmp_path, "finalized.py", code)).stdout == "1\natexit\nfinalized\n"


def test_error_in_an_imported_module_names_both_places(engine, tmp_path):
    snippet(tmp_path, "helper.py", "def explode():\n    raise ValueError('bad value')\n")
    result = engine.run(snippet(tmp_path, "caller.py", "from helper import explode\n\nexplode()\n"))
    message = result.describe()
    root = tmp_path / "snippets"
    assert message.startswith(f"{root}/caller.py:3 (raised in {root}/helper.py:2)")
    assert "ValueError: bad value" in message


def test_cache_reruns_only_the_snippet_that_changed_and_prunes_the_rest(project):
    project.write("snippets/alpha.py", "print('alpha 1')\n")
    project.write("snippets/beta.py", "from helper import WORD\nprint(WORD)\n")
    project.write("snippets/helper.py", "WORD = 'beta 1'\n")
    project.write("docs/index.md", PAGE.format("alpha.py") + PAGE.format("beta.py"))

    def rebuild():
        done = build(project)
        assert done.returncode == 0, done.stderr
        return ran(done.stderr), (project.root / "site/index.html").read_text()

    assert rebuild()[0] == ["alpha.py", "beta.py", "helper.py"]
    assert rebuild()[0] == []
    project.write("snippets/alpha.py", "print('alpha 2')\n")
    log, page = rebuild()
    assert log == ["alpha.py"] and "alpha 2" in page and "beta 1" in page
    project.write("snippets/helper.py", "WORD = 'beta 2'\n")  # a file beta.py imports
    log, page = rebuild()
    assert log == ["beta.py", "helper.py"] and "beta 2" in page
    assert len(list((project.root / ".cache/snippets").glob("*.json"))) == 3, "outdated entries are pruned"


def test_a_section_shows_its_own_output_and_copies_what_it_needs(project):
    project.write("snippets/two_parts.py", """\
        import math
        message = "from the first part"
        unused = math.pi
        # --8<-- [start:first]
        print(message)
        # --8<-- [end:first]
        # --8<-- [start:second]
        print("the second part, after", message.split()[-2:])
        # --8<-- [end:second]
        """)
    project.write("docs/index.md", PAGE.format("two_parts.py:second"))
    assert build(project).returncode == 0
    page = (project.root / "site/index.html").read_text()
    assert "the second part, after" in page and "<code>from the first part" not in page
    assert "1 line of setup" in page
    copy = html.unescape(re.search(r'data-copy="([^"]*)"', page)[1])
    assert copy == 'message = "from the first part"\nprint("the second part, after", message.split()[-2:])\n'


def test_a_page_whose_front_matter_says_so_has_no_notebook(project):
    """The home page shows a chapter's example: it is no chapter, and has no notebook."""
    project.write("snippets/hello.py", 'print("hello")\n')
    project.write("docs/index.md", "---\nnotebook: false\n---\n\n" + PAGE.format("hello.py"))
    project.write("docs/chapter.md", PAGE.format("hello.py"))
    assert build(project).returncode == 0
    site = project.root / "site"
    assert sorted(p.name for p in (site / "notebooks").glob("*.ipynb")) == ["chapter.ipynb"]
    assert "notebook-download" not in (site / "index.html").read_text()
    assert "notebook-download" in (site / "chapter/index.html").read_text()
    shown = BeautifulSoup((site / "index.html").read_text(), "html.parser").select_one(".snippet-stdout code")
    assert shown.get_text().strip() == "hello", "the page still runs its snippet"


def test_a_graphs_svg_file_is_sanitised(project):
    """The page links the graph's SVG file, which a reader may open on its own."""
    project.write("snippets/evil_graph.py", """\
        import graphviz
        g = graphviz.Digraph()
        g.node("a", "click me", URL="javascript:alert(1)")
        g.node("b", "fine", href="https://pytorch.org/")
        g.edge("a", "b")
        g.render("graph", format="svg")
        """)
    project.write("docs/index.md", PAGE.format("evil_graph.py"))
    assert build(project).returncode == 0
    graph = BeautifulSoup((project.root / "site/index.html").read_text(), "html.parser").select_one(".snippet-graph")
    svg = (project.root / "site" / graph.img["src"]).read_text()
    assert graph.a["href"] == graph.img["src"]
    assert "click me" in svg and "javascript:" not in svg and "https://pytorch.org/" in svg


def test_a_recorded_backward_pass_becomes_a_step_through_viewer(project):
    """The viewer's copy of the code numbers its lines as the file does, though the block above
    leaves out the section's marker lines (and the highlighter its leading empty line)."""
    project.write("snippets/watch.py", """\
        import torch
        from autograd_steps import step_through
        # --8<-- [start:watch]

        with torch.autograd.set_detect_anomaly(True, check_nan=False):  # nodes keep the line that made them
            x = torch.ones(2, requires_grad=True)
            y = x * x
            # --8<-- [start:loss]
            loss = y.sum()
            # --8<-- [end:loss]
        step_through(loss)
        # --8<-- [end:watch]
        """)
    project.write("docs/index.md", PAGE.format("watch.py:watch"))
    project.write("docs/other.md", "# Other\n\nNo viewer here.\n")
    assert build(project).returncode == 0
    soup = BeautifulSoup((project.root / "site/index.html").read_text(), "html.parser")
    viewer = soup.select_one("figure.snippet-steps")
    data = json.loads(viewer.select_one("script.snippet-steps__data").string)
    names = [viewer.select_one(f'svg [data-node="{step["node"]}"] text').string for step in data["steps"]]
    assert names == ["SumBackward0", "MulBackward0", "AccumulateGrad"], "the order backward ran them, ids as data-node"
    assert len(viewer.select("svg [data-edge]")) == len(data["edges"]) == 3, "x * x: two edges to x"
    assert not viewer.select("svg [id], svg [class]")
    copy = {int(line["data-line"]): line.contents[1].get_text().strip()
            for line in viewer.select(".snippet-steps__code [data-line]")}
    assert list(copy) == [6, 7, 9, 11], "from the first line that made a node, without the marker lines"
    made = {name: copy[data["lines"][step["node"]]] for name, step in zip(names, data["steps"])}
    assert made == {"SumBackward0": "loss = y.sum()", "MulBackward0": "y = x * x",
                    "AccumulateGrad": "x = torch.ones(2, requires_grad=True)"}
    table = viewer.select_one("details.snippet-steps__table")
    assert table.has_attr("open") and table.summary.string == "All steps as a table"
    rows = [[td.get_text(" ", strip=True) for td in tr.select("td")] for tr in table.select("tbody tr")]
    assert [row[:3] for row in rows] == [["1", "SumBackward0", "9 loss = y.sum()"],
                                         ["2", "MulBackward0", "7 y = x * x"],
                                         ["3", "AccumulateGrad (x)", "6 x = torch.ones(2, requires_grad=True)"]]
    assert rows[2][3] == "[1, 1] + [1, 1] = [2, 2]", "where two paths meet, the table adds them up"
    assert viewer.select_one(".snippet-steps__viewer").has_attr("hidden"), "the controls wait for the script"
    head = str(soup.head)
    assert "snippet-engine/steps.js" in head and "snippet-engine/steps.css" in head
    other = (project.root / "site/other/index.html").read_text()
    assert "snippet-steps" not in other, "only a page with a viewer loads its script"


def test_missing_dot_or_emoji_font_says_how_to_install_it(project, tmp_path_factory):
    empty = tmp_path_factory.mktemp("empty-path")
    check = subprocess.run([sys.executable, "-m", "snippet_engine.system_tools"], capture_output=True, text=True,
                           env={"PATH": str(empty)})
    assert check.returncode == 1
    assert "apt-get install graphviz" in check.stderr and "brew install graphviz" in check.stderr
    browser = subprocess.run([sys.executable, "-m", "snippet_engine.system_tools", "--browser"], capture_output=True,
                             text=True, env={"PATH": str(empty)})
    assert browser.returncode == 1 and "apt-get install fonts-noto-color-emoji" in browser.stderr
    assert "apt-get install chromium-headless-shell" in browser.stderr
    project.write("docs/index.md", "# Page\n")
    done = mkdocs(project.root, "build", env={"PATH": str(empty)})
    assert done.returncode != 0 and "conda install -c conda-forge graphviz" in done.stderr


# Processes: nothing is left behind


def children(pid):
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    return [int(p) for p in found]


def alive(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            return "zombie" not in f.read()
    except FileNotFoundError:
        return False


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_stopping_mkdocs_stops_the_worker_and_the_snippet_and_leaves_nothing(project, sig):
    project.write("snippets/spin.py", "print('spinning')\nwhile True:\n    pass\n")
    project.write("docs/index.md", PAGE.format("spin.py"))
    scratch = project.root / "tmp"  # the engine's temporary folders, apart from other tests'
    scratch.mkdir()
    server = subprocess.Popen([sys.executable, "-m", "mkdocs", "build"], cwd=project.root, text=True,
                              stderr=subprocess.DEVNULL,
                              env={**os.environ, "NO_MKDOCS_2_WARNING": "1", "TMPDIR": str(scratch)})
    deadline, workers, snippets = time.monotonic() + 60, [], []
    while not snippets and time.monotonic() < deadline:
        time.sleep(0.2)
        workers = children(server.pid)
        snippets = [c for w in workers for c in children(w)]
    assert snippets, "the worker is running the snippet"
    stopped = time.monotonic()
    server.send_signal(sig)
    while any(map(alive, [server.pid, *workers, *snippets])) and time.monotonic() - stopped < 15:
        time.sleep(0.05)
    # Not a timing test: 15 s tells a stop from a hang (it takes well under 2 s here).
    assert not any(map(alive, [server.pid, *workers, *snippets])), "MkDocs, the worker and the snippet stop"
    server.wait()
    assert not list(scratch.iterdir()), "no temporary folder is left"


def stop(server, sig=signal.SIGINT):
    """Stop a server the test started as a reader would (Ctrl-C's SIGINT, or SIGTERM): its exit
    status and its log. One that has not stopped 30 s later is killed, with what it started,
    and the test fails: nothing is left running."""
    server.send_signal(sig)
    try:
        log = server.communicate(timeout=30)[1]
    except subprocess.TimeoutExpired:
        running = [server.pid]
        for pid in running:  # grows as it goes: the worker's snippets too
            running += children(pid)
        for pid in running:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        server.communicate()
        raise AssertionError(f"{' '.join(server.args[1:])} did not stop on {sig.name} within 30 s") from None
    return server.returncode, log


def serve(project, *args, **env):
    """`mkdocs serve` of the project on a free port of 127.0.0.1 (`args` added): the server, whose
    log `stop` returns, and the site's URL."""
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", *args, "-a", f"127.0.0.1:{port}"],
                              cwd=project.root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "NO_MKDOCS_2_WARNING": "1", **env})
    return server, f"http://127.0.0.1:{port}/"


def fetch_until(url, text, timeout=90):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            page = urllib.request.urlopen(url, timeout=5).read().decode()
            if text in page:
                return page
        except OSError:
            pass
        time.sleep(0.5)
    raise AssertionError(f"{url} never showed {text!r}")


def test_serve_shows_a_broken_snippet_on_the_page_keeps_serving_and_recovers(project):
    """`mkdocs serve` with the real, strict mkdocs.yml."""
    project.write("snippets/wobbly.py", "print('working')\n")
    project.write("docs/index.md", PAGE.format("wobbly.py"))
    server, url = serve(project, "--livereload")
    try:
        fetch_until(url, "working")
        time.sleep(1)  # the file watcher starts after the first build
        project.write("snippets/wobbly.py", "raise RuntimeError('not yet')\n")
        page = fetch_until(url, "This snippet failed")
        assert "RuntimeError: not yet" in page and "wobbly.py:1" in page
        project.write("docs/index.md", PAGE.format("wobbly.py:missing"))
        assert "has no section" in fetch_until(url, "This code block cannot be shown")
        project.write("snippets/wobbly.py", "print('fixed now')\n")
        project.write("docs/index.md", PAGE.format("wobbly.py"))
        fetch_until(url, "fixed now")
        # A data file a snippet starts reading after the first build: its folder is watched too.
        project.write("data/reading.txt", "first reading")
        project.write("snippets/wobbly.py", "from pathlib import Path\n"
                      "print((Path(__file__).parents[1] / 'data' / 'reading.txt').read_text())\n")
        fetch_until(url, "first reading")
        time.sleep(1)
        project.write("data/reading.txt", "second reading")
        fetch_until(url, "second reading")
        assert server.poll() is None
        workers = children(server.pid)
    finally:
        _, log = stop(server)
    assert workers and not any(map(alive, workers)), "Ctrl-C stops the worker too"
    assert "index.md:3: snippet" in log and "RuntimeError: not yet" in log
    assert "Aborted" not in log and "appear stuck" not in log


def test_serve_shows_a_slow_snippet_as_running_and_its_output_when_it_ends(project):
    """A request never waits for a snippet: the snippet here ends only when the test says so."""
    go = project.root / "go"
    project.write("snippets/slow.py", f"import pathlib, time\nwhile not pathlib.Path({str(go)!r}).exists():\n"
                  "    time.sleep(0.1)\nprint('slow', 'done')\n")
    project.write("snippets/quick.py", "print('quick', 'done')\n")
    project.write("docs/index.md", PAGE.format("quick.py") + "\n" + PAGE.format("slow.py").partition("\n")[2])
    server, url = serve(project)
    try:
        page = fetch_until(url, "quick done")
        assert "slow.py is still running" in page and "slow done" not in page
        go.touch()
        assert "still running" not in fetch_until(url, "slow done")
    finally:
        _, log = stop(server)
    assert "Aborted" not in log and "ERROR" not in log


def test_serve_stops_the_run_of_an_endless_loop_once_it_is_fixed(project):
    """With one worker, the loop would hold it until its timeout (10 minutes), and the fixed
    version would wait for it: the edit stops the old run at once, and the fix shows within
    its own run time; nothing of the loop is left running."""
    config = yaml.safe_load((project.root / "mkdocs.yml").read_text())
    next(p for p in config["plugins"] if isinstance(p, dict) and "snippets" in p)["snippets"]["workers"] = 1
    (project.root / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    project.write("snippets/spin.py", "print('spinning')\nwhile True:\n    pass\n")
    project.write("docs/index.md", PAGE.format("spin.py"))
    server, url = serve(project)
    try:
        fetch_until(url, "spin.py is still running")
        (worker,) = children(server.pid)
        assert children(worker), "the worker runs the loop"
        time.sleep(1)  # the file watcher starts after the first build
        project.write("snippets/spin.py", "print('fixed', 'now')\n")
        page = fetch_until(url, "fixed now", timeout=30)
        assert "still running" not in page
        assert children(server.pid) == [worker] and children(worker) == [], "the same worker, idle"
    finally:
        _, log = stop(server)
    assert "snippet spin.py was stopped: its code changed while it ran" in log
    assert "Aborted" not in log and "ERROR" not in log


def test_sigterm_stops_serve_as_ctrl_c_does_leaving_no_temporary_site_and_no_worker(project):
    project.write("snippets/shown.py", "print('shown')\n")
    project.write("docs/index.md", PAGE.format("shown.py"))
    scratch = project.root / "tmp"  # where serve builds its temporary site
    scratch.mkdir()
    server, url = serve(project, TMPDIR=str(scratch))
    try:
        fetch_until(url, "shown")
        workers = children(server.pid)
        assert [p.name for p in scratch.iterdir() if p.name.startswith("mkdocs_")], "serve's site is there"
    finally:
        status, _ = stop(server, signal.SIGTERM)
    assert status == 128 + signal.SIGTERM
    assert workers and not any(map(alive, workers))
    assert not list(scratch.iterdir()), "no temporary site or folder is left"


def test_a_warning_repeated_in_a_row_shows_once_counted_and_again_later_by_its_first_sentence():
    from snippet_engine.kinds import outputs_html
    from snippet_engine.kinds.warning import WARNING
    from snippet_engine.pages import PageHtml

    warning = {"output_type": "display_data", "data": {WARNING: {
        "category": "UserWarning", "message": "First sentence. Second sentence."}}}
    printed = {"output_type": "stream", "name": "stdout", "text": "None\n"}
    site = PageHtml("page/", {})
    first = BeautifulSoup(outputs_html([warning, warning, warning, printed], site), "html.parser")
    again = BeautifulSoup(outputs_html([printed, warning], site), "html.parser")
    other = BeautifulSoup(outputs_html([warning], PageHtml("other/", {})), "html.parser")
    assert [b.get_text(" ") for b in first.select(".snippet-warning")] == [
        "UserWarning (3 times) First sentence. Second sentence."]
    assert [b.get_text(" ") for b in again.select(".snippet-warning")] == [
        "UserWarning The same warning as above: First sentence."]
    assert other.select_one(".snippet-warning p + p").get_text() == "First sentence. Second sentence."


def test_sigterm_ends_the_process_after_its_finally_blocks_without_freeing_what_it_holds():
    """What a large snippet's copies leave in memory took seconds to free one object at a time."""
    code = textwrap.dedent("""\
        import os, signal
        from snippet_engine.plugin import stop

        class Held:
            def __del__(self):
                print("freed", flush=True)

        held = Held()
        signal.signal(signal.SIGTERM, stop)
        try:
            os.kill(os.getpid(), signal.SIGTERM)
        finally:
            print("finally", flush=True)
        """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 128 + signal.SIGTERM and done.stdout == "finally\n", done
