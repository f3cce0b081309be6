"""A snippet file's top-level statements: what each reads and binds, and what kind of
statement it is (an import, an output, an effect on an object, a seed)."""

import ast
import builtins
import functools
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path
from typing import TypeGuard

from snippet_engine import torch_settings
from snippet_engine.chapter import MARKER, code_text

OUTPUT_CALLS = {"print", "display", "pprint"}  # calls that only show something
OUTPUT_METHODS = {"show", "render", "savefig"}  # plt.show(), graph.render(...)
BUILTINS = set(dir(builtins))
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
CALLS = (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)  # what an expression may change things by


def names(node: ast.AST) -> tuple[set[str], set[str]]:
    """(loaded, stored): the free names `node` reads and the names it binds, in its own scope."""
    loads: set[str] = set()
    stores: set[str] = set()

    def visit(node: ast.AST) -> None:
        match node:
            case ast.Name(id=name, ctx=ast.Load()):
                if name not in stores:  # read before this statement binds it
                    loads.add(name)
            case ast.Name(id=name, ctx=ast.Del()):
                if name not in stores:  # `del x` needs x bound
                    loads.add(name)
                stores.add(name)
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
                # `[last := f(x) for x in xs]` binds `last` where the comprehension is
                stores.update(n.target.id for n in ast.walk(node) if isinstance(n, ast.NamedExpr)
                              and isinstance(n.target, ast.Name))
            case ast.MatchAs(name=str(name)) | ast.MatchStar(name=str(name)) | ast.MatchMapping(rest=str(name)):
                for child in ast.iter_child_nodes(node):
                    visit(child)
                stores.add(name)  # a capture pattern binds its name
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


def is_output(statement: ast.AST, shows: AbstractSet[str] = frozenset()) -> bool:
    """A statement that only shows something: a print, a plot, an assert, an expression that
    calls nothing, a call of a function that only shows (named in `shows`: `showing`) or one
    that registers such a function as a hook, a loop of them; or that shows an error: a try whose handlers only show, as its code is there to
    raise. That code is taken to raise before it changes anything (the second backward() of a
    freed graph), unless it changes an object in place itself (`b.add_(1)`, `h[0] = 0`), as an
    in-place operation may raise once it is done (torch's check of an inference tensor)."""
    match statement:
        case ast.Expr(ast.Call(ast.Name(name))) if name in OUTPUT_CALLS or name in shows:
            return True
        case ast.Expr(ast.Call(ast.Attribute(_, method))) if method in OUTPUT_METHODS:
            return True
        case ast.Expr(ast.Call(func, args)) if "hook" in ast.unparse(func).rpartition(".")[2]:
            functions = [a for a in args if isinstance(a, (ast.Lambda, ast.Name))]
            return bool(functions) and all(only_shows(f, shows) for f in functions)  # a hook that only shows
        case ast.Expr(value) if not any(isinstance(n, CALLS) for n in ast.walk(value)):
            return True
        case ast.Assert() | ast.Pass():
            return True
        case ast.Try(body=body, handlers=handlers, orelse=[], finalbody=[]) if handlers:
            return not any(in_place(n) for s in body for n in ast.walk(s)) \
                and all(is_output(s, shows) for handler in handlers for s in handler.body)
        case ast.For() | ast.While() | ast.If() | ast.With():
            return all(is_output(s, shows) for s in statement.body + getattr(statement, "orelse", []))
    return False


def only_shows(function: ast.Lambda | ast.Name, shows: AbstractSet[str]) -> bool:
    """A function that only shows: one named in `shows`, or a lambda that calls print or one of them."""
    match function:
        case ast.Name(id=name):
            return name in shows
        case ast.Lambda(body=ast.Call(ast.Name(name))):
            return name in OUTPUT_CALLS or name in shows
    return False


def in_place(node: ast.AST) -> bool:
    """An in-place change: a call of a method named for one (`add_`, torch's way), an assignment
    to an item or attribute."""
    match node:
        case ast.Call(ast.Attribute(attr=name)) if name.endswith("_") and not name.startswith("_"):
            return True
        case ast.Assign(targets=targets):
            return any(not isinstance(n, ast.Name) for t in targets for n in leaves(t))
        case ast.AugAssign(target=target) | ast.AnnAssign(target=target):
            return not isinstance(target, ast.Name)
    return False


def showing(functions: list[ast.FunctionDef], shows: AbstractSet[str] = frozenset()) -> set[str]:
    """The names of the `functions` that only show something, given those of `shows` do: their
    code shows, binds names of its own, changes objects it made itself (`ax.barh(...)`), returns
    nothing and calls no other function (but those that only show, itself included)."""
    found = {f.name for f in functions}
    while True:
        kept = {f.name for f in functions if all(quiet(s, own_names(f), shows | found) for s in f.body)}
        if kept == found:
            return found
        found = kept


def own_names(function: ast.FunctionDef) -> set[str]:
    """The names a function binds in its body, not its parameters."""
    arguments = function.args
    every = arguments.posonlyargs + arguments.args + arguments.kwonlyargs + [arguments.vararg, arguments.kwarg]
    return set().union(*(names(s)[1] for s in function.body)) - {a.arg for a in every if a}


def quiet(statement: ast.stmt, own: AbstractSet[str], shows: AbstractSet[str]) -> bool:
    """A statement of a function that only shows (`showing`), its objects being those named `own`."""
    match statement:
        case ast.Return(value=None | ast.Constant(value=None)):
            return True
        case ast.Assign(targets=targets) if all(isinstance(n, ast.Name) for t in targets for n in leaves(t)):
            return True
        case ast.AugAssign(target=ast.Name()) | ast.AnnAssign(target=ast.Name()):
            return True
        case ast.Expr(ast.Call(ast.Attribute() as method)) if root_name(method) in own:
            return True
        case ast.For() | ast.While() | ast.If() | ast.With():
            return all(quiet(s, own, shows) for s in statement.body + getattr(statement, "orelse", []))
    return is_output(statement, shows)


def root_name(node: ast.expr) -> str:
    """x of `x.a.b`, or "" where the chain starts with no name."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def is_effect(node: ast.AST, shows: AbstractSet[str] = frozenset()) -> bool:
    """A statement that may change an object other code uses (see Statement.is_effect). A
    compound statement (with, for, if, try) is one when a statement in it is, as a call in an
    assignment is taken to change nothing but the name it binds: the context managers a lesson
    uses (no_grad, autocast, saved_tensors_hooks) restore on exit what they changed on entry."""
    if getattr(node, "decorator_list", None):
        return True
    if is_output(node, shows) or isinstance(node, (ast.Import, ast.ImportFrom, *SCOPES[:2], ast.ClassDef)):
        return False
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.Delete)):  # binding or unbinding a name changes no object
        targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
        return not all(isinstance(n, ast.Name) for t in targets for n in leaves(t))
    if isinstance(node, (ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.If, ast.Try)):
        return any(is_effect(s, shows) for s in body_statements(node))
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
    read_loads: set[str]  # the names its data reads take: left out of `loads`, as a copy holds the data
    shows: frozenset[str] = frozenset()  # the names of the functions of its file that only show (`showing`)

    @property
    def is_import(self) -> bool:
        return isinstance(self.node, (ast.Import, ast.ImportFrom))

    @property
    def is_star_import(self) -> bool:
        """`from m import *`, whose names are not known for certain (`hidden_binds` guesses them)."""
        return isinstance(self.node, ast.ImportFrom) and any(a.name == "*" for a in self.node.names)

    @property
    def is_effect(self) -> bool:
        """It may change an object other code uses (`out.backward()`, `opt.step()`, a loop that
        calls them, a decorator that registers the function it decorates)."""
        return is_effect(self.node, self.shows)

    @property
    def torch_setting(self) -> tuple[str, bool] | None:
        """The setting of torch's process-wide ones (torch_settings) that it changes, which every
        later statement runs with, and whether to its default: `torch.set_grad_enabled(False)`
        is ("set_grad_enabled", False)."""
        match self.node:
            case ast.Expr(ast.Call(ast.Attribute(owner, name)) as call) if name in torch_settings.SETTERS \
                    and ast.unparse(owner) in ("torch", "torch.autograd"):
                arguments = ast.unparse(call)[len(ast.unparse(call.func)):]
                return name, arguments == torch_settings.SETTERS[name]
        return None

    @property
    def is_seed(self) -> bool:
        return bool(self.seeds)

    @functools.cached_property
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


# A coding cookie (PEP 263), on one of a file's first two lines.
@functools.cache
def parsed(path: Path, mtime_ns: int) -> tuple[list[Statement], list[str]] | None:
    """The top-level statements of a file (parsed once for each version of it); None when
    Python cannot parse it (the run reports that)."""
    try:
        source = code_text(path)
        tree = ast.parse(source)
    except (SyntaxError, ValueError):  # ValueError: bytes that do not decode, or a NUL byte
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
        read_loads = set().union(*(names(read)[0] for read in reads))
        statements.append(Statement(node, first, node.end_lineno, loads - read_loads, binds, reads, read_loads))
        previous_end = node.end_lineno
    hidden_binds(statements)
    builtin = BUILTINS - set().union(*(s.binds for s in statements))  # tiny_autograd's sum is its own
    for s in statements:
        s.loads -= builtin
        s.read_loads -= builtin
    return statements, lines


def hidden_binds(statements: list[Statement]) -> None:
    """Names a statement binds that its own code does not show: a call of a function (or a
    class, whose methods may) that assigns a global (`global count`), directly or through another function, binds it (and reads
    it, as `count += 1` does); `from m import *` binds the names the file reads and binds nowhere,
    and so does `builtins.name = ...` that name."""
    definitions = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)  # a class: its methods'
    assigns = {s.node.name: {n for node in ast.walk(s.node) if isinstance(node, ast.Global) for n in node.names}
               for s in statements if isinstance(s.node, definitions)}
    changed = True
    while changed:  # through the functions a function calls
        changed = False
        for s in statements:
            if isinstance(s.node, definitions):
                more = set().union(*(assigns.get(n, set()) for n in s.loads)) - assigns[s.node.name]
                assigns[s.node.name] |= more
                changed |= bool(more)
    free = set().union(*(s.loads for s in statements)) - set().union(*(s.binds for s in statements)) - BUILTINS
    for s in statements:
        if not isinstance(s.node, definitions):
            set_by_calls = set().union(*(assigns.get(n, set()) for n in s.loads))
            s.binds |= set_by_calls
            s.loads |= set_by_calls
        if s.is_star_import:
            s.binds |= free
        if isinstance(s.node, ast.Assign):
            s.binds |= {t.attr for t in s.node.targets if isinstance(t, ast.Attribute) and ast.unparse(t.value) == "builtins"}


def statements_of(path: str | Path) -> tuple[list[Statement], list[str]] | None:
    path = Path(path)
    return parsed(path, path.stat().st_mtime_ns)


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
