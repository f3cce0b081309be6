"""Code as a reader writes it: setup without its explanations, imports of what is used,
blank lines between top-level parts."""

import ast
import functools
import io
import tokenize
from collections.abc import Iterable
from collections.abc import Set as AbstractSet

from snippet_engine.standalone.statements import SCOPES, is_docstring_node, is_output


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


def silent(code: str, shows: AbstractSet[str] = frozenset(), functions: AbstractSet[str] = frozenset()) -> str:
    """A statement of a copy's setup without the statements inside it that only show something
    (`is_output`, with the functions `shows`): a loop that trains and prints each step trains
    without printing; a body left with nothing is `pass`. A definition's code stays as it is,
    but for the functions named in `functions` (those only the setup calls: a hook it registers)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code
    lines = code.split("\n")
    dropped: set[int] = set()  # indexes into lines
    passes: dict[int, str] = {}  # index: the `pass` that stands for a body left empty

    def visit(body: list[ast.stmt]) -> None:
        for s in body:
            if is_output(s, shows):
                dropped.update(range(s.lineno - 1, s.end_lineno or s.lineno))
            elif not isinstance(s, (*SCOPES[:2], ast.ClassDef)):
                inner(s)
        if body and all(is_output(s, shows) for s in body):
            passes[body[0].lineno - 1] = " " * body[0].col_offset + "pass"

    def inner(s: ast.stmt) -> None:
        for part in ("body", "orelse", "finalbody"):
            visit(getattr(s, part, []))
        for handler in [*getattr(s, "handlers", []), *getattr(s, "cases", [])]:
            visit(handler.body)

    for statement in tree.body:
        if not isinstance(statement, (*SCOPES[:2], ast.ClassDef)):
            inner(statement)
        elif isinstance(statement, SCOPES[:2]) and statement.name in functions:
            visit(statement.body)
    if not dropped:
        return code
    return "\n".join(passes.get(n, line) for n, line in enumerate(lines) if n not in dropped or n in passes)


def import_text(node: ast.stmt, used: AbstractSet[str]) -> str | None:
    """An import statement with only the names `used` (None when it binds none of them); `from m
    import *` whole where it binds one (statements.hidden_binds)."""
    assert isinstance(node, (ast.Import, ast.ImportFrom))
    aliases = [a for a in node.names if (a.asname or a.name).split(".")[0] in used or a.name == "*"]
    if not aliases:
        return None
    copy = ast.ImportFrom(node.module, aliases, node.level) if isinstance(node, ast.ImportFrom) \
        else ast.Import(aliases)
    return ast.unparse(copy)


def join(parts: Iterable[str]) -> str:
    """Top-level code as a reader writes it: two blank lines around a definition, one after
    the imports and around a statement of several lines."""
    text, previous = [], None
    for part in (p.strip("\n") for p in parts):
        if not part:
            continue
        if previous is not None:
            blank = 1 if is_definition_text(part) or is_definition_text(previous) else \
                1 if "\n" in part or "\n" in previous or previous.startswith(("import ", "from ")) else 0
            text.append("\n" * (blank + 1))
        text.append(part)
        previous = part
    return "".join(text)


def is_definition_text(text: str) -> bool:
    return text.lstrip().startswith(("def ", "class ", "@", "async def "))
