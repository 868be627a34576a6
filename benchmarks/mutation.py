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
(torch_katas/runtime/answer_loop.py, as the wrong-answer self-check): torch is imported
once, and the kata modules are forgotten between mutants, so each mutant is imported afresh.
A mutant
that passes every test is a survivor:
either a gap in the tests or an equivalent mutant (the same behaviour written differently).
Equivalent mutants, once reviewed, are listed with the reason in `equivalent_mutants.toml`
beside this script; they are reported apart and left out of the share killed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from torch_katas import catalog  # noqa: E402
from torch_katas.runtime.answer_loop import AnswerLoop  # noqa: E402
from torch_katas.runtime.mutants import (  # noqa: E402
    EQUIVALENT,
    OPERATORS,
    equivalent_mutants,
    mutants,
    operator_of,
)


def killed(kata: catalog.Kata, paths: list[Path], timeout: int) -> dict[Path, bool]:
    """Whether the kata's tests reject each answer in `paths`: one session for them all,
    each answer imported afresh (torch_katas/runtime/answer_loop.py), stopping at its first
    failure."""
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
    reviewed = equivalent_mutants(ROOT / EQUIVALENT)
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
