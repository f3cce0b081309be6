"""Every snippet runs, and a reader who runs it gets what the page shows."""

import subprocess
import sys

import pytest
from conftest import ROOT, SNIPPETS

from snippet_runner import SnippetError

ALL = sorted(SNIPPETS.rglob("*.py"))


@pytest.mark.parametrize("path", ALL, ids=[p.relative_to(SNIPPETS).as_posix() for p in ALL])
def test_snippet_runs_and_matches_a_plain_python_run(runner, path, tmp_path):
    result = runner.run(path)
    if result.error:
        raise SnippetError(result)
    plain = subprocess.run([sys.executable, path], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout == result.stdout, "the page must show what `python snippet.py` prints"


def test_every_snippet_is_shown_on_a_page():
    pages = "".join(p.read_text() for p in (ROOT / "docs").rglob("*.md"))
    for path in ALL:
        assert f'"{path.relative_to(SNIPPETS).as_posix()}' in pages, f"{path} is on no page"
