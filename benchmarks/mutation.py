"""Mutation testing: how many small changes to a reference answer its kata's tests reject.

    python benchmarks/mutation.py 13 28          # katas 13 and 28
    python benchmarks/mutation.py --all          # every kata (tens of minutes)
    python benchmarks/mutation.py 13 --survivors # list the mutants that passed every test
    python benchmarks/mutation.py 45 --operators swap,clause,map,hoist  # some kinds only

Each mutant is the reference answer with one classic change (an operator, a comparison, a
constant, a boolean, a keyword flag, a dropped statement), or one of the changes that model a
learner's subtler mistakes: the sides of a comparison swapped, one clause of a compound
condition (and/or) dropped, a for loop written as map (which is lazy: nothing runs unless
the map is consumed), or an object construction (torch.Generator(), nn.ReLU()) hoisted
out of the function, so that every call shares one object. It is tested like a learner's
answer (`--answer-file`, on the default devices, the simulated one included; fast tests
first, stopping at the first failure), in this one process and one pytest session per kata
(tests/answer_loop.py, as the wrong-answer self-check): torch is imported once, and the kata
modules are forgotten between mutants, so each mutant is imported afresh. A mutant
that passes every test is a survivor:
either a gap in the tests or an equivalent mutant (the same behaviour written differently).
Equivalent mutants, once reviewed, are listed with the reason in `equivalent_mutants.toml`
beside this script; they are reported apart and left out of the share killed.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import io
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from answer_loop import AnswerLoop  # noqa: E402

from torch_katas import catalog  # noqa: E402
from torch_katas.catalog import tomllib  # noqa: E402

EQUIVALENT = Path(__file__).with_name("equivalent_mutants.toml")

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

            def swap():
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

                def drop_clause(child=child, i=i):
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

        def to_map():
            replace_child(parent_of(module.tree, node), node, lazy_map(node))

        yield (line, "for loop -> map", to_map)
    # One object shared by every call: a construction hoisted out to the module.
    if id(node) in module.outermost:
        top = module.outermost[id(node)]
        for call in constructions(node):  # type: ignore[arg-type]
            text = ast.unparse(call.func)

            def hoist(call=call, top=top):
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

                def apply(i=i, new=new):
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
            new = value * 2 if value else 1.0
            yield (line, f"{value} -> {new}", lambda: setattr(node, "value", new))
    if isinstance(node, ast.FunctionDef | ast.For | ast.While | ast.If | ast.With):
        for field in ("body", "orelse"):
            statements = getattr(node, field, [])
            for i, statement in enumerate(statements):
                droppable = isinstance(statement, ast.Expr | ast.Assign | ast.AugAssign | ast.Raise)
                if droppable and id(getattr(statement, "value", None)) not in skip:

                    def drop(statements=statements, i=i):
                        statements[i] = ast.Pass()

                    yield (statement.lineno, f"drop `{ast.unparse(statement)[:60]}`", drop)


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


def equivalent_mutants() -> dict[str, set[tuple[str, str]]]:
    """Reviewed equivalent mutants per kata module, as (source line, change) pairs."""
    data = tomllib.loads(EQUIVALENT.read_text(encoding="utf-8")) if EQUIVALENT.exists() else {}
    return {
        module: {(entry["line"], entry["change"]) for entry in entries}
        for module, entries in data.items()
    }


def killed(kata: catalog.Kata, paths: list[Path], timeout: int) -> dict[Path, bool]:
    """Whether the kata's tests reject each answer in `paths`: one session for them all,
    each answer imported afresh (tests/answer_loop.py), stopping at its first failure."""
    loop = AnswerLoop(kata.module, paths)
    base = [str(kata.test_path(ROOT)), "--answer-file", str(paths[0])]
    base += ["-q", "-p", "no:cacheprovider", "--timeout", str(timeout), "--no-header"]
    with contextlib.redirect_stdout(io.StringIO()):
        pytest.main(base, plugins=[loop])
    return {path: bool(loop.failures.get(path)) for path in paths}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("katas", nargs="*", help="kata numbers (default: --all)")
    parser.add_argument("--all", action="store_true", help="every kata")
    parser.add_argument("--survivors", action="store_true", help="list the surviving mutants")
    parser.add_argument("--timeout", type=int, default=20, help="seconds per test (default 20)")
    parser.add_argument(
        "--operators",
        default=",".join(OPERATORS),
        help=f"which kinds of change, comma-separated (default all: {','.join(OPERATORS)})",
    )
    args = parser.parse_args()
    chosen_operators = set(args.operators.split(","))
    if not chosen_operators <= set(OPERATORS):
        parser.error(f"unknown operators {sorted(chosen_operators - set(OPERATORS))}")
    katas = catalog.load(ROOT)
    by_number = {kata.number: kata for kata in katas.values()}
    chosen = (
        list(katas.values())
        if args.all or not args.katas
        else [by_number[int(n.lower().removeprefix("q"))] for n in args.katas]
    )
    reviewed = equivalent_mutants()
    rows = []
    with tempfile.TemporaryDirectory(prefix="katas-mutants-") as scratch:
        for kata in chosen:
            started = time.perf_counter()
            source = kata.solution_path(ROOT).read_text(encoding="utf-8")
            lines = source.splitlines()
            known = reviewed.get(kata.module, set())
            survivors, equivalent, written = [], 0, {}
            for number, mutant in enumerate(mutants(source)):
                if operator_of(mutant.change) not in chosen_operators:
                    continue
                text = lines[mutant.line - 1].strip() if mutant.line else ""
                if (text, mutant.change) in known:
                    equivalent += 1
                    continue
                path = Path(scratch) / f"{kata.module}__mutant{number}.py"
                path.write_text(mutant.source, encoding="utf-8")
                written[path] = (mutant, text)
            dead = killed(kata, list(written), args.timeout) if written else {}
            survivors = [written[path] for path, rejected in dead.items() if not rejected]
            total = len(written)
            share = 100 * (total - len(survivors)) / total if total else 100.0
            seconds = time.perf_counter() - started
            rows.append((total, len(survivors)))
            print(
                f"{kata.label} {kata.module:<32} {total - len(survivors):>4}/{total:<4} "
                f"killed {share:5.1f}%  ({equivalent} equivalent left out, {seconds:.0f} s)",
                flush=True,
            )
            if args.survivors:
                for mutant, text in survivors:
                    print(f"      line {mutant.line}: {mutant.change}    | {text}", flush=True)
    total = sum(row[0] for row in rows)
    alive = sum(row[1] for row in rows)
    if total:
        print(f"all: {total - alive}/{total} killed ({100 * (total - alive) / total:.1f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
