"""`katas`: the command line for learners, dojos and interviewers.

katas list                      every kata, with its status from your last run
katas next                      the first unsolved kata in the suggested order
katas hint 6 [--all]            the next hint for kata 6 (or all of them)
katas watch 6 [-- ARGS]         rerun kata 6's tests on every save
katas run 6 7 8 [-- ARGS]       run these katas' tests (ARGS go to pytest)
katas solution 6                once kata 6 is solved: the reference next to your answer
katas reset 6                   restore kata 6's stub; your attempt is backed up first
katas restore 6 [BACKUP]        bring back a backed-up attempt (the latest by default)
katas takehome 6 24 --out DIR   write a take-home folder with only these katas
katas grade DIR [--out REPORT]  grade a returned take-home folder, each kata in a clean copy
"""

from __future__ import annotations

import argparse
import datetime
import difflib
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from torch_katas import catalog, progress

HINTS_KEY = progress.HINTS_KEY
BACKUPS = ".katas-backups"


class UsageError(Exception):
    """A problem with what was asked; the message says what to do instead."""


# -- finding the suite and its katas ------------------------------------------------------


def find_root(start: Path) -> Path:
    for folder in (start, *start.parents):
        if (folder / catalog.CATALOG).is_file():
            return folder
    raise UsageError(
        f"no {catalog.CATALOG} in {start} or above: run this inside a torch-katas folder "
        "or pass --root"
    )


def pick(katas: dict[str, catalog.Kata], wanted: list[str]) -> list[catalog.Kata]:
    """Katas by number (6, 06, q06) or module name, in the order given."""
    by_number = {kata.number: kata for kata in katas.values()}
    chosen = []
    for name in wanted:
        kata = katas.get(name)
        digits = name.lower().removeprefix("q")
        if kata is None and digits.isdigit():
            kata = by_number.get(int(digits))
        if kata is None:
            raise UsageError(f"no kata {name!r}: give a number such as 6, or run `katas list`")
        if kata not in chosen:
            chosen.append(kata)
    return chosen


# -- pytest's cache, where runs keep each kata's status -----------------------------------


def cache_file(root: Path, key: str) -> Path:
    return root / ".pytest_cache" / "v" / key


def read_cache(root: Path, key: str) -> dict:
    try:
        return json.loads(cache_file(root, key).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def write_cache(root: Path, key: str, value: dict) -> None:
    # The same layout and format as pytest's own cache.set().
    path = cache_file(root, key)
    path.parent.mkdir(parents=True, exist_ok=True)
    ignore = root / ".pytest_cache" / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# Created by torch-katas automatically.\n*\n", encoding="utf-8")
    path.write_text(json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True))


# -- learner commands ---------------------------------------------------------------------


def cmd_list(args, root: Path, katas: dict[str, catalog.Kata]) -> int:
    statuses = read_cache(root, progress.CACHE_KEY)
    shown = [k for k in katas.values() if args.topic in (None, k.topic)]
    if not shown:
        raise UsageError(f"no kata has topic {args.topic!r}; topics: {topics(katas)}")
    width = max(len(kata.title) for kata in shown)
    topic_width = max(len(kata.topic) for kata in shown)
    for kata in shown:
        level = "*" * kata.difficulty + "." * (3 - kata.difficulty)
        status = statuses.get(kata.module, "not run")
        print(
            f"{kata.label}  {kata.title:<{width}}  {kata.topic:<{topic_width}}  {level}  {status}"
        )
    solved = sum(statuses.get(kata.module) == progress.SOLVED for kata in katas.values())
    print(f"\nSolved {solved} of {len(katas)} katas. Difficulty: * easy, ** medium, *** hard.")
    return 0


def topics(katas: dict[str, catalog.Kata]) -> str:
    return ", ".join(sorted({kata.topic for kata in katas.values()}))


def next_unsolved(
    root: Path, katas: dict[str, catalog.Kata], after: catalog.Kata | None = None
) -> catalog.Kata | None:
    """The first kata in the suggested order that the last runs did not find solved; with
    `after`, the first one after that kata (wrapping round), never `after` itself."""
    statuses = read_cache(root, progress.CACHE_KEY)
    order = catalog.suggested_order(root, katas)
    if after is not None:
        place = order.index(after)
        order = order[place + 1 :] + order[:place]
    return next((k for k in order if statuses.get(k.module) != progress.SOLVED), None)


def cmd_next(args, root: Path, katas: dict[str, catalog.Kata]) -> int:
    kata = next_unsolved(root, katas)
    if kata is None:
        print(f"All {len(katas)} katas are solved.")
        return 0
    status = read_cache(root, progress.CACHE_KEY).get(kata.module, "not run")
    level = "*" * kata.difficulty + "." * (3 - kata.difficulty)
    print(f"{kata.label}  {kata.title}  {kata.topic}  {level}  {status}")
    print(f"Open katas/{kata.module}.py, then run: katas watch {kata.number}")
    return 0


def show_hint(root: Path, kata: catalog.Kata, show_all: bool = False) -> None:
    """Print the kata's hints up to the next one not shown yet (or all), and remember it."""
    shown = read_cache(root, HINTS_KEY)
    count = len(kata.hints) if show_all else min(shown.get(kata.module, 0) + 1, len(kata.hints))
    print(f"{kata.label} {kata.title}")
    for number, hint in enumerate(kata.hints[:count], 1):
        print(f"  hint {number}/{len(kata.hints)}: {hint}")
    if count == shown.get(kata.module) and not show_all:
        print("  (that was the last hint)")
    shown[kata.module] = count
    write_cache(root, HINTS_KEY, shown)


def cmd_hint(args, root: Path, katas: dict[str, catalog.Kata]) -> int:
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


def cmd_solution(args, root: Path, katas: dict[str, catalog.Kata]) -> int:
    (kata,) = pick(katas, [args.kata])
    status = read_cache(root, progress.CACHE_KEY).get(kata.module, "not run yet")
    if status != progress.SOLVED:
        raise UsageError(
            f"{kata.label} is {status}: solve it first (katas watch {kata.number}), "
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


def original_stub(root: Path, kata: catalog.Kata) -> str:
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


def backups(root: Path, kata: catalog.Kata) -> list[Path]:
    """The kata's backed-up attempts, oldest first."""
    name = re.compile(BACKUP_NAME.format(module=kata.module))
    found = []
    for path in (root / BACKUPS).glob(f"{kata.module}-*.py"):
        match = name.fullmatch(path.name)
        if match:
            found.append((match[1], int(match[2] or 1), path))
    return [path for *_, path in sorted(found)]


def save_attempt(root: Path, kata: catalog.Kata, text: str) -> None:
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


def cmd_reset(args, root: Path, katas: dict[str, catalog.Kata]) -> int:
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
    print(f"{stub.relative_to(root)} is back to the original stub")
    return 0


def cmd_restore(args, root: Path, katas: dict[str, catalog.Kata]) -> int:
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


def test_files(root: Path, chosen: list[catalog.Kata]) -> list[str]:
    return [str(kata.test_path(root).relative_to(root)) for kata in chosen]


def cmd_run(args, root: Path, katas: dict[str, catalog.Kata]) -> int:
    import pytest

    os.chdir(root)
    return int(pytest.main([*test_files(root, pick(katas, args.katas)), *args.pytest_args]))


def cmd_watch(args, root: Path, katas: dict[str, catalog.Kata]) -> int:
    from torch_katas import watch  # watchfiles and threads: only for this command

    (kata,) = pick(katas, [args.kata])
    return watch.watch(root, katas, kata, args.pytest_args)


# -- interviewer commands (takehome.py, grading.py) ----------------------------------------


def cmd_takehome(args, root: Path, katas: dict[str, catalog.Kata]) -> int:
    from torch_katas import takehome

    return takehome.cmd_takehome(args, root, katas)


def cmd_grade(args, root: Path, katas: dict[str, catalog.Kata]) -> int:
    from torch_katas import grading

    return grading.cmd_grade(args, root, katas)


# -- entry point ---------------------------------------------------------------------------


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(
        prog="katas",
        description="Practise, run, hand out and grade torch-katas.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n")[1],
    )
    main.add_argument("--root", help="the torch-katas folder (default: found from here)")
    commands = main.add_subparsers(dest="command", required=True, metavar="COMMAND")

    listing = commands.add_parser("list", help="every kata, with its status from your last run")
    listing.add_argument("--topic", help="only this topic")
    listing.set_defaults(run=cmd_list)

    upcoming = commands.add_parser(
        "next", help="the first unsolved kata: topic by topic, easier katas first"
    )
    upcoming.set_defaults(run=cmd_next)

    hint = commands.add_parser("hint", help="the next hint for a kata, one more each time")
    hint.add_argument("kata", help="kata number, e.g. 6")
    hint.add_argument("--all", action="store_true", help="show every hint")
    hint.set_defaults(run=cmd_hint)

    watch = commands.add_parser(
        "watch",
        help="rerun a kata's tests whenever its stub or tests are saved",
        description="Rerun a kata's tests whenever its stub or its tests are saved. Keys: "
        "Enter reruns, h shows the next hint, n moves on to the next unsolved kata, q quits. "
        "Arguments after -- go to pytest.",
    )
    watch.add_argument("kata", help="kata number, e.g. 6")
    watch.set_defaults(run=cmd_watch)

    run = commands.add_parser("run", help="run the tests of these katas")
    run.add_argument("katas", nargs="+", help="kata numbers, e.g. 6 7 8")
    run.set_defaults(run=cmd_run)

    solution = commands.add_parser(
        "solution", help="once a kata is solved: the reference answer next to yours"
    )
    solution.add_argument("kata", help="kata number, e.g. 6")
    solution.set_defaults(run=cmd_solution)

    reset = commands.add_parser("reset", help="restore a kata's stub, backing up your attempt")
    reset.add_argument("kata", help="kata number, e.g. 6")
    reset.set_defaults(run=cmd_reset)

    restore = commands.add_parser(
        "restore",
        help="bring back a backed-up attempt; the current one is backed up first",
        description=f"Bring back an attempt that reset or restore saved in {BACKUPS}/: the "
        "latest by default, or the one named. The current stub is backed up first.",
    )
    restore.add_argument("kata", help="kata number, e.g. 6")
    restore.add_argument("backup", nargs="?", help="a backup's file name (default: the latest)")
    restore.add_argument("--list", action="store_true", help="list the kata's backups")
    restore.set_defaults(run=cmd_restore)

    takehome = commands.add_parser("takehome", help="write a take-home folder for a candidate")
    takehome.add_argument("katas", nargs="+", help="kata numbers, e.g. 6 24 36")
    takehome.add_argument("--out", required=True, help="the new folder to write")
    takehome.set_defaults(run=cmd_takehome)

    grade = commands.add_parser("grade", help="grade a returned take-home folder")
    grade.add_argument("folder", help="the candidate's folder")
    grade.add_argument("--out", help="where to write the report (default: FOLDER/grading)")
    grade.add_argument("--device", help="devices to grade on, as pytest's --device")
    grade.add_argument(
        "--katas", nargs="+", help="the katas handed out (default: from the take-home's record)"
    )
    grade.add_argument("--name", help="the candidate's name in the report (default: folder name)")
    grade.add_argument(
        "--timeout", type=float, default=300, help="seconds each kata may take (default 300)"
    )
    grade.add_argument(
        "--sandbox",
        choices=["auto", "bwrap", "none"],
        default="auto",
        help="run the candidate's code in bubblewrap (auto: when it works here)",
    )
    grade.add_argument(
        "--format",
        choices=["report", "gradescope"],
        default="report",
        help="gradescope: also write Gradescope's results.json",
    )
    grade.set_defaults(run=cmd_grade)
    return main


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # Everything after `--` goes to pytest (run, watch).
    pytest_args = argv[argv.index("--") + 1 :] if "--" in argv else []
    argv = argv[: argv.index("--")] if "--" in argv else argv
    args = parser().parse_args(argv)
    args.pytest_args = pytest_args
    try:
        root = Path(args.root).resolve() if args.root else find_root(Path.cwd())
        if not (root / catalog.CATALOG).is_file():
            raise UsageError(f"{root} has no {catalog.CATALOG}: is it a torch-katas folder?")
        return args.run(args, root, catalog.load(root))
    except UsageError as error:
        print(f"katas {args.command}: {error}", file=sys.stderr)
        return 2
