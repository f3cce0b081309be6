"""The standalone package in-process: what a block's copy keeps of the code before it, on small
files of plain Python (no torch: `random` stands for the random draws). Every copy here is also run, and
prints what the block prints when the whole file runs."""

import contextlib
import io
import json
import random
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import ROOT, script

from snippet_engine.standalone import Inlined, Source, Statement, data_values

copy_size = script(ROOT / "bench" / "copy_size.py")


def write(folder, name, text):
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def printed(code):
    """What the code prints, run from a fresh random state: a copy that leaves out a seed it
    needs prints other numbers."""
    random.seed()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<copy>", "exec"), {"__name__": "__main__"})
    return out.getvalue()


def copy_of(path, project, data=None):
    """The copy of the block that starts at the line `# the block` and runs to the end."""
    lines = path.read_text().splitlines()
    first = lines.index("# the block") + 1
    return Source(path, project, data).program(first, len(lines)).copy


def block_output(path):
    """What the block prints when the whole file runs, where it can import its helper modules
    (a copy runs where it cannot)."""
    sys.path.insert(0, str(path.parent))
    try:
        whole = printed(path.read_text())
        before = printed(path.read_text().split("# the block")[0])
    finally:
        sys.path.remove(str(path.parent))
        files = {name: getattr(module, "__file__", None) for name, module in sys.modules.items()}
        for name in [name for name, file in files.items() if file and path.parent in Path(file).parents]:
            del sys.modules[name]  # the next test's helper modules are its own
    assert whole.startswith(before)
    return whole[len(before):]


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a copy runs in an empty folder
    return tmp_path


def check(path, project, *, kept=(), dropped=(), data=None):
    copy = copy_of(path, project, data)
    for line in kept:
        assert line in copy, f"{line!r} is needed:\n{copy}"
    for line in dropped:
        assert line not in copy, f"{line!r} is not needed:\n{copy}"
    assert printed(copy) == block_output(path), copy
    return copy


def test_what_changes_a_name_the_block_reads_is_kept_and_what_only_shows_is_not(project):
    path = write(project, "effects.py", """\
        grads = []
        unused = 42
        print("an earlier print")
        grads.append(1.5)
        total = 0
        # the block
        total += sum(grads)
        print(total)
        """)
    check(path, project, kept=["grads = []", "grads.append(1.5)", "total = 0"],
          dropped=["unused", "an earlier print"])


def test_an_error_an_earlier_block_shows_is_left_out(project):
    """A try whose handlers only show what was raised is there to raise (the second backward()
    of a graph already freed): taken to raise before it changes anything, it is left out with
    what only it needs, as is an expression that calls nothing."""
    path = write(project, "shown_error.py", """\
        items = [1, 2]
        items.pop()
        spare = [7]
        try:
            items.pop(spare[0])
        except IndexError as err:
            print(f"IndexError: {err}")
        items
        # the block
        items.append(3)
        print(items)
        """)
    check(path, project, kept=["items.pop()"], dropped=["IndexError", "spare", "items\n"])


def test_an_error_raised_by_a_change_in_place_is_kept_and_shows_nothing(project):
    """A try whose code changes an object in place (a method named for it, `add_`) may raise
    once the change is done (torch's inference tensors do): it is kept, its handler silent."""
    path = write(project, "in_place_error.py", """\
        class Box:
            def __init__(self):
                self.items = []

            def add_(self, value):
                self.items.append(value)
                raise ValueError("full")


        box = Box()
        try:
            box.add_(1)
        except ValueError as err:
            print(f"ValueError: {err}")
        # the block
        print(box.items)
        """)
    copy = check(path, project, kept=["box.add_(1)"], dropped=["ValueError: {err}"])
    assert "except ValueError as err:\n    pass\n" in copy, copy


def test_a_hook_that_only_shows_is_left_out_and_a_function_only_the_setup_calls_is_silent(project):
    """Registering a hook that only prints changes only what is shown; a function of the setup
    that the block does not call runs without its prints. Both take it that the block does not
    run what an earlier block registered (the site's copies are compared with their blocks)."""
    path = write(project, "hooks.py", """\
        class Signal:
            def __init__(self):
                self.hooks = []

            def register_hook(self, hook):
                self.hooks.append(hook)


        calls = []


        def count(value):
            calls.append(value)
            print("counted", value)


        signal = Signal()
        signal.register_hook(lambda value: print("fired", value))
        count(1)
        # the block
        print(calls, signal.hooks[1:])
        """)
    copy = check(path, project, kept=["count(1)", "calls.append(value)"], dropped=["fired", "counted"])
    assert "def count(value):\n    calls.append(value)\n" in copy, copy


def test_helper_modules_that_import_each_other_are_read_once_each(project):
    """Finding the functions that only show follows a helper's own helpers, not back to the
    module that imports it."""
    write(project, "first.py", """\
        from second import two


        def one():
            print("one")
        """)
    write(project, "second.py", """\
        import first


        def two():
            first.one()
        """)
    path = write(project, "cycle.py", """\
        from first import one

        one()
        # the block
        print(1)
        """)
    check(path, project, dropped=["one"])


def test_a_class_is_changed_only_by_what_changes_it_itself(project):
    """A call of a class, or of a method of what it made, changes no class: a block that
    subclasses it needs its definition, not the calls; an assignment to its attribute does."""
    path = write(project, "classes.py", """\
        class Double:
            def __init__(self, value):
                self.value = 2 * value

            def show(self):
                print("double", self.value)


        def plus(self, other):
            return self.value + other


        Double(1).show()
        Double.plus = plus
        # the block
        class Triple(Double):
            def __init__(self, value):
                self.value = 3 * value


        print(Triple(2).plus(1))
        """)
    check(path, project, kept=["Double.plus = plus", "def plus"], dropped=["Double(1)"])


def test_a_call_of_a_function_that_only_shows_is_left_out(project):
    """A function of the file, or of a helper module, whose code only shows (prints, binds its
    own names, changes objects it made itself, calls itself): a call of it is left out, and
    one of a function that changes what it is given is kept."""
    write(project, "table.py", """\
        def show(rows):
            \"\"\"Print the rows, padded.\"\"\"
            width = max(len(r) for r in rows)
            lines = []
            for r in rows:
                lines.append(r.ljust(width) + " |")
            print("\\n".join(lines))
        """)
    path = write(project, "shows.py", """\
        from table import show

        rows = ["a", "bb"]


        def walk(n):
            if n:
                print(n)
                walk(n - 1)
                return


        def grow(r):
            r.append("d")


        if rows:
            show(rows)
        walk(2)
        grow(rows)
        # the block
        print(len(rows))
        """)
    check(path, project, kept=["grow(rows)", "def grow"], dropped=["show", "walk", "table"])


def test_a_loop_the_block_needs_is_kept_without_what_it_shows(project):
    """A loop that changes what the block uses and prints as it goes (a training loop) is kept
    in the setup without its prints; a body left with nothing is `pass`."""
    path = write(project, "loop.py", """\
        total = [0]
        for step in range(3):
            total[0] += step
            print(f"step {step}: {total[0]}")
            if step < 2:
                print("on")
            else:
                total.append(step)
        # the block
        print(total)
        """)
    copy = check(path, project, kept=["total[0] += step", "total.append(step)"], dropped=["step {step}", "on"])
    assert "    if step < 2:\n        pass\n    else:\n" in copy, copy


def test_a_name_an_except_clause_binds_is_no_dependency(project):
    path = write(project, "errors.py", """\
        w = [1.0]
        try:
            w.append(len(w) / 0)
        except ZeroDivisionError as err:
            print(f"error: {err}")
        # the block
        w = [2.0]
        try:
            w.pop(5)
        except IndexError as err:
            print(f"error: {err}")
        """)
    check(path, project, dropped=["w = [1.0]", "ZeroDivisionError"])


def test_a_loop_target_and_an_assignment_read_only_after_they_bind_are_no_dependency(project):
    path = write(project, "rebound.py", """\
        name = "earlier"
        value = 1
        # the block
        for name in ["a", "b"]:
            print(name)
        value = 2
        print(value)
        """)
    check(path, project, dropped=['name = "earlier"', "value = 1"])


def test_after_a_seed_the_draws_are_kept_and_the_other_calls_are_not(project):
    path = write(project, "draws.py", """\
        import random
        random.seed(0)
        first = random.random()
        label = str(len("abc"))
        # the block
        print(random.random(), label)
        """)
    check(path, project, kept=["random.seed(0)", "first = random.random()", "label = str"])
    path = write(project, "no_draws.py", """\
        import random
        random.seed(0)
        first = random.random()
        label = str(len("abc"))
        # the block
        print(random.random())
        """)
    check(path, project, kept=["random.seed(0)", "first = random.random()"], dropped=["label"])


def test_a_draw_that_binds_no_name_is_kept_and_a_block_that_seeds_first_needs_no_earlier_draw(project):
    """A print of a random draw moves the random state as an assignment does: the copy keeps it
    and prints its line before what the block prints. A block that seeds before it draws needs
    neither the earlier seed nor the draws after it."""
    path = write(project, "printed_draw.py", """\
        import random
        random.seed(0)
        print(random.random())
        # the block
        x = random.random()
        print(x)
        """)
    copy = copy_of(path, project)
    assert "print(random.random())" in copy, copy
    assert printed(copy).endswith(block_output(path)), copy
    path = write(project, "seeds_first.py", """\
        import random
        random.seed(0)
        first = random.random()
        print(first)
        # the block
        random.seed(1)
        x = random.random()
        print(x)
        """)
    check(path, project, kept=["random.seed(1)"], dropped=["random.seed(0)", "first"])


def test_what_was_drawn_before_a_generators_last_seed_is_not_kept(project):
    path = write(project, "reseeds.py", """\
        import random
        random.seed(0)
        first = random.random()
        random.seed(1)
        second = random.random()
        # the block
        print(random.random())
        """)
    check(path, project, kept=["random.seed(1)", "second = random.random()"], dropped=["random.seed(0)", "first"])
    path = write(project, "drawn_before_the_reseed.py", """\
        import random
        random.seed(0)
        first = random.random()
        random.seed(1)
        # the block
        print(first, random.random())
        """)
    check(path, project, kept=["random.seed(0)", "first = random.random()", "random.seed(1)"])


@pytest.mark.parametrize("code", [
    # The block seeds another generator than the one it draws from next.
    """import random
    other = random.Random()
    random.seed(0)
    a = random.random()
    # the block
    other.seed(1)
    print(other.random(), random.random())""",
    # A draw of a name the patterns do not know, between two seeds.
    """import random
    random.seed(0)
    g = random.gauss(0, 1)
    random.seed(1)
    # the block
    print(g, random.random())""",
    # A seed that draws from another generator.
    """import random
    other = random.Random()
    random.seed(0)
    other.seed(random.random())
    other.seed(5)
    # the block
    print(random.random(), other.random())""",
    # The same name, another generator.
    """import random
    from random import Random as Gen
    r = Gen()
    r.seed(0)
    keep = r
    r = Gen()
    r.seed(1)
    # the block
    print(keep.random(), r.random())""",
], ids=["another-generator-seeded-first", "unknown-draw-between-seeds", "seed-that-draws", "name-rebound"])
def test_a_seed_is_left_out_only_when_nothing_the_copy_keeps_depends_on_it(project, code):
    check(write(project, "seeds.py", code.replace("\n    ", "\n")), project)
    path = write(project, "two_generators.py", """\
        import random
        other = random.Random()
        random.seed(0)
        first = random.random()
        other.seed(1)
        second = other.random()
        # the block
        print(random.random(), other.random())
        """)
    check(path, project, kept=["random.seed(0)", "first = random.random()", "other.seed(1)", "second"])


def test_a_helper_modules_definitions_are_inlined_and_its_import_dropped(project):
    write(project, "helper.py", """\
        import math

        def area(r):
            return math.pi * r**2

        def unused():
            return 0
        """)
    path = write(project, "uses_helper.py", """\
        from helper import area
        # the block
        print(round(area(2.0), 3))
        """)
    check(path, project, kept=["def area(r):", "import math"], dropped=["helper", "def unused"])


def test_a_module_imported_whole_becomes_a_namespace_of_what_the_code_takes(project):
    write(project, "shapes.py", """\
        def add(a, b):
            return a + b

        def square(a):
            return a * a
        """)
    path = write(project, "own_add.py", """\
        import shapes as sh

        def add(a, b):  # the code's own add, beside the module's
            return f"{a}+{b}"
        # the block
        print(sh.add(2, 3), add(2, 3))
        """)
    check(path, project, kept=["def shapes():", "sh = shapes()", "return SimpleNamespace(**locals())"],
          dropped=["import shapes", "def square"])


def test_a_data_file_read_becomes_its_values_and_the_lines_that_found_it_go(project):
    (project / "data.json").write_text(json.dumps({"rows": [1, 2, 3]}))
    path = write(project, "reads_data.py", """\
        import json
        from pathlib import Path

        HERE = Path(__file__).parent
        # the block
        results = json.loads((HERE / "data.json").read_text())
        print(sum(results["rows"]))
        """)
    data = data_values([str(project / "data.json")])
    copy = copy_of(path, project, data)
    assert "__file__" not in copy and "read_text" not in copy and "{'rows': [1, 2, 3]}" in copy
    assert printed(copy) == "6\n"


def test_a_data_files_nan_and_infinity_become_floats_python_reads(project):
    """JSON's NaN, Infinity and -Infinity (json.loads reads them as floats) in a copy: Python code
    that makes those floats, where their reprs (`nan`, `inf`) are names the copy does not define."""
    (project / "losses.json").write_text(json.dumps({"loss": float("nan"), "best": float("inf"),
                                                     "worst": float("-inf"), "steps": [1.5, float("nan")]}))
    path = write(project, "reads_losses.py", """\
        import json
        from pathlib import Path

        HERE = Path(__file__).parent
        # the block
        losses = json.loads((HERE / "losses.json").read_text())
        print(losses["loss"], losses["best"], losses["worst"], losses["steps"])
        """)
    copy = copy_of(path, project, data_values([str(project / "losses.json")]))
    assert 'float("nan")' in copy and 'float("-inf")' in copy, copy
    assert printed(copy) == "nan inf -inf [1.5, nan]\n"


def test_code_python_cannot_parse_is_copied_as_it_is(project):
    path = write(project, "broken.py", """\
        x = 1
        # the block
        print(x +)
        """)
    copy = copy_of(path, project)
    assert copy.splitlines()[-1] == "print(x +)"


def test_the_setup_is_the_code_without_its_explanations_and_the_block_is_as_shown(project):
    path = write(project, "explained.py", """\
        def scaled(values, factor):
            \"\"\"Each value times factor.\"\"\"
            # a comment line the page explains

            return [v * factor for v in values]  # a comment after code stays


        # the data
        numbers = [1, 2, 3]
        # the block
        def doubled(values):
            \"\"\"The block's own docstring and comments stay.\"\"\"

            return scaled(values, 2)  # as shown
        print(doubled(numbers))
        """)
    copy = check(path, project, kept=["# a comment after code stays", "The block's own docstring",
                                      "return scaled(values, 2)  # as shown"],
                 dropped=["Each value times factor", "a comment line the page explains", "# the data"])
    assert "def scaled(values, factor):\n    return" in copy
    assert '"""The block\'s own docstring and comments stay."""\n\n    return' in copy


def test_a_compound_statement_that_only_binds_names_changes_nothing(project):
    path = write(project, "compound.py", """\
        import contextlib
        values = [3, 1, 2]
        with contextlib.suppress(ValueError):
            smallest = min(values)
        for value in values:
            largest = max(values)
        if values:
            count = len(values)
        try:
            total = sum(values)
        except TypeError:
            total = None
        with contextlib.suppress(ValueError):
            values.sort()
        # the block
        print(values)
        """)
    check(path, project, kept=["values.sort()"], dropped=["smallest", "largest", "count", "total"])


def test_no_effect_changes_a_number_or_a_string(project):
    path = write(project, "values.py", """\
        scale = 2.0
        name = "w" if scale > 1 else "v"
        items = [scale, name]
        items.append(3.0)
        # the block
        print(scale * 2, name)
        """)
    check(path, project, kept=["scale = 2.0", 'name = "w"'], dropped=["items"])


def test_a_seed_is_kept_with_the_draws_up_to_the_last_one_needed_and_only_when_something_draws(project):
    path = write(project, "last_draw.py", """\
        import random
        random.seed(0)
        first = random.random()
        second = random.random()
        # the block
        print(first)
        """)
    check(path, project, kept=["random.seed(0)", "first = random.random()"], dropped=["second"])
    path = write(project, "no_draw.py", """\
        import random
        random.seed(0)
        label = "abc"
        # the block
        print(label, random.__name__)
        """)
    check(path, project, kept=['label = "abc"', "import random"], dropped=["random.seed(0)"])


def test_a_copy_holds_the_part_of_the_data_its_code_uses(project):
    (project / "runs.json").write_text(json.dumps({
        "provenance": {"cpu": "x86", "threads": 1},
        "baseline": "plain",
        "variants": [{"name": "plain", "ms": 2.0, "rounds": [1.9, 2.1]},
                     {"name": "fast", "ms": 1.0, "rounds": [0.9, 1.1]}],
        "unused": list(range(50))}))
    path = write(project, "reads_runs.py", """\
        import json
        from pathlib import Path

        HERE = Path(__file__).parent
        data = json.loads((HERE / "runs.json").read_text())
        print(data["provenance"])
        # the block
        variants = data["variants"]
        plain = next(v for v in variants if v["name"] == data.get("baseline"))
        for v in variants:
            print(v["name"], v["ms"] / plain["ms"])
        print(max(len(v["name"]) for v in variants) if data else 0)
        """)
    data = data_values([str(project / "runs.json")])
    copy = copy_of(path, project, data)
    assert "'baseline': 'plain'" in copy and "'ms': 2.0" in copy
    assert "provenance" not in copy and "rounds" not in copy and "unused" not in copy
    assert printed(copy) == "plain 1.0\nfast 0.5\n5\n"
    path = write(project, "uses_whole.py", """\
        import json
        from pathlib import Path

        HERE = Path(__file__).parent
        data = json.loads((HERE / "runs.json").read_text())
        # the block
        print(len(data["variants"][0]), sorted(data))
        """)
    copy = copy_of(path, project, data)
    assert "'rounds': [1.9, 2.1]" in copy and "'unused'" in copy
    path = write(project, "binds_part.py", """\
        import json
        from pathlib import Path

        HERE = Path(__file__).parent
        data = json.loads((HERE / "runs.json").read_text())
        # the block
        cpu, first = data["provenance"]["cpu"], data["variants"][0]
        print(data["baseline"])
        """)
    copy = copy_of(path, project, data)
    assert "'cpu': 'x86'" in copy and "'rounds': [0.9, 1.1]" in copy and "threads" not in copy
    assert printed(copy) == "plain\n"
    path = write(project, "reads_a_part.py", """\
        import json
        from pathlib import Path

        HERE = Path(__file__).parent
        # the block
        variants = json.loads((HERE / "runs.json").read_text())["variants"]
        print(len(variants))
        """)
    copy = copy_of(path, project, data)  # not read into a name of its own: all of it
    assert "'unused'" in copy and printed(copy) == "2\n"
    path = write(project, "block_reads.py", """\
        import json
        from pathlib import Path

        HERE = Path(__file__).parent
        # the block
        data = json.loads((HERE / "runs.json").read_text())
        print(data["baseline"], [v["ms"] for v in data["variants"]])
        """)
    copy = copy_of(path, project, data)  # read in the block: the part the block uses
    assert "'ms': 2.0" in copy and "rounds" not in copy and "unused" not in copy and "provenance" not in copy
    assert printed(copy) == "plain [2.0, 1.0]\n"


def work(project, lessons):
    """The calls made (comparisons of statements included) to make a snippet's copies, whole and
    of its last lesson, its notebook cell and its download, for a snippet of `lessons` lessons."""
    path = write(project, f"long_{lessons}.py", copy_size.snippet(lessons))
    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        calls += event in ("call", "c_call")

    sys.setprofile(count)
    try:
        source = Source(path, project)
        last = len(source.lines)
        source.program()
        source.program(last - copy_size.LESSON.count("\n") + 1, last)
        source.cell(1, last, Inlined())
        source.whole()
    finally:
        sys.setprofile(None)
    return calls


def test_a_long_snippets_copies_take_work_in_proportion_to_its_length(project, monkeypatch):
    """Four times the lines, about four times the work: a statement looked up in a list of the
    others (compared with each) would make it sixteen."""
    monkeypatch.setattr(Statement, "__eq__", lambda self, other: self is other)  # each comparison a call
    small, large = work(project, 40), work(project, 160)
    assert large < 5 * small, (small, large)


def test_a_name_the_block_deletes_is_bound_first(project):
    path = write(project, "deletes.py", """\
        scratch = [1, 2]
        kept = 3
        # the block
        del scratch
        print(kept)
        """)
    check(path, project, kept=["scratch = [1, 2]"])


def test_a_data_read_that_stays_code_keeps_what_it_needs(project):
    """No data file to hold as values (it is missing: the snippet falls back on its own): the
    read stays, with its import and the lines that find the file."""
    path = write(project, "missing_data.py", """\
        import json
        from pathlib import Path

        HERE = Path(__file__).parent
        # the block
        try:
            data = json.loads((HERE / "missing.json").read_text())
        except FileNotFoundError:
            data = {"rows": [1]}
        print(data)
        """)
    copy = copy_of(path, project)
    assert "import json" in copy and "HERE = Path(__file__).parent" in copy, copy
    assert printed(copy) == "{'rows': [1]}\n"


def test_an_effect_on_what_an_alias_holds_is_kept(project):
    """`loss.backward(create_graph=True)` fills the gradients that a name bound earlier to the
    same tensors holds: the block that reads them through that name needs it."""
    path = write(project, "aliases.py", """\
        class Tensor:
            def __init__(self, value):
                self.value, self.grad = value, None

        w, b = Tensor(2.0), Tensor(1.0)
        params = [w, b]
        unrelated = [Tensor(0.0)]
        loss = [w.value * 3, b.value]

        def backward(outputs, create_graph=False):
            for t, g in zip([w, b], outputs):
                t.grad = g

        backward(loss, create_graph=True)
        # the block
        print([p.grad for p in params])
        """)
    check(path, project, kept=["backward(loss, create_graph=True)"], dropped=["unrelated"])


def test_a_setup_that_holds_the_data_as_values_has_no_fallback_for_a_missing_file(project):
    (project / "runs.json").write_text(json.dumps({"rows": [1, 2, 3], "unused": [4]}))
    path = write(project, "fallback.py", """\
        import json
        from pathlib import Path

        HERE = Path(__file__).parent
        try:
            data = json.loads((HERE / "runs.json").read_text())
        except FileNotFoundError:
            data = None
            print("nothing measured")
        # the block
        print(sum(data["rows"]))
        """)
    copy = copy_of(path, project, data_values([str(project / "runs.json")]))
    assert "try" not in copy and "FileNotFoundError" not in copy and "data = {'rows': [1, 2, 3]}" in copy, copy
    assert printed(copy) == "6\n"
