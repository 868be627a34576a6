"""`katas testwrite N`: the reference and a test module to fill in; `--score`: its score."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from torch_katas import catalog
from torch_katas.catalog import pick
from torch_katas.practice import testwrite

__all__ = ["cmd_testwrite"]


def cmd_testwrite(args: argparse.Namespace, root: Path, katas: dict[str, catalog.Kata]) -> int:
    (kata,) = pick(katas, [args.kata])
    if args.score is None:
        reference, tests, new = testwrite.prepare(root, kata)
        print(f"{kata.label} {kata.title}: write the tests that catch its mistakes")
        print(f"  the contract:      katas/{kata.module}.py (the stub's docstring)")
        print(f"  the reference:     {reference.relative_to(root).as_posix()}")
        state = "to fill in" if new else "yours, kept"
        print(f"  your test module:  {tests.relative_to(root).as_posix()} ({state})")
        print(f"Score it: katas testwrite {kata.number} --score")
        return 0
    path = Path(args.score) if args.score else testwrite.test_path(root, kata)
    result = testwrite.score(
        root, kata, path.resolve(), mutants=args.mutants, pytest_args=args.pytest_args
    )
    print(json.dumps(result.to_json(), indent=2) if args.json else result.report())
    return 0 if result.valid and not result.missed else 1
