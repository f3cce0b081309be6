"""The snippet engine and the build hook, on throwaway projects (never the real docs)."""

import re
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from conftest import HOOKS, mkdocs

from snippet_runner import SnippetError, SnippetRunner

PAGE = """\
# Page

```python
--8<-- "{}"
```
"""


def ran(log):
    """Snippets the build log says were executed (not taken from the cache)."""
    return sorted(re.findall(r"snippet (\S+) ran in", log))


def test_failing_snippet_fails_the_build_with_page_file_and_line(project):
    project.write("snippets/broken.py", """\
        print("about to fail")
        scale = 0
        print(1 / scale)
        """)
    project.write("docs/index.md", PAGE.format("broken.py"))
    build = mkdocs(project.root, "build", "--strict")
    assert build.returncode != 0
    assert "index.md: snippet" in build.stderr
    assert f"{project.root}/snippets/broken.py:3: ZeroDivisionError: division by zero" in build.stderr
    assert "Traceback (most recent call last)" in build.stderr
    assert 'line 3, in <module>' in build.stderr


def test_error_in_an_imported_module_names_both_places(project):
    project.write("snippets/helper.py", "def explode():\n    raise ValueError('bad value')\n")
    project.write("snippets/caller.py", "from helper import explode\n\nexplode()\n")
    result = SnippetRunner(project.root / "snippets").run(project.root / "snippets/caller.py")
    message = str(SnippetError(result))
    assert message.startswith(f"{project.root}/snippets/caller.py:3 (raised in {project.root}/snippets/helper.py:2)")
    assert "ValueError: bad value" in message


@pytest.mark.parametrize("include", ["missing.py", "missing.txt"])
def test_missing_include_fails_the_build(project, include):
    project.write("docs/index.md", PAGE.format(include))
    build = mkdocs(project.root, "build", "--strict")
    assert build.returncode != 0
    assert include in build.stderr


def test_cache_reruns_only_the_snippet_that_changed(project):
    project.write("snippets/alpha.py", "print('alpha 1')\n")
    project.write("snippets/beta.py", "from helper import WORD\nprint(WORD)\n")
    project.write("snippets/helper.py", "WORD = 'beta 1'\n")
    project.write("docs/index.md", PAGE.format("alpha.py") + PAGE.format("beta.py"))

    def build():
        done = mkdocs(project.root, "build", "--strict")
        assert done.returncode == 0, done.stderr
        return ran(done.stderr), (project.root / "site/index.html").read_text()

    assert build()[0] == ["alpha.py", "beta.py"]
    assert build()[0] == []
    project.write("snippets/alpha.py", "print('alpha 2')\n")
    log, page = build()
    assert log == ["alpha.py"] and "alpha 2" in page and "beta 1" in page
    project.write("snippets/helper.py", "WORD = 'beta 2'\n")  # a file beta.py imports
    log, page = build()
    assert log == ["beta.py"] and "beta 2" in page


def test_a_section_shows_the_output_of_its_own_lines(project):
    project.write("snippets/two_parts.py", """\
        # --8<-- [start:first]
        print("from the first part")
        # --8<-- [end:first]
        # --8<-- [start:second]
        print("from the second part")
        # --8<-- [end:second]
        """)
    project.write("docs/index.md", PAGE.format("two_parts.py:second"))
    assert mkdocs(project.root, "build", "--strict").returncode == 0
    page = (project.root / "site/index.html").read_text()
    assert "from the second part" in page
    assert "from the first part" not in page


def test_runner_captures_warnings_figures_graphs_and_stderr(tmp_path):
    snippet = tmp_path / "everything.py"
    snippet.write_text("""\
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
    result = SnippetRunner(tmp_path).run(snippet)
    assert result.error is None
    kinds = [(item["kind"], item["line"]) for item in result.items]
    assert kinds == [("warning", 9), ("figure", 13), ("graph", 14), ("stderr", 15)]
    warning, figure, graph, _ = result.items
    assert warning["category"] == "UserWarning" and "not a leaf Tensor" in warning["text"]
    assert figure["svg"].lstrip().startswith("<?xml") and figure["alt"] == "Plot (“A line”, curves: falling)"
    assert ["MulBackward0", "SumBackward0"] in graph["edges"]
    assert not (tmp_path / "graph.svg").exists(), "files a snippet writes stay out of the project"


def test_runner_reports_a_hang_and_a_crash(tmp_path):
    (tmp_path / "hang.py").write_text("import time\ntime.sleep(60)\n")
    (tmp_path / "crash.py").write_text("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    runner = SnippetRunner(tmp_path, timeout=2)
    assert runner.run(tmp_path / "hang.py").error["type"] == "TimeoutError"
    crash = runner.run(tmp_path / "crash.py").error
    assert crash["type"] == "ChildProcessError" and "SIGKILL" in crash["message"]
    assert runner.run(tmp_path / "crash.py").error is not None, "failures are never cached"


def test_missing_dot_says_how_to_install_it(project, tmp_path_factory):
    empty = tmp_path_factory.mktemp("empty-path")
    check = subprocess.run([sys.executable, HOOKS / "system_tools.py"], capture_output=True, text=True,
                           env={"PATH": str(empty)})
    assert check.returncode == 1
    assert "apt-get install graphviz" in check.stderr and "brew install graphviz" in check.stderr
    config = (project.root / "mkdocs.yml").read_text()
    (project.root / "mkdocs.yml").write_text(config.replace("hooks: [", f'hooks: ["{HOOKS / "system_tools.py"}", '))
    project.write("docs/index.md", "# Page\n")
    build = mkdocs(project.root, "build", env={"PATH": str(empty)})
    assert build.returncode != 0 and "conda install -c conda-forge graphviz" in build.stderr


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetch_until(url, text, timeout=60):
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


def test_serve_shows_a_failing_snippet_on_the_page_and_keeps_running(project):
    project.write("snippets/wobbly.py", "raise RuntimeError('not yet')\n")
    project.write("docs/index.md", PAGE.format("wobbly.py"))
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "--livereload", "-a", f"127.0.0.1:{port}"],
                              cwd=project.root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              env={"NO_MKDOCS_2_WARNING": "1", "PATH": ""})
    try:
        page = fetch_until(f"http://127.0.0.1:{port}/", "This snippet failed")
        assert "RuntimeError: not yet" in page and "wobbly.py:1" in page
        project.write("snippets/wobbly.py", "print('fixed now')\n")
        fetch_until(f"http://127.0.0.1:{port}/", "fixed now")
        assert server.poll() is None
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_a_data_file_the_snippet_reads_is_a_dependency(tmp_path):
    (tmp_path / "results").mkdir()
    data = tmp_path / "results" / "numbers.json"
    data.write_text("[1, 2]")
    snippet = tmp_path / "snippets" / "show.py"
    snippet.parent.mkdir()
    snippet.write_text("import json, pathlib\n"
                       "path = pathlib.Path(__file__).parents[1] / 'results' / 'numbers.json'\n"
                       "print(sum(json.loads(path.read_text())))\n"
                       "pathlib.Path('scratch.txt').write_text('written, not read')\n")
    runner = SnippetRunner(tmp_path / "snippets", tmp_path / "cache")
    first = runner.run(snippet)
    assert first.stdout == "3\n" and [str(d) for d in first.deps] == [str(data)]
    assert runner.run(snippet).cached
    data.write_text("[1, 2, 3]")
    again = runner.run(snippet)
    assert not again.cached and again.stdout == "6\n"


def test_output_made_inside_a_function_belongs_to_the_line_that_calls_it(tmp_path):
    snippet = tmp_path / "calls.py"
    snippet.write_text("def report(value):\n    print('value', value)\n\n\nreport(1)\nreport(2)\n")
    result = SnippetRunner(tmp_path).run(snippet)
    assert [(i["line"], i["text"]) for i in result.items] == [(5, "value 1\n"), (6, "value 2\n")]


def test_a_data_file_that_appears_later_reruns_the_snippet(tmp_path):
    snippet = tmp_path / "snippets" / "maybe.py"
    snippet.parent.mkdir()
    snippet.write_text("import pathlib\n"
                       "try:\n"
                       "    print(pathlib.Path(__file__).parent.joinpath('data.txt').read_text())\n"
                       "except FileNotFoundError:\n"
                       "    print('no data yet')\n")
    runner = SnippetRunner(tmp_path / "snippets", tmp_path / "cache")
    assert runner.run(snippet).stdout == "no data yet\n"
    assert runner.run(snippet).cached
    (snippet.parent / "data.txt").write_text("data")
    assert runner.run(snippet).stdout == "data\n"
