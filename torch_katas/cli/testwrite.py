"""`katas testwrite N`: the reference and a test module to fill in; `--score`: its score."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from torch_katas import catalog
from torch_katas.catalog import pick
from torch_katas.practice import testwrite
from torch_katas.store import Store

__all__ = ["STORE_KEY", "cmd_testwrite"]

STORE_KEY = "testwrite"  # the learner's best score per kata, apart from the katas' statuses


def cmd_testwrite(args: argparse.Namespace, root: Path, katas: dict[str, catalog.Kata]) -> int:
    (kata,) = pick(katas, [args.kata])
    if args.score is None and not args.watch:
        reference, tests, new = testwrite.prepare(root, kata)
        print(f"{kata.label} {kata.title}: write the tests that catch its mistakes")
        print(f"  the contract:      katas/{kata.module}.py (the stub's docstring)")
        print(f"  the reference:     {reference.relative_to(root).as_posix()}")
        state = "to fill in" if new else "yours, kept"
        print(f"  your test module:  {tests.relative_to(root).as_posix()} ({state})")
        print(f"Score it: katas testwrite {kata.number} --score")
        return 0
    if args.score is None:  # --watch alone: the module under testwrite/, written if new
        testwrite.prepare(root, kata)
    path = (Path(args.score) if args.score else testwrite.test_path(root, kata)).resolve()
    try:
        while True:
            result = testwrite.score(
                root, kata, path, mutants=args.mutants, pytest_args=args.pytest_args
            )
            best = remember(root, kata, result)
            if best is not None and not args.json:  # before the report: its last line scores
                print(f"(your best for {kata.label} so far: {best})")
            report = json.dumps(result.to_json(), indent=2) if args.json else result.report()
            print(report, flush=True)
            if not args.watch:
                return 0 if result.valid and not result.missed else 1
            print(f"watching {path.name}: scored again on every save (Ctrl-C ends)", flush=True)
            saved(path)
    except KeyboardInterrupt:
        if not args.watch:
            raise
        return 0  # Ctrl-C ends a watch, whenever it comes (while scoring too)


def saved(path: Path) -> None:
    """Wait for the next save of `path`."""
    import watchfiles  # only for --watch

    for changes in watchfiles.watch(path.parent, raise_interrupt=True):
        if any(Path(changed).resolve() == path for _, changed in changes):
            return


def remember(root: Path, kata: catalog.Kata, result: testwrite.Score) -> str | None:
    """Keep the learner's best valid score of the kata; the earlier best where it was
    better than this one."""
    if not result.valid or not result.total:
        return None
    store = Store.for_root(root)
    kept = store.read(STORE_KEY)
    earlier = kept.get(kata.module)
    share = len(result.caught) / result.total
    previous = earlier.get("share") if isinstance(earlier, dict) else None
    if isinstance(earlier, dict) and isinstance(previous, int | float) and previous >= share:
        better = previous > share
        return (
            f"caught {earlier.get('caught')} of {earlier.get('total')} mistakes" if better else None
        )
    kept[kata.module] = {"caught": len(result.caught), "total": result.total, "share": share}
    store.write(STORE_KEY, kept)
    return None
