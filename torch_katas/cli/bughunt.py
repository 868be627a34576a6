"""`katas bughunt`: find the bug in a working-looking answer (practice/bughunt.py).

katas bughunt 13 [--bugs 2] [--hidden]  kata 13's stub becomes its reference with a mistake
katas bughunt 13 --check [-- ARGS]      run its tests; once they pass, the verdict
katas bughunt 13 --stop                 end the hunt: the learner's own stub goes back
katas bughunt --progress                the hunts done, apart from the katas' progress
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import importlib.util
import random
import subprocess
import sys
import textwrap
from pathlib import Path

from torch_katas.catalog import Kata, UsageError, pick
from torch_katas.cli.commands import (
    backups,
    code_lines,
    columns,
    original_stub,
    save_attempt,
)
from torch_katas.practice import bughunt
from torch_katas.practice.bughunt import Hunt
from torch_katas.store import Store

__all__ = [
    "cmd_bughunt",
    "hunt_of",
    "verdict_lines",
]


def hunt_of(root: Path, kata: Kata) -> Hunt | None:
    """The kata's hunt going on, if any."""
    return bughunt.active(Store.for_root(root)).get(kata.module)


def write_stub(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    # The bytecode cache tells a file by size and mtime in whole seconds: drop it.
    Path(importlib.util.cache_from_source(str(path))).unlink(missing_ok=True)


def where(hunt: Hunt) -> str:
    if hunt.hidden:
        return "only the failing tests say where"
    named = [name if name == "module level" else f"{name}()" for name in hunt.functions]
    return f"in {', '.join(named)}" if named else "somewhere in the module"


def start(args: argparse.Namespace, root: Path, kata: Kata) -> int:
    store = Store.for_root(root)
    current_hunt = bughunt.active(store).get(kata.module)
    if current_hunt is not None and current_hunt.fix is None:
        raise UsageError(
            f"a bug hunt of {kata.label} is on: katas bughunt {kata.number} --check checks "
            f"your fix, katas bughunt {kata.number} --stop ends it"
        )
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    shipped = original_stub(root, kata)
    hunt = bughunt.new_hunt(root, kata, args.bugs, args.hidden, random.Random(seed), shipped)
    stub = kata.stub_path(root)
    relative = stub.relative_to(root).as_posix()
    if current_hunt is not None:  # the stub holds the last hunt's module: the backup stays
        hunt.backup = current_hunt.backup
        kept = "your own code is still kept" + (
            f" in {hunt.backup}" if hunt.backup else " (the original stub)"
        )
    else:
        text = stub.read_text(encoding="utf-8") if stub.exists() else None
        if text is not None and text != shipped:
            save_attempt(root, kata, text)
            hunt.backup = backups(root, kata)[-1].relative_to(root).as_posix()
            kept = f"your own code is kept in {hunt.backup}"
        else:
            kept = "the stub was untouched; --stop puts it back"
    write_stub(stub, hunt.handed_out)
    bughunt.start(store, hunt)
    count = "1 bug" if len(hunt.mistakes) == 1 else f"{len(hunt.mistakes)} bugs"
    width = columns() - 1
    lines = [
        f"{kata.label} {kata.title}: {relative} now holds a working-looking answer with "
        f"{count}, {where(hunt)}{' (hidden mode)' if hunt.hidden else ''}; {kept}.",
        f"Find it: pytest {kata.test_path(root).relative_to(root).as_posix()} (or katas "
        f"watch {kata.number}) shows what fails; fix the mistaken lines, not the whole module; "
        f"then katas bughunt {kata.number} --check.",
        f"katas bughunt {kata.number} --stop ends the hunt and puts your own code back.",
    ]
    for line in lines:
        print(textwrap.fill(line, width, break_on_hyphens=False, break_long_words=False))
    return 0


def reference_diff(root: Path, hunt: Hunt, mine: str) -> list[str]:
    """The learner's fixed module against the reference (both as the hunt compares them)."""
    reference = bughunt.baseline(root, hunt.kata, hunt.hidden, hunt.stub)
    if hunt.hidden:
        with contextlib.suppress(ValueError):  # it does not parse: shown as written
            mine = bughunt.hide(mine, reference)
    names = (f"reference: solutions/{hunt.kata}.py", f"yours: katas/{hunt.kata}.py")

    def code(text: str) -> list[str]:  # without docstrings, comments and blank lines
        return bughunt.code_only("\n".join(code_lines(text)))

    diff = list(difflib.unified_diff(code(reference), code(mine), *names, lineterm="", n=2))
    return diff or ["Your fix restores the reference's code, line for line."]


def verdict_lines(root: Path, kata: Kata, code: int, full: bool = False) -> list[str]:
    """The hunt's verdict after a run of the kata's tests that ended with `code` (pytest's
    exit code); records the hunt as solved the first time the tests pass. With `full`, the
    diff against the reference too. Nothing where no hunt of the kata is on."""
    store = Store.for_root(root)
    hunt = bughunt.active(store).get(kata.module)
    if hunt is None:
        return []
    if code == 1:
        return [f"bug hunt: not fixed yet; the failing tests above point at the bug {where(hunt)}"]
    if code != 0:
        return [f"bug hunt: the tests did not run (pytest exit code {code})"]
    stub = kata.stub_path(root)
    mine = stub.read_text(encoding="utf-8") if stub.exists() else ""
    if mine == hunt.handed_out:
        return ["bug hunt: the tests pass on the module as handed out: run them on every device"]
    fix = bughunt.judge(root, hunt, mine)
    if not fix.fixed:
        return [f"bug hunt: the tests pass, but this is {fix.words()}"]
    bughunt.finish(store, hunt, fix)
    what = "; ".join(bughunt.described(root, hunt))
    heading = "The mistake" if len(hunt.mistakes) == 1 else "The mistakes"
    lines = [f"bug hunt: bug found and fixed, {fix.words()}.", f"{heading}: {what}."]
    if full:
        lines += ["", *reference_diff(root, hunt, mine), ""]
    lines.append(
        f"katas bughunt {kata.number} --stop puts your own code back; katas bughunt "
        f"{kata.number} hands out another bug."
    )
    return lines


def check(args: argparse.Namespace, root: Path, kata: Kata) -> int:
    if hunt_of(root, kata) is None:
        raise UsageError(
            f"no bug hunt of {kata.label} is on: katas bughunt {kata.number} starts one"
        )
    # pytest in a process of its own, as `pytest katas/..._test.py` runs: the verdict
    # after it is printed by this process, whose output pytest's capture never touched.
    test_file = str(kata.test_path(root).relative_to(root))
    command = [sys.executable, "-m", "pytest", test_file, *args.pytest_args]
    code = subprocess.run(command, cwd=root, check=False).returncode
    width = columns() - 1
    print()
    for line in verdict_lines(root, kata, code, full=True):
        diff = line[:1] in "+- @" and line.strip()
        print(line if diff else textwrap.fill(line, width, break_on_hyphens=False) or line)
    return 0 if code == 0 else 1


def stop(root: Path, kata: Kata) -> int:
    store = Store.for_root(root)
    hunt = bughunt.active(store).get(kata.module)
    if hunt is None:
        raise UsageError(f"no bug hunt of {kata.label} is on")
    stub = kata.stub_path(root)
    if hunt.backup is not None and (root / hunt.backup).is_file():
        text, source = (root / hunt.backup).read_text(encoding="utf-8"), hunt.backup
    else:
        text, source = original_stub(root, kata), "the original stub"
    write_stub(stub, text)
    bughunt.stop(store, kata.module)
    result = f"solved ({hunt.fix} fix)" if hunt.fix else "not solved"
    what = "; ".join(bughunt.described(root, hunt))
    print(f"{kata.label}: bug hunt over, {result}. The mistake was: {what}.")
    print(f"{stub.relative_to(root).as_posix()} holds your own code again ({source}).")
    return 0


def show_progress(root: Path, katas: dict[str, Kata]) -> int:
    store = Store.for_root(root)
    done = bughunt.history(store)
    solved = [entry for entry in done if str(entry.get("result", "")).startswith("solved")]
    small = sum(str(entry["result"]).endswith("small") for entry in solved)
    print(
        f"Bug hunts: {len(solved)} solved ({small} with a small fix, {len(solved) - small} as "
        f"a rewrite), {len(done) - len(solved)} stopped unsolved."
    )
    by_kata: dict[str, list[str]] = {}
    for entry in done:
        label = "hidden: " if entry.get("hidden") else ""
        by_kata.setdefault(str(entry.get("kata")), []).append(f"{label}{entry.get('result')}")
    for module, results in sorted(by_kata.items()):
        kata = katas.get(module)
        name = f"{kata.label} {kata.title}" if kata else module
        print(f"  {name}: {'; '.join(results)}")
    for module, hunt in sorted(bughunt.active(store).items()):
        kata = katas.get(module)
        state = f"solved ({hunt.fix} fix)" if hunt.fix else "on"
        print(f"  going on: {kata.label if kata else module}, {state}")
    return 0


def cmd_bughunt(args: argparse.Namespace, root: Path, katas: dict[str, Kata]) -> int:
    if args.progress:
        return show_progress(root, katas)
    if args.kata is None:
        raise UsageError("give a kata's number, e.g. katas bughunt 13 (or --progress)")
    (kata,) = pick(katas, [args.kata])
    if args.stop:
        return stop(root, kata)
    if args.check:
        return check(args, root, kata)
    return start(args, root, kata)
