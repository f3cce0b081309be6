"""Claims of the home page (docs/index.md) about the code blocks of the site."""

from conftest import ROOT, SNIPPETS

from snippet_engine.chapter import FENCE, INCLUDE

DOCS = ROOT / "docs"


def blocks():
    """(page, language, body) of every fenced block of every page, found as the engine finds them."""
    for page in sorted(DOCS.rglob("*.md")):
        for match in FENCE.finditer(page.read_text()):
            yield page, (match["info"].split() or [""])[0], match["body"].strip()


def test_every_python_block_is_a_snippet_file_included_whole_or_by_section():
    python = [(page, body) for page, language, body in blocks() if language == "python"]
    assert len(python) > 100
    for page, body in python:
        match = INCLUDE.fullmatch(body)
        assert match, f"{page.name}: a Python block that is not a snippet include: {body!r}"
        path, section = SNIPPETS / match["file"], match["select"]
        assert path.is_file(), f"{page.name}: {path} does not exist"
        if section:
            assert f"# --8<-- [start:{section}]" in path.read_text(), f"{page.name}: no section {section} in {path}"


def test_the_only_other_block_is_the_shell_command_on_the_home_page():
    others = [(page.name, language, body) for page, language, body in blocks() if language != "python"]
    assert others == [("index.md", "bash", "make serve")]
    text = " ".join((DOCS / "index.md").read_text().split())
    assert "Every block of Python code on this site is a plain Python file" in text
    assert "the only other block, below, is the shell command" in text
