"""Mutants of a reference answer: the reference with one small change each (an operator, a
comparison, a constant, a boolean, a keyword flag, a dropped statement), or one of the changes
that model a learner's subtler mistakes (a comparison's sides swapped, one clause of a
compound condition dropped, a for loop written as a lazy map, an object construction hoisted
out of its function so that every call shares one). The mutation job (benchmarks/mutation.py)
checks the kata tests reject them; `katas testwrite` checks a learner's tests do.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from torch_katas.catalog import tomllib

__all__ = [
    "EQUIVALENT",
    "OPERATORS",
    "Mutant",
    "counted",
    "equivalent_mutants",
    "mutants",
    "operator_of",
]

# The reviewed equivalent mutants, relative to the suite's folder.
EQUIVALENT = Path("benchmarks") / "equivalent_mutants.toml"

SWAPS: dict[type, type] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div,
    ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
    ast.MatMult: ast.Mult,
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.And: ast.Or,
    ast.Or: ast.And,
}


@dataclass
class Mutant:
    line: int
    change: str
    source: str


def docstring_ids(tree: ast.AST) -> set[int]:
    """The Constant nodes that are docstrings: changing them changes no behaviour."""
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


# The reverse of each comparison, for swapping its sides: a < b is b > a.
# (== and != are symmetric: swapping their sides changes nothing.)
MIRRORED: dict[type, str] = {ast.Lt: "Gt", ast.LtE: "GtE", ast.Gt: "Lt", ast.GtE: "LtE"}


class Module:
    """What the operators that look beyond one node need: the module and its functions."""

    def __init__(self, tree: ast.Module):
        self.tree = tree
        self.skip = docstring_ids(tree)
        # Functions defined at the top level or in a top-level class: where a hoisted
        # object construction can move out to.
        self.outermost: dict[int, ast.stmt] = {}
        for statement in tree.body:
            inner = statement.body if isinstance(statement, ast.ClassDef) else [statement]
            for item in inner:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    self.outermost[id(item)] = statement


def constructions(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.Call]:
    """Calls in `function` that build an object (a CapWords name: torch.Generator(),
    nn.ReLU()) from nothing local, so they could run once, at import, instead."""
    local = {arg.arg for arg in ast.walk(function.args) if isinstance(arg, ast.arg)}
    local |= {
        node.id
        for node in ast.walk(function)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del)
    }
    local |= {
        arg.arg for node in ast.walk(function) if isinstance(node, ast.Lambda)
        for arg in ast.walk(node.args) if isinstance(arg, ast.arg)
    }  # fmt: skip
    for statement in function.body:
        for node in ast.walk(statement):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else None
            name = node.func.id if isinstance(node.func, ast.Name) else name
            if not name or not name[:1].isupper() or name.isupper():
                continue
            if name.endswith(("Error", "Exception", "Warning")):
                continue  # an exception raised: sharing one changes nothing a test sees
            used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
            if not used & local and not any(isinstance(n, ast.Starred) for n in ast.walk(node)):
                yield node


def replace_child(parent: ast.AST, old: ast.AST, new: ast.AST) -> None:
    for field, value in ast.iter_fields(parent):
        if value is old:
            setattr(parent, field, new)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if item is old:
                    value[i] = new


def parent_of(root: ast.AST, child: ast.AST) -> ast.AST:
    return next(node for node in ast.walk(root) for c in ast.iter_child_nodes(node) if c is child)


def lazy_map(loop: ast.For) -> ast.Expr | None:
    """`for x in it: f(x)` as `map(lambda x: f(x), it)`: a map nobody consumes runs nothing."""
    if loop.orelse or len(loop.body) != 1 or not isinstance(loop.body[0], ast.Expr):
        return None
    body = loop.body[0].value
    if isinstance(loop.target, ast.Name):
        params, body_of_item = [loop.target.id], body
    elif isinstance(loop.target, ast.Tuple) and all(
        isinstance(e, ast.Name) for e in loop.target.elts
    ):
        # lambda item: (lambda a, b: f(a, b))(*item)
        params = ["item_"]
        inner = ast.Lambda(
            args=ast.arguments(
                posonlyargs=[],
                args=[ast.arg(arg=e.id) for e in loop.target.elts],  # type: ignore[attr-defined]
                kwonlyargs=[],
                kw_defaults=[],
                defaults=[],
            ),
            body=body,
        )
        body_of_item = ast.Call(
            func=inner, args=[ast.Starred(value=ast.Name(id="item_", ctx=ast.Load()))], keywords=[]
        )
    else:
        return None
    function = ast.Lambda(
        args=ast.arguments(
            posonlyargs=[],
            args=[ast.arg(arg=name) for name in params],
            kwonlyargs=[],
            kw_defaults=[],
            defaults=[],
        ),
        body=body_of_item,
    )
    call = ast.Call(
        func=ast.Name(id="map", ctx=ast.Load()), args=[function, loop.iter], keywords=[]
    )
    return ast.copy_location(ast.Expr(value=call), loop)


def structural_changes(
    node: ast.AST, module: Module
) -> Iterator[tuple[int, str, Callable[[], None]]]:
    """Operators that rewrite more than one token: the evasions of issue-style rules."""
    line = getattr(node, "lineno", 0)
    # Swap a comparison's sides (a < b -> b < a): the boundary probed from the other side.
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        op = type(node.ops[0])
        if op in MIRRORED and ast.dump(node.left) != ast.dump(node.comparators[0]):

            def swap() -> None:
                node.left, node.comparators[0] = node.comparators[0], node.left

            yield (line, f"swap the sides of {op.__name__}", swap)
    # Drop one clause of a compound condition (a and b -> a; a or b or c -> a or c).
    for _, value in ast.iter_fields(node):
        children = value if isinstance(value, list) else [value]
        for child in children:
            if not isinstance(child, ast.BoolOp):
                continue
            for i, clause in enumerate(child.values):
                text = ast.unparse(clause)[:40]

                def drop_clause(child: ast.BoolOp = child, i: int = i) -> None:
                    rest = child.values[:i] + child.values[i + 1 :]
                    if len(rest) == 1:
                        replace_child(node, child, rest[0])
                    else:
                        child.values = rest

                kind = type(child.op).__name__.lower()
                yield (
                    getattr(child, "lineno", line),
                    f"drop clause `{text}` of {kind}",
                    drop_clause,
                )
    # A for loop written as map (lazy: nothing consumes it, so the body never runs).
    if isinstance(node, ast.For) and lazy_map(node) is not None:

        def to_map() -> None:
            mapped = lazy_map(node)
            assert mapped is not None  # checked above
            replace_child(parent_of(module.tree, node), node, mapped)

        yield (line, "for loop -> map", to_map)
    # One object shared by every call: a construction hoisted out to the module.
    if id(node) in module.outermost:
        top = module.outermost[id(node)]
        for call in constructions(node):  # type: ignore[arg-type]
            text = ast.unparse(call.func)

            def hoist(call: ast.Call = call, top: ast.stmt = top) -> None:
                name = f"shared_{call.lineno}_{call.col_offset}"
                replace_child(parent_of(node, call), call, ast.Name(id=name, ctx=ast.Load()))
                assign = ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=call)
                module.tree.body.insert(module.tree.body.index(top), assign)

            yield (call.lineno, f"hoist `{text}(...)` to one shared object", hoist)


def changes(node: ast.AST, module: Module) -> Iterator[tuple[int, str, Callable[[], None]]]:
    """Each way to mutate `node` in place, as (line, description, apply)."""
    skip = module.skip
    yield from structural_changes(node, module)
    line = getattr(node, "lineno", 0)
    if isinstance(node, ast.BinOp | ast.AugAssign | ast.BoolOp) and type(node.op) in SWAPS:
        new = SWAPS[type(node.op)]
        yield (
            line,
            f"{type(node.op).__name__} -> {new.__name__}",
            lambda: setattr(node, "op", new()),
        )
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            if type(op) in SWAPS:
                new = SWAPS[type(op)]

                def apply(i: int = i, new: type = new) -> None:
                    node.ops[i] = new()

                yield (line, f"{type(op).__name__} -> {new.__name__}", apply)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not | ast.USub):
        yield (line, f"drop {type(node.op).__name__}", lambda: setattr(node, "op", ast.UAdd()))
    if isinstance(node, ast.Constant) and id(node) not in skip:
        value = node.value
        if isinstance(value, bool):
            yield (line, f"{value} -> {not value}", lambda: setattr(node, "value", not value))
        elif isinstance(value, int):
            yield (line, f"{value} -> {value + 1}", lambda: setattr(node, "value", value + 1))
            if value != 0:
                yield (line, f"{value} -> 0", lambda: setattr(node, "value", 0))
        elif isinstance(value, float):
            doubled = value * 2 if value else 1.0
            yield (line, f"{value} -> {doubled}", lambda: setattr(node, "value", doubled))
    if isinstance(node, ast.FunctionDef | ast.For | ast.While | ast.If | ast.With):
        for field in ("body", "orelse"):
            statements = getattr(node, field, [])
            for i, statement in enumerate(statements):
                droppable = isinstance(statement, ast.Expr | ast.Assign | ast.AugAssign | ast.Raise)
                if droppable and id(getattr(statement, "value", None)) not in skip:

                    def drop(statements: list[ast.stmt] = statements, i: int = i) -> None:
                        statements[i] = ast.Pass()

                    yield (statement.lineno, f"drop `{ast.unparse(statement)[:60]}`", drop)


def counted(source: str, equivalent: set[tuple[str, str]]) -> list[Mutant]:
    """The mutants of `source` that behave differently: those not reviewed as equivalent."""
    lines = source.splitlines()
    return [
        mutant
        for mutant in mutants(source)
        if ((lines[mutant.line - 1].strip() if mutant.line else ""), mutant.change)
        not in equivalent
    ]


def mutants(source: str) -> Iterator[Mutant]:
    """Every single-change mutant of `source`, in source order."""
    tree = ast.parse(source)
    module = Module(tree)
    count = sum(1 for node in ast.walk(tree) for _ in changes(node, module))
    for index in range(count):
        copy_tree = copy.deepcopy(tree)
        module = Module(copy_tree)
        found = [change for node in ast.walk(copy_tree) for change in changes(node, module)]
        line, description, apply = found[index]
        apply()
        try:
            mutated = ast.unparse(ast.fix_missing_locations(copy_tree))
            compile(mutated, "<mutant>", "exec")
        except (ValueError, TypeError, SyntaxError):
            continue
        yield Mutant(line, description, mutated)


# Kinds of change, as --operators names them: the classic one-token changes, then the
# changes that model subtler mistakes.
OPERATORS = {
    "classic": "",
    "swap": "swap the sides of ",
    "clause": "drop clause ",
    "map": "for loop -> map",
    "hoist": "hoist ",
}


def operator_of(change: str) -> str:
    return next(
        (name for name, start in OPERATORS.items() if start and change.startswith(start)),
        "classic",
    )


def equivalent_mutants(path: Path) -> dict[str, set[tuple[str, str]]]:
    """Reviewed equivalent mutants per kata module, as (source line, change) pairs, from the
    file at `path` (benchmarks/equivalent_mutants.toml); none where it is absent."""
    data = tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    return {
        module: {(entry["line"], entry["change"]) for entry in entries}
        for module, entries in data.items()
    }
