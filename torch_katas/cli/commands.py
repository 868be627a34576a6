"""The learner's commands: list, next, hint, solution, reset, restore, run and watch."""

from __future__ import annotations

import argparse
import datetime
import difflib
import itertools
import os
import re
import shutil
import subprocess
from pathlib import Path

from torch_katas import catalog, status
from torch_katas.catalog import Kata, UsageError, pick
from torch_katas.store import Store

BACKUPS = ".katas-backups"


def cmd_list(args: argparse.Namespace, root: Path, katas: dict[str, Kata]) -> int:
    statuses = Store.for_root(root).statuses()
    shown = [k for k in katas.values() if args.topic in (None, k.topic)]
    if not shown:
        raise UsageError(f"no kata has topic {args.topic!r}; topics: {topics(katas)}")
    width = max(len(kata.title) for kata in shown)
    topic_width = max(len(kata.topic) for kata in shown)
    for kata in shown:
        level = "*" * kata.difficulty + "." * (3 - kata.difficulty)
        known = statuses.get(kata.module, "not run")
        print(f"{kata.label}  {kata.title:<{width}}  {kata.topic:<{topic_width}}  {level}  {known}")
    solved = sum(statuses.get(kata.module) == status.SOLVED for kata in katas.values())
    print(f"\nSolved {solved} of {len(katas)} katas. Difficulty: * easy, ** medium, *** hard.")
    return 0


def topics(katas: dict[str, Kata]) -> str:
    return ", ".join(sorted({kata.topic for kata in katas.values()}))


def cmd_next(args: argparse.Namespace, root: Path, katas: dict[str, Kata]) -> int:
    store = Store.for_root(root)
    kata = store.next_unsolved(root, katas)
    if kata is None:
        print(f"All {len(katas)} katas are solved.")
        return 0
    known = store.status_of(kata)
    level = "*" * kata.difficulty + "." * (3 - kata.difficulty)
    print(f"{kata.label}  {kata.title}  {kata.topic}  {level}  {known}")
    print(f"Open katas/{kata.module}.py, then run: katas watch {kata.number}")
    return 0


def show_hint(root: Path, kata: Kata, show_all: bool = False) -> None:
    """Print the kata's hints up to the next one not shown yet (or all), and remember it."""
    hints, all_shown = Store.for_root(root).take_hints(kata, show_all)
    print(f"{kata.label} {kata.title}")
    for hint in hints:
        print(f"  {hint}")
    if all_shown:
        print("  (that was the last hint)")


def cmd_hint(args: argparse.Namespace, root: Path, katas: dict[str, Kata]) -> int:
    (kata,) = pick(katas, [args.kata])
    show_hint(root, kata, args.all)
    return 0


def side_by_side(left: list[str], right: list[str], column: int) -> list[str]:
    """Two texts in two columns, equal lines level with each other, changed lines marked
    as diff -y marks them (| changed, < only left, > only right)."""
    rows = []
    matcher = difflib.SequenceMatcher(None, left, right, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for mine, theirs in itertools.zip_longest(left[i1:i2], right[j1:j2]):
            if tag == "equal":
                mark = " "
            else:
                mark = ">" if mine is None else "<" if theirs is None else "|"
            rows.append(f"{mine or '':<{column}} {mark} {theirs or ''}".rstrip())
    return rows


def cmd_solution(args: argparse.Namespace, root: Path, katas: dict[str, Kata]) -> int:
    (kata,) = pick(katas, [args.kata])
    known = Store.for_root(root).status_of(kata, "not run yet")
    if known != status.SOLVED:
        raise UsageError(
            f"{kata.label} is {known}: solve it first (katas watch {kata.number}), "
            "then compare your answer with the reference"
        )
    reference = kata.solution_path(root)
    if not reference.is_file():
        raise UsageError(f"this folder has no reference answers ({reference} is missing)")
    mine = kata.stub_path(root).read_text(encoding="utf-8").expandtabs().splitlines()
    theirs = reference.read_text(encoding="utf-8").expandtabs().splitlines()
    names = (f"your answer: katas/{kata.module}.py", f"reference: solutions/{kata.module}.py")
    column = max(len(line) for line in [*mine, names[0]])
    if 2 * column + 3 <= shutil.get_terminal_size().columns:
        print(f"{names[0]:<{column}}   {names[1]}\n")
        print("\n".join(side_by_side(mine, theirs, column)))
    else:  # too narrow for two columns: one after the other
        for name, lines in zip(names, (mine, theirs), strict=True):
            print(f"== {name}\n")
            print("\n".join(lines) + "\n")
    return 0


def original_stub(root: Path, kata: Kata) -> str:
    """The stub as the suite ships it: from git, the upstream branch or else HEAD."""
    relative = f"katas/{kata.module}.py"
    for ref in ("@{upstream}", "HEAD"):
        done = subprocess.run(
            ["git", "show", f"{ref}:{relative}"], cwd=root, capture_output=True, text=True
        )
        if done.returncode == 0:
            return done.stdout
    raise UsageError(
        f"cannot find the original {relative}: reset needs a git checkout of torch-katas"
    )


def backup_stamp() -> str:
    return datetime.datetime.now().strftime("%Y%m%d-%H%M%S")


BACKUP_NAME = r"{module}-(\d{{8}}-\d{{6}})(?:-(\d+))?\.py"


def backups(root: Path, kata: Kata) -> list[Path]:
    """The kata's backed-up attempts, oldest first."""
    name = re.compile(BACKUP_NAME.format(module=kata.module))
    found: list[tuple[str, int, Path]] = []
    for path in (root / BACKUPS).glob(f"{kata.module}-*.py"):
        match = name.fullmatch(path.name)
        if match:
            found.append((match[1], int(match[2] or 1), path))
    return [path for *_, path in sorted(found)]


def save_attempt(root: Path, kata: Kata, text: str) -> None:
    """Back up `text` under a name no backup has yet (unless it is the latest backup)."""
    saved = backups(root, kata)
    if saved and saved[-1].read_text(encoding="utf-8") == text:
        print(f"your attempt is already saved as {saved[-1].relative_to(root)}")
        return
    folder = root / BACKUPS
    folder.mkdir(exist_ok=True)
    stamp = backup_stamp()
    for count in itertools.count(1):
        path = folder / f"{kata.module}-{stamp}{f'-{count}' if count > 1 else ''}.py"
        try:
            with path.open("x", encoding="utf-8") as file:  # "x": never over another backup
                file.write(text)
        except FileExistsError:
            continue
        print(f"your attempt is saved as {path.relative_to(root)}")
        return


def cmd_reset(args: argparse.Namespace, root: Path, katas: dict[str, Kata]) -> int:
    (kata,) = pick(katas, [args.kata])
    stub = kata.stub_path(root)
    original = original_stub(root, kata)
    current = stub.read_text(encoding="utf-8") if stub.exists() else None
    if current == original:
        print(f"{stub.relative_to(root)} is already the original stub; nothing to reset")
        return 0
    if current is not None:
        save_attempt(root, kata, current)
    stub.write_text(original, encoding="utf-8")
    Store.for_root(root).forget(kata)
    print(f"{stub.relative_to(root)} is back to the original stub")
    return 0


def cmd_restore(args: argparse.Namespace, root: Path, katas: dict[str, Kata]) -> int:
    (kata,) = pick(katas, [args.kata])
    saved = backups(root, kata)
    if not saved:
        raise UsageError(
            f"{BACKUPS}/ holds no backup of {kata.label}; `katas reset {kata.number}` makes one"
        )
    if args.list:
        print("\n".join(str(path.relative_to(root)) for path in saved))
        return 0
    chosen = saved[-1]
    if args.backup:
        wanted = Path(args.backup).name
        named = next((p for p in saved if wanted in (p.name, p.stem)), None)
        if named is None:
            names = ", ".join(path.name for path in saved)
            raise UsageError(f"{args.backup} is not a backup of {kata.label}; there are: {names}")
        chosen = named
    stub = kata.stub_path(root)
    text = chosen.read_text(encoding="utf-8")
    current = stub.read_text(encoding="utf-8") if stub.exists() else None
    if current == text:
        print(f"{stub.relative_to(root)} already holds {chosen.relative_to(root)}")
        return 0
    try:
        original = original_stub(root, kata)
    except UsageError:  # not a git checkout: every stub counts as an attempt
        original = None
    if current is not None and current != original:  # the untouched stub needs no backup
        save_attempt(root, kata, current)
    stub.write_text(text, encoding="utf-8")
    print(f"{stub.relative_to(root)} is {chosen.relative_to(root)} again")
    return 0


def test_files(root: Path, chosen: list[Kata]) -> list[str]:
    return [str(kata.test_path(root).relative_to(root)) for kata in chosen]


def cmd_run(args: argparse.Namespace, root: Path, katas: dict[str, Kata]) -> int:
    import pytest

    os.chdir(root)
    return int(pytest.main([*test_files(root, pick(katas, args.katas)), *args.pytest_args]))


# -- interviewer commands (grading/) --------------------------------------------------------


def cmd_takehome(args: argparse.Namespace, root: Path, katas: dict[str, Kata]) -> int:
    from torch_katas.grading import takehome

    return takehome.cmd_takehome(args, root, katas)


def cmd_grade(args: argparse.Namespace, root: Path, katas: dict[str, Kata]) -> int:
    from torch_katas.grading import grade

    return grade.cmd_grade(args, root, katas)


def cmd_review(args: argparse.Namespace, root: Path, katas: dict[str, Kata]) -> int:
    from torch_katas.grading import policy

    refused = 0
    for name in args.files:
        path = Path(name)
        if not path.is_file():
            raise UsageError(f"{name} is not a file")
        kata = katas.get(catalog.module_of(path) or "")
        findings = policy.check_file(path, kata.imports if kata else ())
        refused += bool(findings)
        for finding in findings:
            print(f"{name}:{finding.line}: {finding.text} ({finding.rule})")
        if kata is None:
            print(
                f"{name}: not named after a kata; checked with the modules every answer may import"
            )
        if not findings:
            print(f"{name}: nothing the policy refuses")
    return 1 if refused else 0
