"""pages.py in-process: the one placeholder protocol, and a chapter's code block as the page shows it."""

import hashlib
from pathlib import Path

from snippet_engine.chapter import parse
from snippet_engine.pages import MARK, PageHtml, block_markdown
from snippet_engine.releases import ReleaseCheck
from snippet_engine.runner import Result
from snippet_engine.standalone import Program, Source


def test_a_marker_becomes_its_html_a_copy_its_blocks_attribute_and_late_html_a_comment_until_after_search():
    page = PageHtml("page/", {})
    shown = page.marker("<p>output</p>")
    copy = page.marker('print("a & b")\n', copy=True)
    late = page.marker(page.after_search("<svg>big</svg>"))
    html = (f"<p>{shown}</p>\n<p>{copy}</p>\n<div class=\"language-python highlight\"><pre>code</pre></div>\n"
            f"<p>{late}</p>")
    content = page.content(html)
    assert "<p>output</p>" in content and MARK not in content.replace(f"<!--{MARK}", "")
    assert '<div data-copy="print(&quot;a &amp; b&quot;)\n" class="language-python highlight">' in content
    assert "<svg>" not in content, "the search index does not see it"
    assert page.late(content).endswith("<svg>big</svg>") and MARK not in page.late(content)


def test_a_copy_with_no_block_after_it_is_dropped():
    page = PageHtml("page/", {})
    assert page.content(f"<p>{page.marker('x = 1', copy=True)}</p>") == ""


def test_a_warning_is_shown_in_full_once_per_page():
    page = PageHtml("page/", {})
    assert page.first_time("w") and not page.first_time("w") and PageHtml("other/", {}).first_time("w")


class FakeBuild:
    """What pages.py needs of a build, for one snippet that ran."""

    def __init__(self, path: Path, result: Result, failure: str | None = None, running: bool = False, releases=None):
        self.path, self._result, self._failure, self.running = path, result, failure, running
        self.releases = releases

    def result(self, path):
        return self._result

    def program(self, path, first=None, last=None):
        return Source(path, path.parent).program(first, last)

    def failure(self, chapter, include):
        return self._failure

    def is_running(self, path):
        return self.running

    def highlighted(self, code):
        return f"<pre>{code}</pre>"


def block(tmp_path, code, select=""):
    (tmp_path / "snippets").mkdir(exist_ok=True)
    path = tmp_path / "snippets" / "a.py"
    path.write_text(code)
    include = f"a.py:{select}" if select else "a.py"
    chapter = parse("p.md", f'# P\n\n```python\n--8<-- "{include}"\n```\n', tmp_path / "snippets")
    return chapter, chapter.blocks[0], path


def test_a_block_has_its_setup_fold_its_copy_its_code_and_its_outputs_in_that_order(tmp_path):
    chapter, code_block, path = block(tmp_path, "x = 2\n# --8<-- [start:show]\nprint(x)\n# --8<-- [end:show]\n",
                                      "show")
    out = {"line": 3, "output": {"output_type": "stream", "name": "stdout", "text": "2\n"}}
    page = PageHtml("p/", {})
    markdown = block_markdown(chapter, code_block, FakeBuild(path, Result(path, [out], 0.0, True)), page)
    assert [how for how, _ in page.items] == ["late", "content", "copy", "content"]
    assert "1 line of setup" in page.items[0][1] and page.items[2][1] == "x = 2\nprint(x)\n"
    assert 'title="a.py"' in markdown and "\nprint(x)\n" in markdown and "2</code>" in page.items[3][1]
    assert markdown.index("print(x)") > markdown.index(f"{MARK}2"), "the copy marker comes right before the fence"
    assert Program("x = 2", "x = 2\nprint(x)") == FakeBuild(path, None).program(path, 3, 3)


def test_what_another_release_prints_is_under_the_block_while_the_snippet_is_as_it_was_checked(tmp_path):
    chapter, code_block, path = block(tmp_path, "x = 2\n# --8<-- [start:show]\nprint(x)\n# --8<-- [end:show]\n",
                                      "show")
    out = {"line": 3, "output": {"output_type": "stream", "name": "stdout", "text": "2\n"}}
    differs = [{"line": 3, "ours": "2\nalike\n", "theirs": "<3>\nalike\n"}]
    check = ReleaseCheck("2.13.0", "2.14.1", "2026-12-06",
                         {"a.py": {"sha256": hashlib.sha256(path.read_bytes()).hexdigest(), "differs": differs}})
    page = PageHtml("p/", {})
    block_markdown(chapter, code_block, FakeBuild(path, Result(path, [out], 0.0, True), releases=check), page)
    assert [how for how, _ in page.items] == ["late", "content", "copy", "content", "content"]
    note = page.items[4][1]
    assert "On torch 2.14.1" in note and "alike" not in note, "what both releases print is left out"
    assert 'Printed on torch 2.13.0 only:</p><pre class="snippet-printed">2</pre>' in note
    assert 'Printed on torch 2.14.1 only:</p><pre class="snippet-printed">&lt;3&gt;</pre>' in note
    assert "1 of the 1 snippets checked print something else there, at 1 of their lines" in check.site_summary(path.parent)
    path.write_text(path.read_text() + "print(x)\n")  # changed since the check: nothing said of it
    page = PageHtml("p/", {})
    block_markdown(chapter, code_block, FakeBuild(path, Result(path, [out], 0.0, True), releases=check), page)
    assert [how for how, _ in page.items] == ["late", "content", "copy", "content"]
    path.unlink()  # gone since the check: not checked, and the summary still made
    assert check.differs("a.py", path, None, None) is None
    assert "of the 0 snippets checked" in check.site_summary(path.parent)


def test_a_failed_or_running_snippet_says_so_under_its_block(tmp_path):
    chapter, code_block, path = block(tmp_path, "print(1)\n")
    page = PageHtml("p/", {})
    block_markdown(chapter, code_block, FakeBuild(path, Result(path, [], 0.0, True), "p.md:3: snippet a.py:1: boom"),
                   page)
    assert "This snippet failed" in page.items[-1][1] and "boom" in page.items[-1][1]
    page = PageHtml("p/", {})
    block_markdown(chapter, code_block, FakeBuild(path, Result(path, [], 0.0, False), running=True), page)
    assert "a.py is still running" in page.items[-1][1]
