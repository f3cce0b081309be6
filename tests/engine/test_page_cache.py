"""page_cache.py in-process: rendered HTML kept by content, and what makes an entry a miss."""

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, mkdocs
from mkdocs.structure.toc import get_toc

from snippet_engine import cache_file, katex, page_cache, runner
from snippet_engine.page_cache import Converted, PageCache, made_key, tokens
from snippet_engine.shapes import OUTPUT, Settings

TOC = [{"level": 1, "id": "title", "name": "Title", "children": [
    {"level": 2, "id": "part", "name": "Part", "children": []}]}]


def test_a_page_comes_back_with_its_table_of_contents_title_and_anchors(tmp_path):
    cache = PageCache(tmp_path)
    cache.put_converted(made_key("page"), Converted("<h1>Title</h1>", tokens(get_toc(TOC)), "Title", ["part", "title"],
                                                    {"other.md": {"part": "other.md#part"}}))
    converted = PageCache(tmp_path).converted(made_key("page"))
    assert converted.html == "<h1>Title</h1>" and converted.title == "Title"
    assert [(a.title, a.id, [c.title for c in a.children]) for a in get_toc(converted.toc)] == [("Title", "title", ["Part"])]
    assert converted.anchors == ["part", "title"] and converted.links == {"other.md": {"part": "other.md#part"}}


def test_an_entry_of_the_wrong_shape_or_not_json_is_a_miss(tmp_path):
    cache = PageCache(tmp_path)
    for entry, text in [("list", "[1, 2]"), ("fields", '{"html": 1}'), ("broken", "{"), ("empty", ""),
                        ("toc", '{"html": "", "toc": [1], "title": null, "anchors": [], "links": {}}')]:
        (tmp_path / f"{made_key(entry)}.json").write_text(text)
        assert cache.converted(made_key(entry)) is None, entry
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
    edited(monkeypatch, "snippet_engine/pages.py")
    assert made_key("a") != before


def edited(monkeypatch, name):
    """The file of src/ `name` read as if it were edited."""
    read, edited = Path.read_bytes, (SRC / name).resolve()
    monkeypatch.setattr(Path, "read_bytes", lambda path: read(path) + b"# edited\n" * (path.resolve() == edited))
    cache_file.code_digest.cache_clear()


# What an edit of each file of src/ makes again: the runs of snippets where the worker or a
# snippet's child imports it (it runs them and captures their outputs); the pages for every file
# of code (they show what the runs give, and the viewer); the formulas for KaTeX's code alone.
SRC = ROOT / "src"
FILES = sorted(p.relative_to(SRC).as_posix() for p in SRC.rglob("*")
               if p.is_file() and "__pycache__" not in p.parts and not p.parts[len(SRC.parts)].endswith(".egg-info"))
RUN_SIDE = {"snippet_engine/__init__.py", "snippet_engine/worker.py", "snippet_engine/capture.py",
            "snippet_engine/render.py", "snippet_engine/shapes.py", "autograd_steps/__init__.py",
            "autograd_steps/recording.py", "autograd_steps/layout.py", "snippet_engine/torch_settings.py"}
FORMULAS = {"snippet_engine/katex.py", "snippet_engine/katex_render.mjs"}
PROSE = {"snippet_engine/DESIGN.md"}  # it makes nothing


def test_the_files_of_src_are_the_engine_and_the_step_through_package():
    assert len(FILES) > 40 and {"snippet_engine/worker.py", "autograd_steps/assets/steps.js"} <= set(FILES)
    assert RUN_SIDE | FORMULAS | PROSE <= set(FILES)


@pytest.mark.parametrize("name", FILES)
def test_each_cache_is_keyed_by_the_code_that_makes_it(monkeypatch, name):
    """A run's result by the worker's side of the code (a kind's module too); a page's parts by
    the engine and the viewer; the formulas by KaTeX's code: an edit of the page side (the viewer's
    view.py, script and styles, a kind's styles) re-renders pages and re-runs no snippet, one of
    katex.py typesets the formulas again and re-renders nothing else. Every file of src/, each in
    turn."""
    def keys():
        return runner.fingerprint.__wrapped__()["engine"], made_key("page"), katex.formulas_key("0.16")

    cache_file.code_digest.cache_clear()
    before = keys()
    edited(monkeypatch, name)
    runs = name in RUN_SIDE or name.startswith("snippet_engine/kinds/") and name.endswith(".py")
    assert tuple(a != b for a, b in zip(keys(), before)) == (runs, name not in FORMULAS | PROSE, name in FORMULAS)
    monkeypatch.undo()
    cache_file.code_digest.cache_clear()


def test_a_runs_key_holds_every_module_of_the_project_the_worker_and_a_snippets_child_import():
    """The worker, and a step-through snippet's child (the recorder): each project module they
    import is in the key of every run (runner.RUNS), so that an edit of it runs the snippets again."""
    code = ("import sys, snippet_engine.worker, autograd_steps.recording\n"
            "print('\\n'.join(m.__file__ for m in list(sys.modules.values()) if getattr(m, '__file__', None)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    imported = {Path(f).resolve() for f in done.stdout.split("\n") if f and Path(f).resolve().is_relative_to(SRC.resolve())}
    keyed = {f.resolve() for path in runner.RUNS for f in (path.rglob("*.py") if path.is_dir() else [path])}
    assert len(imported) > 10 and imported <= keyed, sorted(map(str, imported - keyed))


def test_a_snippet_that_imports_the_step_through_package_depends_on_the_modules_it_imports(runner):
    """The run key holds the step-through's recorder, not its viewer or `compare`: a snippet that
    imports those itself (as a reader's script does) depends on them, and runs again when one
    changes. Before, an edit of comparison.py left the page printing the old comparison."""
    result = runner.run(ROOT / "snippets" / "debugging_gradients" / "compare_two_runs.py")
    deps = {d.relative_to(ROOT).as_posix() for d in result.deps}
    assert {"src/autograd_steps/comparison.py", "src/autograd_steps/notebook.py", "src/autograd_steps/view.py"} <= deps
    assert not [d for d in deps if d.startswith("src/snippet_engine/")], "the engine is in every run's key"


def test_prune_keeps_what_this_build_used(tmp_path):
    cache = PageCache(tmp_path)
    cache.put(made_key("old"), "old")
    cache.prune()
    cache.put(made_key("new"), "new")
    cache.prune()
    assert sorted(p.stem for p in tmp_path.glob("*.json")) == [made_key("new")]


def test_a_setting_that_changes_output_keys_every_run_and_reaches_the_worker_by_its_mark(tmp_path):
    """A field of Settings marked OUTPUT (output_limit, and one added here) enters every run's key
    and every request the worker gets, with no line of the runner naming it; a setting that only
    says how runs are made (workers, preload) keys nothing."""
    snippets = tmp_path / "snippets"
    snippets.mkdir()
    path = snippets / "a.py"
    path.write_text("print(1)\n")
    Extended = dataclasses.make_dataclass("Extended", [("precision", int, dataclasses.field(default=4, metadata=OUTPUT))],
                                          bases=(Settings,), frozen=True)

    def key(**changed):
        return runner.Runner(Extended(snippets, **changed)).result_key(path, frozenset(), "digest")

    assert len({key(), key(output_limit=10), key(precision=8)}) == 3
    assert key() == key(workers=7) == key(preload=("wave",))
    assert Extended(snippets, precision=8).request() == {"timeout": 600, "output_limit": 20_000, "precision": 8}
    assert Extended(snippets).keyed() == {"output_limit": 20_000, "precision": 4}


def test_a_page_taken_from_the_cache_is_checked_as_one_converted(project):
    """A page whose Markdown MkDocs converted before is taken from the cache, yet checked as one
    converted now: a link to a section that another page no longer has fails a strict build every
    time (the links to other pages' anchors, which MkDocs checks once every page is made, come
    from the cache with the page), and so does a link to a page that is gone."""
    config = yaml.safe_load((project.root / "mkdocs.yml").read_text())
    config["nav"] = ["index.md", "other.md"]
    config["validation"] = {"anchors": "warn"}
    (project.root / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    project.write("docs/index.md", "# Home\n\nSee [its part](other.md#part).\n")
    project.write("docs/other.md", "# Other\n\n## Part\n\nText.\n")
    assert mkdocs(project.root, "build", "--strict").returncode == 0
    (entry,) = [p for p in (project.root / ".cache").rglob("*.json") if "its part</a>" in p.read_text()]
    entry.write_text(entry.read_text().replace("its part</a>", "its part, from the cache</a>"))
    done = mkdocs(project.root, "build", "--strict")
    assert done.returncode == 0, done.stderr
    assert '<a href="other/#part">its part, from the cache</a>' in (project.root / "site/index.html").read_text()
    other = (project.root / "site/other/index.html").read_text()
    assert "<title>Other - " in other and 'id="part"' in other, "its title and headings, from the cache"

    project.write("docs/other.md", "# Other\n\n## Section\n\nText.\n")  # index.md is as it was
    for _ in range(2):
        done = mkdocs(project.root, "build", "--strict")
        assert done.returncode == 1, done.stderr
        assert "contains a link 'other.md#part', but the doc 'other.md' does not contain an anchor '#part'" in done.stderr

    (project.root / "docs/other.md").unlink()
    for _ in range(2):
        done = mkdocs(project.root, "build", "--strict")
        assert done.returncode == 1 and "contains a link 'other.md#part', but the target" in done.stderr, done.stderr
