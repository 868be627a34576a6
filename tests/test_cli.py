"""The `katas` learner commands: list, next, hint, watch, run, solution, reset and restore
(takehome and grade: test_grading.py)."""

import argparse
import ast
import os
import pty
import re
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from torch_katas import catalog, cli, status
from torch_katas.cli import commands
from torch_katas.grading import takehome
from torch_katas.runtime import mistakes
from torch_katas.store import STATUS_KEY, Store

# Each test here runs pytest (or the katas command) in a process of its own, or a kata's whole
# test file inside this one: on a busy 2-core machine that can take longer than the suite's
# 60 s limit per test, so these tests have a limit of their own.
pytestmark = pytest.mark.timeout(600)

ROOT = Path(__file__).resolve().parents[1]
CATALOG = catalog.load(ROOT)
KATA = CATALOG["q01_fit_line"]
SOLUTION = KATA.solution_path(ROOT)


def katas(*args: str) -> int:
    return cli.main([str(a) for a in args])


WRONG_ANSWERS = Path("tests") / "wrong_answers"


def mistakes_of(kata: catalog.Kata) -> list[Path]:
    """The kata's wrong answers in this suite."""
    return [mistake.path for mistake in mistakes.mistakes(ROOT, kata.module)]


def checkout(root: Path, modules: list[str], wrong_answers: bool = True) -> Path:
    """A git checkout of the suite holding these katas, their reference answers and (unless
    told not to) their wrong answers."""
    chosen = [CATALOG[module] for module in modules]
    takehome.practice_copy(ROOT, root, chosen)
    (root / "solutions").mkdir()
    (root / WRONG_ANSWERS).mkdir(parents=True)
    for kata in chosen:
        shutil.copy(kata.solution_path(ROOT), kata.solution_path(root))
        for path in mistakes_of(kata) if wrong_answers else []:
            shutil.copy(path, root / WRONG_ANSWERS / path.name)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    for command in (["init", "-q"], ["add", "."], ["commit", "-qm", "suite"]):
        subprocess.run([*git, *command], cwd=root, check=True)
    return root


@pytest.fixture
def suite(tmp_path):
    """A git checkout of the suite holding kata 1, where commands may write."""
    return checkout(tmp_path / "suite", [KATA.module])


def subcommands() -> dict[str, argparse.ArgumentParser]:
    """Every subcommand's parser, as `katas` builds them."""
    (choices,) = (
        action.choices
        for action in cli.parser()._actions
        if isinstance(action, argparse._SubParsersAction)
    )
    return dict(choices)


def help_of(arguments: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as exit:
        katas(*arguments, "--help")
    assert exit.value.code == 0
    return capsys.readouterr().out


def words(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("command", sorted(subcommands()))
def test_every_commands_help_says_what_it_does_and_each_option(command, capsys):
    parser = subcommands()[command]
    shown = words(help_of([command], capsys))
    assert shown.startswith(f"usage: katas {command}")
    assert parser.description, f"katas {command} --help says nothing of what it does"
    assert words(parser.description) in shown
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        assert action.help and action.help != argparse.SUPPRESS, (command, action.dest)
        assert words(action.help) in shown, (command, action.dest)


@pytest.mark.parametrize("command", ["run", "watch"])
def test_run_and_watch_help_say_that_arguments_after_two_dashes_go_to_pytest(command, capsys):
    shown = help_of([command], capsys)
    assert f"usage: katas {command} [-h] " in shown and "KATA" in shown and "[-- ARGS]" in shown
    assert "Arguments after -- go to pytest" in shown
    assert re.search(rf"^  katas {command} 6 (\d+ )?-- --device \w+ ", shown, re.MULTILINE)


def test_the_main_help_lists_every_command_and_what_bare_katas_does(capsys):
    shown = help_of([], capsys)
    for command in subcommands():
        assert re.search(rf"^    {command} +\S", shown, re.MULTILINE), command
    assert "Without a command:" in shown


def test_bare_katas_says_what_katas_next_says_and_how_to_watch_it(suite, capsys):
    assert katas("--root", suite) == 0
    bare = capsys.readouterr().out
    assert katas("--root", suite, "next") == 0
    upcoming = capsys.readouterr().out
    assert bare.startswith(upcoming)
    assert "then run: katas watch 1" in upcoming
    assert "katas --help" in bare.removeprefix(upcoming)


def test_list_shows_each_kata_with_its_status_from_the_last_run(suite, capsys):
    assert katas("--root", suite, "list") == 0
    assert "q01  Fit a line with autograd  autograd  *..  not run" in capsys.readouterr().out
    Store.for_root(suite).write(STATUS_KEY, {KATA.module: status.SOLVED})
    assert katas("--root", suite, "list", "--topic", "autograd") == 0
    output = capsys.readouterr().out
    assert "*..  solved" in output and "Solved 1 of 1 katas" in output


@pytest.fixture
def every_kata(tmp_path):
    """A folder with the whole catalogue, the longest status kept for half the katas."""
    (tmp_path / "katas").mkdir()
    shutil.copy(ROOT / catalog.CATALOG, tmp_path / catalog.CATALOG)
    statuses = {module: status.PARTLY for module in list(CATALOG)[::2]}
    Store.for_root(tmp_path).write(STATUS_KEY, statuses)
    return tmp_path


@pytest.mark.parametrize("width", [80, 60, 40, 30])
def test_list_fits_the_terminal_cutting_titles_never_wrapping(
    every_kata, width, capsys, monkeypatch
):
    monkeypatch.setenv("COLUMNS", str(width))
    assert katas("--root", every_kata, "list") == 0
    lines = capsys.readouterr().out.splitlines()
    assert all(len(line) <= width for line in lines), max(lines, key=len)
    rows = lines[: len(CATALOG)]  # one line per kata, in order, then the totals
    assert [row[:3] for row in rows] == [kata.label for kata in CATALOG.values()]
    longest = max(CATALOG.values(), key=lambda kata: len(kata.title))
    row = rows[list(CATALOG).index(longest.module)]
    assert longest.title not in row and "…" in row  # cut, with an ellipsis
    assert all(row.endswith(("partly solved", "not run")) for row in rows)
    if width == 80:
        assert all(
            f"  {kata.topic}  " in row for kata, row in zip(CATALOG.values(), rows, strict=True)
        )
    assert lines[len(CATALOG) + 1].startswith(f"Solved 0 of {len(CATALOG)} katas.")


def test_list_in_a_wide_terminal_shows_whole_titles(every_kata, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    assert katas("--root", every_kata, "list") == 0
    output = capsys.readouterr().out
    assert "…" not in output
    assert all(kata.title in output for kata in CATALOG.values())


def test_hint_shows_one_more_hint_each_time_and_all_on_request(suite, capsys):
    katas("--root", suite, "hint", 1)
    first = words(capsys.readouterr().out)
    assert words(KATA.hints[0]) in first and words(KATA.hints[1]) not in first
    katas("--root", suite, "hint", "q01")
    assert words(KATA.hints[1]) in words(capsys.readouterr().out)
    katas("--root", suite, "hint", 1, "--all")
    every = words(capsys.readouterr().out)
    assert all(words(hint) in every for hint in KATA.hints)


def test_reset_saves_the_attempt_then_restores_the_stub(suite):
    stub = KATA.stub_path(suite)
    original = stub.read_text()
    stub.write_text("# my attempt\n")
    assert katas("--root", suite, "reset", 1) == 0
    assert stub.read_text() == original
    (backup,) = (suite / commands.BACKUPS).glob("q01_fit_line-*.py")
    assert backup.read_text() == "# my attempt\n"
    assert katas("--root", suite, "reset", 1) == 0  # nothing to do, nothing backed up
    assert len(list((suite / commands.BACKUPS).iterdir())) == 1


def run_kata(root: Path) -> int:
    """`katas run 1` on the CPU, as a learner runs it: the run records the kata's status."""
    command = [sys.executable, "-m", "torch_katas", "--root", str(root), "run", "1"]
    return subprocess.run([*command, "--", "--device", "cpu"], capture_output=True).returncode


def listed_status(root: Path, capsys) -> str:
    assert katas("--root", root, "list") == 0
    (row,) = (row for row in capsys.readouterr().out.splitlines() if row.startswith("q01"))
    return row.rsplit("  ", 1)[1]


def test_reset_clears_the_status_at_once_until_the_kata_is_solved_again(suite, capsys):
    shutil.copy(SOLUTION, KATA.stub_path(suite))
    assert run_kata(suite) == 0
    assert listed_status(suite, capsys) == "solved"
    assert katas("--root", suite, "solution", 1) == 0
    assert "yours avoided them" in capsys.readouterr().out

    assert katas("--root", suite, "reset", 1) == 0
    assert "its status is cleared" in capsys.readouterr().out
    assert listed_status(suite, capsys) == "not run"
    assert katas("--root", suite, "solution", 1) == 2
    assert "q01 is not run yet: solve it first" in capsys.readouterr().err

    assert katas("--root", suite, "restore", 1) == 0  # the answer is back, not yet its status
    assert katas("--root", suite, "solution", 1) == 2
    capsys.readouterr()
    assert run_kata(suite) == 0
    assert listed_status(suite, capsys) == "solved"
    assert katas("--root", suite, "solution", 1) == 0


def test_reset_of_an_untouched_stub_clears_its_status_too(suite, capsys):
    Store.for_root(suite).write(STATUS_KEY, {KATA.module: status.SOLVED})
    assert katas("--root", suite, "reset", 1) == 0
    assert "already the original stub; its status is cleared" in capsys.readouterr().out
    assert KATA.module not in Store.for_root(suite).statuses()
    assert not (suite / commands.BACKUPS).exists()


def test_next_goes_topic_by_topic_and_easier_katas_first(tmp_path, capsys):
    # q01: autograd *; q02, q35: tensors *; q03: tensors **.
    root = checkout(
        tmp_path / "suite",
        ["q01_fit_line", "q02_numpy_bridge", "q03_vectorised_ops", "q35_tensor_creation"],
    )
    solved: dict[str, str] = {"q02_numpy_bridge": status.PARTLY}
    for expected in ("q02", "q35", "q03", "q01"):
        Store.for_root(root).write(STATUS_KEY, solved)
        assert katas("--root", root, "next") == 0
        first = capsys.readouterr().out.splitlines()[0]
        assert first.startswith(expected), (expected, first)
        module = next(m for m in CATALOG if m.startswith(expected))
        solved[module] = status.SOLVED
    Store.for_root(root).write(STATUS_KEY, solved)
    assert katas("--root", root, "next") == 0
    assert capsys.readouterr().out.strip() == "All 4 katas are solved."


def test_topics_in_katas_toml_are_every_kata_topic_once():
    listed = catalog.topics(ROOT)
    assert sorted(listed) == sorted({kata.topic for kata in CATALOG.values()})
    assert len(listed) == len(set(listed))


def terminal(monkeypatch, columns: int) -> None:
    monkeypatch.setattr(shutil, "get_terminal_size", lambda: os.terminal_size((columns, 40)))


def test_solution_only_once_solved(suite, capsys):
    assert katas("--root", suite, "solution", 1) == 2
    assert "q01 is not run yet: solve it first" in capsys.readouterr().err
    Store.for_root(suite).write(STATUS_KEY, {KATA.module: status.PARTLY})
    assert katas("--root", suite, "solution", 1) == 2
    assert "q01 is partly solved: solve it first" in capsys.readouterr().err


# A learner's answer: the stub with its function's body written as the reference's, but for
# the last line.
STUB = KATA.stub_path(ROOT).read_text()
BODY = SOLUTION.read_text().split(") -> tuple[torch.Tensor, torch.Tensor]:\n", 1)[1]
ANSWER = STUB[: STUB.index("    # TODO")] + BODY.replace(
    "return w.detach(), b.detach()", "return w.detach(), b", 1
)
STUB_DOCSTRING = ast.get_docstring(ast.parse(STUB))
REFERENCE_DOCSTRING = ast.get_docstring(ast.parse(SOLUTION.read_text()))


def test_solution_sets_the_code_side_by_side_without_docstrings(suite, capsys, monkeypatch):
    KATA.stub_path(suite).write_text(ANSWER)
    Store.for_root(suite).write(STATUS_KEY, {KATA.module: status.SOLVED})
    terminal(monkeypatch, 200)
    assert katas("--root", suite, "solution", 1) == 0
    output = capsys.readouterr().out
    rows = output.splitlines()
    assert all(len(row) <= 200 for row in rows)
    header = next(row for row in rows if "your answer: katas/q01_fit_line.py" in row)
    assert "reference: solutions/q01_fit_line.py" in header
    changed = [row for row in rows if " | " in row]
    assert len(changed) == 1 and re.search(
        r"return w.detach\(\), b +\| +return w.detach\(\), b.detach\(\)", changed[0]
    )
    assert any(re.fullmatch(r"import torch +import torch", row) for row in rows)
    # Docstrings are the task, not the answer: neither file's is shown, the stub's function
    # docstring neither, so only the code and its comments are compared.
    for docstring in (STUB_DOCSTRING, REFERENCE_DOCSTRING, "Fit `y ≈ w * x + b` with"):
        assert docstring.splitlines()[0] not in output
    # Nothing only one side has: no row marked < (its right side empty) or > (its left empty).
    assert not any(re.search(r" <$|^ +> ", row) for row in rows)


def test_solution_in_two_columns_from_123_columns(suite, capsys, monkeypatch):
    KATA.stub_path(suite).write_text(ANSWER)
    Store.for_root(suite).write(STATUS_KEY, {KATA.module: status.SOLVED})
    for width, columns in ((123, 2), (122, 1)):  # as docs/learner.md says, for code this long
        terminal(monkeypatch, width)
        assert katas("--root", suite, "solution", 1) == 0
        rows = capsys.readouterr().out.splitlines()
        assert all(len(row) <= width for row in rows), max(rows, key=len)
        assert any(" | " in row for row in rows) == (columns == 2)
        assert ("+++ reference: solutions/q01_fit_line.py" in rows) == (columns == 1)


@pytest.mark.parametrize("width", [100, 60, 40])
def test_solution_in_a_narrow_terminal_is_a_unified_diff_that_fits(
    suite, width, capsys, monkeypatch
):
    KATA.stub_path(suite).write_text(ANSWER)
    Store.for_root(suite).write(STATUS_KEY, {KATA.module: status.SOLVED})
    terminal(monkeypatch, width)
    assert katas("--root", suite, "solution", 1) == 0
    rows = capsys.readouterr().out.splitlines()
    assert all(len(row) <= width for row in rows), max(rows, key=len)
    assert "--- your answer: katas/q01_fit_line.py" in rows
    assert "+++ reference: solutions/q01_fit_line.py" in rows
    assert "-    return w.detach(), b" in rows and "+    return w.detach(), b.detach()" in rows
    assert " import torch" in rows  # every line, the same ones as context
    assert STUB_DOCSTRING.splitlines()[0] not in "\n".join(rows)


def test_solution_names_the_classic_mistakes_the_tests_catch(suite, capsys, monkeypatch):
    shutil.copy(SOLUTION, KATA.stub_path(suite))
    Store.for_root(suite).write(STATUS_KEY, {KATA.module: status.SOLVED})
    terminal(monkeypatch, 80)
    assert katas("--root", suite, "solution", 1) == 0
    output = capsys.readouterr().out
    assert "Your code is the reference's, line for line" in output
    _, heading, listed = output.partition("The classic mistakes this kata's tests catch")
    assert heading, output
    bullets = [line for line in listed.splitlines() if line.startswith("  - ")]
    assert len(bullets) == len(mistakes_of(KATA)) > 1
    assert "  - calls backward() every step but never resets .grad, so gradients pile up." in (
        listed.splitlines()
    )
    assert all(len(line) <= 80 for line in output.splitlines())
    # Without a run that recorded this stub, the store cannot vouch for it.
    assert "yours avoided them" not in output and "katas run 1" in heading + listed


def test_solution_in_a_folder_without_wrong_answers_names_none(tmp_path, capsys):
    root = checkout(tmp_path / "suite", [KATA.module], wrong_answers=False)
    shutil.copy(SOLUTION, KATA.stub_path(root))
    Store.for_root(root).write(STATUS_KEY, {KATA.module: status.SOLVED})
    assert katas("--root", root, "solution", 1) == 0
    assert "mistakes" not in capsys.readouterr().out


def test_two_resets_in_one_second_keep_both_attempts(suite, monkeypatch):
    monkeypatch.setattr(commands, "backup_stamp", lambda: "20260101-120000")
    stub = KATA.stub_path(suite)
    for attempt in ("# first attempt\n", "# second attempt\n"):
        stub.write_text(attempt)
        assert katas("--root", suite, "reset", 1) == 0
    saved = commands.backups(suite, KATA)
    assert [path.read_text() for path in saved] == ["# first attempt\n", "# second attempt\n"]
    assert len({path.name for path in saved}) == 2


def test_restore_brings_back_the_latest_or_a_named_backup(suite, capsys):
    stub = KATA.stub_path(suite)
    original = stub.read_text()
    assert katas("--root", suite, "restore", 1) == 2
    assert "holds no backup of q01" in capsys.readouterr().err
    for attempt in ("# first attempt\n", "# second attempt\n"):
        stub.write_text(attempt)
        assert katas("--root", suite, "reset", 1) == 0
    first, second = commands.backups(suite, KATA)

    assert katas("--root", suite, "restore", 1) == 0  # the latest; the stub was untouched
    assert stub.read_text() == "# second attempt\n"
    assert commands.backups(suite, KATA) == [first, second]

    stub.write_text("# third attempt\n")
    assert katas("--root", suite, "restore", 1, first.name) == 0
    assert stub.read_text() == "# first attempt\n"
    *_, third = commands.backups(suite, KATA)
    assert third.read_text() == "# third attempt\n"  # backed up before it was replaced

    capsys.readouterr()
    assert katas("--root", suite, "restore", 1, "--list") == 0
    assert capsys.readouterr().out.split() == [
        str(path.relative_to(suite)) for path in (first, second, third)
    ]
    assert katas("--root", suite, "restore", 1, "q01_fit_line-nope.py") == 2
    assert "is not a backup of q01" in capsys.readouterr().err
    assert katas("--root", suite, "reset", 1) == 0
    assert stub.read_text() == original


def test_bad_input_exits_non_zero_with_what_to_do(suite, tmp_path, capsys, monkeypatch):
    assert katas("--root", suite, "hint", 99) == 2
    assert "no kata '99'" in capsys.readouterr().err
    monkeypatch.chdir(tmp_path)
    assert katas("list") == 2
    assert "run this inside a torch-katas folder" in capsys.readouterr().err
    assert katas("--root", suite, "grade", tmp_path / "missing") == 2
    assert "is not a folder" in capsys.readouterr().err


def test_run_runs_the_chosen_katas(suite):
    command = [sys.executable, "-m", "torch_katas", "--root", str(suite), "run", "1"]
    options = ["--", "-p", "no:cacheprovider", "--device", "cpu"]
    assert subprocess.run([*command, *options], capture_output=True).returncode == 1
    right = [*command, *options, "--answer-file", str(SOLUTION)]
    assert subprocess.run(right, capture_output=True).returncode == 0


ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class Screen:
    """What a process writes to a file descriptor (a pipe or a pseudo-terminal)."""

    def __init__(self, fd: int):
        self.fd, self.text = fd, ""

    def wait_for(self, expected: str, timeout: float = 90) -> str:
        """Read until `expected` appears; return what came before it and drop it all."""
        end = time.monotonic() + timeout
        while expected not in self.text:
            left = end - time.monotonic()
            assert left > 0, f"no {expected!r} after {timeout} s in:\n{self.text[-3000:]}"
            if select.select([self.fd], [], [], min(left, 0.5))[0]:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:  # a pseudo-terminal whose other end closed
                    chunk = b""
                assert chunk, f"output ended before {expected!r}:\n{self.text[-3000:]}"
                self.text += ESCAPES.sub("", chunk.decode(errors="replace"))
        before, _, self.text = self.text.partition(expected)
        return before


def processes_in(folder: Path) -> list[str]:
    """The ids of processes whose working directory is `folder` (Linux's /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "cwd").resolve() == folder:
                found.append(entry.name)
        except OSError:
            continue
    return found


# A test module that checks shapes alone: it catches few of kata 1's mistakes.
SHAPES_ONLY = """
import torch

from katas.q01_fit_line import fit_line


def test_shapes(device):
    x = torch.linspace(0, 1, 5, device=device)
    w, b = fit_line(x, 2 * x + 1, steps=3)
    assert w.shape == () and b.shape == ()
"""
WATCH = [sys.executable, "-m", "torch_katas", "watch", "1", "--", "--device", "cpu"]


def counts(screen: Screen, verdict: str) -> tuple[int, int]:
    """Wait for `verdict` followed by "passed/total", and return those numbers."""
    screen.wait_for(verdict)
    passed, total = screen.wait_for("\n").strip().split("/")
    return int(passed), int(total)


@pytest.mark.skipif(not Path("/proc/self/cwd").exists(), reason="needs Linux's /proc")
def test_watch_reruns_on_save_and_answers_keys_in_a_terminal(tmp_path):
    root = checkout(tmp_path / "suite", ["q01_fit_line", "q02_numpy_bridge"]).resolve()
    terminal, child = pty.openpty()
    watch = subprocess.Popen(
        WATCH, cwd=root, stdin=child, stdout=child, stderr=child, start_new_session=True
    )
    os.close(child)
    screen = Screen(terminal)
    try:
        screen.wait_for("katas watch: q01 Fit a line with autograd")
        screen.wait_for("q01: nothing written yet: open katas/q01_fit_line.py")
        screen.wait_for("Enter: rerun  h: hint  q: quit  n: q02 Cross the NumPy bridge")
        # A save, as an editor makes it, of a wrong answer whole.
        mistake = mistakes.Mistake(ROOT / WRONG_ANSWERS / "q01_fit_line__grads_accumulate.diff")
        KATA.stub_path(root).write_text(mistake.source(ROOT), encoding="utf-8")
        passed, total = counts(screen, "q01: partly solved ")
        assert 0 < passed < total
        shutil.copy(SOLUTION, KATA.stub_path(root))  # a save, as an editor makes it
        assert counts(screen, "q01: solved ") == (total, total)
        screen.wait_for("n: q02 Cross the NumPy bridge")
        # A saved testwrite module (katas testwrite 1 writes it there) is scored again.
        (root / "testwrite" / f"{KATA.module}_test.py").write_text(SHAPES_ONLY)
        screen.wait_for("katas watch: q01 testwrite: testwrite/q01_fit_line_test.py")
        score = re.search(r"caught (\d+) of (\d+) mistakes", screen.wait_for(" %)"))
        assert score and int(score[1]) < int(score[2])
        screen.wait_for("n: q02 Cross the NumPy bridge")
        os.write(terminal, b"h")
        # Wrapped to the terminal in whole words: the hint's last word ends a line.
        *first, last = KATA.hints[0].split()
        shown = screen.wait_for(last)
        assert words(shown).endswith(f"hint 1/{len(KATA.hints)}: {' '.join(first)}")
        os.write(terminal, b"\r")
        screen.wait_for("katas watch: q01 Fit a line with autograd")
        screen.wait_for("q01: solved ")
        screen.wait_for("n: q02 Cross the NumPy bridge")
        os.write(terminal, b"n")  # where the footer said
        screen.wait_for("katas watch: q02 Cross the NumPy bridge")
        os.write(terminal, b"q")  # while q02 runs: that run ends too
        assert watch.wait(timeout=30) == 0
    finally:
        watch.kill()
        watch.wait()
        os.close(terminal)
    assert processes_in(root) == []  # the spare interpreter ended with it


def test_watch_passes_pytest_the_rows_its_own_lines_leave_the_digest(suite):
    from torch_katas.cli import watch

    session = watch.Watch(suite, catalog.load(suite), KATA, ["--device", "cpu"])
    # Its own lines: the header, then under pytest's output a blank line, the verdict and the
    # footer; and the row the cursor waits on.
    assert len([session.header(0), *session.closing(1, True, 0)]) + 1 == watch.WATCH_ROWS
    height = 40 - watch.WATCH_ROWS - watch.PYTEST_ROWS
    test_file = "katas/q01_fit_line_test.py"
    assert session.arguments(40) == [
        *("-qq", test_file, "--digest-height", str(height)),
        *("--device", "cpu"),
    ]
    assert session.arguments(0) == ["-qq", test_file, "--device", "cpu"]  # rows not known
    assert session.arguments(5)[2:4] == ["--digest-height", str(watch.MIN_DIGEST)]
    chosen = watch.Watch(suite, catalog.load(suite), KATA, ["-v", "--digest-height=9"])
    assert chosen.arguments(40) == [test_file, "-v", "--digest-height=9"]  # theirs, as given


def test_watch_verdict_says_what_the_store_says_only_of_a_run_it_recorded(suite):
    from torch_katas.cli import watch

    session = watch.Watch(suite, catalog.load(suite), KATA, [])
    Store.for_root(suite).write(STATUS_KEY, {KATA.module: status.PARTLY})
    # The store keeps no record of the stub as it is: the exit code's words.
    assert session.verdict(1) == "q01: some tests fail"
    assert session.verdict(5) == "q01: no tests ran"
    shutil.copy(SOLUTION, KATA.stub_path(suite))
    assert run_kata(suite) == 0
    assert re.fullmatch(r"q01: solved (\d+)/\1", session.verdict(0))
    reference = watch.Watch(suite, catalog.load(suite), KATA, ["--solutions"])
    assert reference.verdict(1) == "q01: some tests fail"  # not the learner's answers


def test_watch_footer_names_the_kata_n_goes_to(tmp_path):
    from torch_katas.cli import watch

    root = checkout(tmp_path / "suite", ["q01_fit_line", "q02_numpy_bridge", "q35_tensor_creation"])
    here = catalog.load(root)
    # q02 is first in the suggested order: "the first unsolved kata" is q02 itself, while
    # `n` moves on from it.
    first = here["q02_numpy_bridge"]
    session = watch.Watch(root, here, first, [])
    *_, footer = session.closing(1, True, 0)
    assert session.following == here["q35_tensor_creation"]
    assert footer == f"{watch.KEYS}  n: q35 {here['q35_tensor_creation'].title}"
    Store.for_root(root).write(STATUS_KEY, {"q35_tensor_creation": status.SOLVED})
    *_, footer = session.closing(1, True, 40)
    assert session.following == here["q01_fit_line"] and len(footer) == 40
    assert footer.startswith(f"{watch.KEYS}  n: q01 ") and footer.endswith("…")
    Store.for_root(root).write(STATUS_KEY, dict.fromkeys(here, status.SOLVED))
    *_, footer = session.closing(0, True, 0)
    assert session.following is None and footer.endswith("(every other kata is solved)")
    assert session.closing(0, False, 0)[-1] == "Watching for saves; Ctrl-C quits."


def test_the_watcher_itself_imports_no_torch():
    # Only the spare interpreters do: a process that has run torch ops must not fork them.
    check = "import sys, torch_katas.cli.watch; assert 'torch' not in sys.modules, 'torch imported'"
    subprocess.run([sys.executable, "-c", check], cwd=ROOT, check=True)


def test_watch_without_a_terminal_reads_no_keys(suite):
    # As from a virtual environment that is not activated: nothing is looked up on PATH.
    environment = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    environment["PATH"] = os.defpath
    watch = subprocess.Popen(
        WATCH,
        cwd=suite,
        env=environment,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        watch.stdin.write(b"q\n")  # not a key press: ignored
        watch.stdin.flush()
        screen = Screen(watch.stdout.fileno())
        screen.wait_for("q01: nothing written yet: open katas/q01_fit_line.py")
        screen.wait_for("Watching for saves; Ctrl-C quits.")
        assert watch.poll() is None
        watch.send_signal(signal.SIGINT)
        assert watch.wait(timeout=30) == 130
    finally:
        watch.kill()
        watch.wait()
        watch.stdout.close()
        watch.stdin.close()
    if Path("/proc/self/cwd").exists():
        assert processes_in(suite.resolve()) == []  # Ctrl-C ends the spare interpreter too


def test_list_says_changed_not_run_once_the_stub_changed_after_its_run(suite, capsys):
    shutil.copy(SOLUTION, KATA.stub_path(suite))
    assert run_kata(suite) == 0
    assert listed_status(suite, capsys) == status.SOLVED
    with KATA.stub_path(suite).open("a") as stub:
        stub.write("\n# an afterthought\n")
    assert katas("--root", suite, "list") == 0
    output = capsys.readouterr().out
    assert "*..  changed, not run" in output
    assert "changed, not run: the stub or its tests changed after its last run" in output
    assert "Solved 0 of 1 katas" in output
    assert run_kata(suite) == 0
    assert listed_status(suite, capsys) == status.SOLVED


def test_hints_wrap_in_whole_words_to_the_terminal(suite, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    assert katas("--root", suite, "hint", 1, "--all") == 0
    lines = capsys.readouterr().out.splitlines()
    assert all(len(line) < 40 for line in lines), max(lines, key=len)
    shown = " ".join(line.strip() for line in lines[1:])
    for number, hint in enumerate(KATA.hints, 1):
        assert f"hint {number}/{len(KATA.hints)}: {' '.join(hint.split())}" in shown


def test_watch_n_and_the_runs_next_line_name_the_same_kata(tmp_path):
    from torch_katas.cli import watch

    root = checkout(tmp_path / "suite", ["q01_fit_line", "q02_numpy_bridge", "q35_tensor_creation"])
    here = catalog.load(root)
    command = [sys.executable, "-m", "torch_katas", "--root", str(root), "run", "2"]
    for answer in ([], ["--answer-file", str(here["q02_numpy_bridge"].solution_path(ROOT))]):
        done = subprocess.run(
            [*command, "--", "--device", "cpu", *answer], capture_output=True, text=True
        )
        (line,) = [line for line in done.stdout.splitlines() if line.startswith(("After", "Next"))]
        session = watch.Watch(root, here, here["q02_numpy_bridge"], [])
        session.closing(done.returncode, True, 0)
        assert session.following is not None
        assert line.split(": ", 1)[1].startswith(session.following.label), line
    # Unsolved, kata 2 comes first: the line says so.
    assert line.startswith("After q02: q35 ") or answer


def test_the_summary_names_the_kata_to_go_on_to_in_whole_words_within_80_columns(tmp_path):
    # The longest title of all, named as the kata after kata 1.
    root = checkout(tmp_path / "suite", ["q01_fit_line", "q08_no_grad_detach"])
    command = [sys.executable, "-m", "torch_katas", "--root", str(root), "run", "1"]
    done = subprocess.run([*command, "--", "--device", "cpu"], capture_output=True, text=True)
    lines = done.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(("After", "Next", "Start")))
    tail = [line for line in lines[start:] if not line.startswith("=")]
    assert all(len(line) < 80 and "…" not in line for line in tail), tail
    title = CATALOG["q08_no_grad_detach"].title
    assert title in " ".join(line.strip() for line in tail)
