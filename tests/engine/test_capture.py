"""What the worker captures of a running snippet, met as an author meets it: a snippet in a
runner over tmp_path, or in a tiny site."""

import contextlib
import os
import pty
import re
import subprocess
import sys

import pytest
from conftest import ROOT, mkdocs, run_benchmark, sharing, snippet

from snippet_engine.kinds import outputs_html
from snippet_engine.pages import PageHtml

WORKER_PRELOAD = ()  # these snippets import no torch, but one that does it itself


@pytest.fixture
def engine(tmp_path, worker):
    """A runner over tmp_path/snippets with a cache and a 3 s timeout, sharing the worker."""
    return sharing(worker, tmp_path, timeout=3, preload=())


def page(result):
    return outputs_html(result.select(), PageHtml("page/", {}))


BUNDLES = {
    "not a string": ('{"text/plain": 5}', "TypeError", "display() was given int as text/plain, which must be a str"),
    "svg bytes": ('{"image/svg+xml": b"<svg/>"}', "TypeError", "display() was given bytes as image/svg+xml"),
    "not JSON": ('{"application/json": {1, 2}}', "TypeError", "data for application/json that is not JSON"),
    "not a dict": ('["text/plain"]', "TypeError", "_repr_mimebundle_() returned list, not a dict"),
    "a graph": ('{"application/vnd.snippet.graph+json": {"nodes": 1}}', "ValueError",
                "display() was given application/vnd.snippet.graph+json, the engine's own MIME type for graph"),
    "a warning": ('{"application/vnd.snippet.warning+json": "x"}', "ValueError", "for warning output"),
    "a step-through": ('{"application/vnd.snippet.steps+json": {"nodes": []}}', "ValueError", "for steps output"),
}


@pytest.mark.parametrize("bundle, kind, message", BUNDLES.values(), ids=BUNDLES.keys())
def test_display_of_a_bundle_the_page_cannot_show_fails_at_its_line(engine, tmp_path, bundle, kind, message):
    path = snippet(tmp_path, "bad_bundle.py", f"""\
class Odd:
    def _repr_mimebundle_(self):
        return {bundle}


print("before")
display(Odd())
""")
    result = engine.run(path)
    assert result.error["type"] == kind and result.error["line"] == 7, result.error
    assert message in result.error["message"]
    assert "capture.py" not in result.error["traceback"] and result.stdout == "before\n"
    assert "before" in page(engine.run(path)), "the cached result renders"


def test_a_bad_display_fails_the_build_once_and_the_next_build_says_the_same(project):
    project.write("snippets/fives.py", 'class Five:\n    def _repr_mimebundle_(self):\n'
                  '        return {"text/plain": 5}\n\n\ndisplay(Five())\n')
    project.write("docs/index.md", "# Page\n\n```python\n--8<-- \"fives.py\"\n```\n")
    for _ in range(2):  # the second from the cache
        done = mkdocs(project.root, "build", "--strict")
        assert done.returncode != 0 and "1 snippet failure(s)" in done.stderr, done.stderr
        assert "fives.py:6: TypeError: display() was given int as text/plain" in done.stderr
        assert "Traceback (most recent call last):\n  File \"/" not in done.stderr.partition("fives.py:6")[0]


def plain_python(path, tmp_path):
    """What `python snippet.py` shows in a terminal, run in a scratch folder."""
    terminal, child = pty.openpty()
    subprocess.run([sys.executable, str(path)], cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=child, stderr=child,
                   timeout=120)
    os.close(child)
    shown = b""
    with contextlib.suppress(OSError):  # EIO: all of it read
        while data := os.read(terminal, 1 << 16):
            shown += data
    os.close(terminal)
    return shown.decode().replace("\r\n", "\n")


FORKS = """\
import multiprocessing
import os
import sys

print("the parent first")
pid = os.fork()
if pid == 0:
    print("in the forked child")
    sys.exit(7)
print("child status", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))


def square(n):
    sys.stdout.write(f"square of {n}\\n")  # one write: two processes' lines do not mix
    return n * n


if __name__ == "__main__":
    with multiprocessing.get_context("fork").Pool(2) as pool:
        squares = pool.map(square, [1, 2])
    print("squares", squares)
    process = multiprocessing.get_context("fork").Process(target=sys.exit, args=(3,))
    process.start()
    process.join()
    print("process status", process.exitcode)
"""


def test_forked_children_print_and_exit_as_in_plain_python(engine, tmp_path):
    path = snippet(tmp_path, "forks.py", FORKS)
    result = engine.run(path)
    assert result.error is None, result.describe()
    lines = result.stdout.splitlines()
    assert lines[:3] == ["the parent first", "in the forked child", "child status 7"], "in order, its own status"
    assert sorted(lines[3:5]) == ["square of 1", "square of 2"] and lines[5:] == ["squares [1, 4]", "process status 3"]
    assert sorted(plain_python(path, tmp_path).splitlines()) == sorted(lines)


def test_a_data_loaders_workers_print_as_in_plain_python(worker, tmp_path):
    engine = sharing(worker, tmp_path, timeout=120, preload=())  # it imports torch: more than 3 s on a busy machine
    path = snippet(tmp_path, "loader.py", """\
import sys

import torch
from torch.utils.data import DataLoader, Dataset


class Loud(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        sys.stdout.write(f"item {i}\\n")  # one write: two processes' lines do not mix
        return torch.tensor(i)


if __name__ == "__main__":
    print("batches", [b.tolist() for b in DataLoader(Loud(), batch_size=2, num_workers=2)])
""")
    result = engine.run(path)
    assert result.error is None, result.describe()
    assert sorted(result.stdout.splitlines()) == sorted(plain_python(path, tmp_path).splitlines())
    assert sorted(result.stdout.splitlines())[:5] == ["batches [[0, 1], [2, 3]]", "item 0", "item 1", "item 2", "item 3"]


def test_an_exception_whose_str_raises_is_reported_as_python_prints_it(engine, tmp_path):
    path = snippet(tmp_path, "bad_str.py", """\
class Odd(Exception):
    def __str__(self):
        raise RuntimeError("no words")


print("before")
raise Odd()
""")
    result = engine.run(path)
    assert (result.error["type"], result.error["message"], result.error["line"]) == (
        "Odd", "<exception str() failed>", 7)
    assert result.error["traceback"].endswith('line 7, in <module>\n    raise Odd()\nOdd: <exception str() failed>\n')
    assert result.stdout == "before\n" and "worker.py" not in result.error["traceback"]


def test_a_timeout_inside_c_code_keeps_what_it_printed_and_names_its_line(engine, tmp_path):
    path = snippet(tmp_path, "stuck.py", 'print("started")\n\n\ndef total():\n    return sum(range(10**11))\n\n\n'
                   "print(total())\n")
    result = engine.run(path)
    assert result.error["type"] == "SnippetTimeout" and result.error["line"] == 5, result.error
    assert result.error["message"].startswith("the snippet was still running after 3 s, in code that Python cannot "
                                              "interrupt")
    assert result.error["message"].endswith("(the `timeout` setting of the snippets plugin)")
    assert result.stdout == "started\n"
    assert engine.run(path).cached, "a timeout is remembered as other failures are"


def test_each_run_has_a_temporary_folder_of_its_own_removed_after_it(engine, tmp_path):
    writes = snippet(tmp_path, "writes.py", "import os, tempfile\n\nopen(os.path.join(tempfile.gettempdir(), 'left.txt'), 'w')"
                     ".close()\nprint(tempfile.gettempdir() == os.environ['TMPDIR'], tempfile.gettempdir())\n")
    lists = snippet(tmp_path, "lists.py", "import os, tempfile\n\nprint(os.listdir(tempfile.gettempdir()))\n")
    same, folder = engine.run(writes).stdout.split()
    assert same == "True" and not os.path.exists(folder), "its own, removed after the run"
    assert "left.txt" not in engine.run(lists).stdout, "what another run left there is not seen"


def test_printed_text_is_shown_as_a_terminal_shows_it(engine, tmp_path):
    path = snippet(tmp_path, "terminal.py", r"""
print("see \x1b]8;;https://example.org/\x1b\\the docs\x1b]8;;\x1b\\ and \x1b[1mbold\x1b[0m")
for percent in (0, 50, 100):
    print(f"\rprogress {percent:3}%", end="")
print()
print("windows line\r")
print("escape \x1b and \u202eevil\u202c")
""")
    result = engine.run(path)
    assert result.stdout == ("see the docs and bold\nprogress 100%\nwindows line\n"
                             "escape \x1b and \u202eevil\u202c\n"), "the output is what a terminal shows"
    html = page(result)
    assert r"escape \x1b and \u202eevil\u202c" in html and not re.search("[\x1b\u202a-\u202e]", html)



def test_paths_are_shown_as_a_terminal_in_the_snippets_folder_shows_them(engine, tmp_path):
    """A stack, a warning and a path printed as `python places.py` run in its folder shows them:
    the snippet's folder left out, the Python installation's folders shortened, and none of the
    engine's frames that started the snippet."""
    path = snippet(tmp_path, "places.py", """\
import email.utils
import traceback
import warnings

import yaml


def where():
    traceback.print_stack()


where()
print(email.utils.__file__, yaml.__file__)
warnings.warn("A stack:\\n" + "".join(traceback.format_stack()))
""")
    result = engine.run(path)
    stack = result.outputs[0]["output"]["text"]
    assert stack == ('  File "places.py", line 12, in <module>\n    where()\n'
                     '  File "places.py", line 9, in where\n    traceback.print_stack()\n'), "the script's own frames only"
    python = f"lib/python{sys.version_info.major}.{sys.version_info.minor}"
    assert result.stdout == f"…/{python}/email/utils.py …/site-packages/yaml/__init__.py\n"
    (warning,) = [o["output"]["data"]["text/plain"] for o in result.outputs if "data" in o["output"]]
    assert warning == ('UserWarning: A stack:\n  File "places.py", line 14, in <module>\n'
                       '    warnings.warn("A stack:\\n" + "".join(traceback.format_stack()))\n')
    html = page(result)  # the warning's first line as its text, the stack's lines under it as printed
    assert '<p>A stack:</p><pre class="snippet-printed">  File &quot;places.py&quot;, line 14' in html
    assert str(tmp_path) not in str(result.outputs)


PNG = """\
import struct, zlib


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


class Dot:
    def _repr_png_(self):
        return (b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 3, 2, 8, 0, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(b"\\0\\0\\0\\0" * 2)) + chunk(b"IEND", b""))


class Sizeless:
    def _repr_svg_(self):
        return '<svg xmlns="http://www.w3.org/2000/svg"><rect width="5" height="5"/></svg>'


display(Dot())
display(Sizeless())
"""


def test_a_png_is_shown_as_a_picture_and_an_svg_without_a_size_has_no_size(engine, tmp_path):
    result = engine.run(snippet(tmp_path, "pictures.py", PNG))
    assert result.error is None, result.describe()
    assets: dict[str, bytes] = {}
    html = outputs_html(result.select(), PageHtml("page/", assets))
    png = next(name for name in assets if name.endswith(".png"))
    assert f'<img src="../assets/snippet-outputs/{png}" alt="&lt;__main__.Dot object at' in html
    assert 'width="3" height="2"' in html and "None" not in html and html.count("<img") == 2
    assert assets[png].startswith(b"\x89PNG")
    bad = engine.run(snippet(tmp_path, "not_png.py", "class P:\n    def _repr_png_(self):\n        return b'GIF89a'\n\n\n"
                             "display(P())\n"))
    assert bad.error["line"] == 6 and "display() was given image/png that is not a PNG" in bad.error["message"]


def test_a_snippets_download_link_is_url_encoded(project):
    project.write("snippets/odd names/50% #1.py", "print('odd')\n")
    project.write("docs/index.md", '# Page\n\n```python\n--8<-- "odd names/50% #1.py"\n```\n')
    done = mkdocs(project.root, "build", "--strict")
    assert done.returncode == 0, done.stderr
    html = (project.root / "site/index.html").read_text()
    assert 'href="snippets/odd%20names/50%25%20%231.py" download' in html
    assert (project.root / "site/snippets/odd names/50% #1.py").is_file()


def test_each_printed_line_goes_under_the_statement_of_the_snippet_that_printed_it(engine, tmp_path):
    """Printed text goes under the top-level statement running when it was printed: a
    function's print under the statement that calls it, code run by exec() under the exec,
    a loop's under the loop, what an exit function prints under the last output's line; a
    thread's text is kept too."""
    code = """import atexit
import threading


def shout(word):
    print(word)


shout("called")
exec("print('exec')")
thread = threading.Thread(target=shout, args=("thread",))
thread.start()
thread.join()
atexit.register(print, "at exit")
for i in range(3):
    print(i)
"""
    result = engine.run(snippet(tmp_path, "lines.py", code))
    shown = [(o["line"], o["output"]["text"]) for o in result.outputs]
    assert shown[:2] == [(9, "called\n"), (10, "exec\n")]
    assert shown[2][1] == "thread\n"
    assert shown[3:] == [(16, "0\n1\n2\nat exit\n")]


def test_output_past_the_limit_keeps_its_start_and_end_and_counts_the_lines_cut(worker, tmp_path):
    """A limit of 100 characters: the first 50 under the statement that printed them, the last
    50 under theirs, and between them how many lines were cut, exactly."""
    runner = sharing(worker, tmp_path, timeout=10, preload=(), output_limit=100)
    code = "for i in range(5000):\n    print(i)\nfor i in range(5000, 9000):\n    print(i)\n"
    result = runner.run(snippet(tmp_path, "long.py", code))
    printed = "".join(f"{i}\n" for i in range(9000))
    cut = printed[50:-50].count("\n")
    assert [(o["line"], o["output"]["text"]) for o in result.outputs] == [
        (2, printed[:50]), (4, f"\n… {cut:,} lines of output cut here …\n" + printed[-50:])]


def test_the_print_benchmark_runs_and_writes_its_schema(tmp_path):
    """bench/print_speed.py, small: each way timed once, the ratios from the medians."""
    data = run_benchmark(ROOT / "bench" / "print_speed.py", tmp_path / "print.json", "--lines", "2000",
                         "--repeats", "1")
    assert set(data["median_seconds"]) == {"engine", "pipe", "terminal"} and data["lines"] == 2000
    assert all(len(times) == 1 and times[0] > 0 for times in data["seconds"].values())
    assert data["engine_over_pipe"] == data["median_seconds"]["engine"] / data["median_seconds"]["pipe"]


def test_display_is_a_snippets_and_not_plain_pythons(engine, tmp_path):
    """A snippet shows what display() is given, as a notebook does; its code run as `python -c`
    (as the copy tests run every copy) or as a file in its folder (as the download tests run
    every download) has no display(), as in plain Python."""
    code = "display(1 + 1)\n"
    path = snippet(tmp_path, "shows.py", code)
    assert engine.run(path).outputs[0]["output"]["data"]["text/plain"] == "2"
    plain = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    for ran in (engine.run_code(code), engine.run_in_place(path)):
        assert ran.error["type"] == "NameError" and ran.error["message"] == "name 'display' is not defined"
    assert plain.stderr.rstrip().endswith("NameError: name 'display' is not defined")


def test_output_below_python_keeps_its_place_between_lines_and_never_splits_one(engine, tmp_path):
    """Text written to fd 1 below Python (os.write, a C library) comes out where it was written
    among the snippet's printed lines; written while a line is open (print's text written, its
    newline not yet), after that line: the capture reads fd 1 at the start of each line only."""
    result = engine.run(snippet(tmp_path, "fd.py", "import os, sys\nprint('one')\nos.write(1, b'fd\\n')\n"
                                                   "print('two')\nsys.stdout.write('open ')\nos.write(1, b'mid\\n')\n"
                                                   "print('closed')\nprint('three')\n"))
    assert result.stdout == "one\nfd\ntwo\nopen closed\nmid\nthree\n"
