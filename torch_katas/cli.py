"""`katas`: the command line for learners, dojos and interviewers.

katas list                      every kata, with its status from your last run
katas hint 6 [--all]            the next hint for kata 6 (or all of them)
katas reset 6                   restore kata 6's stub; your attempt is backed up first
katas run 6 7 8 [-- ARGS]       run these katas' tests (ARGS go to pytest)
katas watch 6 [-- ARGS]         rerun kata 6's tests on every save
katas takehome 6 24 --out DIR   write a take-home folder with only these katas
katas grade DIR [--out REPORT]  grade a returned take-home folder, each kata in a clean copy
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from torch_katas import catalog, progress

HINTS_KEY = "torch_katas/hints"
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


def cmd_hint(args, root: Path, katas: dict[str, catalog.Kata]) -> int:
    (kata,) = pick(katas, [args.kata])
    shown = read_cache(root, HINTS_KEY)
    count = len(kata.hints) if args.all else min(shown.get(kata.module, 0) + 1, len(kata.hints))
    print(f"{kata.label} {kata.title}")
    for number, hint in enumerate(kata.hints[:count], 1):
        print(f"  hint {number}/{len(kata.hints)}: {hint}")
    if count == shown.get(kata.module) and not args.all:
        print("  (that was the last hint)")
    shown[kata.module] = count
    write_cache(root, HINTS_KEY, shown)
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


def cmd_reset(args, root: Path, katas: dict[str, catalog.Kata]) -> int:
    (kata,) = pick(katas, [args.kata])
    stub = kata.stub_path(root)
    original = original_stub(root, kata)
    current = stub.read_text(encoding="utf-8") if stub.exists() else None
    if current == original:
        print(f"{stub.relative_to(root)} is already the original stub; nothing to reset")
        return 0
    if current is not None:
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        backup = root / BACKUPS / f"{kata.module}-{stamp}.py"
        backup.parent.mkdir(exist_ok=True)
        backup.write_text(current, encoding="utf-8")
        print(f"your attempt is saved as {backup.relative_to(root)}")
    stub.write_text(original, encoding="utf-8")
    print(f"{stub.relative_to(root)} is back to the original stub")
    return 0


def test_files(root: Path, chosen: list[catalog.Kata]) -> list[str]:
    return [str(kata.test_path(root).relative_to(root)) for kata in chosen]


def cmd_run(args, root: Path, katas: dict[str, catalog.Kata]) -> int:
    import pytest

    os.chdir(root)
    return int(pytest.main([*test_files(root, pick(katas, args.katas)), *args.pytest_args]))


def cmd_watch(args, root: Path, katas: dict[str, catalog.Kata]) -> int:
    if shutil.which("ptw") is None:
        raise UsageError("watch mode uses pytest-watcher: pip install pytest-watcher")
    files = test_files(root, pick(katas, [args.kata]))
    command = ["ptw", "--now", "--clear", ".", *files, *args.pytest_args]
    return subprocess.call(command, cwd=root)


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

    hint = commands.add_parser("hint", help="the next hint for a kata, one more each time")
    hint.add_argument("kata", help="kata number, e.g. 6")
    hint.add_argument("--all", action="store_true", help="show every hint")
    hint.set_defaults(run=cmd_hint)

    reset = commands.add_parser("reset", help="restore a kata's stub, backing up your attempt")
    reset.add_argument("kata", help="kata number, e.g. 6")
    reset.set_defaults(run=cmd_reset)

    run = commands.add_parser("run", help="run the tests of these katas")
    run.add_argument("katas", nargs="+", help="kata numbers, e.g. 6 7 8")
    run.set_defaults(run=cmd_run)

    watch = commands.add_parser("watch", help="rerun a kata's tests whenever a file is saved")
    watch.add_argument("kata", help="kata number, e.g. 6")
    watch.set_defaults(run=cmd_watch)

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
