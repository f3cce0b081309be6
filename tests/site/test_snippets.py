"""Every snippet runs, and what a reader downloads runs on its own and prints what the page shows."""

import ast
import shutil

import pytest
import verified
from conftest import OPTIONS, ROOT, SNIPPETS, normalised, printed

from snippet_engine.runner import SnippetError

ALL = sorted(SNIPPETS.rglob("*.py"))
def same_run(download, path, result):
    """Whether the download runs as the build's run of its snippet ran: the same program (the
    same syntax tree, its `--8<--` markers and blank lines aside) that read no other project file,
    started no program, and neither reads where it runs (`verified.WHERE`), printed its file's name
    nor calls display(), which the build's run has and plain Python has not."""
    code = path.read_text(encoding="utf-8")
    return (ast.dump(ast.parse(download)) == ast.dump(ast.parse(code)) and set(result.deps) <= {path}
            and not result.programs and not verified.WHERE.search(code) and path.name not in result.stdout
            and "display" not in code)


@pytest.mark.parametrize("path", ALL, ids=[p.relative_to(SNIPPETS).as_posix() for p in ALL])
def test_the_download_runs_alone_in_an_empty_folder_and_prints_what_the_page_shows(built_site, runner, path,
                                                                                    tmp_path):
    """The engine runs the download as `cd empty-folder && python file.py` would; a download that
    is its snippet's own program, reading nothing else (`same_run`), ran as the build ran it, and
    one that is a copy's program ran as the copy ran (verified.py). The snippet's own run is the
    build's (with its blocks' options: a step-through's is recorded), taken from its cache."""
    result = runner.run(path, OPTIONS.get(path, frozenset()))
    if result.error:
        raise SnippetError(result)
    alone = tmp_path / path.name
    shutil.copy(built_site / "snippets" / path.relative_to(SNIPPETS), alone)
    text = alone.read_text(encoding="utf-8")

    def run_it():
        return runner.run_in_place(alone), [p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file() and p != alone]

    download = result if same_run(text, path, result) else verified.run(runner, "runs", text, run_it)[0]
    if download.error:
        raise SnippetError(download)
    assert normalised(printed(download.select())) == normalised(result.stdout)


def test_every_snippet_is_shown_on_a_page():
    pages = "".join(p.read_text() for p in (ROOT / "docs").rglob("*.md"))
    for path in ALL:
        assert f'"{path.relative_to(SNIPPETS).as_posix()}' in pages, f"{path} is on no page"
