"""Which earlier statements a block needs: a backward pass of liveness over the top-level
statements, with the effects on what the block uses, and the seeds and random draws it depends on."""

import ast
import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from snippet_engine.standalone.statements import SCOPES, Statement


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
