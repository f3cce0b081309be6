"""Every snippet runs, and what a reader downloads runs on its own and prints what the page shows."""

import shutil

import pytest
from conftest import ROOT, SNIPPETS, normalised, printed

from snippet_engine.runner import SnippetError

ALL = sorted(SNIPPETS.rglob("*.py"))


@pytest.mark.parametrize("path", ALL, ids=[p.relative_to(SNIPPETS).as_posix() for p in ALL])
def test_the_download_runs_alone_in_an_empty_folder_and_prints_what_the_page_shows(built_site, runner, path,
                                                                                    tmp_path):
    """The engine runs the download as `cd empty-folder && python file.py` would."""
    result = runner.run(path)
    if result.error:
        raise SnippetError(result)
    alone = tmp_path / path.name
    shutil.copy(built_site / "snippets" / path.relative_to(SNIPPETS), alone)
    download = runner.run_in_place(alone)
    if download.error:
        raise SnippetError(download)
    assert normalised(printed(download.select())) == normalised(result.stdout)


def test_every_snippet_is_shown_on_a_page():
    pages = "".join(p.read_text() for p in (ROOT / "docs").rglob("*.md"))
    for path in ALL:
        assert f'"{path.relative_to(SNIPPETS).as_posix()}' in pages, f"{path} is on no page"
