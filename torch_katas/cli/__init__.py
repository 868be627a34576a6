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
katas review FILE...            check files against the policy for returned code
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from torch_katas import catalog
from torch_katas.catalog import UsageError
from torch_katas.cli import commands


def cmd_watch(args: argparse.Namespace, root: Path, katas: dict[str, catalog.Kata]) -> int:
    from torch_katas.cli import watch  # watchfiles and threads: only for this command

    (kata,) = catalog.pick(katas, [args.kata])
    return watch.watch(root, katas, kata, args.pytest_args)


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(
        prog="katas",
        description="Practise, run, hand out and grade torch-katas.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(__doc__ or "").split("\n\n")[1],
    )
    main.add_argument("--root", help="the torch-katas folder (default: found from here)")
    subcommands = main.add_subparsers(dest="command", required=True, metavar="COMMAND")

    listing = subcommands.add_parser("list", help="every kata, with its status from your last run")
    listing.add_argument("--topic", help="only this topic")
    listing.set_defaults(run=commands.cmd_list)

    upcoming = subcommands.add_parser(
        "next", help="the first unsolved kata: topic by topic, easier katas first"
    )
    upcoming.set_defaults(run=commands.cmd_next)

    hint = subcommands.add_parser("hint", help="the next hint for a kata, one more each time")
    hint.add_argument("kata", help="kata number, e.g. 6")
    hint.add_argument("--all", action="store_true", help="show every hint")
    hint.set_defaults(run=commands.cmd_hint)

    watch = subcommands.add_parser(
        "watch",
        help="rerun a kata's tests whenever its stub or tests are saved",
        description="Rerun a kata's tests whenever its stub or its tests are saved. Keys: "
        "Enter reruns, h shows the next hint, n moves on to the next unsolved kata, q quits. "
        "Arguments after -- go to pytest.",
    )
    watch.add_argument("kata", help="kata number, e.g. 6")
    watch.set_defaults(run=cmd_watch)

    run = subcommands.add_parser("run", help="run the tests of these katas")
    run.add_argument("katas", nargs="+", help="kata numbers, e.g. 6 7 8")
    run.set_defaults(run=commands.cmd_run)

    solution = subcommands.add_parser(
        "solution", help="once a kata is solved: the reference answer next to yours"
    )
    solution.add_argument("kata", help="kata number, e.g. 6")
    solution.set_defaults(run=commands.cmd_solution)

    reset = subcommands.add_parser("reset", help="restore a kata's stub, backing up your attempt")
    reset.add_argument("kata", help="kata number, e.g. 6")
    reset.set_defaults(run=commands.cmd_reset)

    restore = subcommands.add_parser(
        "restore",
        help="bring back a backed-up attempt; the current one is backed up first",
        description="Bring back an attempt that reset or restore saved in "
        f"{commands.BACKUPS}/: the latest by default, or the one named. The current stub is "
        "backed up first.",
    )
    restore.add_argument("kata", help="kata number, e.g. 6")
    restore.add_argument("backup", nargs="?", help="a backup's file name (default: the latest)")
    restore.add_argument("--list", action="store_true", help="list the kata's backups")
    restore.set_defaults(run=commands.cmd_restore)

    takehome = subcommands.add_parser("takehome", help="write a take-home folder for a candidate")
    takehome.add_argument("katas", nargs="+", help="kata numbers, e.g. 6 24 36")
    takehome.add_argument("--out", required=True, help="the new folder to write")
    takehome.add_argument(
        "--hints",
        choices=["none", "first", "all"],
        default="first",
        help="which of each kata's hints to ship (default: first)",
    )
    takehome.set_defaults(run=commands.cmd_takehome)

    grade = subcommands.add_parser("grade", help="grade a returned take-home folder")
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
    grade.set_defaults(run=commands.cmd_grade)

    review = subcommands.add_parser(
        "review",
        help="check files against the policy for returned code",
        description="Read each file (a kata answer, named like katas/q06_gradients.py) "
        "against the policy `katas grade` applies to returned stubs, without running it, "
        "and list what it refuses. Exit status 1 when anything is refused.",
    )
    review.add_argument("files", nargs="+", help="answer files, e.g. katas/q06_gradients.py")
    review.set_defaults(run=commands.cmd_review)
    return main


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # Everything after `--` goes to pytest (run, watch).
    pytest_args = argv[argv.index("--") + 1 :] if "--" in argv else []
    argv = argv[: argv.index("--")] if "--" in argv else argv
    args = parser().parse_args(argv)
    args.pytest_args = pytest_args
    try:
        root = Path(args.root).resolve() if args.root else catalog.find_root(Path.cwd())
        if not (root / catalog.CATALOG).is_file():
            raise UsageError(f"{root} has no {catalog.CATALOG}: is it a torch-katas folder?")
        return args.run(args, root, catalog.load(root))
    except UsageError as error:
        print(f"katas {args.command}: {error}", file=sys.stderr)
        return 2
