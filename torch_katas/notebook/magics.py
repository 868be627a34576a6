"""The %kata magics: the learner's loop in a Jupyter or IPython kernel.

    %kata 6                 kata 6's task, contract and stub; its stub in a new cell below
    %%kata 6                (atop a cell) save the cell as kata 6's stub, then run its tests
    %%kata 6 -- ARGS        the same, with ARGS for pytest (-- --device cpu)
    %kata hint 6 [--all]    the next hint (or all of them), as `katas hint`
    %kata next              the first kata not solved yet, as `katas next`
    %kata list [--topic T]  every kata with its status, as `katas list`
    %kata solution 6        once kata 6 is solved: the reference next to your answer
    %kata reset 6, %kata restore 6 [BACKUP]   as the `katas` commands
    %kata bughunt 6 [--bugs 2] [--hidden]     find the bug: %kata 6 then shows the module
    %kata bughunt 6 --stop, %kata bughunt --progress                as `katas bughunt`
    %kata testwrite 6       write the tests: the reference and a test module, as `katas testwrite`
    %%kata testwrite 6      (atop a cell) save the cell as kata 6's test module, then score it

The tests run in a fresh process, `python -m pytest katas/qNN_name_test.py`, on every device
the machine has; the kernel imports neither torch nor the stub, so a broken cell cannot break
it, and no module goes stale between runs.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import shlex
from pathlib import Path

from IPython.core.error import UsageError as MagicUsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.display import Code, display

from torch_katas import catalog, cli
from torch_katas.catalog import Kata, UsageError
from torch_katas.cli.bughunt import verdict_lines
from torch_katas.notebook.run import report, run_tests
from torch_katas.notebook.stub import cell_text, save
from torch_katas.practice import testwrite
from torch_katas.store import Store

__all__ = [
    "KataMagics",
]

# `katas` commands that mean the same in a notebook; the others have a notebook way instead.
SHARED_COMMANDS = ("hint", "next", "list", "solution", "reset", "restore", "bughunt", "testwrite")
INSTEAD = {
    "run": "a cell that starts with %%kata N saves it and runs the kata's tests",
    "watch": "a cell that starts with %%kata N saves it and runs the kata's tests",
    "notebook": "run `!katas notebook` to write a notebook of katas",
    "takehome": "run `!katas takehome ...` for take-home tasks",
    "grade": "run `!katas grade ...` for grading",
}


def suite_root(given: str | None = None) -> Path:
    """The torch-katas folder: the one given, else the one holding the kernel's working
    folder, else the checkout this torch_katas was installed from (`pip install -e .`)."""
    if given:
        return Path(given).expanduser().resolve()
    try:
        return catalog.find_root(Path.cwd())
    except UsageError:
        checkout = Path(__file__).resolve().parents[2]
        if (checkout / catalog.CATALOG).is_file():
            return checkout
        raise UsageError(
            f"no {catalog.CATALOG} in {Path.cwd()} or above: `%cd` into a clone of torch-katas"
        ) from None


def load(root: Path) -> dict[str, Kata]:
    if not (root / catalog.CATALOG).is_file():
        raise UsageError(f"{root} has no {catalog.CATALOG}: is it a torch-katas folder?")
    return catalog.load(root)


def parse(words: list[str]) -> argparse.Namespace | None:
    """Parse a `katas` command line with the CLI's own parser; its errors as UsageError,
    None after --help."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            return cli.parser().parse_args(words)
    except SystemExit as exit:
        if exit.code == 0:  # --help, printed already
            return None
        lines = err.getvalue().strip().splitlines()
        raise UsageError(lines[-1].removeprefix("katas: ") if lines else "bad arguments") from None


@magics_class
class KataMagics(Magics):
    @line_cell_magic
    def kata(self, line: str, cell: str | None = None) -> None:
        """Practise torch-katas in this notebook (`%kata help` for the commands)."""
        try:
            try:
                words = shlex.split(line)
            except ValueError as error:  # an unclosed quote
                raise UsageError(str(error)) from None
            if cell is None:
                self.line(words)
            else:
                self.cell(words, cell)
        except UsageError as error:
            # IPython's own kind: shown as one line, and `Run all` stops here.
            raise MagicUsageError(f"%kata: {error}") from None

    def line(self, words: list[str]) -> None:
        if not words or words[0] in ("help", "-h", "--help"):
            print(__doc__)
            return
        if words[0] in INSTEAD:
            raise UsageError(f"{words[0]} is for a terminal; in a notebook, {INSTEAD[words[0]]}")
        if words[0] in SHARED_COMMANDS or words[0] == "--root":
            self.command(words)
            return
        root = suite_root()
        katas = load(root)
        if len(words) != 1:
            raise UsageError(f"unknown command {' '.join(words)!r}; `%kata help` lists them")
        (kata,) = catalog.pick(katas, words)
        self.show(root, kata)

    def command(self, words: list[str]) -> None:
        """A `katas` command, run as the CLI runs it, in this process (none imports torch)."""
        args = parse(words)
        if args is None:
            return
        if args.command not in SHARED_COMMANDS:
            instead = INSTEAD.get(args.command, "use the %kata commands")
            raise UsageError(f"{args.command} is for a terminal; in a notebook, {instead}")
        args.pytest_args = []
        if args.command == "bughunt" and args.check:
            raise UsageError(
                "in a notebook, the %%kata N cell runs the tests and gives the verdict"
            )
        root = suite_root(args.root)
        katas = load(root)
        args.run(args, root, katas)
        if args.command == "bughunt" and not (args.stop or args.progress):
            print(f"In this notebook: %kata {args.kata} puts the module in a new cell")
        if args.command == "next":
            following = Store.for_root(root).next_unsolved(root, katas)
            if following is not None:
                print(
                    f"In this notebook: %kata {following.number} shows it and puts its stub "
                    "in a new cell"
                )

    def show(self, root: Path, kata: Kata) -> None:
        """The kata's header, then its stub (task and contracts are its docstrings), and the
        stub in a new cell below where the front end can make one."""
        path = kata.stub_path(root)
        if not path.is_file():
            raise UsageError(f"{path} is missing; `%kata reset {kata.number}` restores it")
        known = Store.for_root(root).status_of(kata)
        text = cell_text(kata, path.read_text(encoding="utf-8"))
        header = f"{kata.label} {kata.title} ({kata.topic}, difficulty {kata.difficulty} of 3)"
        advice = (
            "Edit the cell below and run it: {magic} saves it as {file} and runs the kata's "
            "tests. No new cell? Copy this code into one."
        )
        magic, file = f"%%kata {kata.number}", path.relative_to(root).as_posix()
        plain = f"{header}: {known}\n{advice.format(magic=magic, file=file)}"
        markdown = f"**{header}**: {known}\n\n{advice.format(magic=f'`{magic}`', file=f'`{file}`')}"
        display({"text/plain": plain, "text/markdown": markdown}, raw=True)
        display(Code(text, language="python"))
        assert self.shell is not None  # magics are registered on a shell
        self.shell.set_next_input(text, replace=False)

    def cell(self, words: list[str], cell: str) -> None:
        pytest_args: list[str] = []
        if "--" in words:
            pytest_args = words[words.index("--") + 1 :]
            words = words[: words.index("--")]
        if words[:1] == ["testwrite"]:
            self.testwrite(words[1:], cell)
            return
        if len(words) != 1:
            raise UsageError("start the cell with %%kata N (one kata), e.g. %%kata 6")
        root = suite_root()
        (kata,) = catalog.pick(load(root), words)
        relative = kata.stub_path(root).relative_to(root).as_posix()
        saved = save(root, kata, cell)
        test_file = kata.test_path(root).relative_to(root).as_posix()
        print(
            f"{kata.label}: {'saved' if saved else 'unchanged'} {relative}; "
            f"running pytest {test_file} ...",
            flush=True,
        )
        outcome = run_tests(root, kata, pytest_args)
        print(report(outcome), flush=True)
        hunt = verdict_lines(root, kata, outcome.exit_code, full=True)  # a bug hunt's, if on
        if hunt:
            print("\n" + "\n".join(hunt), flush=True)

    def testwrite(self, words: list[str], cell: str) -> None:
        """Save the cell as the kata's test module and score it (katas testwrite --score)."""
        if len(words) != 1:
            raise UsageError("start the cell with %%kata testwrite N, e.g. %%kata testwrite 6")
        root = suite_root()
        (kata,) = catalog.pick(load(root), words)
        _, tests, _ = testwrite.prepare(root, kata)
        tests.write_text(cell, encoding="utf-8")
        shown = tests.relative_to(root).as_posix()
        print(f"{kata.label}: saved {shown}; scoring it ...", flush=True)
        print(testwrite.score(root, kata, tests).report(), flush=True)
