"""build.py in-process: a snippet's copies and download are kept by what they are made from."""

import json

from snippet_engine.build import Snippet
from snippet_engine.page_cache import PageCache
from snippet_engine.runner import Result


def snippet(folder, cache):
    path = folder / "snippets" / "use.py"
    helper = folder / "snippets" / "helper.py"
    return Snippet(path, Result(path, [], 0.0, True, None, [helper]), folder, cache)


def write(folder, helper):
    (folder / "snippets").mkdir(exist_ok=True)
    (folder / "snippets" / "helper.py").write_text(helper)
    (folder / "snippets" / "use.py").write_text("from helper import double\n\nprint(double(2))\n")


def test_a_program_is_made_once_and_again_when_what_it_is_made_from_changes(tmp_path):
    write(tmp_path, "def double(x):\n    return 2 * x\n")
    first = snippet(tmp_path, PageCache(tmp_path / "cache"))
    made = first.program(3, 3)
    assert made.copy.startswith("def double(x):\n    return 2 * x\n") and made.copy.endswith("print(double(2))")
    first.save()

    again = snippet(tmp_path, PageCache(tmp_path / "cache"))
    assert again.program(3, 3) == made
    assert "source" not in vars(again), "taken from the cache: the file was not read as a program"

    write(tmp_path, "def double(x):\n    return x + x\n")  # the helper module it inlines
    changed = snippet(tmp_path, PageCache(tmp_path / "cache"))
    assert changed.made_from != first.made_from
    assert "return x + x" in changed.program(3, 3).copy


def test_a_cache_entry_of_the_wrong_shape_is_made_again(tmp_path):
    write(tmp_path, "def double(x):\n    return 2 * x\n")
    cache = PageCache(tmp_path / "cache")
    entry = snippet(tmp_path, cache).made_from
    (tmp_path / "cache").mkdir()
    for wrong in [[1, 2], {"3:3:False": "copy"}, {"3:3:False": [1, 2]}, {"3:3:False": ["one"]}]:
        (tmp_path / "cache" / f"{entry}.json").write_text(json.dumps(wrong))
        assert "print(double(2))" in snippet(tmp_path, cache).program(3, 3).copy, wrong
