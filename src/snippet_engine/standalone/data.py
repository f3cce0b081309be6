"""The data file a snippet reads, as the values a copy holds: only the part its code uses."""

import ast
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeGuard

from snippet_engine.standalone.statements import is_data_read


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


def data_file(deps: Iterable[str | Path]) -> Path | None:
    """The one JSON data file a snippet read, if it read exactly one that exists: its copies hold its values."""
    files = [Path(d) for d in deps if Path(d).suffix == ".json" and Path(d).is_file()]
    return files[0] if len(files) == 1 else None


def data_values(deps: Iterable[str | Path]) -> Any:
    """The values of `data_file` (None where there is none); a ValueError where it is not JSON in UTF-8."""
    file = data_file(deps)
    return json.loads(file.read_text(encoding="utf-8")) if file else None
