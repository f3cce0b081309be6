"""page_cache.py in-process: rendered HTML kept by content, and what makes an entry a miss."""

import json

from mkdocs.structure.toc import get_toc

from snippet_engine import cache_file, page_cache
from snippet_engine.page_cache import PageCache, key

TOC = [{"level": 1, "id": "title", "name": "Title", "children": [
    {"level": 2, "id": "part", "name": "Part", "children": []}]}]


def test_a_page_comes_back_with_its_table_of_contents(tmp_path):
    cache = PageCache(tmp_path)
    cache.put_page(key("page"), "<h1>Title</h1>", get_toc(TOC))
    html, toc = PageCache(tmp_path).page(key("page"))
    assert html == "<h1>Title</h1>"
    assert [(a.title, a.id, [c.title for c in a.children]) for a in toc] == [("Title", "title", ["Part"])]


def test_an_entry_of_the_wrong_shape_or_not_json_is_a_miss(tmp_path):
    cache = PageCache(tmp_path)
    for entry, text in [("list", "[1, 2]"), ("fields", '{"html": 1}'), ("broken", "{"), ("empty", "")]:
        (tmp_path / f"{key(entry)}.json").write_text(text)
        assert cache.page(key(entry)) is None, entry
    (tmp_path / f"{key('highlight-pre', 'x = 1')}.json").write_text(json.dumps({"not": "html"}))
    assert cache.highlighted("x = 1").startswith('<div class="highlight"><pre>')


def test_the_key_changes_with_the_content_the_renderer_and_the_engine(monkeypatch):
    versions = page_cache.renderer()
    assert set(versions) == set(page_cache.RENDERERS) and all(versions.values())
    assert key("a", [1]) == key("a", [1]) != key("a", [2])
    before = key("a")
    monkeypatch.setattr(page_cache, "renderer", lambda: {**versions, "markdown": "9"})
    assert key("a") != before
    monkeypatch.undo()
    monkeypatch.setattr(cache_file, "engine_digest", lambda: "another engine")
    assert key("a") != before


def test_prune_keeps_what_this_build_used(tmp_path):
    cache = PageCache(tmp_path)
    cache.put(key("old"), "old")
    cache.prune()
    cache.put(key("new"), "new")
    cache.prune()
    assert sorted(p.stem for p in tmp_path.glob("*.json")) == [key("new")]
