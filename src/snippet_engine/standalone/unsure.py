"""What a copy cannot be sure of, named so that the build warns at the block (build.py): the
earlier code it leaves out whose effect on the block the analysis (needs.py) cannot see, and
what makes it print or fail otherwise. Each is a way Python lets code change what later code
sees without binding or changing a name that code reads (exec(), globals(), setattr(); a method
that changes its class; a cached function's cache; a file written and read back; a generator
object drawn from; a function that seeds; the statements of a `try` that ran before the one
whose error an earlier block shows, its last taken to be that one), a setup that calls a
function that prints, and processes started by spawning, which a copy run as `python -c`
cannot start. The copy of a block with none of these prints what the block prints
(tests/site/test_copies.py runs every copy)."""

import ast
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from snippet_engine.standalone.statements import Statement, is_effect

CACHES = {"cache", "lru_cache"}  # functools' decorators of a function
GENERATORS = {"default_rng", "Generator", "Random", "RandomState"}  # objects a program draws from
WRITES = {"write_text", "write_bytes", "save", "savez", "savetxt", "dump", "to_csv"}  # a call that writes a file
READS = {"read_text", "read_bytes", "load", "loadtxt", "read_csv", "open", "exists", "is_file"}


def called(node: ast.AST, now: bool = False) -> Iterator[str]:
    """The names of what `node` calls: `f` of f(...) and of x.f(...); `now`: only what runs when
    the statement runs, not in the bodies of the functions and lambdas it defines."""
    todo = [node]
    while todo:
        n = todo.pop()
        if now and isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):  # its body runs when called
            todo.extend([*getattr(n, "decorator_list", []), n.args])
            continue
        todo.extend(ast.iter_child_nodes(n))
        if isinstance(n, ast.Call) and isinstance(n.func, (ast.Name, ast.Attribute)):
            yield n.func.id if isinstance(n.func, ast.Name) else n.func.attr


def builtin_calls(node: ast.AST) -> set[str]:
    """The builtins a statement calls by name that change names unseen: exec(), eval(),
    globals(), locals(), vars() with no argument (not `model.eval()`, not `vars(config)`)."""
    return {n.func.id for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
            and n.func.id in ("exec", "eval", "globals", "locals", "vars") and not (n.func.id == "vars" and n.args)}


def writes_file(node: ast.AST) -> bool:
    return any(name in WRITES for name in called(node)) or any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "open"
        and any(isinstance(m, ast.Constant) and isinstance(m.value, str) and set(m.value) & set("wax")
                for m in [*n.args[1:2], *(k.value for k in n.keywords if k.arg == "mode")])
        for n in ast.walk(node))


def class_changers(statements: list[Statement]) -> set[str]:
    """The classes whose methods change the class itself (`type(self).count += 1`, `cls.x = ...`)."""
    found = set()
    for s in statements:
        if isinstance(s.node, ast.ClassDef):
            for n in ast.walk(s.node):
                targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, ast.AugAssign) else []
                for target in targets:
                    owner = ast.unparse(target.value) if isinstance(target, ast.Attribute) else ""
                    if owner in ("type(self)", "cls", "self.__class__", s.node.name):
                        found.add(s.node.name)
    return found


@dataclass(frozen=True)
class Facts:
    """What a file's statements define that `unsure` asks about, found once for all its blocks."""
    cached: set[str]  # functions with functools' cache
    generators: set[str]  # names bound to a generator object (`makes_generator`)
    changers: set[str]  # classes whose methods change the class (`class_changers`)
    seeding: set[str]  # functions that seed a random generator
    printing: set[str]  # functions that print


def facts(statements: list[Statement]) -> Facts:
    functions = [s.node for s in statements if isinstance(s.node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return Facts(
        cached={f.name for f in functions if any(name in CACHES for d in f.decorator_list
                                                 for name in [*called(d), ast.unparse(d).split(".")[-1]])},
        generators={s.node.targets[0].id for s in statements if isinstance(s.node, ast.Assign)
                    and isinstance(s.node.targets[0], ast.Name) and makes_generator(s.node.value)},
        changers=class_changers(statements),
        seeding={f.name for f in functions if any(name.endswith("seed") for name in called(f))},
        printing={f.name for f in functions if "print" in called(f)})


def unsure(file: Facts, chosen: list[Statement], left_out: list[Statement], kept: list[Statement],
           used: AbstractSet[str], draws: bool) -> list[str]:
    """Why the copy of the code `kept` (which reads the names `used`) may print other than the
    block, as "line N, ..., what it does": each earlier statement `left_out` with an effect the
    analysis cannot see (a seed only where the block `draws` random numbers), and each of the
    setup (`chosen`) that calls a function of the file that prints and that the block calls too
    (the setup stays silent only where the block does not)."""
    kept_calls = {name for s in kept for name in called(s.node)}
    reads_files = any(name in READS for name in kept_calls)
    cached, generators, changers, seeding = file.cached, file.generators, file.changers, file.seeding
    printing = file.printing & kept_calls
    reseeds = any(name in seeding or name.endswith("seed") for name in kept_calls)  # the block seeds itself
    found = [f"line {s.node.lineno} starts processes by spawning, which runs the program again from its file: "
             "a copy, run as `python -c`, has none" for s in [*chosen, *kept] if spawns(s.node)]
    found += [f"line {s.node.lineno}, in the setup the copy runs first, calls {', '.join(sorted(calls))}, which prints"
              for s in chosen if (calls := set(called(s.node, now=True)) & printing)]
    for s in left_out:
        names, builtins = set(called(s.node)), builtin_calls(s.node)
        why = ("calls exec() or eval(), whose names a copy cannot follow" if builtins & {"exec", "eval"} else
               "changes names through globals() or vars()" if builtins else
               "sets an attribute with setattr() or delattr()" if names & {"setattr", "delattr"} and s.loads & used else
               f"calls {', '.join(sorted(names & cached))}, whose cache the block's call finds filled"
               if names & cached & kept_calls else
               f"draws from {', '.join(sorted(s.loads & generators & used))}, a generator the block draws from"
               if s.loads & generators & used else
               f"makes a {', '.join(sorted(s.loads & changers & used))}, whose methods change the class"
               if s.loads & changers & used else
               "writes a file, and the block reads one" if reads_files and writes_file(s.node) else
               f"calls {', '.join(sorted(names & seeding))}, which seeds a random generator"
               if names & seeding and draws and not reseeds else
               "runs the first statements of a `try` before its error (its last statement, taken to be), which may "
               "change what the block uses"
               if isinstance(s.node, ast.Try) and any(is_effect(b, s.shows) and names_of(b) & used for b in s.node.body[:-1])
               else None)
        if why:
            found.append(f"line {s.node.lineno}, which the copy leaves out, {why}")
    return found


def spawns(node: ast.AST) -> bool:
    """`mp.set_start_method("spawn")`, `get_context("forkserver")`, `torch.multiprocessing.spawn(...)`."""
    return any(name == "spawn" for name in called(node)) or any(
        isinstance(n, ast.Call) and isinstance(n.func, (ast.Name, ast.Attribute))
        and (n.func.id if isinstance(n.func, ast.Name) else n.func.attr) in ("get_context", "set_start_method")
        and any(isinstance(a, ast.Constant) and a.value in ("spawn", "forkserver") for a in n.args)
        for n in ast.walk(node))


def makes_generator(value: ast.expr) -> bool:
    """`np.random.default_rng(0)`, `torch.Generator().manual_seed(0)`: a generator object."""
    match value:
        case ast.Call(ast.Attribute(inner, "manual_seed")):
            return makes_generator(inner)
        case ast.Call(ast.Name(name) | ast.Attribute(_, name)):
            return name in GENERATORS
    return False


def names_of(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
