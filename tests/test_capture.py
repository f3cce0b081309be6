"""What the worker captures of a running snippet, met as an author meets it: a snippet in a
runner over tmp_path, or in a tiny site."""

import pytest
from conftest import mkdocs, sharing, snippet

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
