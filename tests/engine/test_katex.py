"""The `katex` plugin (src/snippet_engine/katex.py): math typeset at build time, and its cache.

Sites are built in-process, as `mkdocs build` and `mkdocs serve` do (on_startup, the build,
on_shutdown), so that the Node.js processes the plugin starts can be counted."""

import json
import logging
import re
import subprocess

import pytest
import yaml
from conftest import ROOT
from mkdocs.commands.build import build as mkdocs_build
from mkdocs.config import load_config
from mkdocs.exceptions import Abort

from snippet_engine import katex

VERSION = json.loads((ROOT / "node_modules" / "katex" / "package.json").read_text())["version"]

def entry(root, version=VERSION):
    """The cache entry of the formulas typeset by KaTeX `version`."""
    return root / ".cache" / "katex" / f"{katex.formulas_key(version)}.json"

INLINE, DISPLAY = r"\(x^2\)", r"\[\frac{1}{2}\]"


@pytest.fixture
def node_starts(monkeypatch):
    """The Node.js processes the plugin starts, one command line each."""
    started, popen = [], subprocess.Popen

    def counted(args, *rest, **kwargs):
        if str(katex.SCRIPT) in map(str, args):
            started.append(args)
        return popen(args, *rest, **kwargs)

    monkeypatch.setattr(katex.subprocess, "Popen", counted)
    return started


@pytest.fixture
def site(tmp_path):
    """A site of the katex plugin alone (MkDocs' own theme), KaTeX from the project's node_modules."""
    (tmp_path / "docs").mkdir()
    config = {"site_name": "Math", "markdown_extensions": [{"pymdownx.arithmatex": {"generic": True}}],
              "plugins": [{"katex": {"node_modules": str(ROOT / "node_modules")}}]}
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config))
    return tmp_path


def write_page(root, text, name="index.md"):
    (root / "docs" / name).write_text(f"# Math\n\n{text}\n", encoding="utf-8")


def load(root):
    return load_config(str(root / "mkdocs.yml"))


def build(root, command="build"):
    """Build as the `mkdocs build` command does: on_shutdown runs whatever the build did."""
    config = load(root)
    config.plugins.on_startup(command=command, dirty=False)
    try:
        mkdocs_build(config)
    finally:
        config.plugins.on_shutdown()


def page(root, name=""):
    """A built page, without the date MkDocs' theme writes into it."""
    html = (root / "site" / name / "index.html").read_text(encoding="utf-8")
    return re.sub(r"Build Date UTC : .*", "", html)


def cached(root):
    """The cache file: {key: HTML}, keys being `(` or `[` and the TeX."""
    return json.loads(entry(root).read_text(encoding="utf-8"))


def test_a_build_writes_the_cache_and_the_next_build_starts_no_node(site, node_starts):
    write_page(site, f"Inline {INLINE}, and on its own line:\n\n{DISPLAY}")
    build(site)
    assert len(node_starts) == 1
    first = page(site)
    assert '<span class="arithmatex"><span class="katex">' in first
    assert '<div class="arithmatex"><span class="katex-display">' in first
    assert r"\(" not in first and r"\[" not in first
    assert (site / "site" / "assets" / "katex" / "katex-swap.min.css").is_file()
    assert list((site / "site" / "assets" / "katex" / "fonts").glob("KaTeX_Main-Regular.woff2"))
    assert sorted(cached(site)) == ["(x^2", r"[\frac{1}{2}"]

    build(site)
    assert len(node_starts) == 1, "every formula came from the cache"
    assert page(site) == first

    write_page(site, f"Inline {INLINE}, and on its own line:\n\n{DISPLAY}\n\nAnd \\(y_1\\).")
    build(site)
    assert len(node_starts) == 2
    assert sorted(cached(site)) == ["(x^2", "(y_1", r"[\frac{1}{2}"], "a new formula is saved with the others"
    build(site)
    assert len(node_starts) == 2

    write_page(site, f"Only {INLINE}.")
    build(site)
    assert len(node_starts) == 2
    assert sorted(cached(site)) == ["(x^2"], "formulas no page uses leave the cache"


def test_serve_keeps_one_node_process_across_rebuilds_and_stops_it_on_shutdown(site, node_starts):
    write_page(site, f"First {INLINE}.")
    first = load(site)
    first.plugins.on_startup(command="serve", dirty=False)
    try:
        mkdocs_build(first)
        process = first.plugins["katex"].proc
        assert process is not None and process.poll() is None
        write_page(site, f"First {INLINE}, then \\(z\\).")
        second = load(site)  # serve loads mkdocs.yml again for each rebuild and keeps the plugin
        mkdocs_build(second)
        assert second.plugins["katex"] is first.plugins["katex"]
        assert len(node_starts) == 1 and process.poll() is None
        assert "(z" in cached(site)
    finally:
        first.plugins.on_shutdown()
    assert process.poll() is not None, "on_shutdown stops Node"


def test_the_cache_is_saved_when_a_snippet_fails_and_the_build_stops(project, node_starts, caplog):
    """The snippets plugin's on_post_build raises when a snippet failed, and MkDocs calls no
    later on_post_build: the katex plugin saves its cache before it, not only in on_shutdown."""
    project.write("snippets/broken.py", "print(1 / 0)\n")
    project.write("docs/index.md", f"""\
        # Page

        Before the snippet, {INLINE}.

        ```python
        --8<-- "broken.py"
        ```
        """)
    config = load(project.root)
    config.plugins.on_startup(command="build", dirty=False)
    try:
        with pytest.raises(Abort):
            mkdocs_build(config)
        assert "1 snippet failure(s)" in caplog.text
        assert list(cached(project.root)) == ["(x^2"], "saved by on_post_build, before on_shutdown"
    finally:
        config.plugins.on_shutdown()
    assert len(node_starts) == 1
    with pytest.raises(Abort):  # the snippet still fails; the formula comes from the cache
        build(project.root)
    assert len(node_starts) == 1


def test_a_formula_katex_cannot_parse_fails_the_build_naming_page_and_formula(site, node_starts, caplog):
    write_page(site, f"Fine: {INLINE}.")
    write_page(site, r"Fine: \(y\). Broken: \(\frac{1}{\). Also broken: \(\sqrt\).", name="broken.md")
    with pytest.raises(Abort), caplog.at_level(logging.ERROR):
        build(site)
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert any(r"broken.md: KaTeX cannot typeset '\\frac{1}{'" in e for e in errors), errors
    assert any(r"broken.md: KaTeX cannot typeset '\\sqrt'" in e for e in errors), errors
    # on_post_build never ran: on_shutdown saved what the failed build typeset, the old entries kept.
    assert sorted(cached(site)) == ["(x^2", "(y"]
    starts = len(node_starts)
    write_page(site, r"Fine: \(y\).", name="broken.md")
    build(site)
    assert len(node_starts) == starts, "the formulas typeset before the failure came from the cache"


WRONG_SHAPES = {
    "not JSON": "{",
    "a list": [],
    "formulas a list": [["(x^2", '<span class="katex">stale</span>']],
    "a number": {"(x^2": 42},
    "not KaTeX's HTML": {"(x^2": "<b>stale</b>"},
    "no mode": {"x^2": '<span class="katex">stale</span>'},
}


@pytest.mark.parametrize("content", WRONG_SHAPES.values(), ids=WRONG_SHAPES.keys())
def test_a_cache_entry_of_the_wrong_shape_is_a_miss(site, node_starts, content):
    write_page(site, f"Typeset anew: {INLINE}. From the cache: \\(y\\).")
    entry(site).parent.mkdir(parents=True)
    if isinstance(content, dict):
        content = {**content, "(y": '<span class="katex">from the cache</span>'}  # the right shape: a hit
    text = content if isinstance(content, str) else json.dumps(content)
    entry(site).write_text(text, encoding="utf-8")
    build(site)
    assert len(node_starts) == 1
    html = page(site)
    assert "stale" not in html and "<annotation encoding=\"application/x-tex\">x^2</annotation>" in html
    assert cached(site)["(x^2"].startswith('<span class="katex"><span class="katex-mathml">')
    if "(y" in text:
        assert '<span class="katex">from the cache</span>' in html
    assert all(katex.is_formula(key, typeset) for key, typeset in cached(site).items())


def test_the_formulas_of_another_katex_are_not_used_and_are_deleted(site, node_starts):
    write_page(site, f"Only {INLINE}.")
    entry(site, "0.0.1").parent.mkdir(parents=True)
    entry(site, "0.0.1").write_text(json.dumps({"(x^2": '<span class="katex">stale</span>'}), encoding="utf-8")
    build(site)
    assert len(node_starts) == 1 and "stale" not in page(site)
    assert not entry(site, "0.0.1").exists() and list(cached(site)) == ["(x^2"]


def test_entries_of_the_wrong_shape_leave_the_cache_file_even_when_every_formula_is_a_hit(site, node_starts):
    write_page(site, f"Only {INLINE}.")
    build(site)
    saved = cached(site)
    saved.update({"x": '<span class="katex">no mode</span>', "(y": None})
    entry(site).write_text(json.dumps(saved), encoding="utf-8")
    build(site)
    assert len(node_starts) == 1
    assert list(cached(site)) == ["(x^2"]


def test_search_reads_each_formula_as_text_kept_in_the_cache_and_the_page_is_left_as_it_was(tmp_path):
    from snippet_engine.cache_file import CacheFolder
    from snippet_engine.formula_text import FormulaTexts

    texts = FormulaTexts(CacheFolder(tmp_path))
    page = r'<p>A <span class="arithmatex">\(\tfrac{1}{4} x\)</span> and <span class="arithmatex">\(\sqrt\)</span></p>'
    searched = texts.for_search(page)
    assert '<span class="search-math-text">1/4 x</span>' in searched, "amsmath's \\tfrac as text"
    assert r'<span class="search-math-text">\sqrt</span>' in searched, "TeX it cannot read stays TeX"
    assert texts.removed(searched) == page
    texts.save()
    again = FormulaTexts(CacheFolder(tmp_path))
    again.convert = lambda tex: pytest.fail("converted again")
    assert again.for_search(page) == searched
