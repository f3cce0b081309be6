"""page_cache.py in-process: rendered HTML kept by content, and what makes an entry a miss."""

import json
from pathlib import Path

import pytest
from mkdocs.structure.toc import get_toc

from snippet_engine import cache_file, katex, page_cache, runner
from snippet_engine.page_cache import PageCache, made_key

TOC = [{"level": 1, "id": "title", "name": "Title", "children": [
    {"level": 2, "id": "part", "name": "Part", "children": []}]}]


def test_a_page_comes_back_with_its_table_of_contents(tmp_path):
    cache = PageCache(tmp_path)
    cache.put_page(made_key("page"), "<h1>Title</h1>", get_toc(TOC))
    html, toc = PageCache(tmp_path).page(made_key("page"))
    assert html == "<h1>Title</h1>"
    assert [(a.title, a.id, [c.title for c in a.children]) for a in toc] == [("Title", "title", ["Part"])]


def test_an_entry_of_the_wrong_shape_or_not_json_is_a_miss(tmp_path):
    cache = PageCache(tmp_path)
    for entry, text in [("list", "[1, 2]"), ("fields", '{"html": 1}'), ("broken", "{"), ("empty", "")]:
        (tmp_path / f"{made_key(entry)}.json").write_text(text)
        assert cache.page(made_key(entry)) is None, entry
    (tmp_path / f"{made_key('highlight-pre', 'x = 1')}.json").write_text(json.dumps({"not": "html"}))
    assert cache.highlighted("x = 1").startswith('<div class="highlight"><pre>')


def test_the_key_changes_with_the_content_the_renderer_and_the_engine(monkeypatch):
    versions = page_cache.renderer()
    assert set(versions) == set(page_cache.RENDERERS) and all(versions.values())
    assert made_key("a", [1]) == made_key("a", [1]) != made_key("a", [2])
    before = made_key("a")
    monkeypatch.setattr(page_cache, "renderer", lambda: {**versions, "markdown": "9"})
    assert made_key("a") != before
    monkeypatch.undo()
    edited(monkeypatch, "pages.py")
    assert made_key("a") != before


def edited(monkeypatch, name):
    """The engine's file `name` read as if it were edited."""
    read = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda path: read(path) + b"# edited\n" * (path.name == name))
    cache_file.code_digest.cache_clear()


@pytest.mark.parametrize("name, snippets_run_again, pages_render_again, formulas_typeset_again", [
    ("plugin.py", False, True, False), ("katex.py", False, False, True), ("katex_render.mjs", False, False, True),
    ("worker.py", True, True, False), ("capture.py", True, True, False), ("figure.py", True, True, False),
    ("recording.py", True, True, False), ("layout.py", True, True, False), ("view.py", False, True, False),
    ("__init__.py", True, True, False),
    ("steps.css", False, True, False), ("steps.js", False, True, False), ("notebooks.py", False, True, False)])
def test_each_cache_is_keyed_by_the_code_that_makes_it(monkeypatch, name, snippets_run_again, pages_render_again,
                                                       formulas_typeset_again):
    """A run's result by the worker's side of the code (a kind's part in it too); a page's parts
    by the engine and the viewer; the formulas by KaTeX's code: an edit of the viewer's page side
    (view.py, its script and styles) re-renders pages and re-runs no snippet, one of katex.py
    typesets the formulas again and re-renders nothing else."""
    def keys():
        return runner.fingerprint.__wrapped__()["engine"], made_key("page"), katex.formulas_key("0.16")

    cache_file.code_digest.cache_clear()
    before = keys()
    edited(monkeypatch, name)
    assert tuple(a != b for a, b in zip(keys(), before)) == (snippets_run_again, pages_render_again,
                                                             formulas_typeset_again)
    monkeypatch.undo()
    cache_file.code_digest.cache_clear()


def test_prune_keeps_what_this_build_used(tmp_path):
    cache = PageCache(tmp_path)
    cache.put(made_key("old"), "old")
    cache.prune()
    cache.put(made_key("new"), "new")
    cache.prune()
    assert sorted(p.stem for p in tmp_path.glob("*.json")) == [made_key("new")]
