"""Bad input to the snippet engine: each behaves as plain `python snippet.py` would, or fails once,
clearly, naming the file and the line, and the next run is healthy."""

import errno
import html
import json
import logging
import os
import re
import signal
import subprocess
import sys
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
import yaml
from conftest import ROOT, STEP_THROUGH, mkdocs, sharing, snippet
from nbclient import NotebookClient

from autograd_steps.recording import MAX_NODES
from snippet_engine import cache_file, kinds, torch_settings
from snippet_engine.kinds import outputs_html
from snippet_engine.pages import PageHtml
from snippet_engine.render import safe_svg
from snippet_engine.runner import Runner
from snippet_engine.shapes import Settings
from snippet_engine.worker import REFUSED

WORKER_PRELOAD = ()  # the worker of this file's runners imports no torch: a timeout of 3 s keeps them quick


@pytest.fixture
def engine(tmp_path, worker):
    """A runner over tmp_path/snippets with a cache and a 3 s timeout, sharing the worker."""
    return sharing(worker, tmp_path, timeout=3, preload=())


def healthy(engine, tmp_path):
    return engine.run(snippet(tmp_path, "healthy.py", "print('next')\n")).stdout == "next\n"


def test_a_thread_or_process_left_running_fails_as_still_running(engine, tmp_path):
    threads = snippet(tmp_path, "thread.py", """\
import threading, time
def wait():
    time.sleep(1000)
threading.Thread(target=wait).start()
threading.Thread(target=time.sleep, args=(0.5,)).start()
print("main done")
""")
    result = engine.run(threads)
    assert result.stdout == "main done\n"
    assert result.error["type"] == "SnippetTimeout" and result.error["line"] == 3
    assert result.error["message"].startswith("still running after its code ended: thread 'Thread-1 (wait)' (at line 3)")
    process = snippet(tmp_path, "process.py", """\
import multiprocessing, time
if __name__ == "__main__":
    multiprocessing.Process(target=time.sleep, args=(1000,)).start()
""")
    assert "process 'Process-1'" in engine.run(process).error["message"]
    brief = snippet(tmp_path, "brief.py", "import threading, time\n"
                    "threading.Thread(target=lambda: (time.sleep(0.5), print('waited for'))).start()\n")
    result = engine.run(brief)
    assert result.error is None and result.stdout == "waited for\n", "a thread that ends is waited for"
    assert healthy(engine, tmp_path)


def test_a_snippet_killed_from_outside_says_so_and_runs_again_next_time(engine, worker, tmp_path, tmp_path_factory):
    """As the out-of-memory killer would: SIGKILL well before the timeout. Not cached: the next
    build runs it again; serve's rebuilds in one session do not, unless it changes. Its runs
    are counted in a file outside the project (tmp_path), which a snippet may not change."""
    runs = tmp_path_factory.mktemp("counted") / "runs"
    code = f"import os, signal\nopen({str(runs)!r}, 'a').write('x')\nos.kill(os.getpid(), signal.SIGKILL)\n"
    path = snippet(tmp_path, "oom.py", code)
    result = engine.run(path)
    assert result.error["type"] == "SnippetKilled"
    assert "killed by signal 9 (SIGKILL), not by the engine: out of memory?" in result.error["message"]
    assert engine.run(path).error["type"] == "SnippetKilled" and runs.read_text() == "x", "one run per session"
    next_build = sharing(worker, tmp_path, timeout=3, preload=())  # the same cache
    assert next_build.run(path).error["type"] == "SnippetKilled" and runs.read_text() == "xx", "run again"
    snippet(tmp_path, "oom.py", code + "# edited\n")
    engine.run(path)
    assert runs.read_text() == "xxx", "an edited snippet is run again"
    assert healthy(engine, tmp_path)


def test_a_crash_keeps_the_flushed_output_and_names_the_line(engine, tmp_path):
    path = snippet(tmp_path, "segfault.py", """\
import ctypes, sys
print("before the crash", flush=True)
print("to stderr", file=sys.stderr)
def crash():
    ctypes.string_at(0)
crash()
""")
    result = engine.run(path)
    assert result.error["type"] == "ChildProcessError" and result.error["line"] == 5
    assert "killed by signal 11 (SIGSEGV)" in result.error["message"]
    assert result.stdout == "before the crash\n" and result.seconds > 0
    assert result.error["traceback"].startswith("to stderr\nFatal Python error: Segmentation fault")
    assert result.describe().startswith(f"{path}:5: ChildProcessError")
    assert healthy(engine, tmp_path)


def test_a_loop_that_swallows_the_timeout_is_stopped_with_its_output_and_line(engine, tmp_path):
    path = snippet(tmp_path, "swallow.py", """\
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
print("looping")
while True:
    try:
        time.sleep(0.1)
    except BaseException:
        pass
""")
    result = engine.run(path)
    assert result.error["type"] == "SnippetTimeout" and result.error["line"] in (3, 5, 6, 7)
    assert "still running after 3 s (the `timeout` setting of the snippets plugin)" in result.error["message"]
    assert result.stdout == "looping\n"
    assert healthy(engine, tmp_path)


def test_processes_started_in_a_session_of_their_own_are_killed_too(engine, tmp_path):
    path = snippet(tmp_path, "escape.py", """\
import subprocess
own = subprocess.Popen(["sleep", "300"], start_new_session=True)
# a daemon: its parent (a shell in a session of its own) exits at once
subprocess.run(["setsid", "sh", "-c", "sleep 300 & echo $!"])
print(own.pid)
""")
    result = engine.run(path)
    assert result.error is None
    pids = [int(pid) for pid in result.stdout.split()]
    assert len(pids) == 2
    time.sleep(0.5)
    assert not [pid for pid in pids if os.path.exists(f"/proc/{pid}")], "killed and reaped"
    assert healthy(engine, tmp_path)


def test_a_worker_killed_from_outside_leaves_no_snippet_running_and_no_temporary_folder(tmp_path, tmp_path_factory,
                                                                                          monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    (tmp_path / "snippets").mkdir()
    # the first run writes its pid (outside the project, which a snippet may not change) and spins; the run again prints
    first = tmp_path_factory.mktemp("pids") / "first.pid"
    path = snippet(tmp_path, "spin.py", f"import os, pathlib\nfirst = pathlib.Path({str(first)!r})\n"
                   "if first.exists():\n    print('again')\nelse:\n    first.write_text(str(os.getpid()))\n"
                   "    while True:\n        pass\n")
    engine = Runner(Settings(tmp_path / "snippets", timeout=600, preload=()))
    try:
        with ThreadPoolExecutor(1) as pool:
            running = pool.submit(engine.run, path)
            while (not first.exists() or not first.read_text()) and not running.done():
                time.sleep(0.05)
            os.kill(engine.workers[0].proc.pid, signal.SIGKILL)
            assert running.result(timeout=60).stdout == "again\n", "the worker is started again, once"
        pid = int(first.read_text())
        assert not os.path.exists(f"/proc/{pid}") or "zombie" in Path(f"/proc/{pid}/status").read_text()
    finally:
        engine.close()
    assert not list((tmp_path / "tmp").iterdir()), "the workers' temporary folders are gone"


def test_a_snippet_gets_only_the_named_variables_of_the_environment_and_they_key_its_run(tmp_path, monkeypatch):
    """A token in the build's environment never reaches a snippet (its page, its notebook, the
    search index); what a snippet does get (runner.ENVIRONMENT) keys its run: changed, the run
    is not taken from the cache, and the worker gets the new value."""
    monkeypatch.setenv("SECRET_TOKEN", "s3cr3t")
    monkeypatch.setenv("TZ", "UTC")
    (tmp_path / "snippets").mkdir()
    runner = Runner(Settings(tmp_path / "snippets", tmp_path / "cache", preload=()))
    try:
        path = snippet(tmp_path, "environment.py", "import os\nprint(os.environ.get('SECRET_TOKEN'), os.environ['TZ'])\n")
        assert runner.run(path).stdout == "None UTC\n"
        assert runner.run(path).cached
        monkeypatch.setenv("TZ", "Europe/Paris")
        again = runner.run(path)
        assert not again.cached and again.stdout == "None Europe/Paris\n"
    finally:
        runner.close()


def test_control_characters_are_shown_escaped_on_the_page(engine, tmp_path):
    path = snippet(tmp_path, "controls.py", r"""print("nul\x00 bell\x07 title\x1b]0;hi\x07 tab\tend")""" + "\n")
    result = engine.run(path)
    assert result.stdout == "nul\x00 bell\x07 title\x1b]0;hi\x07 tab\tend\n", "the output is what it printed"
    page = outputs_html(result.select(), PageHtml("page/", {}))
    assert r"nul\x00 bell\x07 title\x1b]0;hi\x07 tab" + "\tend" in page
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", page)


def test_a_graph_graphviz_writes_as_broken_xml_fails_at_the_line_that_renders_it(engine, tmp_path):
    path = snippet(tmp_path, "url.py", "import graphviz\n\ng = graphviz.Digraph()\n"
                   "g.node('a', URL='https://example.org/?a<b')\ng.render('g', format='svg')\n")
    error = engine.run(path).error
    assert error["line"] == 5 and "Graphviz wrote an SVG that is not well-formed XML" in error["message"]
    assert healthy(engine, tmp_path)


def test_display_shows_an_objects_svg_without_its_scripts_and_refuses_broken_svg(engine, tmp_path):
    path = snippet(tmp_path, "pictures.py", """\
class Picture:
    def __init__(self, svg):
        self.svg = svg

    def _repr_svg_(self):
        return self.svg


display(Picture('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" onload="alert(1)">'
                '<script>alert(2)</script><a href="javascript:alert(3)"><rect id="r" width="5" height="5"/></a></svg>'))
display(Picture("<svg><g></svg>"))
""")
    result = engine.run(path)
    assert result.error["line"] == 11 and "display() was given an SVG that is not well-formed XML" in (
        result.error["message"])
    assets: dict[str, bytes] = {}
    page = outputs_html(result.select(), PageHtml("page/", assets))
    (svg,) = assets.values()
    assert '<img src="../assets/snippet-outputs/' in page
    assert b"alert" not in svg and b"onload" not in svg and b'<rect id="r" width="5" height="5"' in svg


def test_a_notebook_holds_what_the_page_shows_of_a_display_an_svg_without_scripts_and_no_html(engine, tmp_path):
    """display() of an object whose SVG and HTML carry scripts: the page shows the SVG without
    them (above) and the object's text, not its HTML; the notebook's cell holds the same."""
    path = snippet(tmp_path, "shown.py", """\
class Shown:
    def _repr_svg_(self):
        return ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" onload="alert(1)">'
                '<script>alert(2)</script><defs><path id="marker" d="M0 0h5"/></defs><use xlink:href="#marker"/></svg>')


class Widget:
    def _repr_html_(self):
        return "<b>widget</b><script>alert(3)</script>"

    def __repr__(self):
        return "Widget()"


display(Shown())
display(Widget())
""")
    result = engine.run(path)
    assert result.error is None, result.error
    picture, widget = (kinds.notebook_output(out) for out in result.select())
    svg = picture["data"]["image/svg+xml"]
    assert "alert" not in svg and 'id="marker"' in svg and '"#marker"' in svg, "a marker's id is kept for its uses"
    assert widget["data"] == {"text/plain": "Widget()"}
    page = outputs_html(result.select(), PageHtml("page/", {}))
    assert "widget</b>" not in page and "Widget()" in page and "alert(3)" not in page


# Scripts an SVG can carry besides <script> and on* handlers: animation elements that set a
# link to a javascript: URL (the full-size file opens on the site's origin), a link whose scheme
# is split by a tab, HTML elements, SVG 1.2's handler, a data: URL of an HTML page.
SVG_SCRIPTS = ['<a><animate attributeName="href" values="javascript:alert(1)"/><text x="10" y="30">click me</text></a>',
               '<a><set attributeName="href" to="javascript:alert(2)"/><text x="10" y="30">click me</text></a>',
               '<a xlink:href=" java&#x09;script:alert(3)"><text x="10" y="30">click me</text></a>',
               '<animateMotion path="M0 0"/><animateTransform attributeName="transform" values="javascript:alert(4)"/>',
               '<image href="data:text/html;base64,PHNjcmlwdD5hbGVydCg1KTwvc2NyaXB0Pg==" width="5" height="5"/>',
               '<handler type="application/ecmascript">alert(6)</handler>',
               '<foreignObject><iframe xmlns="http://www.w3.org/1999/xhtml" src="javascript:alert(7)"/></foreignObject>']


@pytest.mark.parametrize("inline", [True, False], ids=["inline", "as a file"])
def test_an_svg_keeps_what_it_draws_and_no_way_to_run_a_script(inline):
    """render.safe_svg keeps only SVG elements and attributes that draw (an allow-list), links
    to anchors and web pages, and images of data: URLs that are pictures."""
    head = '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="40" height="40">'
    for payload in SVG_SCRIPTS:
        safe = safe_svg(head + payload + "</svg>", inline=inline)
        assert not re.search(r"(?i)script|alert|animate|<set|handler|iframe|data:text", safe), safe
    kept = safe_svg(head + '<a href="https://pytorch.org/"><text x="10" y="30" font-size="12">link</text></a>'
                    '<image href="data:image/png;base64,iVBORw0KGgo=" width="5" height="5"/>'
                    '<g transform="translate(1 1)"><path d="M0 0L5 5" stroke="#000" stroke-width="1.5"/></g></svg>',
                    inline=inline)
    for part in ('href="https://pytorch.org/"', 'font-size="12"', ">link</text>", 'href="data:image/png;base64,',
                 'transform="translate(1 1)"', 'd="M0 0L5 5"', 'stroke-width="1.5"'):
        assert part in kept, (part, kept)


def test_a_step_through_of_a_graph_too_big_to_show_fails_at_its_backward_line(worker, tmp_path):
    engine = sharing(worker, tmp_path, timeout=120, preload=())  # it imports torch: more than 3 s on a busy machine
    path = snippet(tmp_path, "big.py", "import torch\n\nx = torch.ones(2, requires_grad=True)\ny = x\n"
                   f"for _ in range({MAX_NODES}):\n    y = y * 1.0\ny.sum().backward()\nprint(x.grad)\n")
    error = engine.run(path, STEP_THROUGH).error
    assert error["line"] == 7 and error["message"].startswith(
        f"the step-through refuses this graph: it has more than {MAX_NODES:,} nodes (max_nodes={MAX_NODES})")
    assert "backward() has not run" in error["message"]


def test_a_result_is_not_cached_when_a_file_it_read_changed_while_it_ran(engine, tmp_path, tmp_path_factory):
    """The snippet reads data.json, says so (a file outside the project), and runs on while the
    author edits data.json."""
    data, read = tmp_path / "data.json", tmp_path_factory.mktemp("signals") / "read"
    data.write_text("[1]")
    path = snippet(tmp_path, "reads.py", f"import json, pathlib, time\ndata = pathlib.Path({str(data)!r})\n"
                   f"print(json.loads(data.read_text()))\npathlib.Path({str(read)!r}).touch()\ntime.sleep(1)\n")
    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(engine.run, path)
        while not read.exists() and not running.done():
            time.sleep(0.02)
        data.write_text("[2]")
        assert running.result().stdout == "[1]\n"
    assert not engine.run(path).cached, "its digest of data.json would be of [2], its output of [1]"
    data.write_text("[3]")
    path.write_text(f"import json, pathlib\nprint(json.loads(pathlib.Path({str(data)!r}).read_text()))\n")
    assert engine.run(path).stdout == "[3]\n" and engine.run(path).cached


@pytest.mark.parametrize("key, value", [
    ("outputs", [{"line": "1", "output": {"output_type": "stream", "name": "stdout", "text": "x"}}]),
    ("outputs", [{"line": 1, "output": {"output_type": "stream", "name": "stdout", "text": 5}}]),
    ("outputs", {"line": 1}), ("error", {"type": "ValueError"}), ("error", "failed"),
    ("deps", {"data.json": 5}), ("seconds", "fast"), ("path", None)])
def test_a_cache_entry_of_the_wrong_shape_is_a_miss(engine, tmp_path, key, value):
    path = snippet(tmp_path, "cached.py", "print('cached')\n")
    engine.run(path)
    (entry,) = (tmp_path / "cache").glob("*.json")
    data = json.loads(entry.read_text())
    entry.write_text(json.dumps({**data, key: value}))
    again = engine.run(path)
    assert not again.cached and again.stdout == "cached\n" and again.error is None
    assert engine.run(path).cached, "and written again whole"


def test_a_cache_that_cannot_be_written_is_one_note(engine, tmp_path, monkeypatch, caplog):
    path = snippet(tmp_path, "uncached.py", "print('still shown')\n")
    (tmp_path / "cache").mkdir()
    monkeypatch.setattr(cache_file, "failed", [])

    def disk_full(self, target):
        raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as patched, caplog.at_level(logging.INFO, logger="mkdocs.plugins.snippets"):
        patched.setattr(Path, "replace", disk_full)
        assert engine.run(path).stdout == "still shown\n"
        assert engine.run(snippet(tmp_path, "also.py", "print('also')\n")).stdout == "also\n"
    notes = [r for r in caplog.records if "the cache cannot be written" in r.message]
    assert len(notes) == 1 and notes[0].levelno == logging.INFO and "No space left on device" in notes[0].message
    assert not list((tmp_path / "cache").iterdir()), "no temporary file is left"
    (tmp_path / "cache").rmdir()
    (tmp_path / "cache").write_text("a file where the cache folder should be")
    assert engine.run(path).stdout == "still shown\n" and not engine.run(path).cached

    def read_only(self, missing_ok=False):
        raise PermissionError(errno.EROFS, "Read-only file system")

    (tmp_path / "cache").unlink()
    engine.run(path)
    engine.cache.used = set()
    monkeypatch.setattr(cache_file, "failed", [])
    monkeypatch.setattr(Path, "unlink", read_only)
    with caplog.at_level(logging.INFO, logger="mkdocs.plugins.snippets"):
        engine.prune()
    assert "Read-only file system" in caplog.text


def test_a_strict_build_whose_cache_cannot_be_written_passes_with_one_note(project):
    project.write("snippets/shown.py", "print('shown')\n")
    project.write("docs/index.md", "# Page\n\nMath: \\(x^2\\).\n\n```python\n--8<-- \"shown.py\"\n```\n")
    (project.root / ".cache").write_text("a file where the cache folder should be")
    done = mkdocs(project.root, "build", "--strict")
    assert done.returncode == 0 and "WARNING" not in done.stderr, done.stderr
    assert done.stderr.count("the cache cannot be written") == 1
    assert not list(project.root.rglob("*.tmp"))

SURROGATE = 'import sys\nprint("lone \\ud800", file=sys.stderr)\nprint("\\ud800")\n'


def test_a_lone_surrogate_fails_on_stdout_as_in_python(engine, tmp_path):
    path = snippet(tmp_path, "surrogate.py", SURROGATE)
    result = engine.run(path)
    assert result.error["type"] == "UnicodeEncodeError" and result.error["line"] == 3
    assert "surrogates not allowed" in result.error["message"] and "capture.py" not in result.error["traceback"]
    assert result.select()[0]["text"] == "lone \\ud800\n", "stderr escapes it, as Python's does"
    raised = engine.run(snippet(tmp_path, "raised.py", 'raise ValueError("lone \\ud800")\n'))
    assert raised.error["message"] == "lone ?"


def test_a_lone_surrogate_never_breaks_the_build(project):
    project.write("snippets/surrogate.py", SURROGATE)
    project.write("docs/index.md", "# Page\n\n```python\n--8<-- \"surrogate.py\"\n```\n")
    done = mkdocs(project.root, "build", "--strict")
    assert "1 snippet failure(s)" in done.stderr and "UnicodeEncodeError" in done.stderr, done.stderr
    assert "mkdocs/__main__.py" not in done.stderr, "the build ends with its list of failures, not a crash"


def test_a_failing_snippet_no_page_includes_fails_the_build_and_is_not_shipped(project):
    project.write("snippets/shown.py", "print('shown')\n")
    project.write("snippets/unused.py", "print('half')\nraise RuntimeError('broken')\n")
    project.write("docs/index.md", "# Page\n\n```python\n--8<-- \"shown.py\"\n```\n")
    done = mkdocs(project.root, "build", "--strict")
    assert done.returncode != 0 and "1 snippet failure(s)" in done.stderr, done.stderr
    assert f"no page includes snippet {project.root}/snippets/unused.py:2: RuntimeError: broken" in done.stderr
    site = project.root / "site"
    assert (site / "snippets/shown.py").exists() and not (site / "snippets/unused.py").exists()
    assert not [n for n in zipfile.ZipFile(site / "downloads/examples.zip").namelist() if "unused" in n]


@pytest.mark.parametrize("data", ['{"loss": 0.5', b'{"loss": "\xff"}'], ids=["cut short", "not UTF-8"])
def test_a_data_file_that_cannot_be_read_fails_its_snippet_on_its_page_not_the_build(project, data):
    """A copy holds the values of the JSON file its snippet reads (standalone/data.py): one that
    is not JSON (half written, or not UTF-8) is the failure of the snippets that read it, named
    on the page at the block and in the log, even where the snippet handles the error itself
    or no page includes it; the build ends with its list of failures, not a traceback."""
    path = project.root / "snippets" / "data.json"
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    reads = ("import json, pathlib\ntry:\n    print(json.loads((pathlib.Path(__file__).parent / 'data.json')"
             ".read_text(errors='replace')))\nexcept ValueError:\n    print('no data')\n")
    project.write("snippets/shown.py", reads)
    project.write("snippets/unused.py", reads)
    project.write("docs/index.md", "# Page\n\nText.\n\n```python\n--8<-- \"shown.py\"\n```\n")
    done = mkdocs(project.root, "build", "--strict")
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    assert "2 snippet failure(s)" in done.stderr, done.stderr
    assert re.search(r"index\.md:5: snippet \S*shown\.py: DataError: snippets/data\.json cannot be read as JSON", done.stderr)
    assert re.search(r"no page includes snippet \S*unused\.py: DataError: snippets/data\.json", done.stderr)
    page = (project.root / "site" / "index.html").read_text()
    assert "DataError" in page and "snippets/data.json cannot be read as JSON" in page


def test_lines_of_backticks_inside_a_snippet_break_no_block_of_the_page_or_its_notebook(project):
    """A snippet whose strings hold lines of three and four backticks (Markdown written by the
    code): its block is fenced with more, so that those lines close nothing, on the page and on
    the notebook's page, and the blocks after it are blocks."""
    project.write("snippets/markdown.py", 'text = """\n```python\nx = 1\n```\n````\n"""\nprint(text.count("`"))\n')
    project.write("snippets/after.py", "print('after')\n")
    project.write("docs/index.md", "# Page\n\n```python\n--8<-- \"markdown.py\"\n```\n\nText.\n\n"
                                   "```python\n--8<-- \"after.py\"\n```\n")
    done = mkdocs(project.root, "build", "--strict")
    assert done.returncode == 0, done.stderr
    for built in ("index.html", "notebooks/index.html"):
        page = (project.root / "site" / built).read_text()
        assert "<p><code>python" not in page and "title=" not in re.sub(r"<[^>]+>", "", page), built
        copies = re.findall(r'<div data-copy="([^"]*)"', page)
        assert [copy.startswith("text = ") for copy in copies] == [True, False], built
        assert copies[1].strip() == "print(&#x27;after&#x27;)", built
        assert re.search(r'snippet-stdout.*?<code[^>]*>10\n?</code>', page, re.S), built  # the first block's output


@pytest.mark.parametrize("listing", ["os.listdir(data)", "glob.glob(f'{data}/*')", "[e.name for e in os.scandir(data)]",
                                     "[p.name for p in pathlib.Path(data).iterdir()]"])
def test_a_new_file_in_a_folder_a_snippet_lists_runs_it_again(engine, tmp_path, listing):
    data = tmp_path / "data"
    data.mkdir()
    (data / "a.csv").write_text("1")
    path = snippet(tmp_path, "lists.py", f"import glob, os, pathlib\ndata = {str(data)!r}\n"
                   f"print(sorted(os.path.basename(n) for n in {listing}))\n")
    assert engine.run(path).stdout == "['a.csv']\n" and engine.run(path).cached
    (data / "b.csv").write_text("2")
    assert engine.run(path).stdout == "['a.csv', 'b.csv']\n"


def test_a_forked_child_s_reads_are_its_snippet_s_dependencies(engine, tmp_path):
    data = tmp_path / "data.txt"
    data.write_text("old")
    path = snippet(tmp_path, "forks.py", f"import os\nif os.fork() == 0:\n    print(open({str(data)!r}).read())\n"
                   "    os._exit(0)\nos.wait()\n")
    engine.run(path)
    assert engine.run(path).cached
    data.write_text("new")
    assert not engine.run(path).cached


@pytest.mark.parametrize("reads", ["subprocess.run(['cat', data])", "os.system(f'cat {data}')",
                                   "os.fork() or os.execvp('cat', ['cat', data])"])
def test_a_snippet_that_starts_a_program_is_never_cached(engine, tmp_path, reads, caplog):
    """The program's reads are unknown: a cached result could be stale."""
    data = tmp_path / "data.txt"
    data.write_text("old\n")
    path = snippet(tmp_path, "cat.py", f"import os, subprocess, time\ndata = {str(data)!r}\n{reads}\ntime.sleep(0.2)\n")
    with caplog.at_level(logging.INFO, logger="mkdocs.plugins.snippets"):
        engine.run(path)
    assert "it started another program" in caplog.text
    data.write_text("new\n")
    again = engine.run(path)
    assert not again.cached and again.error is None


def test_a_snippet_file_that_links_outside_snippets_is_a_clear_failure(project):
    project.write("snippets/shown.py", "print('shown')\n")
    outside = project.write("elsewhere/linked.py", "print('linked')\n")
    (project.root / "snippets/linked.py").symlink_to(outside)
    project.write("docs/index.md", "# Page\n\n```python\n--8<-- \"shown.py\"\n```\n")
    done = mkdocs(project.root, "build", "--strict")
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    assert f"snippets/linked.py links to {outside}, outside snippets/" in done.stderr
    assert (project.root / "site/snippets/shown.py").exists() and not (project.root / "site/snippets/linked.py").exists()


def test_a_snippet_that_deletes_its_own_file_is_a_clear_failure(project):
    """Deleted by a program it starts (the engine refuses its own code a change to the project,
    test_a_snippet_may_change_no_file_of_the_project_outside_the_folder_it_runs_in)."""
    project.write("snippets/gone.py", "import subprocess\nprint('bye')\nsubprocess.run(['rm', __file__])\n")
    project.write("docs/index.md", "# Page\n\nText.\n\n```python\n--8<-- \"gone.py\"\n```\n")
    done = mkdocs(project.root, "build", "--strict")
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    assert 'index.md:5: the include "gone.py": the included file snippets/gone.py does not exist' in done.stderr
    assert not (project.root / "site/snippets/gone.py").exists()


def test_a_snippet_changed_by_another_during_the_build_fails_it_naming_the_file(project):
    """b.py runs first; a program that a.py starts then rewrites it: the page would show b's new
    code with its old output."""
    project.write("snippets/b.py", "print('old b')\n")
    project.write("snippets/a.py", "import pathlib, subprocess, time\ntime.sleep(1)\nprint('a')\n"
                  "b = pathlib.Path(__file__).with_name('b.py')\n"
                  "subprocess.run(['sh', '-c', 'echo \"print(1)\" > \"$0\"', b])\n")
    project.write("docs/index.md", "# Page\n\n```python\n--8<-- \"a.py\"\n```\n\n```python\n--8<-- \"b.py\"\n```\n")
    done = mkdocs(project.root, "build", "--strict")
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    assert f"index.md:7: snippet {project.root}/snippets/b.py: SnippetChanged: the file changed" in done.stderr


def test_a_program_an_installed_library_starts_keeps_the_result_cached(engine, tmp_path):
    """Graphviz's dot (as torch.compile's compiler) reads what the library gives it."""
    graph = tmp_path / "graph.dot"
    graph.write_text("digraph { a -> b }")
    path = snippet(tmp_path, "draws.py", f"import graphviz\nsvg = graphviz.Source(open({str(graph)!r}).read()).pipe('svg')\n")
    assert engine.run(path).error is None and engine.run(path).cached
    graph.write_text("digraph { a -> c }")
    assert not engine.run(path).cached


def test_an_include_outside_a_fence_fails_the_build_naming_page_and_line(project):
    project.write("snippets/shown.py", "print('shown')\n")
    project.write("docs/index.md", '# Page\n\nProse.\n--8<-- "shown.py"\n\n```python\n--8<-- "missing.py"\n')
    done = mkdocs(project.root, "build", "--strict")
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    assert 'index.md:4: the include "shown.py": an include outside a code block' in done.stderr
    assert 'index.md:7: the include "missing.py": the fence opened on line 6 is never closed' in done.stderr
    page = (project.root / "site/index.html").read_text()
    assert page.count("This code block cannot be shown") == 2 and "print(&#x27;shown&#x27;)" not in page


@pytest.mark.parametrize("setting, value", [("timeout", 0), ("timeout", -1), ("output_limit", -10), ("workers", 0)])
def test_an_invalid_setting_is_a_config_error_naming_it(project, setting, value):
    project.write("docs/index.md", "# Page\n")
    config = yaml.safe_load((project.root / "mkdocs.yml").read_text())
    next(p for p in config["plugins"] if isinstance(p, dict) and "snippets" in p)["snippets"][setting] = value
    (project.root / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    done = mkdocs(project.root, "build", "--strict")
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    assert f"option '{setting}': must be at least 1, not {value}" in done.stderr
    assert "Aborted with a configuration error!" in done.stdout


@pytest.mark.parametrize("module", ["no_such_module", "torch.no_such_module", "no_such_package.module"])
def test_a_preload_module_that_cannot_be_imported_is_a_config_error_naming_it(project, module):
    """Refused at start-up, in a build of one page without snippets too; not "the snippet worker
    died twice" in a larger build, once a worker starts."""
    project.write("docs/index.md", "# Page\n")
    config = yaml.safe_load((project.root / "mkdocs.yml").read_text())
    next(p for p in config["plugins"] if isinstance(p, dict) and "snippets" in p)["snippets"]["preload"] = ["json", module]
    (project.root / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    done = mkdocs(project.root, "build", "--strict")
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    assert f"option 'preload': no module named {module!r} can be imported" in done.stderr, done.stderr
    assert "Aborted with a configuration error!" in done.stdout


def test_the_preload_is_checked_without_importing_it():
    """The real mkdocs.yml's preload (torch._dynamo among it) is found, not imported, by the
    build's own process: importing torch there cost every build, a no-change one too, more than
    a second, for a process that never uses it."""
    code = ("import sys; from mkdocs.config import load_config; config = load_config('mkdocs.yml'); "
            "print(config.plugins['snippets'].config.preload, sorted({'torch', 'matplotlib'} & set(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['torch', 'torch._dynamo', 'torch._inductor.compile_fx', 'matplotlib.pyplot', 'graphviz', 'torchviz'] []"


def test_a_page_with_front_matter_is_named_at_the_lines_of_its_file(project):
    """Lines count from the top of the file, front matter included; the notebook holds none of it."""
    project.write("snippets/fails.py", "print('ran')\nraise ValueError('bad')\n")
    project.write("docs/index.md", '---\nterms: [bad]\n---\n\n# Page\n\n```python\n--8<-- "fails.py"\n```\n'
                  '\n```python\n--8<-- "missing.py"\n')
    done = mkdocs(project.root, "build", "--strict")
    assert done.returncode != 0, done.stderr
    assert f"index.md:7: snippet {project.root}/snippets/fails.py:2: ValueError: bad" in done.stderr
    assert 'index.md:12: the include "missing.py": the fence opened on line 11 is never closed' in done.stderr


def test_a_snippet_may_change_no_file_of_the_project_outside_the_folder_it_runs_in(engine, tmp_path):
    """Rewriting a page, creating one, opening mkdocs.yml to append, deleting or renaming a page,
    removing the docs folder: each refused with a PermissionError at its line, naming the file,
    which stays as it was; a snippet that catches the error fails all the same. A file written in
    the folder it runs in, and the bytecode cache of a helper module it imports, are its own."""
    (tmp_path / "docs").mkdir()
    page, config = tmp_path / "docs" / "a.md", tmp_path / "mkdocs.yml"
    page.write_text("# A\n")
    config.write_text("site_name: A\n")
    root = "from pathlib import Path\nROOT = Path(__file__).resolve().parents[1]\n"
    attempts = {
        "rewrite": ("(ROOT / 'docs' / 'a.md').write_text('changed')", "docs/a.md"),
        "create": ("open(ROOT / 'docs' / 'b.md', 'x').close()", "docs/b.md"),
        "append": ("import os\nos.open(ROOT / 'mkdocs.yml', os.O_WRONLY | os.O_APPEND)", "mkdocs.yml"),
        "delete": ("(ROOT / 'docs' / 'a.md').unlink()", "docs/a.md"),
        "rename": ("(ROOT / 'docs' / 'a.md').rename(ROOT / 'docs' / 'c.md')", "docs/a.md"),
        "remove_tree": ("import shutil\nshutil.rmtree(ROOT / 'docs')", "docs"),
        "touch": ("import os\nos.utime(ROOT / 'docs' / 'a.md', (0, 0))", "docs/a.md"),
        "database": ("import sqlite3\nsqlite3.connect(ROOT / 'docs' / 'data.db')", "docs/data.db"),
    }
    for name, (code, changed) in attempts.items():
        result = engine.run(snippet(tmp_path, f"{name}.py", root + code + "\n"))
        assert result.error["type"] == "PermissionError", (name, result.error)
        assert result.error["line"] == 2 + len(code.splitlines()), (name, result.error)
        assert result.error["message"] == f"[Errno 13] {REFUSED}: '{changed}'", (name, result.error)
    caught = root + "try:\n    (ROOT / 'mkdocs.yml').write_text('x')\nexcept OSError:\n    pass\nprint('went on')\n"
    result = engine.run(snippet(tmp_path, "caught.py", caught))
    assert result.stdout == "went on\n" and result.error["type"] == "PermissionError"
    assert result.error["message"] == f"{REFUSED}: it tried to change mkdocs.yml (refused), and went on past the error"
    assert page.read_text() == "# A\n" and config.read_text() == "site_name: A\n"
    assert sorted(p.name for p in (tmp_path / "docs").iterdir()) == ["a.md"]
    snippet(tmp_path, "helper.py", "WORD = 'own'\n")
    own = "import helper\nwith open('out.txt', 'w') as f:\n    f.write(helper.WORD)\nprint(open('out.txt').read())\n"
    result = engine.run(snippet(tmp_path, "own.py", own))
    assert result.error is None and result.stdout == "own\n", result.error
    assert list((tmp_path / "snippets" / "__pycache__").glob("helper.*.pyc")), "the import system wrote its cache"
    # Run in its own folder, in the project (`cd snippets && python in_place.py`): that folder is its own.
    in_place = "from pathlib import Path\nout = Path('model.txt')\nout.parent.mkdir(parents=True, exist_ok=True)\n" \
               "out.write_text('saved')\nprint(out.read_text())\n"
    result = engine.run_in_place(snippet(tmp_path, "in_place.py", in_place))
    assert result.error is None and result.stdout == "saved\n", result.error
    assert page.stat().st_mtime > 0


def test_a_snippets_message_reaches_the_build_log_with_its_control_characters_shown(project):
    """A failure whose message holds a right-to-left override, an escape that clears the screen
    and a bell: the log, and the list of failures the build ends with, show them as Python
    writes them, as the page does; a terminal reading the log acts on none of them."""
    project.write("snippets/spoof.py", 'raise ValueError("safe\\u202etxt.exe \\x1b[2J\\x07done\\rall fine")\n')
    project.write("docs/index.md", "# Page\n\n```python\n--8<-- \"spoof.py\"\n```\n")
    done = mkdocs(project.root, "build", "--strict")
    assert done.returncode != 0
    assert done.stderr.count(r"ValueError: safe\u202etxt.exe \x1b[2J\x07done") >= 2, done.stderr
    assert r"\x07done\rall fine" in done.stderr, "the log's line is not written over"
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", done.stderr), done.stderr


LEAVES = """\
import torch

torch.set_grad_enabled(False)
torch.autograd.set_detect_anomaly(True)
torch.set_default_dtype(torch.float64)
torch.set_default_device("meta")
torch.set_printoptions(precision=2)
torch.use_deterministic_algorithms(True)
"""


def test_a_run_says_which_of_torchs_settings_its_snippet_leaves_changed(worker, tmp_path):
    """Every setting of torch_settings changed by a snippet is in its Result, and in the Result
    the cache gives back; a snippet that only imports torch, or sets back what it changed, or
    changes a setting inside a `with` block, leaves none changed (the settings' defaults are
    those of a fresh process). Each imports torch itself: a busy machine takes more than the
    3 s of this file's other runners."""
    engine = sharing(worker, tmp_path, timeout=120, preload=())
    path = snippet(tmp_path, "leaves.py", LEAVES)
    left = engine.run(path)
    assert left.error is None and left.leaves == list(torch_settings.SETTINGS)
    again = engine.run(path)
    assert again.cached and again.leaves == left.leaves
    restored = LEAVES + "\n" + torch_settings.restore(torch_settings.SETTINGS)
    for name, code in [("imports.py", "import torch\n"), ("restores.py", restored),
                       ("within.py", "import torch\nwith torch.no_grad():\n    print(torch.is_grad_enabled())\n")]:
        ran = engine.run(snippet(tmp_path, name, code))
        assert ran.error is None and ran.leaves == [], (name, ran.leaves)


@pytest.mark.jupyter
def test_a_notebook_sets_back_what_a_snippet_leaves_changed_before_the_next_snippet(project, tmp_path):
    """A snippet that turns gradient recording off and sets its own print options, then another
    that prints a tensor and one made with recording on: the page shows what each prints in a
    fresh process, and so does the notebook run top to bottom in one kernel, which sets both back
    (with the lines a reader would write, in a cell that shows nothing) before the second one."""
    project.write("snippets/first.py", "import torch\n\ntorch.set_grad_enabled(False)\ntorch.set_printoptions(precision=2)\n"
                                       "print(torch.tensor([1 / 3]))\n")
    project.write("snippets/second.py", "import torch\n\nprint(torch.tensor([1 / 3]))\n"
                                        "print(torch.ones(1, requires_grad=True) * 2)\n")
    project.write("docs/index.md", "# Page\n\n```python\n--8<-- \"first.py\"\n```\n\nText.\n\n"
                                   "```python\n--8<-- \"second.py\"\n```\n")
    done = mkdocs(project.root, "build", "--strict")
    assert done.returncode == 0, done.stderr
    page = (project.root / "site" / "index.html").read_text()
    assert "tensor([0.33])" in page and "tensor([0.3333])" in page and "grad_fn=&lt;MulBackward0&gt;" in page
    notebook = nbformat.read(project.root / "site" / "notebooks" / "index.ipynb", as_version=4)
    stored, ran = executed_as_stored(notebook, tmp_path)
    assert ran == stored
    restore = next(source for source, *_ in stored if "Set back" in source)
    assert restore.endswith('\nimport torch\n\ntorch.set_grad_enabled(True)\ntorch.set_printoptions(profile="default")\n')
    assert "leaves gradient recording off and print options of its own" in restore


def executed_as_stored(notebook, folder):
    """Each code cell of `notebook`: its source and what it showed (the kinds of its outputs but
    text, and its text), as the build stored it and as a kernel gives it, run top to bottom in `folder`."""
    def shown(cells):
        return [(cell.source, [o.output_type for o in cell.outputs if o.output_type != "stream"],
                 "".join(o.get("text", "") for o in cell.outputs)) for cell in cells if cell.cell_type == "code"]

    stored = shown(notebook.cells)
    NotebookClient(notebook, timeout=120, kernel_name="python3", shutdown_kernel="immediate",
                   resources={"metadata": {"path": str(folder)}}).execute()
    return stored[1:], shown(notebook.cells)[1:]  # the install cell's apart: it installs nothing here, and may say so


@pytest.mark.jupyter
def test_a_notebook_keeps_each_snippets_own_meaning_of_a_name_that_two_helpers_and_a_snippet_define(project, tmp_path):
    """Two helper modules define `scale`, each its own way, and a snippet defines a third: the
    notebook, run top to bottom in one kernel, prints what each block prints on the page, each
    snippet taking `scale` from where it imports it: a definition that an earlier cell bound to
    something else is in the cell that needs it, not in the setup cell, which runs first."""
    project.write("snippets/helper_a.py", "def scale(x):\n    return 2 * x\n")
    project.write("snippets/helper_b.py", "def scale(x):\n    return 3 * x\n")
    project.write("snippets/one.py", "from helper_a import scale\n\nprint('a', scale(1))\n")
    project.write("snippets/two.py", "from helper_b import scale\n\nprint('b', scale(1))\n")
    project.write("snippets/three.py", "def scale(x):\n    return 4 * x\n\n\nprint('own', scale(1))\n")
    project.write("snippets/four.py", "from helper_a import scale\n\nprint('a again', scale(1))\n")
    project.write("docs/index.md", "# Page\n\n" + "Text.\n\n".join(f"```python\n--8<-- \"{name}.py\"\n```\n\n"
                                                                   for name in ("one", "two", "three", "four")))
    done = mkdocs(project.root, "build", "--strict")
    assert done.returncode == 0, done.stderr
    notebook = nbformat.read(project.root / "site" / "notebooks" / "index.ipynb", as_version=4)
    stored, ran = executed_as_stored(notebook, tmp_path)
    assert [text for *_, text in stored if text] == ["a 2\n", "b 3\n", "own 4\n", "a again 2\n"]
    assert ran == stored


def test_a_copy_that_may_print_other_than_its_block_is_warned_of_at_the_block(project):
    """A block whose copy leaves out earlier code with an effect the analysis cannot follow
    (a method that changes its class): the build warns naming the page, its line, the block's
    file and section, and the line left out and why; strict, it fails."""
    project.write("snippets/counter.py", "class Counter:\n    made = 0\n\n    def __init__(self):\n"
                                         "        type(self).made += 1\n\n\na = Counter()\nprint('made one')\n"
                                         "# --8<-- [start:count]\nprint(Counter.made)\n# --8<-- [end:count]\n")
    project.write("docs/index.md", "# Page\n\nText.\n\n```python\n--8<-- \"counter.py:count\"\n```\n")
    done = mkdocs(project.root, "build", "--strict")
    assert done.returncode != 0, done.stderr
    assert re.search(r"WARNING +- +index\.md:5: the copy of counter\.py:count may print other than its block: line 8, "
                     r"which the copy leaves out, makes a Counter, whose methods change the class",
                     done.stderr), done.stderr


def test_a_copy_that_reads_a_file_it_does_not_hold_says_which_and_runs_from_the_projects_root(project):
    """A snippet that reads a CSV file beside it (a copy holds a JSON file's values only): its
    copy, and its notebook cell, say which file it reads and where to run it; run as they say,
    from the root of the project's source, the copy prints what the block shows."""
    project.write("snippets/points.csv", "1,2\n3,4\n")
    project.write("snippets/reads.py", "from pathlib import Path\n\nrows = (Path(__file__).parent / 'points.csv')"
                                       ".read_text().split()\nprint(len(rows), 'rows')\n")
    project.write("docs/index.md", "# Page\n\nText.\n\n```python\n--8<-- \"reads.py\"\n```\n")
    done = mkdocs(project.root, "build", "--strict")
    assert done.returncode == 0, done.stderr
    page = (project.root / "site" / "index.html").read_text()
    copy = html.unescape(re.search(r'<div data-copy="([^"]*)"', page)[1])
    assert copy.startswith("# It reads snippets/points.csv: run it from the root of the project's source"), copy
    assert "__file__ = 'snippets/reads.py'  # where this code lives in the repository" in copy
    ran = subprocess.run([sys.executable, "-c", copy], cwd=project.root, capture_output=True, text=True)
    assert ran.stdout == "2 rows\n" and "2 rows" in page, ran.stderr
    notebook = (project.root / "site" / "notebooks" / "index.ipynb").read_text()
    assert "It reads snippets/points.csv" in notebook


def test_large_data_read_by_several_blocks_fills_their_copies_and_not_their_setup_folds(project):
    """A JSON file of some 300 KB that three blocks read: each block's copy holds the values it
    takes and prints what the block shows; the setup fold above each block shows `...` in their
    place and says so, so that the page is not three times the data again in highlighted code.
    A copy this large (over the 128 KB of one argument) cannot run as `python -c`: pasted into a
    file, it runs."""
    values = {"losses": [round(0.5 + i / 7, 6) for i in range(30_000)]}
    project.write("snippets/results.json", json.dumps(values))
    project.write("snippets/reads.py", "import json\nfrom pathlib import Path\n\nlosses = json.loads((Path(__file__).parent"
                  " / 'results.json').read_text())['losses']\n\n" + "".join(
                      f"# --8<-- [start:b{k}]\nprint(len(losses) + {k})\n# --8<-- [end:b{k}]\n\n" for k in range(3)))
    project.write("docs/index.md", "# Page\n\n" + "".join(f"Text.\n\n```python\n--8<-- \"reads.py:b{k}\"\n```\n\n"
                                                      for k in range(3)))
    done = mkdocs(project.root, "build", "--strict")
    assert done.returncode == 0, done.stderr
    page = (project.root / "site" / "index.html").read_text()
    folds = re.findall(r'<details class="snippet-setup">.*?</details>', page, re.S)
    assert len(folds) == 3 and all(len(f) < 5000 and "stands for the data" in html.unescape(re.sub("<[^>]+>", "", f))
                                   for f in folds), [len(f) for f in folds]
    copies = [html.unescape(c) for c in re.findall(r'<div data-copy="([^"]*)"', page)]
    for k, copy in enumerate(copies):
        pasted = project.root / "site" / f"copy{k}.py"
        pasted.write_text(copy)
        ran = subprocess.run([sys.executable, pasted.name], cwd=pasted.parent, capture_output=True, text=True)
        assert len(copy) > 128 * 1024 and ran.stdout == f"{30_000 + k}\n", ran.stderr
    assert len(page) < 3 * len("".join(copies)) + 500_000, "the page is its copies and little more"


@pytest.mark.jupyter
def test_a_helper_whose_class_an_earlier_snippet_defines_too_goes_whole_into_the_cell_that_needs_it(project, tmp_path):
    """A snippet defines its own `Value`; a later one imports `Value` from a helper module that
    defines it and then changes it (`Value.__add__ = add`, a statement that binds no name): all
    that the later cell needs of the helper goes into that cell, so that the notebook, run top to
    bottom, adds as the page does (the change in the setup cell would meet no `Value` yet)."""
    project.write("snippets/vectors.py", "class Value:\n    def __init__(self, v):\n        self.v = v\n\n\n"
                                         "def add(a, b):\n    return Value(a.v + b.v)\n\n\nValue.__add__ = add\n")
    project.write("snippets/first.py", "class Value:\n    pass\n\n\nprint('own', type(Value()).__name__)\n")
    project.write("snippets/second.py", "from vectors import Value\n\nprint((Value(1) + Value(2)).v)\n")
    project.write("docs/index.md", "# Page\n\n```python\n--8<-- \"first.py\"\n```\n\nText.\n\n"
                                   "```python\n--8<-- \"second.py\"\n```\n")
    done = mkdocs(project.root, "build", "--strict")
    assert done.returncode == 0, done.stderr
    notebook = nbformat.read(project.root / "site" / "notebooks" / "index.ipynb", as_version=4)
    stored, ran = executed_as_stored(notebook, tmp_path)
    assert [text for *_, text in stored if text] == ["own Value\n", "3\n"]
    assert ran == stored
