"""What a reader takes away: a block's copy, a snippet's download, a notebook's cells.

Each is what the reader would have written: plain code that runs on its own in
an empty folder, and writes no file the snippet itself does not write.

- A block's copy is the block plus what it uses, directly or through what it
  calls: the imports, the earlier definitions and statements it needs, and
  the statements that change what it uses (`out.backward()` before a block
  that prints `x.grad`, a seed before one that draws random numbers). What it
  does not use (earlier prints, plots, unrelated definitions) is left out.
  That setup is plain code: without the comment lines, docstrings and blank
  lines inside definitions that the page shows where it teaches that code
  (`plain`); the block's own lines are as shown.
- A helper module of the project (`from elu import ELUCustom`) is inlined:
  the definitions the code needs from it, as code, and the import dropped;
  a module imported whole (`import tiny_autograd as tiny`) becomes a function
  holding those definitions that returns them as a namespace.
- A data file the snippet reads with `json.loads(path.read_text())` becomes
  its values, as a literal in place of the call (in a copy's setup only the
  part of them the copy's code takes: `used_data`); the lines that only found
  its path from `__file__` go.

The dependency analysis is a backward liveness pass over the top-level
statements (`Needs`), a few dozen lines of `ast`: the tools that do this for
whole programs (tree shakers, bundlers) do not keep the reader's own lines.
"""

import ast
import builtins
import functools
import io
import itertools
import json
import pprint
import re
import sys
import textwrap
import tokenize
import zipfile
from collections.abc import Collection, Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from importlib.machinery import PathFinder
from pathlib import Path
from typing import Any, TypeGuard

from snippet_engine.chapter import MARKER

OUTPUT_CALLS = {"print", "display", "pprint"}  # calls that only show something
OUTPUT_METHODS = {"show", "render", "savefig"}  # plt.show(), graph.render(...)
BUILTINS = set(dir(builtins))
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def names(node: ast.AST) -> tuple[set[str], set[str]]:
    """(loaded, stored): the free names `node` reads and the names it binds, in its own scope."""
    loads: set[str] = set()
    stores: set[str] = set()

    def visit(node: ast.AST) -> None:
        match node:
            case ast.Name(id=name, ctx=ast.Load()):
                if name not in stores:  # read before this statement binds it
                    loads.add(name)
            case ast.Name(id=name):
                stores.add(name)
            case ast.Assign() | ast.AnnAssign() | ast.AugAssign() | ast.NamedExpr():
                if node.value:
                    visit(node.value)  # the value is read before the target is bound
                if isinstance(node, ast.AugAssign):
                    loads.update(names(node.target)[1] - stores)  # `x += 1` reads x
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    visit(target)
            case ast.For() | ast.AsyncFor():
                for child in [node.iter, node.target, *node.body, *node.orelse]:
                    visit(child)
            case ast.ExceptHandler(name=str(name)):
                bound = name in stores
                stores.add(name)
                for part in [node.type, *node.body]:
                    if part:
                        visit(part)
                if not bound:
                    stores.discard(name)  # Python deletes it after the handler
            case ast.Import(names=aliases) | ast.ImportFrom(names=aliases):
                stores.update((a.asname or a.name).split(".")[0] for a in aliases)
            case ast.FunctionDef() | ast.AsyncFunctionDef() | ast.Lambda():
                arguments = node.args
                for default in arguments.defaults + [d for d in arguments.kw_defaults if d]:
                    visit(default)
                for decorator in getattr(node, "decorator_list", []):
                    visit(decorator)
                every = arguments.posonlyargs + arguments.args + arguments.kwonlyargs + [arguments.vararg,
                                                                                          arguments.kwarg]
                for annotation in [a.annotation for a in every if a] + [getattr(node, "returns", None)]:
                    if annotation:
                        visit(annotation)  # evaluated when the function is defined
                params = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
                params |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a}
                body = node.body if isinstance(node.body, list) else [node.body]
                inner_loads: set[str] = set()
                inner_stores: set[str] = set()
                for statement in body:
                    found = names(statement)
                    inner_loads |= found[0]
                    inner_stores |= found[1]
                loads.update(inner_loads - inner_stores - params)
                if not isinstance(node, ast.Lambda):
                    stores.add(node.name)
            case ast.ClassDef():
                for child in node.bases + node.keywords + node.decorator_list:
                    visit(child)
                inner_loads, inner_stores = set(), set()
                for statement in node.body:
                    found = names(statement)
                    inner_loads |= found[0]
                    inner_stores |= found[1]
                loads.update(inner_loads - inner_stores)
                stores.add(node.name)
            case ast.ListComp() | ast.SetComp() | ast.GeneratorExp() | ast.DictComp():
                inner = Names()
                for generator in node.generators:
                    inner.add(names(generator.iter))
                    targets = names(generator.target)[1]
                    inner.add((set(), targets))
                    for condition in generator.ifs:
                        inner.add(names(condition))
                for part in (node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,):
                    inner.add(names(part))
                loads.update(inner.loads - inner.stores)
            case ast.Global() | ast.Nonlocal():
                pass
            case _:
                for child in ast.iter_child_nodes(node):
                    visit(child)

    visit(node)
    return loads, stores


class Names:
    def __init__(self) -> None:
        self.loads: set[str] = set()
        self.stores: set[str] = set()

    def add(self, found: tuple[set[str], set[str]]) -> None:
        self.loads |= found[0]
        self.stores |= found[1]


def is_data_read(node: ast.AST) -> TypeGuard[ast.Call]:
    """`json.loads(<path>.read_text())`: a data file read whole, which a copy holds as a literal."""
    match node:
        case ast.Call(ast.Attribute(ast.Name("json"), "loads"), [ast.Call(ast.Attribute(_, "read_text"), [])]):
            return True
    return False


def is_output(statement: ast.AST) -> bool:
    """A statement that only shows something: a print, a plot, an assert; a loop of them."""
    match statement:
        case ast.Expr(ast.Call(ast.Name(name))) if name in OUTPUT_CALLS:
            return True
        case ast.Expr(ast.Call(ast.Attribute(_, method))) if method in OUTPUT_METHODS:
            return True
        case ast.Assert() | ast.Pass():
            return True
        case ast.For() | ast.While() | ast.If() | ast.With():
            return all(is_output(s) for s in statement.body + getattr(statement, "orelse", []))
    return False


def is_effect(node: ast.AST) -> bool:
    """A statement that may change an object other code uses (see Statement.is_effect). A
    compound statement (with, for, if, try) is one when a statement in it is, as a call in an
    assignment is taken to change nothing but the name it binds: the context managers a lesson
    uses (no_grad, autocast, saved_tensors_hooks) restore on exit what they changed on entry."""
    if getattr(node, "decorator_list", None):
        return True
    if is_output(node) or isinstance(node, (ast.Import, ast.ImportFrom, *SCOPES[:2], ast.ClassDef)):
        return False
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return not all(isinstance(n, ast.Name) for t in targets for n in leaves(t))
    if isinstance(node, (ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.If, ast.Try)):
        return any(is_effect(s) for s in body_statements(node))
    return True


def body_statements(node: ast.With | ast.AsyncWith | ast.For | ast.AsyncFor | ast.If | ast.Try) -> list[ast.stmt]:
    """The statements a compound statement holds directly (an except clause's included)."""
    found = [*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", [])]
    return found + [s for handler in getattr(node, "handlers", []) for s in handler.body]


@dataclass(eq=False)
class Statement:
    node: ast.stmt
    first: int  # its lines in the file, the comment lines right above it included
    last: int
    loads: set[str]
    binds: set[str]
    reads: list[ast.Call]  # the data-read calls in it (is_data_read)

    @property
    def is_import(self) -> bool:
        return isinstance(self.node, (ast.Import, ast.ImportFrom))

    @property
    def is_effect(self) -> bool:
        """It may change an object other code uses (`out.backward()`, `opt.step()`, a loop that
        calls them, a decorator that registers the function it decorates)."""
        return is_effect(self.node)

    @property
    def is_seed(self) -> bool:
        return bool(self.seeds)

    @property
    def seeds(self) -> str:
        """The generator a seed sets (`torch` for `torch.manual_seed(0)`), or "" for another statement."""
        match self.node:
            case ast.Expr(ast.Call(ast.Attribute(generator, method))) if method.endswith("seed"):
                return ast.unparse(generator)
        return ""

    @property
    def seeds_constant(self) -> bool:
        """A seed given constants only (`torch.manual_seed(0)`, not `other.seed(random.random())`)."""
        match self.node:
            case ast.Expr(ast.Call(_, args, keywords)) if self.is_seed:
                return all(isinstance(a, ast.Constant) for a in [*args, *(k.value for k in keywords)])
        return False


@functools.cache
def parsed(path: Path, mtime_ns: int) -> tuple[list[Statement], list[str]] | None:
    """The top-level statements of a file (parsed once for each version of it); None when
    Python cannot parse it (the run reports that)."""
    try:
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
    except (SyntaxError, ValueError):  # ValueError: not UTF-8, or a NUL byte
        return None
    lines = source.splitlines()
    statements: list[Statement] = []
    previous_end = 0
    for node in tree.body:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        while first - 1 > previous_end and lines[first - 2].strip().startswith("#") \
                and not MARKER.search(lines[first - 2]):
            first -= 1  # a comment right above a statement belongs to it
        reads = [n for n in ast.walk(node) if is_data_read(n)]
        loads, binds = names(node)
        assert node.end_lineno is not None  # ast.parse gives every statement its end
        for read in reads:  # a read becomes a literal: what it loaded is not needed
            loads -= names(read)[0] - (names(node.value)[0] - names(read)[0] if hasattr(node, "value") else set())
        statements.append(Statement(node, first, node.end_lineno, loads, binds, reads))
        previous_end = node.end_lineno
    builtin = BUILTINS - set().union(*(s.binds for s in statements))  # tiny_autograd's sum is its own
    for s in statements:
        s.loads -= builtin
    return statements, lines


def statements_of(path: str | Path) -> tuple[list[Statement], list[str]] | None:
    path = Path(path)
    return parsed(path, path.stat().st_mtime_ns)


def needed(statements: list[Statement], wanted: AbstractSet[str], drawn: AbstractSet[Statement] = frozenset(),
           draws_after: bool = True,
           may_draw: AbstractSet[Statement] = frozenset()) -> tuple[list[Statement], set[str]]:
    """The statements among `statements` (in order) that the names `wanted`, used after them,
    need: those that bind a name still needed, and those that may change what it holds (an
    effect on an object made from it; a module or a value such as a number or a device is
    changed by none), a seed, and after the seed the statements in `drawn` (those that may
    draw random numbers, `draws`) up to the last needed statement that may draw (in `may_draw`), or
    all of them when the code after these statements may draw (`draws_after`); no seed when
    nothing needed draws after it. A backward pass of liveness, again while a chosen function
    uses a name defined below it (its body runs later, when it is called)."""
    made_from = origins(statements)
    unchangeable = {n for s in statements if s.is_import for n in s.binds} | value_names(statements)
    forced: set[Statement] = set()  # draws that bind no name (`print(random.random())`)
    while True:
        chosen, live = liveness(statements, wanted, made_from, unchangeable, forced)
        later = {n for s in chosen if isinstance(s.node, SCOPES) for n in s.loads}
        # A seed with a constant (`torch.manual_seed(0)`) that a later seed of its generator resets,
        # with nothing chosen between them, decides nothing.
        seeds = [i for i, s in enumerate(statements) if s in chosen and s.is_seed]
        reset = {i for n, i in enumerate(seeds)
                 if statements[i].seeds_constant
                 and (j := next((j for j in seeds[n + 1:] if statements[j].seeds == statements[i].seeds), None))
                 and not any(s in chosen for s in statements[i + 1:j])}
        left_out = {statements[i] for i in reset}
        chosen = [s for s in chosen if s not in left_out]
        kept_draws: set[Statement] = set()
        if seeds:  # what was drawn after the seed decides what the code draws next: keep the draws
            start = min(set(seeds) - reset)
            end = len(statements) if draws_after else max(
                [i + 1 for i, s in enumerate(statements) if i > start and s in chosen and s in may_draw],
                default=start)
            kept_draws = {s for s in statements[start:end] if s in drawn}
            later |= {n for s in kept_draws for n in s.binds}
            if end == start:  # nothing draws after it
                chosen = [s for s in chosen if not s.is_seed]
        unbound = {s for s in kept_draws if not s.binds}
        if later <= set(wanted) and unbound <= forced:
            return chosen, live
        wanted, forced = set(wanted) | later, forced | unbound


# gradgradcheck draws the gradients it starts from when it is given none.
RANDOM = re.compile(r"rand|normal|uniform|bernoulli|multinomial|dropout|shuffle|sample|choice|gradgradcheck"
                    r"|^(Linear|Conv|Embedding|LSTM|GRU|RNN|Bilinear|Multihead|Transformer)", re.I)


@dataclass
class Drawing:
    """The names whose call may draw random numbers, and those whose methods may."""
    calls: set[str]
    methods: set[str]


def drawing(statements: list[Statement], helpers: set[str]) -> Drawing:
    """A helper's names (`helpers`) and those the statements bind with a definition or value
    that makes a drawing call (`MLP`, whose __init__ calls `nn.Linear`, and `model = MLP()`,
    whose call may run dropout); the methods of a name an assignment binds (an object's:
    `model.parameters()`) are taken to draw only by their own names."""
    found = Drawing(set(helpers), set(helpers))
    objects = {n for s in statements if isinstance(s.node, (ast.Assign, ast.AnnAssign)) for n in s.binds}
    while True:
        more = {n for s in statements if s.binds - found.calls and calls_drawing(s.node, found)
                for n in s.binds}
        if not more - found.calls:
            return found
        found.calls |= more
        found.methods |= more - objects


def calls_drawing(node: ast.AST, drawing: Drawing) -> bool:
    """`node` makes a call named for drawing (`torch.randn`, `x.uniform_`, `nn.Linear`) or a
    call that `drawing` says may draw (`model(x)`, `ELUFunction.apply(z)`)."""
    for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
        callee, last = call.func, None  # the callee's name, and the last attribute of it
        while isinstance(callee, ast.Attribute):
            last, callee = last or callee.attr, callee.value
        root = callee.id if isinstance(callee, ast.Name) else ""
        if RANDOM.search(last or root) or root in (drawing.calls if last is None else drawing.methods):
            return True
    return False


def draws(statement: Statement, drawing: Drawing) -> bool:
    """A statement whose draws a later one may depend on: an assignment that may draw random
    numbers (see `calls_drawing`); a print of a call named for drawing (`print(torch.randn(2))`,
    not `print(model(x))`) or such a call alone (`random.shuffle(deck)`), but not one whose
    call does more than show it or draw (`plt.plot(torch.randn(3))`)."""
    match statement.node:
        case ast.Assign(_, value) | ast.AnnAssign(_, _, value) if value is not None:
            return calls_drawing(value, drawing)
        case ast.Expr(ast.Call(func) as call):
            name = ast.unparse(func).rpartition(".")[2]
            return (name == "print" or bool(RANDOM.search(name))) and calls_drawing(call, Drawing(set(), set()))
    return False


def origins(statements: list[Statement]) -> list[set[str]]:
    """Per statement: every name its value was made from, through the statements before it."""
    made_from: list[set[str]] = []
    latest: dict[str, int] = {}
    for s in statements:
        found = set(s.loads)
        for name in s.loads:
            if name in latest:
                found |= made_from[latest[name]]
        made_from.append(found)
        for name in s.binds:
            latest[name] = len(made_from) - 1
    return made_from


def is_value(node: ast.AST, values: AbstractSet[str] = frozenset()) -> bool:
    """An expression whose value no later statement can change in place: a number, a string, a
    dtype, a device, a tuple of them, arithmetic on them (`values`: names known to hold one)."""
    match node:
        case ast.Constant() | ast.JoinedStr():
            return True
        case ast.Name(id=name):
            return name in values
        case ast.Tuple(elts=elements):
            return all(is_value(e, values) for e in elements)
        case ast.BinOp(left, _, right) | ast.Compare(left, _, [right]):
            return is_value(left, values) and is_value(right, values)
        case ast.UnaryOp(_, operand):
            return is_value(operand, values)
        case ast.IfExp(_, body, orelse):
            return is_value(body, values) and is_value(orelse, values)
        case ast.Attribute(ast.Name("torch"), attr) if attr.startswith(("float", "bfloat", "int", "bool", "complex")):
            return True
        case ast.Call(ast.Attribute(ast.Name("torch"), "device")):
            return True
    return False


def value_names(statements: list[Statement]) -> set[str]:
    """The names every binding of which is a value (is_value)."""
    bound: dict[str, list[ast.stmt]] = {}
    for s in statements:
        for name in s.binds:
            bound.setdefault(name, []).append(s.node)
    values: set[str] = set()
    while True:
        more = {name for name, nodes in bound.items() if name not in values and all(
            isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
            and is_value(n.value, values) for n in nodes)}
        if not more:
            return values
        values |= more


def liveness(statements: list[Statement], wanted: AbstractSet[str], made_from: list[set[str]],
             unchangeable: AbstractSet[str], forced: AbstractSet[Statement]) -> tuple[list[Statement], set[str]]:
    live, chosen = set(wanted), list[Statement]()
    for i in reversed(range(len(statements))):
        s = statements[i]
        uses = s.binds & live
        changes = s.is_effect and ((made_from[i] | s.loads) & live - unchangeable or (s.is_seed and s.loads & live))
        if uses or changes or s in forced:
            chosen.append(s)
            if isinstance(s.node, (ast.Assign, ast.Import, ast.ImportFrom, *SCOPES[:2], ast.ClassDef)):
                live -= s.binds  # bound here for certain: earlier bindings are not needed
            live |= s.loads
    return chosen[::-1], live


@functools.cache
def project_module(name: str, folder: Path, project: Path) -> Path | None:
    """The file of a module the project holds (the snippet's folder first, then the path),
    not an installed package; None for any other module."""
    if "." in name:
        return None
    local = folder / f"{name}.py"
    if local.is_file():
        return local
    spec = PathFinder.find_spec(name)
    origin = Path(spec.origin) if spec and spec.origin and spec.origin.endswith(".py") else None
    if origin and origin.name != "__init__.py" and origin.is_relative_to(project) \
            and not origin.is_relative_to(sys.prefix):
        return origin
    return None


@dataclass
class Inlined:
    """Helper-module code to put before the code that imports it."""
    imports: list[str] = field(default_factory=list)  # import statements, as text
    definitions: list[str] = field(default_factory=list)  # statements, as text
    plain: bool = False  # the definitions without their comments and docstrings (`plain`)


class Source:
    """One snippet file, read as a program whose parts a reader takes away."""

    def __init__(self, path: str | Path, project: str | Path, data: Any = None) -> None:
        self.path, self.project = Path(path), Path(project)
        found = statements_of(self.path)
        # Python cannot parse it: the run says why, and a copy is the lines as they are
        self.statements, self.lines = found if found else ([], self.path.read_text(errors="replace").splitlines())
        self.data = data  # the values of the one data file the snippet reads, if any
        self.helpers = {n for s in self.statements if self.helper(s) for n in s.binds}

    def helper(self, statement: Statement) -> tuple[dict[str, str | None], Path] | None:
        """The project module a statement imports, with what it takes: ({local name: name
        there}, path); `import tiny_autograd as tiny` takes {"tiny": None}."""
        match statement.node:
            case ast.ImportFrom(module=module, level=0, names=aliases) if module:
                path = project_module(module, self.path.parent, self.project)
                return ({a.asname or a.name: a.name for a in aliases}, path) if path else None
            case ast.Import(names=[alias]):
                path = project_module(alias.name, self.path.parent, self.project)
                return ({alias.asname or alias.name: None}, path) if path else None
        return None

    def text(self, statement: Statement, first: int | None = None, last: int | None = None, values: Any = None) -> str:
        """A statement's lines (or lines first..last of it) without section markers, its data
        reads replaced by the data's values (or by `values`, the part of them a copy uses)."""
        values = self.data if values is None else values
        first, last = max(first or statement.first, statement.first), min(last or statement.last, statement.last)
        lines = [line.encode() for line in self.lines[first - 1:last]]
        reads = statement.reads if values is not None else []
        for read in sorted(reads, key=lambda r: (r.lineno, r.col_offset), reverse=True):
            assert read.end_lineno is not None  # ast.parse gives every node its end
            top, bottom = read.lineno - first, read.end_lineno - first
            if 0 <= top and bottom < len(lines):
                indent = " " * len(lines[top][:read.col_offset].decode())
                literal = pprint.pformat(values, width=88 - len(indent), sort_dicts=False)
                lines[top:bottom + 1] = [lines[top][:read.col_offset] + literal.replace("\n", "\n" + indent).encode()
                                         + lines[bottom][read.end_col_offset:]]
        return "\n".join(line.decode() for line in lines if not MARKER.search(line.decode()))

    def inline(self, wanted: AbstractSet[str], inlined: Inlined, seen: tuple[Path, ...] = ()) -> None:
        """Put into `inlined` what the names `wanted` of this module need of it, with what it
        needs of the helpers it imports in turn."""
        chosen, _ = needed(self.statements, wanted, self.drawn)
        used = set(wanted).union(*(s.loads for s in chosen))
        for s in chosen:
            if self.helper(s):
                self.inline_helper(s, used, inlined, (*seen, self.path))
            elif s.is_import:
                if (text := import_text(s.node, used)) and text not in inlined.imports:
                    inlined.imports.append(text)
            elif (text := plain(self.text(s)) if inlined.plain else self.text(s)) not in inlined.definitions:
                inlined.definitions.append(text)

    def inline_helper(self, statement: Statement, used: AbstractSet[str], inlined: Inlined,
                      seen: tuple[Path, ...]) -> None:
        """The code of a helper module a statement imports, as much as `used` needs: the names
        `from elu import ELUCustom` takes, or for `import tiny_autograd as tiny` the attributes
        the code takes from `tiny`, in a function that returns them as a namespace (the module's
        names must not mix with the code's own: both may define `add`)."""
        found = self.helper(statement)
        assert found is not None  # the statement imports a helper
        taken, module = found
        if module in seen:
            return
        helper = helper_source(module, self.project, module.stat().st_mtime_ns)
        ((alias, name),) = taken.items() if None in taken.values() else ((None, None),)
        if alias is None:
            helper.inline({name for local, name in taken.items() if local in used and name is not None}, inlined, seen)
            return
        inner = Inlined(plain=inlined.plain)
        helper.inline(self.attributes.get(alias, set()), inner, seen)
        body = join(inner.imports + inner.definitions + ["return SimpleNamespace(**locals())"])
        function = module.stem
        inlined.imports += [t for t in ["from types import SimpleNamespace"] if t not in inlined.imports]
        inlined.definitions.append(f'def {function}():\n    """{module.name}, as a namespace."""\n'
                                   + textwrap.indent(body, "    "))
        inlined.definitions.append(f"{alias} = {function}()")

    @functools.cached_property
    def attributes(self) -> dict[str, set[str]]:
        """{name: what the code takes from it} (`tiny`: `Value` of `tiny.Value`): what it takes
        from a module it imports whole."""
        found: dict[str, set[str]] = {}
        for node in (n for s in self.statements for n in ast.walk(s.node)):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                found.setdefault(node.value.id, set()).add(node.attr)
        return found

    @functools.cached_property
    def random(self) -> Drawing:
        """What may draw random numbers in this file (`drawing`)."""
        return drawing(self.statements, self.helpers)

    @functools.cached_property
    def drawn(self) -> set[Statement]:
        """The statements that may draw random numbers, that a copy keeps after a seed (`draws`)."""
        return {s for s in self.statements if draws(s, self.random)}

    @functools.cached_property
    def may_draw(self) -> set[Statement]:
        """The statements that may draw random numbers, of any kind (a training loop)."""
        return {s for s in self.statements if calls_drawing(s.node, self.random)}

    def within(self, first: int, last: int) -> list[Statement]:
        """The statements lines first..last show (a statement they cut into counts whole)."""
        return [s for s in self.statements if s.last >= first and s.first <= last]

    def program(self, first: int | None = None, last: int | None = None, as_file: bool = False) -> "Program":
        """The copy of lines first..last (all when None): a `Program`. `as_file`: it runs as a
        file (a download), where `__file__` is defined; a copy runs as `python -c`."""
        first, last = first or 1, last or len(self.lines)
        block = self.within(first, last)
        if not block:  # Python cannot parse it (the run says why), or no code
            code = "\n".join(line for line in self.lines[first - 1:last] if not MARKER.search(line))
            return Program("", code.strip("\n"))
        kept = self.kept(block)
        wanted = free_names(kept)
        earlier = [s for s in self.statements if s.last < block[0].first]
        # The block draws from what was drawn before it, unless it first seeds every generator seeded before it.
        first_draw = next((n for n, s in enumerate(kept) if s in self.may_draw), None)
        draws_after = first_draw is not None and not {s.seeds for s in earlier if s.is_seed} <= {
            s.seeds for s in kept[:first_draw] if s.is_seed}
        chosen, _ = needed(earlier, wanted, self.drawn, draws_after, self.may_draw)
        used = wanted.union(*(s.loads for s in chosen))
        inlined = Inlined(plain=True)
        for s in chosen + block:
            if self.helper(s):
                self.inline_helper(s, used, inlined, (self.path,))
        imports = [t for s in chosen if s.is_import and not self.helper(s) and (t := import_text(s.node, used))]
        imports += [t for t in inlined.imports if t not in imports]
        values = used_data(self.data, [s.node for s in chosen + kept])  # a read in the setup: what the copy takes
        own = [plain(self.text(s, values=values)) for s in chosen if not s.is_import]
        setup = inlined.definitions + own
        lead = list(itertools.takewhile(lambda s: s.is_import or is_docstring(s), kept)) if imports or setup else []
        head = [self.text(s) for s in lead if is_docstring(s)]
        own_imports = [self.text(s) for s in lead if s.is_import]
        fold = join(["\n".join(t for t in imports if t not in own_imports), *setup])
        all_imports = own_imports + [t for t in imports if t not in own_imports]
        code = self.block_text(first, last, [s for s in block if s not in kept or s in lead])
        if "__file__" in wanted | used and not as_file:  # it finds a data file that is not there from where it lives
            where = self.path.relative_to(self.project).as_posix()
            setup.insert(0, f"__file__ = {where!r}  # where this code lives in the repository")
            fold = join([f"__file__ = {where!r}  # where this code lives in the repository", fold])
        return Program(fold, join([*head, "\n".join(all_imports), *setup, code]))

    def cell(self, first: int, last: int, helpers: Inlined, after: dict[Statement, str] | None = None) -> str:
        """Lines first..last as a notebook cell holds them: as a copy has them (helper imports
        gone, data as values), the code of those helpers added to `helpers`; `after` maps a
        statement to a line to put after it."""
        block = self.within(first, last)
        kept = self.kept(block)
        used = set().union(*(s.loads for s in self.statements))
        for s in block:
            if self.helper(s):
                self.inline_helper(s, used, helpers, (self.path,))
        code = self.block_text(first, last, [s for s in block if s not in kept], after or {})
        if "__file__" in free_names(kept):  # a notebook has no __file__: the data is found from here
            where = self.path.relative_to(self.project).as_posix()
            code = f"__file__ = {where!r}  # where this code lives in the repository\n" + code
        return code

    def block_text(self, first: int, last: int, dropped: Collection[Statement],
                   after: dict[Statement, str] | None = None) -> str:
        """Lines first..last as they are, but for the statements `dropped` and the edits of text(),
        with the line `after[statement]` after a statement."""
        lines, n, after = [], first, after or {}
        by_start = {max(s.first, first): s for s in self.within(first, last)}
        while n <= last:
            s = by_start.get(n)
            if s is None:
                if not MARKER.search(self.lines[n - 1]):
                    lines.append(self.lines[n - 1])
                n += 1
                continue
            if s not in dropped:
                lines.append(self.text(s, first, last))
                if s in after:
                    lines.append(after[s])
            n = min(s.last, last) + 1
        text = "\n".join(lines)
        return re.sub(r"\n{3,}", "\n\n", text).strip("\n")

    def kept(self, block: list[Statement]) -> list[Statement]:
        """The block's statements a copy keeps: not a helper import (its code is inlined), not a
        line that only found a data file's path from `__file__` once the data is a literal."""
        kept = [s for s in block if not self.helper(s)]
        while self.data is not None:
            dead = [s for s in kept if "__file__" in self.origins(s, kept) and isinstance(s.node, ast.Assign)
                    and not s.binds & free_names([k for k in kept if k is not s])]
            if not dead:
                break
            kept = [s for s in kept if s not in dead]
        return kept

    def origins(self, statement: Statement, among: list[Statement]) -> set[str]:
        """The names a statement's value comes from, through the statements `among` before it."""
        found, todo = set(), set(statement.loads)
        earlier = [s for s in among if s.last < statement.first]
        while todo:
            name = todo.pop()
            found.add(name)
            for s in earlier:
                if name in s.binds:
                    todo |= s.loads - found
        return found

    def whole(self) -> str:
        """The whole snippet as a download holds it."""
        return self.program(as_file=True).copy + "\n"


@functools.cache
def helper_source(path: Path, project: Path, mtime_ns: int) -> Source:
    """A helper module, read once for each version of it."""
    return Source(path, project)


def used_data(data: Any, nodes: list[ast.AST]) -> Any:
    """The part of a data file's values (`data`) that the code `nodes` uses, where the code
    reads it as `name = json.loads(...)` and takes from it by constant keys (`data["model"]`,
    `data.get("model")`), through names bound to parts of it (`model = data["model"]`, `for v
    in data["variants"]`, `next(v for v in variants if ...)`); everything where the code does
    anything else with a part (passes it to a function, iterates its items)."""
    if not isinstance(data, (dict, list)):  # no data file read, or one of a single value
        return data
    parents = {child: node for root in nodes for node in ast.walk(root) for child in ast.iter_child_nodes(node)}
    paths: dict[str, set[tuple[object, ...]]] = {}  # name: the parts of the data it holds
    for read in (n for root in nodes for n in ast.walk(root) if is_data_read(n)):
        match parents.get(read):
            case ast.Assign(targets=[ast.Name(id=name)], value=value) if value is read:
                paths.setdefault(name, set()).add(())
            case _:
                return data
    if not paths:
        return data
    used: set[tuple[object, ...]] = set()
    while True:
        before = {name: set(found) for name, found in paths.items()}
        for node in (n for root in nodes for n in ast.walk(root)):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in paths:
                for path in list(paths[node.id]):
                    follow(node, path, parents, paths, used)
        if paths == before:
            break
    known = used.union(*paths.values())  # a part bound to a name and not taken from is kept whole
    used |= {p for p in known if not any(len(q) > len(p) and q[:len(p)] == p for q in known)}
    return trimmed(data, used)


def follow(node: ast.expr, path: tuple[object, ...], parents: dict[ast.AST, ast.AST],
           paths: dict[str, set[tuple[object, ...]]], used: set[tuple[object, ...]]) -> None:
    """Where the part `path` of the data, which `node` evaluates to, goes (used_data)."""
    while True:
        parent = parents.get(node)
        match parent:
            case ast.Subscript(value=value, slice=ast.Constant(value=key)) if value is node:
                path, node = path + (key if isinstance(key, str) else "*",), parent
            case ast.Attribute(value=value, attr="get") if value is node and is_call_of(call := parents.get(parent)) \
                    and call.func is parent and call.args and isinstance(argument := call.args[0], ast.Constant):
                path, node = path + (argument.value,), call
            case ast.IfExp(body=body, orelse=orelse) if node is body or node is orelse:
                node = parent
            case ast.IfExp() | ast.If() | ast.BoolOp() | ast.UnaryOp(op=ast.Not()):
                return  # a test: the part is there or not
            case ast.GeneratorExp(elt=elt) if elt is node and is_call_of(call := parents.get(parent), "next"):
                node = call  # next(v for v in parts if ...): one of the parts
            case ast.comprehension(iter=iterable, target=ast.Name(id=name)) | ast.For(iter=iterable, target=ast.Name(id=name)) \
                    if iterable is node:
                paths.setdefault(name, set()).add(path + ("*",))
                return
            case ast.Assign(targets=[ast.Name(id=name)], value=value) if value is node:
                paths.setdefault(name, set()).add(path)
                return
            case ast.Tuple(elts=elements) if isinstance(assign := parents.get(parent), ast.Assign):
                match assign.targets:  # model, variants = data["model"], data["variants"]
                    case [ast.Tuple(elts=names)] if len(names) == len(elements):
                        if isinstance(target := names[elements.index(node)], ast.Name):
                            paths.setdefault(target.id, set()).add(path)
                            return
                used.add(path)
                return
            case _:
                used.add(path)
                return


def is_call_of(node: ast.AST | None, name: str | None = None) -> TypeGuard[ast.Call]:
    """`node` is a call (of the function `name`)."""
    return isinstance(node, ast.Call) and (name is None or isinstance(node.func, ast.Name) and node.func.id == name)


def trimmed(data: Any, used: set[tuple[object, ...]]) -> Any:
    """`data` with only the parts on the paths `used` (a path used whole keeps all below it)."""
    if any(not path for path in used):
        return data
    if isinstance(data, dict):
        keys = {path[0] for path in used}
        return {key: trimmed(value, {p[1:] for p in used if p[0] == key}) for key, value in data.items()
                if key in keys}
    if isinstance(data, list) and all(path[0] == "*" for path in used):
        return [trimmed(value, {p[1:] for p in used}) for value in data]
    return data


@dataclass
class Program:
    setup: str  # what a block needs before it: the page folds it above the block
    copy: str  # what the block's copy button copies: it runs on its own


def free_names(statements: Iterable[Statement]) -> set[str]:
    """The names a run of statements reads before binding them itself."""
    free: set[str] = set()
    bound: set[str] = set()
    for s in statements:
        free |= s.loads - bound
        bound |= s.binds
    return free


def leaves(target: ast.expr) -> list[ast.expr]:
    """The targets an assignment target unpacks into (`a, (b, c)`: a, b, c)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return [leaf for element in target.elts for leaf in leaves(element)]
    return [target.value if isinstance(target, ast.Starred) else target]


def is_docstring(statement: Statement) -> bool:
    return is_docstring_node(statement.node)


def is_docstring_node(node: ast.AST) -> bool:
    match node:
        case ast.Expr(ast.Constant(str())):
            return True
    return False


@functools.lru_cache(maxsize=4096)
def plain(code: str) -> str:
    """Setup code as support, not as a lesson: without comment lines, docstrings and blank lines
    inside a definition. The page shows and explains that code where it teaches it; in a copy
    it is the few lines the block needs."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code
    dropped: set[int] = set()
    in_strings: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (*SCOPES[:2], ast.ClassDef)) and len(node.body) > 1 and is_docstring_node(node.body[0]):
            docstring = node.body[0]
            dropped.update(range(docstring.lineno, (docstring.end_lineno or docstring.lineno) + 1))
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type == tokenize.COMMENT and not token.line[:token.start[1]].strip():
            dropped.add(token.start[0])
        elif token.type == tokenize.STRING:
            in_strings.update(range(token.start[0] + 1, token.end[0] + 1))  # a string's own lines stay
    return "\n".join(line for n, line in enumerate(code.split("\n"), 1)
                     if n not in dropped and (line.strip() or n in in_strings))


def import_text(node: ast.stmt, used: AbstractSet[str]) -> str | None:
    """An import statement with only the names `used` (None when it binds none of them)."""
    assert isinstance(node, (ast.Import, ast.ImportFrom))
    aliases = [a for a in node.names if (a.asname or a.name).split(".")[0] in used]
    if not aliases:
        return None
    copy = ast.ImportFrom(node.module, aliases, node.level) if isinstance(node, ast.ImportFrom) \
        else ast.Import(aliases)
    return ast.unparse(copy)


def join(parts: Iterable[str]) -> str:
    """Top-level code as a reader writes it: two blank lines around a definition, one after
    the imports and around a statement of several lines."""
    text, previous = "", None
    for part in (p.strip("\n") for p in parts):
        if not part:
            continue
        if previous is not None:
            blank = 1 if is_definition_text(part) or is_definition_text(previous) else \
                1 if "\n" in part or "\n" in previous or previous.startswith(("import ", "from ")) else 0
            text += "\n" * (blank + 1)
        text += part
        previous = part
    return text


def is_definition_text(text: str) -> bool:
    return text.lstrip().startswith(("def ", "class ", "@", "async def "))


def data_values(deps: Iterable[str | Path]) -> Any:
    """The values of the one JSON data file a snippet read, if it read exactly one that exists."""
    files = [Path(d) for d in deps if Path(d).suffix == ".json" and Path(d).is_file()]
    return json.loads(files[0].read_text(encoding="utf-8")) if len(files) == 1 else None


BUNDLE_README = """# Autograd Inside Out: the examples

Each file is one example of the site, the same as its download from the title of
its code block: it runs on its own, in an empty folder, and prints what the page
shows under it. The folders are the chapters.

    python -m venv .venv
    . .venv/bin/activate
    pip install -r requirements.txt
    cd autograd_basics
    python first_gradient.py

requirements.txt pins the packages that produced the outputs on the site, which
ran them with {environment}. The examples that draw a graph also need Graphviz's
`dot` program (`apt-get install graphviz`, `brew install graphviz`, or
`conda install -c conda-forge graphviz`).
"""


def requirements(packages: Mapping[str, str | None]) -> str:
    """Pins for pip: {name: version} as installed (a local build tag such as +cpu left out)."""
    return "".join(f"{name}=={version.split('+')[0]}\n" for name, version in packages.items() if version)


def bundle(programs: dict[str, str], packages: Mapping[str, str | None], environment: str) -> bytes:
    """A zip of every example's program ({path in the bundle: text}), requirements.txt and a
    README; the same bytes for the same content (fixed dates)."""
    files = {**programs, "requirements.txt": requirements(packages),
             "README.md": BUNDLE_README.format(environment=environment)}
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            archive.writestr(zipfile.ZipInfo(f"examples/{name}", date_time=(2026, 1, 1, 0, 0, 0)), files[name])
    return data.getvalue()
