"""Mutation testing: how many small changes to a reference answer its kata's tests reject.

    python benchmarks/mutation.py 13 28          # katas 13 and 28
    python benchmarks/mutation.py --all          # every kata (tens of minutes)
    python benchmarks/mutation.py 13 --survivors # list the mutants that passed every test

Each mutant is the reference answer with one classic change (an operator, a comparison, a
constant, a boolean, a keyword flag, a dropped statement). It is tested like a learner's
answer (`--answer-file`, on the default devices, the simulated one included; fast tests
first, stopping at the first failure), in this one process: torch is imported once, and the
harness forgets the kata modules between runs, so each mutant is imported afresh. A mutant
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
sys.path.insert(0, str(ROOT))

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


def changes(node: ast.AST, skip: set[int]) -> Iterator[tuple[int, str, Callable[[], None]]]:
    """Each way to mutate `node` in place, as (line, description, apply)."""
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
    count = sum(1 for node in ast.walk(tree) for _ in changes(node, docstring_ids(tree)))
    for index in range(count):
        copy_tree = copy.deepcopy(tree)
        skip = docstring_ids(copy_tree)
        found = [change for node in ast.walk(copy_tree) for change in changes(node, skip)]
        line, description, apply = found[index]
        apply()
        try:
            yield Mutant(line, description, ast.unparse(ast.fix_missing_locations(copy_tree)))
        except (ValueError, TypeError):
            continue


class Outcome:
    def __init__(self) -> None:
        self.failed = False

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.failed = self.failed or report.failed

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        self.failed = self.failed or report.failed


def equivalent_mutants() -> dict[str, set[tuple[str, str]]]:
    """Reviewed equivalent mutants per kata module, as (source line, change) pairs."""
    data = tomllib.loads(EQUIVALENT.read_text(encoding="utf-8")) if EQUIVALENT.exists() else {}
    return {
        module: {(entry["line"], entry["change"]) for entry in entries}
        for module, entries in data.items()
    }


def killed(kata: catalog.Kata, path: Path, timeout: int) -> bool:
    """True when the kata's tests reject the answer in `path`."""
    base = [str(kata.test_path(ROOT)), "--answer-file", str(path)]
    base += ["-x", "-q", "-p", "no:cacheprovider", "--timeout", str(timeout), "--no-header"]
    for extra in (["-m", "not slow"], ["-m", "slow"]):
        outcome = Outcome()
        pytest.main([*base, *extra], plugins=[outcome])
        if outcome.failed:
            return True
    return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("katas", nargs="*", help="kata numbers (default: --all)")
    parser.add_argument("--all", action="store_true", help="every kata")
    parser.add_argument("--survivors", action="store_true", help="list the surviving mutants")
    parser.add_argument("--timeout", type=int, default=20, help="seconds per test (default 20)")
    args = parser.parse_args()
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
            survivors, equivalent, total = [], 0, 0
            for number, mutant in enumerate(mutants(source)):
                text = lines[mutant.line - 1].strip() if mutant.line else ""
                if (text, mutant.change) in known:
                    equivalent += 1
                    continue
                path = Path(scratch) / f"{kata.module}__mutant{number}.py"
                path.write_text(mutant.source, encoding="utf-8")
                total += 1
                with contextlib.redirect_stdout(io.StringIO()):
                    dead = killed(kata, path, args.timeout)
                if not dead:
                    survivors.append((mutant, text))
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
