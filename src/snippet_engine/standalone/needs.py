"""Which earlier statements a block needs: a backward pass of liveness over the top-level
statements, with the effects on what the block uses, and the seeds and random draws it depends on."""

import ast
import itertools
import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from snippet_engine.standalone.statements import SCOPES, Names, Statement, leaves, names


def needed(statements: list[Statement], wanted: AbstractSet[str], drawn: AbstractSet[Statement] = frozenset(),
           draws_after: bool = True,
           may_draw: AbstractSet[Statement] = frozenset()) -> tuple[list[Statement], set[str]]:
    """The statements among `statements` (in order) that the names `wanted`, used after them,
    need: those that bind a name still needed, and those that may change what it holds (an
    effect on an object made from it; a module or a value such as a number or a device is
    changed by none, and a function or class only by a statement that changes it itself:
    `Value.__add__ = add`, not a call of it or of what it made), a seed, and after the seed the statements in `drawn` (those that may
    draw random numbers, `draws`) up to the last needed statement that may draw (in `may_draw`), or
    all of them when the code after these statements may draw (`draws_after`); no seed when
    nothing needed draws after it. A backward pass of liveness, again while a chosen function
    uses a name defined below it (its body runs later, when it is called)."""
    values = value_names(statements)
    found = Origins(statements, values)
    unchangeable = {n for s in statements if s.is_import for n in s.binds} | values | definitions(statements)
    forced: set[Statement] = set()  # draws that bind no name (`print(random.random())`), changes of torch's settings
    while True:
        chosen, live = liveness(statements, wanted, found, unchangeable, forced)
        later = {n for s in chosen for n in late_names(s)}
        picked = set(chosen)
        settings = settings_in_force(statements, picked)
        seeds = [i for i, s in enumerate(statements) if s in picked and s.is_seed]
        reset = reset_seeds(statements, seeds, picked)
        left_out = {statements[i] for i in reset}
        chosen = [s for s in chosen if s not in left_out]
        picked -= left_out
        kept_draws: set[Statement] = set()
        if seeds:  # what was drawn after the seed decides what the code draws next: keep the draws
            start = min(set(seeds) - reset)
            end = len(statements) if draws_after else max(
                [i + 1 for i, s in enumerate(statements) if i > start and s in picked and s in may_draw],
                default=start)
            kept_draws = {s for s in statements[start:end] if s in drawn}
            later |= {n for s in kept_draws for n in s.binds}
            if end == start:  # nothing draws after it
                chosen = [s for s in chosen if not s.is_seed]
        unbound = {s for s in kept_draws if not s.binds}
        if later <= set(wanted) and unbound | settings <= forced:
            return chosen, live
        wanted, forced = set(wanted) | later, forced | unbound | settings


def late_names(statement: Statement) -> set[str]:
    """The names a statement's code reads when something calls it later, bound as they are then:
    a definition's, a lambda's (`lambda v: v * scale`), and a generator expression's that is not
    used up at once by the call it is given to (`sum(p.numel() for p in ...)` is)."""
    if isinstance(statement.node, SCOPES):
        return statement.loads
    given = {id(a) for n in ast.walk(statement.node) if isinstance(n, ast.Call) for a in n.args}
    found: set[str] = set()
    for n in ast.walk(statement.node):
        if isinstance(n, ast.Lambda):
            found |= names(n)[0]
        elif isinstance(n, ast.GeneratorExp) and id(n) not in given:
            inner = Names()
            for k, generator in enumerate(n.generators):
                if k:  # the first iterable is read at once
                    inner.add(names(generator.iter))
                inner.add((set(), names(generator.target)[1]))
                for condition in generator.ifs:
                    inner.add(names(condition))
            inner.add(names(n.elt))
            found |= inner.loads - inner.stores
    return found & statement.loads


def settings_in_force(statements: list[Statement], chosen: AbstractSet[Statement]) -> set[Statement]:
    """The changes of torch's process-wide settings that a copy of `chosen` needs: a change to
    other than the default that is in force where a chosen statement runs or at the end, and the
    next change of that setting after it (which sets it back)."""
    changes = [(i, setting) for i, s in enumerate(statements) if (setting := s.torch_setting)]
    needed = set()
    for k, (i, (name, default)) in enumerate(changes):
        end = next((j for j, (other, _) in changes[k + 1:] if other == name), len(statements))
        if not default and (end == len(statements) or any(s in chosen for s in statements[i + 1:end])):
            needed |= {statements[i], *statements[end:end + 1]}
    return needed


def reset_seeds(statements: list[Statement], seeds: list[int], chosen: AbstractSet[Statement]) -> set[int]:
    """The seeds (indexes into `statements`, in order) that decide nothing: a seed with a constant
    (`torch.manual_seed(0)`) that a later seed of its generator resets, with no statement
    `chosen` between them."""
    chosen_before = list(itertools.accumulate((s in chosen for s in statements), initial=0))
    reset, next_seed = set(), dict[str, int]()  # generator: the index of its next seed
    for i in reversed(seeds):
        generator = statements[i].seeds
        j = next_seed.get(generator)
        if j is not None and statements[i].seeds_constant and chosen_before[j] == chosen_before[i + 1]:
            reset.add(i)
        next_seed[generator] = i
    return reset


# gradgradcheck draws the gradients it starts from when it is given none.
RANDOM = re.compile(r"rand|normal|uniform|bernoulli|multinomial|exponential|cauchy|geometric|orthogonal|sparse_"
                    r"|dropout|shuffle|sample|choice|gradgradcheck"
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
    `model.parameters()`) are taken to draw only by their own names. Each name found is
    followed once to the statements that call it."""
    found = Drawing(set(helpers), set(helpers))
    objects = {n for s in statements if isinstance(s.node, (ast.Assign, ast.AnnAssign)) for n in s.binds}
    calling: dict[tuple[str, bool], list[Statement]] = {}  # (name, as a method): the statements that call it
    todo = []  # the statements found to draw
    for s in statements:
        named, direct, methods = callees(s.node)
        todo += [s] if named else []
        for key in [(name, False) for name in direct] + [(name, True) for name in methods]:
            calling.setdefault(key, []).append(s)
    todo += [s for name in helpers for key in ((name, False), (name, True)) for s in calling.pop(key, [])]
    while todo:
        for name in todo.pop().binds - found.calls:
            found.calls.add(name)
            todo += calling.pop((name, False), [])
            if name not in objects:
                found.methods.add(name)
                todo += calling.pop((name, True), [])
    return found


def callees(node: ast.AST) -> tuple[bool, set[str], set[str]]:
    """The calls `node` makes: whether one is named for drawing (`torch.randn`, `x.uniform_`,
    `nn.Linear`), the names it calls (`model` of `model(x)`), and those whose methods it calls
    (`ELUFunction` of `ELUFunction.apply(z)`)."""
    named, direct, methods = False, set[str](), set[str]()
    for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
        callee, last = call.func, None  # the callee's name, and the last attribute of it
        while isinstance(callee, ast.Attribute):
            last, callee = last or callee.attr, callee.value
        root = callee.id if isinstance(callee, ast.Name) else ""
        named = named or bool(RANDOM.search(last or root))
        (direct if last is None else methods).add(root)
    return named, direct, methods


def calls_drawing(node: ast.AST, drawing: Drawing) -> bool:
    """`node` makes a call named for drawing or a call that `drawing` says may draw (`model(x)`,
    `ELUFunction.apply(z)`)."""
    named, direct, methods = callees(node)
    return named or bool(direct & drawing.calls) or bool(methods & drawing.methods)


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


class Origins:
    """Where the values of a file's statements come from, through the statements before them;
    not through those that bind `values`, names of values made only from values."""

    def __init__(self, statements: list[Statement], values: AbstractSet[str]) -> None:
        self.statements = statements
        self.sources: list[list[int]] = []  # per statement: the statements that bound the names it reads
        self.latest: dict[str, int] = {}  # name: the statement that bound it last
        for i, s in enumerate(statements):
            self.sources.append([self.latest[name] for name in s.loads - values if name in self.latest])
            self.latest.update(dict.fromkeys(s.binds, i))
        self.aliases = {i for i, s in enumerate(statements) if is_alias(s.node)}
        self.made: dict[int, set[str]] = {}

    def made_from(self, i: int) -> set[str]:
        """Every name the value of statement i was made from (made when first asked, from those
        of the statements it reads from: a file's effects are few beside its statements)."""
        todo = [i]
        while todo:
            waiting = [k for k in self.sources[todo[-1]] if k not in self.made]
            if waiting:
                todo += waiting
                continue
            j = todo.pop()
            self.made[j] = self.statements[j].loads.union(*(self.made[k] for k in self.sources[j]))
        return self.made[i]

    def reads(self, i: int) -> set[str]:
        """The names statement i reads, and those the aliases among them stand for (`params`
        bound to `[w, b]`: w and b, and what they were made from)."""
        return self.statements[i].loads.union(*(self.made_from(j) for j in self.sources[i] if j in self.aliases))

    def used(self, names: AbstractSet[str]) -> set[str]:
        """The names `names`, used after the statements, and those the aliases among them stand for."""
        bound = [self.latest[name] for name in names if name in self.latest]
        return set(names).union(*(self.made_from(j) for j in bound if j in self.aliases))


def is_alias(node: ast.stmt) -> bool:
    """A name bound to objects that other names hold (`leaf = x`, `weight = model.weight`,
    `params = [w, b]`): a change to them is a change to what it holds."""
    def holds(value: ast.expr) -> bool:
        match value:
            case ast.Name() | ast.Attribute() | ast.Subscript():
                return True
            case ast.List(elts=elements) | ast.Tuple(elts=elements):
                return all(holds(e) for e in elements)
        return False

    match node:
        case ast.Assign(targets=[ast.Name()], value=value):
            return holds(value)
    return False


def value_needs(node: ast.AST) -> set[str] | None:
    """The names that must hold values for `node` to be an expression whose value no later
    statement can change in place (a number, a string, a dtype, a device, a tuple of them,
    arithmetic on them); None when it is none whatever they hold."""
    parts: list[ast.AST]
    match node:
        case ast.Constant() | ast.JoinedStr():
            return set()
        case ast.Name(id=name):
            return {name}
        case ast.Attribute(ast.Name("torch"), attr) if attr.startswith(("float", "bfloat", "int", "bool", "complex")):
            return set()
        case ast.Call(ast.Attribute(ast.Name("torch"), "device")):
            return set()
        case ast.Tuple(elts=elements):
            parts = list(elements)
        case ast.BinOp(left, _, right) | ast.Compare(left, _, [right]):
            parts = [left, right]
        case ast.UnaryOp(_, operand):
            parts = [operand]
        case ast.IfExp(_, body, orelse):
            parts = [body, orelse]
        case _:
            return None
    found: set[str] = set()
    for part in parts:
        if (needs := value_needs(part)) is None:
            return None
        found |= needs
    return found


def value_names(statements: list[Statement]) -> set[str]:
    """The names every binding of which is a value (`value_needs`): each name is one once the
    names its bindings read are."""
    needs: dict[str, set[str] | None] = {}
    for s in statements:
        for name in s.binds:
            match s.node:
                case ast.Assign(targets=[ast.Name()], value=value) if (found := value_needs(value)) is not None:
                    if (before := needs.get(name, set())) is not None:
                        needs[name] = before | found
                case _:
                    needs[name] = None
    waiting = {name: found for name, found in needs.items() if found is not None}
    readers: dict[str, list[str]] = {}  # name: the names whose bindings read it
    for name, found in waiting.items():
        for read in found:
            readers.setdefault(read, []).append(name)
    values: set[str] = set()
    todo = [name for name, found in waiting.items() if not found]
    while todo:
        values.add(name := todo.pop())
        for reader in readers.get(name, []):
            waiting[reader].discard(name)
            if not waiting[reader] and reader not in values:
                todo.append(reader)
    return values


def definitions(statements: list[Statement]) -> set[str]:
    """The names that only def and class statements without decorators bind."""
    def defines(s: Statement) -> bool:
        return isinstance(s.node, (*SCOPES[:2], ast.ClassDef)) and not s.node.decorator_list

    return {n for s in statements if defines(s) for n in s.binds} - {
        n for s in statements if not defines(s) for n in s.binds}


def changed(node: ast.stmt) -> set[str]:
    """The names whose objects a statement changes itself: by an assignment to an attribute or
    item (`Value` of `Value.__add__ = add`), or a call of a method (`elu.register_autograd(...)`)."""
    found: list[ast.expr] = []
    match node:
        case ast.Assign(targets=targets):
            found = [leaf for t in targets for leaf in leaves(t) if not isinstance(leaf, ast.Name)]
        case ast.AugAssign(target=ast.Attribute() | ast.Subscript() as target):
            found = [target]
        case ast.Expr(ast.Call(ast.Attribute(value=value))):
            found = [value]
    roots = set()
    for root in found:
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value
        if isinstance(root, ast.Name):
            roots.add(root.id)
    return roots


def liveness(statements: list[Statement], wanted: AbstractSet[str], origins: Origins,
             unchangeable: AbstractSet[str], forced: AbstractSet[Statement]) -> tuple[list[Statement], set[str]]:
    """The statements that the names `wanted` need, going back from the last (see `needed`); an
    effect counts when it may change an object that a live name, or an alias among them, holds."""
    live, held, chosen = set(wanted), origins.used(wanted), list[Statement]()
    for i in reversed(range(len(statements))):
        s = statements[i]
        uses = s.binds & live
        changes = s.is_effect and (any(n in held and n not in unchangeable for n in origins.made_from(i))
                                   or bool(changed(s.node) & held) or s.is_seed and bool(s.loads & live))
        if uses or changes or s in forced:
            chosen.append(s)
            if isinstance(s.node, (ast.Assign, ast.Import, ast.ImportFrom, *SCOPES[:2], ast.ClassDef)) \
                    and not s.is_star_import:
                live -= s.binds  # bound here for certain: earlier bindings are not needed
                held -= s.binds
            live |= s.loads
            held |= origins.reads(i)
    return chosen[::-1], live
