"""Constructs whose effect on a later block a copy's analysis (standalone/needs.py) must follow,
each as an author writes it (the fourth bad-input probe's list): the code, then the block that
reads what it did. Each copy is either exact, printing in an empty folder with `python -c` what
the block prints when the whole file runs, or the build is told why it may not be
(`Program.unsure`, which build.py logs as a warning at the block) and it indeed prints other."""

import functools
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import sharing

from snippet_engine.standalone import Source

COPY_CASES = {  # a construct, as an author writes it: code, then the block ("# the block") that reads what it did
    "global": ('', """\
count = 0
def bump():
    global count
    count += 1
bump()
print("bumped")
# the block
print(count)
"""),
    "walrus": ('', """\
data = [1, 2, 3]
squares = [last := x * x for x in data]
print(squares)
# the block
print(last)
"""),
    "setattr": ('setattr()', """\
class Config:
    size = 1
setattr(Config, "size", 2)
print("set")
# the block
print(Config.size)
"""),
    "class_counter": ('whose methods change the class', """\
class Counter:
    made = 0
    def __init__(self):
        type(self).made += 1
a = Counter()
print("made one")
# the block
print(Counter.made)
"""),
    "exec": ('exec() or eval()', """\
exec("z = 5")
print("ran")
# the block
print(z)
"""),
    "builtins": ('', """\
import builtins
builtins.answer = 42
print("set")
# the block
print(answer)
"""),
    "globals_item": ('globals()', """\
for k in ["alpha"]:
    globals()[k] = 7
print("set")
# the block
print(alpha)
"""),
    "star_import": ('', """\
from math import *
print("imported")
# the block
print(sqrt(16))
"""),
    "match": ('', """\
point = (1, 2)
match point:
    case (x, y):
        print("matched")
# the block
print(x + y)
"""),
    "lambda_rebound": ('', """\
scale = 2
f = lambda v: v * scale
scale = 3
print("rebound")
# the block
print(f(1))
"""),
    "generator_rebound": ('', """\
scale = 2
g = (v * scale for v in [1, 2])
scale = 3
print("rebound")
# the block
print(list(g))
"""),
    "grad_off": ('', """\
import torch
x = torch.ones(1, requires_grad=True)
torch.set_grad_enabled(False)
print("off")
# the block
print((x * 2).requires_grad)
"""),
    "printoptions": ('', """\
import torch
x = torch.tensor([1 / 3])
torch.set_printoptions(precision=2)
print("set")
# the block
print(x)
"""),
    "try_partial": ('a `try` before its error', """\
items = []
try:
    items.append(1)
    print(undefined)
except NameError:
    print("failed")
# the block
print(items)
"""),
    "orthogonal": ('', """\
import torch
from torch import nn
torch.manual_seed(0)
w = torch.empty(2, 2)
nn.init.orthogonal_(w)
print("init")
# the block
print(torch.rand(1))
"""),
    "exponential": ('', """\
import torch
torch.manual_seed(0)
e = torch.empty(3).exponential_()
print("drawn")
# the block
print(torch.rand(1))
"""),
    "seed_in_function": ("calls reset, which seeds", """\
import torch
def reset():
    torch.manual_seed(0)
reset()
print("seeded")
# the block
print(torch.rand(1))
"""),
    "numpy_rng": ('draws from rng', """\
import numpy as np
rng = np.random.default_rng(0)
first = rng.random()
print("drew")
# the block
print(rng.random())
"""),
    "torch_generator": ('draws from gen', """\
import torch
gen = torch.Generator().manual_seed(0)
a = torch.rand(1, generator=gen)
print("drew")
# the block
print(torch.rand(1, generator=gen))
"""),
    "monkeypatch": ('', """\
import torch
import torch.nn.functional as F
F.relu = lambda t: t * 0
print("patched")
# the block
print(F.relu(torch.ones(1)))
"""),
    "functools_cache": ('calls load, which prints', """\
import functools
@functools.cache
def load():
    print("loading")
    return 3
load()
# the block
print(load())
"""),
    "file_written": ('writes a file', """\
with open("notes.txt", "w") as f:
    f.write("hi")
print("wrote")
# the block
print(open("notes.txt").read())
"""),
    "spawn": ("starts processes by spawning", """\
import multiprocessing as mp
def square(x):
    return x * x
print("defined")
# the block
if __name__ == "__main__":
    with mp.get_context("spawn").Pool(2) as pool:
        print(pool.map(square, [1, 2, 3]))
"""),
    "class_global": ("", """\
count = 0
class Made:
    def __init__(self):
        global count
        count += 1
made = Made()
print("made")
# the block
print(count)
"""),
    "two_star_imports": ("", """\
from math import *
from os.path import *
print("imported")
# the block
print(sqrt(4.0), basename("/a/b"))
"""),
    "grad_off_then_on": ("", """\
import torch
torch.set_grad_enabled(False)
x = torch.ones(1, requires_grad=True) * 2
torch.set_grad_enabled(True)
print("made")
# the block
print(x.requires_grad, (torch.ones(1, requires_grad=True) * 2).requires_grad)
"""),
    "functools_cache_assigned": ("whose cache the block's call finds filled", """\
import functools
@functools.cache
def load():
    print("loading")
    return 3
first = load()
# the block
print(load())
"""),
}


@pytest.fixture
def python(worker, tmp_path):
    """`python file.py` or `python -c code` in a folder `cwd`, as the engine runs them (a child of
    a warm worker, with a fresh interpreter's state: test_copies.py and the downloads run so, and
    test_browser.py checks the engine against real `python -c`): what it printed to stdout, and
    whether it failed. A run still going after `timeout` s is stopped (a pool whose workers cannot
    start waits for them for ever)."""
    @functools.cache
    def runner(timeout):
        return sharing(worker, tmp_path / f"runner{timeout}", timeout=timeout)

    def run(*args, cwd, timeout=60):
        if args[0] == "-c":
            result = runner(timeout).run_code(args[1], cwd)
        else:
            path = Path(cwd) / Path(args[0]).name  # run in its folder
            if not path.exists():
                shutil.copy(args[0], path)
            result = runner(timeout).run_in_place(path)
        return subprocess.CompletedProcess(args, 1 if result.error else 0, result.stdout,
                                           result.describe() if result.error else "")

    return run


@pytest.mark.parametrize("name", COPY_CASES)
def test_a_copy_prints_what_its_block_shows_or_the_build_is_told_why_it_may_not(tmp_path, name, python):
    warned, code = COPY_CASES[name]
    folders = {name: tmp_path / name for name in ("snippets", "whole", "before", "copy")}
    for folder in folders.values():
        folder.mkdir()
    path = folders["snippets"] / f"case_{name}.py"  # not a module it imports (builtins.py)
    path.write_text(code)
    program = Source(path, tmp_path).program(code.splitlines().index("# the block") + 1, len(code.splitlines()))
    whole = python(str(path), cwd=folders["whole"])
    before = python("-c", code.split("# the block")[0], cwd=folders["before"])
    assert whole.returncode == 0 and whole.stdout.startswith(before.stdout), whole.stderr
    shown = whole.stdout[len(before.stdout):]
    copied = python("-c", program.copy, cwd=folders["copy"], timeout=10)  # a spawning pool waits for ever
    if warned:
        assert any(warned in why for why in program.unsure), program.unsure
        assert (copied.returncode, copied.stdout) != (0, shown), "a copy warned of prints what its block shows"
    else:
        assert program.unsure == [], program.unsure
        assert (copied.returncode, copied.stdout) == (0, shown), f"{program.copy}\n{copied.stderr}"


def test_a_block_that_is_part_of_a_statement_is_warned_of(tmp_path, python):
    """A section whose markers lie inside a function: the block is part of the def, and its copy,
    that part alone, cannot run (an IndentationError), so the build is told."""
    path = tmp_path / "inner.py"
    path.write_text("def f():\n    # --8<-- [start:inner]\n    x = 1\n    print(x)\n    # --8<-- [end:inner]\n\n\nf()\n")
    program = Source(path, tmp_path).program(3, 4)
    assert program.unsure == ["line 1 holds the block, which is a part of it: its copy is that part alone"]
    assert "IndentationError" in python("-c", program.copy, cwd=tmp_path).stderr


def test_a_star_import_of_a_helper_module_brings_what_the_code_uses(tmp_path, python):
    """`from helpers import *`: the copy holds the helper's definitions that the block uses."""
    (tmp_path / "helpers.py").write_text("def double(x):\n    return 2 * x\n\n\ndef unused():\n    pass\n")
    path = tmp_path / "uses.py"
    path.write_text("from helpers import *\n\nprint(double(21))\n")
    program = Source(path, tmp_path).program(3, 3)
    assert "def double" in program.copy and "unused" not in program.copy and "import *" not in program.copy
    empty = tmp_path / "empty"
    empty.mkdir()
    assert python("-c", program.copy, cwd=empty).stdout == "42\n"


# Ordinary code whose copy is exact and needs no warning: a method named eval, vars() of an
# object, a function that calls one that prints (defined, not called, by the setup), a setting
# of torch changed and set back before the code the block needs, a generator used up at once.
ORDINARY = {
    "eval_method": """\
import torch
from torch import nn
model = nn.Linear(2, 2)
model.eval()
print("evaluating")
# the block
print(torch.ones(3) * 2)
""",
    "vars_of_an_object": """\
class Config:
    def __init__(self):
        self.size = 3
config = Config()
print(vars(config))
# the block
print(config.size)
""",
    "printing_helper": """\
def log(x):
    print("log", x)
def train():
    log("step")
    return 1
print("defined")
# the block
log(train())
""",
    "setting_set_back": """\
import torch
torch.set_grad_enabled(False)
print(torch.is_grad_enabled())
torch.set_grad_enabled(True)
# the block
print(1 + 1)
""",
    "generator_used_up": """\
xs = [1, 2, 3]
n = sum(x for x in xs)
for step in range(3):
    xs.append(step)
print("grew")
# the block
print(n)
""",
}


@pytest.mark.parametrize("name", ORDINARY)
def test_ordinary_code_is_copied_exactly_short_and_without_a_warning(tmp_path, name, python):
    code = ORDINARY[name]
    path = tmp_path / f"case_{name}.py"
    path.write_text(code)
    program = Source(path, tmp_path).program(code.splitlines().index("# the block") + 1, len(code.splitlines()))
    assert program.unsure == []
    assert not {"set_grad_enabled", "append", "eval()"} & set(program.copy.replace("(", " (").split()), program.copy
    whole = python(str(path), cwd=tmp_path)
    before = python("-c", code.split("# the block")[0], cwd=tmp_path)
    assert python("-c", program.copy, cwd=tmp_path).stdout == whole.stdout[len(before.stdout):], program.copy


def test_a_range_that_ends_on_the_comment_above_a_statement_is_not_part_of_it(tmp_path):
    path = tmp_path / "lines.py"
    path.write_text("x = 1\nprint(x)\n# the next one\ny = 2\n")
    assert Source(path, tmp_path).program(1, 3).unsure == []
