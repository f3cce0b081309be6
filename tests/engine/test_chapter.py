"""chapter.py in-process: the includes a page's fences hold, and what is wrong with a bad one."""

import re
import textwrap

import pytest
from conftest import ROOT, SNIPPETS

from snippet_engine.chapter import parse


@pytest.fixture
def snippets(tmp_path):
    folder = tmp_path / "snippets"
    (folder / "ch").mkdir(parents=True)
    (folder / "ch" / "a.py").write_text(textwrap.dedent("""\
        import torch
        # --8<-- [start:part]
        x = torch.ones(2)
        print(x)
        # --8<-- [end:part]
        # --8<-- [start:open]
        y = 1
        """))
    (tmp_path / "outside.py").write_text("print('not an example')\n")
    return folder


def page(*fences):
    return "# Page\n\n" + "\n\nSome prose.\n\n".join(fences) + "\n"


def fence(include, info="python", quote='"'):
    return f"```{info}\n--8<-- {quote}{include}{quote}\n```"


def test_a_fence_with_an_include_is_a_block_and_one_without_is_prose(snippets):
    chapter = parse("p.md", page(fence("ch/a.py"), "```python\nprint('written on the page')\n```"), snippets)
    (block,) = chapter.blocks
    (include,) = block.includes
    assert (include.path, include.first, include.last, include.problem) == (snippets / "ch/a.py", None, None, None)
    assert chapter.snippets == [include] and chapter.options == {include.path: frozenset()}


def test_a_section_and_a_line_range_select_their_lines_without_the_markers(snippets):
    chapter = parse("p.md", page(fence("ch/a.py:part"), fence("ch/a.py:3:4")), snippets)
    section, lines = (b.includes[0] for b in chapter.blocks)
    assert (section.first, section.last) == (2, 5)
    assert section.shown() == ["x = torch.ones(2)", "print(x)"]
    assert section.numbered() == [(3, "x = torch.ones(2)"), (4, "print(x)")]
    assert lines.shown() == section.shown()


def test_single_quotes_include_as_double_quotes_do(snippets):
    (block,) = parse("p.md", page(fence("ch/a.py:part", quote="'")), snippets).blocks
    assert block.includes[0].shown() == ["x = torch.ones(2)", "print(x)"]


def test_step_through_in_the_fence_is_an_option_of_the_block_and_leaves_the_info(snippets):
    (block,) = parse("p.md", page(fence("ch/a.py", info='python step-through title="a"')), snippets).blocks
    assert block.options == {"step-through"} and block.info == 'python title="a"'
    both = parse("p.md", page(fence("ch/a.py", info="python step-through"), fence("ch/a.py")), snippets).options
    assert both == {snippets / "ch/a.py": {"step-through"}}, "a snippet runs with the options of all its blocks"
    (block,) = parse("p.md", page(fence("ch/a.py", info="python step-throughs")), snippets).blocks
    assert not block.options, "only the word itself"


@pytest.mark.parametrize("include, problem", [
    ("ch/b.py", 'snippets/ch/b.py does not exist. Did you mean "ch/a.py"?'),
    ("nowhere/a.py", "The folder snippets/nowhere does not exist."),
    ("../outside.py", "outside.py is outside snippets/"),
    ("ch/a.py:missing", "a.py has no section 'missing' (mark it with '# --8<-- [start:missing]' and "
                        "'# --8<-- [end:missing]'); its sections: open, part"),
    ("ch/a.py:open", "section 'open' is opened on line 6 but never closed"),
    ("ch/a.py:5:99", "lines 5:99 are not in a.py, which has 7 lines"),
])
def test_a_bad_include_says_what_is_wrong_and_how_to_fix_it(snippets, include, problem):
    chapter = parse("p.md", page(fence(include)), snippets)
    (block,) = chapter.blocks
    assert problem in block.includes[0].problem
    assert chapter.snippets == [], "a bad include never runs"


def test_an_include_outside_a_fence_or_of_a_folder_says_what_is_wrong(snippets):
    markdown = page('Prose right above.\n--8<-- "ch/a.py"', fence("ch"), '```python\n--8<-- "ch/missing.py"\n')
    blocks = parse("p.md", markdown, snippets).blocks
    assert [b.includes[0].problem for b in blocks] == [
        "an include outside a code block: put it in a fence of its own (```python, the include, ```)",
        "snippets/ch is a folder: an include names a file in it",
        "the fence opened on line 14 is never closed: close it with ```"]
    assert markdown[blocks[0].start:blocks[0].end] == '--8<-- "ch/a.py"'


def test_a_block_numbered_by_hand_starts_at_the_line_of_its_section_in_the_file():
    """A block whose fence says `linenums="N"` shows the numbers a traceback or the prose gives
    its lines: N is where its section starts in the snippet's file."""
    numbered = 0
    for path in sorted((ROOT / "docs").glob("*.md")):
        for block in parse(path.name, path.read_text(encoding="utf-8"), SNIPPETS).blocks:
            if given := re.search(r'linenums="(\d+)"', block.info):
                numbered += 1
                assert int(given[1]) == block.includes[0].numbered()[0][0], f"{path.name}: {block.includes[0].file}"
    assert numbered
