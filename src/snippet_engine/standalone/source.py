"""One snippet file as the programs a reader takes away: a block's copy, a notebook cell,
the download; the helper modules it imports, inlined."""

import ast
import functools
import itertools
import math
import pprint
import re
import sys
import textwrap
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from importlib.machinery import PathFinder
from pathlib import Path
from typing import Any

from snippet_engine.chapter import MARKER, code_text
from snippet_engine.standalone.data import used_data
from snippet_engine.standalone.needs import Drawing, calls_drawing, drawing, draws, needed
from snippet_engine.standalone.statements import Statement, free_names, is_docstring, showing, statements_of
from snippet_engine.standalone.text import import_text, join, plain, silent
from snippet_engine.standalone.unsure import Facts, facts, unsure

READING: set[Path] = set()  # the files whose helper modules are being read (Source.showing)


class Literal(pprint.PrettyPrinter):
    """pprint's layout of a data file's values, as Python code: a float that is not finite (JSON's
    NaN and Infinity, which json.loads reads) as float("nan"), float("inf"), float("-inf"),
    where its repr, `nan`, would be a name the copy does not define."""

    def format(self, obj: object, context: dict[int, int], maxlevels: int, level: int) -> tuple[str, bool, bool]:
        if isinstance(obj, float) and not math.isfinite(obj):
            return f'float("{obj!r}")', True, False
        return super().format(obj, context, maxlevels, level)


# The most characters of a data file's values that a block's setup fold shows: a copy holds them
# all, the page shows the fold of each block that reads them.
FOLDED_DATA = 2000


@dataclass
class Program:
    setup: str  # what a block needs before it: the page folds it above the block
    copy: str  # what the block's copy button copies: it runs on its own
    unsure: list[str] = field(default_factory=list)  # why it may print other than the block (unsure.py)


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
    origins: dict[str, tuple[Path, set[str]]] = field(default_factory=dict)  # each definition's module and names
    plain: bool = False  # the definitions without their comments and docstrings (`plain`)
    whole: bool = False  # a module imported whole (`import m as alias`) with all it defines, not what the code takes


class Source:
    """One snippet file, read as a program whose parts a reader takes away."""

    def __init__(self, path: str | Path, project: str | Path, data: Any = None, files: Iterable[Path] = ()) -> None:
        self.path, self.project = Path(path), Path(project)
        self.files = sorted(files)  # the files it reads that a copy does not hold (every data file but `data`'s)
        found = statements_of(self.path)
        # Python cannot parse it: the run says why, and a copy is the lines as they are
        self.statements, self.lines = found if found else ([], code_text(self.path, "replace").splitlines())
        self.data = data  # the values of the one data file the snippet reads, if any
        if data is None:  # its reads stay code (a file that is missing, or one of several): they need their names
            self.statements = [replace(s, loads=s.loads | s.read_loads) if s.reads else s for s in self.statements]
        self.helpers = {n for s in self.statements if self.helper(s) for n in s.binds}
        shows = frozenset(self.showing())
        self.statements = [replace(s, shows=shows) for s in self.statements]

    def helper(self, statement: Statement) -> tuple[dict[str, str | None], Path] | None:
        """The project module a statement imports, with what it takes: ({local name: name
        there}, path); `import tiny_autograd as tiny` takes {"tiny": None}."""
        match statement.node:
            case ast.ImportFrom(module=module, level=0, names=aliases) if module:
                path = project_module(module, self.path.parent, self.project)
                if path and any(a.name == "*" for a in aliases):  # what it binds: statements.hidden_binds
                    return {name: name for name in statement.binds}, path
                return ({a.asname or a.name: a.name for a in aliases}, path) if path else None
            case ast.Import(names=[alias]):
                path = project_module(alias.name, self.path.parent, self.project)
                return ({alias.asname or alias.name: None}, path) if path else None
        return None

    def showing(self) -> set[str]:
        """The names of the functions that only show something (`showing`): of this file, and
        those it imports from a helper module (not from one that imports this file back)."""
        imported = set()
        READING.add(self.path)
        try:
            for s in self.statements:
                if (found := self.helper(s)) and found[1] not in READING:
                    taken, module = found
                    helper = helper_source(module, self.project, module.stat().st_mtime_ns)
                    imported |= {local for local, name in taken.items() if name in helper.shows}
        finally:
            READING.discard(self.path)
        return imported | showing([s.node for s in self.statements if isinstance(s.node, ast.FunctionDef)], imported)

    @functools.cached_property
    def shows(self) -> frozenset[str]:
        return self.statements[0].shows if self.statements else frozenset()

    def text(self, statement: Statement, first: int | None = None, last: int | None = None, values: Any = None,
             elide: int | None = None) -> str:
        """A statement's lines (or lines first..last of it) without section markers, its data
        reads replaced by the data's values (or by `values`, the part of them a copy uses); values
        longer than `elide` characters by `...`."""
        values = self.data if values is None else values
        first, last = max(first or statement.first, statement.first), min(last or statement.last, statement.last)
        lines = [line.encode() for line in self.lines[first - 1:last]]
        reads = statement.reads if values is not None else []
        for read in sorted(reads, key=lambda r: (r.lineno, r.col_offset), reverse=True):
            assert read.end_lineno is not None  # ast.parse gives every node its end
            top, bottom = read.lineno - first, read.end_lineno - first
            if 0 <= top and bottom < len(lines):
                indent = " " * len(lines[top][:read.col_offset].decode())
                literal = Literal(width=88 - len(indent), sort_dicts=False).pformat(values)
                if elide is not None and len(literal) > elide:
                    literal = "..."
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
                inlined.origins[text] = self.path, s.binds

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
        inner = Inlined(plain=inlined.plain, whole=inlined.whole)
        wanted = set().union(*(s.binds for s in helper.statements)) if inlined.whole else self.attributes.get(alias, set())
        helper.inline(wanted, inner, seen)
        body = join(inner.imports + inner.definitions + ["return SimpleNamespace(**locals())"])
        function = module.stem
        inlined.imports += [t for t in ["from types import SimpleNamespace"] if t not in inlined.imports]
        text = (f'def {function}():\n    """{module.name}, as a namespace."""\n' + textwrap.indent(body, "    ")
                + f"\n\n{alias} = {function}()")
        inlined.definitions.append(text)
        inlined.origins[text] = module, {function, alias}

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
    def facts(self) -> Facts:
        """What its statements define that a copy's doubts ask about (`unsure`)."""
        return facts(self.statements)

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

    def program(self, first: int | None = None, last: int | None = None, as_file: bool = False) -> Program:
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
        values = used_data(self.data, [s.node for s in chosen + kept])  # what the copy's code takes of the data
        quiet = self.called_in_setup(chosen, wanted)
        def own(elide: int | None = None) -> list[str]:
            return [textwrap.dedent(plain(silent(self.text(self.settled(s), values=values, elide=elide), self.shows, quiet)))
                    for s in chosen if not s.is_import]

        setup = inlined.definitions + own()
        shown = inlined.definitions + own(FOLDED_DATA) if values is not None else setup
        if shown != setup:
            shown.insert(len(inlined.definitions), "# ... stands for the data file's values, which the copy holds")
        lead = list(itertools.takewhile(lambda s: s.is_import or is_docstring(s), kept)) if imports or setup else []
        head = [self.text(s) for s in lead if is_docstring(s)]
        own_imports = [self.text(s) for s in lead if s.is_import]
        fold = join(["\n".join(t for t in imports if t not in own_imports), *shown])
        all_imports = own_imports + [t for t in imports if t not in own_imports]
        code = self.block_text(first, last, set(block) - set(kept) | set(lead), values=values)
        if "__file__" in wanted | used and not as_file:  # it finds a data file that is not there from where it lives
            where = self.where("\n".join([*setup, code]))
            setup.insert(0, where)
            fold = join([where, fold])
        doubts = unsure(self.facts, chosen, [s for s in earlier if s not in chosen], kept, used,
                        any(s in self.may_draw for s in kept))
        doubts += [f"line {s.node.lineno} holds the block, which is a part of it: its copy is that part alone"
                   for s in block if first <= (end := s.node.end_lineno or s.node.lineno) and s.node.lineno <= last
                   and (s.node.lineno < first or end > last)]
        return Program(fold, join([*head, "\n".join(all_imports), *setup, code]), doubts)

    @staticmethod
    def called_in_setup(chosen: list[Statement], wanted: AbstractSet[str]) -> set[str]:
        """The functions the setup `chosen` defines that the block, reading the names `wanted`,
        does not call, directly or through another (a hook the setup registers and runs)."""
        functions = {s.node.name: s for s in chosen if isinstance(s.node, (ast.FunctionDef, ast.AsyncFunctionDef))}
        reached, todo = set(), set(wanted) & set(functions)
        while todo:
            reached.add(name := todo.pop())
            todo |= (functions[name].loads & set(functions)) - reached
        return set(functions) - reached

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
        code = self.block_text(first, last, set(block) - set(kept), after or {})
        if "__file__" in free_names(kept):  # a notebook has no __file__: the data is found from here
            code = self.where(code) + "\n" + code
        return code

    def where(self, code: str) -> str:
        """The line that says where `code` lives, for code that finds its files from there, and
        which files it reads there that it does not hold (those it names, or where it names none
        of them, every one its snippet read)."""
        line = f"__file__ = {self.path.relative_to(self.project).as_posix()!r}  # where this code lives in the repository"
        read = [f for f in self.files if f.name in code] or self.files
        if not read:
            return line
        files = ", ".join(f.relative_to(self.project).as_posix() for f in read)
        return "\n".join(textwrap.wrap(f"It reads {files}: run it from the root of the project's source (the home "
                                        "page links its download), or put those files where these paths say.",
                                        86, initial_indent="# ", subsequent_indent="# ") + [line])

    def block_text(self, first: int, last: int, dropped: AbstractSet[Statement],
                   after: dict[Statement, str] | None = None, values: Any = None) -> str:
        """Lines first..last as they are, but for the statements `dropped` and the edits of text()
        (with `values` for the data), with the line `after[statement]` after a statement."""
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
                lines.append(self.text(s, first, last, values))
                if s in after:
                    lines.append(after[s])
            n = min(s.last, last) + 1
        text = "\n".join(lines)
        return re.sub(r"\n{3,}", "\n\n", text).strip("\n")

    def settled(self, statement: Statement) -> Statement:
        """A statement of a copy's setup, without the fallback of a data read that the copy holds
        as values (`try: data = json.loads(...)` `except FileNotFoundError: ...`): its read alone."""
        match statement.node:
            case ast.Try(body=[ast.Assign() as read], handlers=[ast.ExceptHandler(type=ast.Name("FileNotFoundError"))],
                         orelse=[], finalbody=[]) if self.data is not None and statement.reads:
                assert read.end_lineno is not None  # ast.parse gives every statement its end
                return replace(statement, node=read, first=read.lineno, last=read.end_lineno)
        return statement

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
