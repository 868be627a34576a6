"""`katas`: the command line for learners, dojos and interviewers.

katas                           the kata to work on next, and how to watch it
katas list                      every kata, with its status from your last run
katas next [--topic T]          the first unsolved kata in the suggested order
katas show 6                    kata 6's task and contract, large, for a projector
katas progress [--json]         your progress; --json for katas board
katas board FILE...|DIR         a room's progress from their --json files, and an HTML page
katas hint [6] [--all]          the next hint for kata 6 (default: the current kata)
katas watch [6|TOPIC] [-- ARGS] rerun kata 6's tests on every save
katas run 6 7 TOPIC [-- ARGS]   run these katas' tests (ARGS go to pytest)
katas solution 6                once kata 6 is solved: the reference and yours
katas bughunt 6 [--bugs 2]      find the bug: kata 6's stub holds a mistake to fix
katas reset 6                   start kata 6 over (your attempt is backed up)
katas restore 6 [BACKUP]        bring back a backed-up attempt (default: latest)
katas notebook [6 7 ...]        write a Jupyter notebook of katas (%load_ext torch_katas)
katas testwrite 6 [--score]     write kata 6's tests; score them by the mistakes caught
katas takehome 6 24 --out DIR   write a take-home folder with only these katas
katas grade DIR [--out REPORT]  grade a returned take-home folder, kata by kata
katas gradescope 6 24 --out DIR Gradescope's autograder (setup.sh, run_autograder)
katas review FILE...            check files against the policy for returned code
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

from torch_katas import catalog
from torch_katas.catalog import UsageError
from torch_katas.cli import commands

__all__ = [
    "main",
    "parser",
]


def cmd_watch(args: argparse.Namespace, root: Path, katas: dict[str, catalog.Kata]) -> int:
    from torch_katas.cli import watch  # watchfiles and threads: only for this command

    topic = args.topic
    if args.kata is not None and args.kata in {kata.topic for kata in katas.values()}:
        topic, args.kata = args.kata, None  # `katas watch optimizers`
    kata = commands.chosen_or_current(root, katas, args.kata, catalog.topic_of(katas, topic))
    return watch.watch(root, katas, kata, args.pytest_args, topic)


RUN_EXAMPLES = """\
Arguments after -- go to pytest, for example:
  katas run 6 -- --device cuda     on the GPU alone
  katas run 6 7 -- -x              stop at the first failure
  katas run 6 -- -k hessian -v     the tests named *hessian*, one line each"""

WATCH_EXAMPLES = """\
Arguments after -- go to pytest, for each run, for example:
  katas watch 6 -- --device cpu    on the CPU alone: the quicker run
  katas watch 6 -- -k hessian      only the tests with "hessian" in their names
  katas watch 6 -- -v              pytest's full report instead of the digest"""


class Formatter(argparse.HelpFormatter):
    """Help text filled to the terminal line by line; indented lines (examples) as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(
            indent + line
            if line.startswith(" ")
            else textwrap.fill(line, width, initial_indent=indent, subsequent_indent=indent)
            for line in text.splitlines()
        )


class MainFormatter(argparse.RawDescriptionHelpFormatter):
    """The main help: each command's summary on the command's own line, the longest
    command's too (argparse counts the commands' names two columns short)."""

    def add_argument(self, action: argparse.Action) -> None:
        super().add_argument(action)
        if isinstance(action, argparse._SubParsersAction):
            longest = max(map(len, action.choices), default=0) + self._current_indent + 2
            self._action_max_length = max(self._action_max_length, longest)


def command(
    subcommands: argparse._SubParsersAction,
    name: str,
    summary: str,
    description: str,
    run: Callable[..., int],
    *,
    kata: bool = False,
    current: bool = False,
    katas: str | None = None,
    epilog: str | None = None,
    usage: str | None = None,
) -> argparse.ArgumentParser:
    """A subcommand with its line in `katas --help` and the whole story in its own --help;
    `run` carries it out; `kata` gives it one kata number as its first argument, `current`
    one that may be left out (the current kata), `katas` (an nargs, "+" or "*") a list."""
    sub = subcommands.add_parser(
        name,
        help=summary,
        description=description,
        epilog=epilog,
        usage=usage,
        formatter_class=Formatter,
    )
    if kata:
        sub.add_argument("kata", metavar="KATA", help="kata number, e.g. 6")
    if current:
        sub.add_argument(
            "kata",
            metavar="KATA",
            nargs="?",
            help="kata number, e.g. 6 (default: the current kata, the one `katas next` names)",
        )
    if katas:
        every = " (default: every kata)" if katas == "*" else ", e.g. 6 7 8"
        sub.add_argument("katas", nargs=katas, metavar="KATA", help=f"kata numbers{every}")
    sub.set_defaults(run=run)
    return sub


def cmd_notebook(args: argparse.Namespace, root: Path, katas: dict[str, catalog.Kata]) -> int:
    from torch_katas.cli import notebook  # nbformat: only for this command

    return notebook.cmd_notebook(args, root, katas)


def cmd_bughunt(args: argparse.Namespace, root: Path, katas: dict[str, catalog.Kata]) -> int:
    from torch_katas.cli import bughunt

    return bughunt.cmd_bughunt(args, root, katas)


def cmd_testwrite(args: argparse.Namespace, root: Path, katas: dict[str, catalog.Kata]) -> int:
    from torch_katas.cli import testwrite

    return testwrite.cmd_testwrite(args, root, katas)


def room_command(name: str) -> Callable[..., int]:
    """A dojo command of room.py, imported when it runs."""

    def run(args: argparse.Namespace, root: Path, katas: dict[str, catalog.Kata]) -> int:
        from torch_katas.cli import room

        return int(getattr(room, name)(args, root, katas))

    return run


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(
        prog="katas",
        description="Practise, run, hand out and grade torch-katas. Without a command:\n"
        "the kata to work on next and how to watch it, as `katas next` says.",
        formatter_class=MainFormatter,
        epilog=(__doc__ or "").split("\n\n")[1],
    )
    main.add_argument("--root", help="the torch-katas folder (default: found from here)")
    subcommands = main.add_subparsers(dest="command", metavar="COMMAND")

    listing = command(
        subcommands,
        "list",
        "every kata, with its status from your last run",
        "Every kata, one line each: number, title, topic, difficulty (* easy, ** medium, "
        "*** hard) and its status from your last run (solved, partly solved, not started, "
        "or not run). The lines fit the terminal: long titles are cut.",
        commands.cmd_list,
    )
    listing.add_argument("--topic", help="only the katas of this topic, e.g. autograd")

    upcoming = command(
        subcommands,
        "next",
        "the first unsolved kata: topic by topic, easier katas first",
        "The first kata you have not solved, topic by topic, easier katas first, with the "
        "file to open and the command that watches it. Bare `katas` says the same.",
        commands.cmd_next,
    )
    upcoming.add_argument("--topic", help="the first unsolved kata of this topic, e.g. optimizers")

    hint = command(
        subcommands,
        "hint",
        "the next hint for a kata, one more each time",
        "The kata's hints, one more each time you ask (the count is shared with `h` in "
        "katas watch and with pytest --hints); --all shows every hint. Without a number, the "
        "current kata's: the one `katas next` names.",
        commands.cmd_hint,
        current=True,
    )
    hint.add_argument("--all", action="store_true", help="show every hint")

    watching = command(
        subcommands,
        "watch",
        "rerun a kata's tests whenever its stub or tests are saved",
        "Run a kata's tests now and again whenever its stub or its tests are saved, each "
        "run's report fitted to the terminal, first failure on top, then what the kata's "
        "status now is. Keys: Enter reruns, h shows the next hint, n moves on to the kata the "
        "last line names, q quits. Without a number, the current kata (the one `katas next` "
        "names); with a topic (katas watch optimizers, or --topic), its first unsolved kata, "
        "and n moves on within the topic.",
        cmd_watch,
        current=True,
        epilog=WATCH_EXAMPLES,
        usage="katas watch [-h] [KATA | TOPIC] [--topic TOPIC] [-- ARGS]",
    )
    watching.add_argument("--topic", help="stay within this topic, e.g. optimizers")

    command(
        subcommands,
        "run",
        "run the tests of these katas",
        "Run these katas' tests once, as pytest does on their test files, and show your "
        "progress after. A topic's name stands for its katas: katas run optimizers.",
        commands.cmd_run,
        katas="+",
        epilog=RUN_EXAMPLES,
        usage="katas run [-h] KATA|TOPIC [KATA|TOPIC ...] [-- ARGS]",
    )

    show = command(
        subcommands,
        "show",
        "a kata's task and contract, large, for a projector",
        "A kata's task and each function's contract, as its stub's docstrings state them, "
        "without the stub's code: to put on a projector (zoom the terminal, or --html).",
        room_command("cmd_show"),
        kata=True,
    )
    show.add_argument("--width", type=int, help="fill the text to this many columns")
    show.add_argument("--html", metavar="FILE", help="write a page in large type instead")

    progress = command(
        subcommands,
        "progress",
        "your progress; --json writes it for katas board",
        "Your progress, topic by topic. With --json, the same as JSON on standard output, "
        "for the room's board: katas progress --json > NAME.json, then katas board on the "
        "collected files.",
        room_command("cmd_progress"),
    )
    progress.add_argument("--json", action="store_true", help="print JSON for katas board")
    progress.add_argument("--name", help="your name on the board (default: user@host)")

    board = command(
        subcommands,
        "board",
        "a room's progress from their katas progress --json files",
        "A room's progress from the files of katas progress --json (or a folder of them): "
        "per kata and per person, in the terminal, and with --html as a static page a "
        "facilitator can put on the screen (no server; run the command again to update it: "
        "the page reloads itself).",
        room_command("cmd_board"),
    )
    board.add_argument("files", nargs="+", metavar="FILE|DIR", help="progress files or folders")
    board.add_argument("--topic", help="only the katas of this topic")
    board.add_argument("--html", metavar="FILE", help="also write the board as an HTML page")
    board.add_argument(
        "--refresh", type=int, default=30, help="seconds between the page's reloads (0: never)"
    )

    command(
        subcommands,
        "solution",
        "once a kata is solved: the reference answer beside yours",
        "Once a kata is solved: the reference answer beside your code, docstrings left out "
        "(two columns where the terminal is wide enough, else a unified diff), then the "
        "classic mistakes the kata's tests catch. Until then it refuses.",
        commands.cmd_solution,
        kata=True,
    )

    hunt = command(
        subcommands,
        "bughunt",
        "find the bug: a kata's stub becomes an answer with a curated mistake",
        "Find the bug: the kata's stub becomes its reference answer with one of the "
        "mistakes its tests catch (two with --bugs 2), chosen at random and not shown; your "
        f"own stub is first saved in {commands.BACKUPS}/. Run the kata's tests, find the "
        "mistaken lines and fix them; --check runs the tests and, once they pass, says whether "
        "the fix was small or a rewrite, names the mistake and shows the diff against the "
        "reference. --stop puts your own code back. --progress lists the hunts done, kept "
        "apart from the katas' progress.",
        cmd_bughunt,
        usage="katas bughunt [-h] [KATA] [--bugs {1,2}] [--hidden] [--check|--stop|--progress]",
    )
    hunt.add_argument("kata", metavar="KATA", nargs="?", help="kata number, e.g. 13")
    hunt.add_argument("--bugs", type=int, choices=[1, 2], default=1, help="bugs to hand out")
    hunt.add_argument(
        "--hidden",
        action="store_true",
        help="harder: no comments and no word of where the bug is; only the failing tests say",
    )
    hunt.add_argument("--seed", type=int, help="choose the mistakes with this random seed")
    hunt_action = hunt.add_mutually_exclusive_group()
    hunt_action.add_argument(
        "--check", action="store_true", help="run the kata's tests and give the hunt's verdict"
    )
    hunt_action.add_argument(
        "--stop", action="store_true", help="end the hunt and put your own stub back"
    )
    hunt_action.add_argument("--progress", action="store_true", help="the bug hunts done")

    command(
        subcommands,
        "reset",
        "start a kata over: its original stub back, its status cleared",
        "Start a kata over: put its stub back as the suite ships it (from git) and clear "
        f"its status. Your attempt is first saved in {commands.BACKUPS}/ (katas restore "
        "brings it back).",
        commands.cmd_reset,
        kata=True,
    )

    restore = command(
        subcommands,
        "restore",
        "bring back a backed-up attempt; the current one is backed up first",
        "Bring back an attempt that reset or restore saved in "
        f"{commands.BACKUPS}/: the latest by default, or the one named. The current stub is "
        "backed up first.",
        commands.cmd_restore,
        kata=True,
    )
    restore.add_argument("backup", nargs="?", help="a backup's file name (default: the latest)")
    restore.add_argument("--list", action="store_true", help="list the kata's backups")

    notebook = command(
        subcommands,
        "notebook",
        "write a Jupyter notebook of katas: each one's task and its stub in a cell",
        "Write a Jupyter notebook with one section per kata: the task, then the stub in a "
        "cell that starts with %%kata N; running that cell saves it as the stub and runs the "
        "kata's tests. Needs the notebook extra (nbformat writes the notebook; ipykernel "
        "runs it): pip install -e '.[notebook]'.",
        cmd_notebook,
        katas="*",
    )
    notebook.add_argument("--force", action="store_true", help="replace an existing notebook")
    notebook.add_argument("--out", help="the notebook to write (default: katas.ipynb in the suite)")

    testwrite = command(
        subcommands,
        "testwrite",
        "write a kata's tests; --score: the share of its mistakes they catch",
        "Practise writing tests: writes the kata's reference answer and a test module to fill "
        "in under testwrite/ (the command prints their paths; the contract is the stub's "
        "docstring). With --score, runs that module against the reference and the correct "
        "answers in other styles (each test must pass on every one) and against each of the "
        "kata's curated mistakes, and ends with the line: caught K of M mistakes (P %). "
        "Mistakes missed are named in words, never their code.",
        cmd_testwrite,
        kata=True,
    )
    testwrite.add_argument(
        "--score",
        nargs="?",
        const="",
        metavar="PATH",
        help="score this test module (default: the one under testwrite/)",
    )
    testwrite.add_argument(
        "--mutants",
        action="store_true",
        help="also count each mutant of the reference (one small change each; slower)",
    )
    testwrite.add_argument("--json", action="store_true", help="print the score as JSON")
    testwrite.add_argument(
        "--watch", action="store_true", help="score now and again on every save, until Ctrl-C"
    )

    takehome = command(
        subcommands,
        "takehome",
        "write a take-home folder for a candidate",
        "Write a self-contained folder for a candidate: these katas' stubs and tests, the "
        "harness and a README, all from git HEAD, no reference answers. A record of what "
        "was handed out goes to .katas-takehomes/ here, for katas grade.",
        commands.cmd_takehome,
        katas="+",
    )
    takehome.add_argument("--out", required=True, help="the new folder to write")
    takehome.add_argument(
        "--hints",
        choices=["none", "first", "all"],
        default="first",
        help="which of each kata's hints to ship (default: first)",
    )
    takehome.add_argument(
        "--mode",
        choices=["katas", "bughunt", "testwrite"],
        default="katas",
        help="what the candidate does: katas, write the answers (default); bughunt, find and "
        "fix the curated mistake in each kata's module (--bugs 2, --hidden as katas bughunt); "
        "testwrite, write each kata's tests given its reference, graded by the share of "
        "mistakes caught",
    )
    takehome.add_argument(
        "--bugs", type=int, choices=[1, 2], default=1, help="bughunt: bugs per kata"
    )
    takehome.add_argument("--hidden", action="store_true", help="bughunt: without comments")
    takehome.add_argument("--seed", type=int, help="bughunt: draw the mistakes with this seed")

    grade = command(
        subcommands,
        "grade",
        "grade a returned take-home folder",
        "Grade a returned take-home folder: each kata in a process of its own, in a fresh "
        "copy of the suite holding only the candidate's stub (in a sandbox where one "
        "works), then report.md, report.json and junit.xml. Exits 0 when every kata is "
        "solved, 1 otherwise.",
        commands.cmd_grade,
    )
    grade.add_argument("folder", metavar="FOLDER", help="the candidate's folder")
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
        help="run the candidate's code in bubblewrap (auto: when it works here); none: "
        "nothing protects this machine, its files or this checkout from the candidate's code",
    )
    grade.add_argument(
        "--allow-root",
        action="store_true",
        help="accept grading as root without bubblewrap: the candidate's code then runs as "
        "root (a throw-away machine only)",
    )
    grade.add_argument(
        "--format",
        choices=["report", "gradescope"],
        default="report",
        help="gradescope: also write Gradescope's results.json",
    )

    scope = command(
        subcommands,
        "gradescope",
        "build Gradescope's autograder (setup.sh, run_autograder) for these katas",
        "Build the autograder Gradescope runs for an assignment of these katas: setup.sh "
        "(installs torch and the suite), run_autograder (grades /autograder/submission into "
        "/autograder/results/results.json with katas grade --format gradescope) and the "
        "suite's harness and tests as committed, then autograder.zip of them to upload.",
        commands.cmd_gradescope,
        katas="+",
    )
    scope.add_argument("--out", required=True, help="the new folder to write")
    scope.add_argument("--torch", help="the torch version setup.sh installs (default: this one's)")
    scope.add_argument(
        "--hints",
        choices=["none", "first", "all"],
        default="first",
        help="the hints the take-home shipped, as katas takehome --hints (default: first)",
    )

    review = command(
        subcommands,
        "review",
        "check files against the policy for returned code",
        "Read each file (a kata answer, named like katas/q06_gradients.py) against the "
        "policy `katas grade` applies to returned stubs, without running it, and list what "
        "it refuses. Exit status 1 when anything is refused.",
        commands.cmd_review,
    )
    review.add_argument("files", nargs="+", help="answer files, e.g. katas/q06_gradients.py")
    return main


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # Everything after `--` goes to pytest (run, watch).
    pytest_args = argv[argv.index("--") + 1 :] if "--" in argv else []
    argv = argv[: argv.index("--")] if "--" in argv else argv
    args = parser().parse_args(argv)
    args.pytest_args = pytest_args
    if args.command is None:  # bare `katas`
        args.run = commands.cmd_start
    try:
        root = Path(args.root).resolve() if args.root else catalog.find_root(Path.cwd())
        if not (root / catalog.CATALOG).is_file():
            raise UsageError(f"{root} has no {catalog.CATALOG}: is it a torch-katas folder?")
        return args.run(args, root, catalog.load(root))
    except UsageError as error:
        print(f"katas {args.command or ''}".rstrip() + f": {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `katas list | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
