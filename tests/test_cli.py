"""The `katas` learner commands: list, next, hint, watch, run, solution, reset and restore
(takehome and grade: test_grading.py)."""

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


def checkout(root: Path, modules: list[str]) -> Path:
    """A git checkout of the suite holding these katas and their reference answers."""
    chosen = [CATALOG[module] for module in modules]
    takehome.practice_copy(ROOT, root, chosen)
    (root / "solutions").mkdir()
    for kata in chosen:
        shutil.copy(kata.solution_path(ROOT), kata.solution_path(root))
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    for command in (["init", "-q"], ["add", "."], ["commit", "-qm", "suite"]):
        subprocess.run([*git, *command], cwd=root, check=True)
    return root


@pytest.fixture
def suite(tmp_path):
    """A git checkout of the suite holding kata 1, where commands may write."""
    return checkout(tmp_path / "suite", [KATA.module])


COMMANDS = ["list", "next", "hint", "watch", "run", "solution", "reset", "restore"]


@pytest.mark.parametrize("command", [*COMMANDS, "takehome", "grade"])
def test_every_command_has_help(command, capsys):
    with pytest.raises(SystemExit) as exit:
        katas(command, "--help")
    assert exit.value.code == 0
    assert "usage: katas" in capsys.readouterr().out


def test_list_shows_each_kata_with_its_status_from_the_last_run(suite, capsys):
    assert katas("--root", suite, "list") == 0
    assert "q01  Fit a line with autograd  autograd  *..  not run" in capsys.readouterr().out
    Store.for_root(suite).write(STATUS_KEY, {KATA.module: status.SOLVED})
    assert katas("--root", suite, "list", "--topic", "autograd") == 0
    output = capsys.readouterr().out
    assert "*..  solved" in output and "Solved 1 of 1 katas" in output


def test_hint_shows_one_more_hint_each_time_and_all_on_request(suite, capsys):
    katas("--root", suite, "hint", 1)
    first = capsys.readouterr().out
    assert KATA.hints[0] in first and KATA.hints[1] not in first
    katas("--root", suite, "hint", "q01")
    assert KATA.hints[1] in capsys.readouterr().out
    katas("--root", suite, "hint", 1, "--all")
    every = capsys.readouterr().out
    assert all(hint in every for hint in KATA.hints)


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


def test_solution_only_once_solved_then_next_to_the_answer(suite, capsys, monkeypatch):
    stub = KATA.stub_path(suite)
    answer = SOLUTION.read_text().replace("return w.detach(), b.detach()", "return w.detach(), b")
    stub.write_text(answer)
    assert katas("--root", suite, "solution", 1) == 2
    assert "q01 is not run yet: solve it first" in capsys.readouterr().err
    Store.for_root(suite).write(STATUS_KEY, {KATA.module: status.PARTLY})
    assert katas("--root", suite, "solution", 1) == 2
    assert "q01 is partly solved: solve it first" in capsys.readouterr().err

    Store.for_root(suite).write(STATUS_KEY, {KATA.module: status.SOLVED})
    monkeypatch.setattr(shutil, "get_terminal_size", lambda: os.terminal_size((200, 40)))
    assert katas("--root", suite, "solution", 1) == 0
    rows = capsys.readouterr().out.splitlines()
    assert "your answer: katas/q01_fit_line.py" in rows[0]
    assert "reference: solutions/q01_fit_line.py" in rows[0]
    changed = [row for row in rows if " | " in row]
    assert len(changed) == 1 and re.search(
        r"return w.detach\(\), b +\| +return w.detach", changed[0]
    )
    assert any(re.fullmatch(r"import torch +import torch", row) for row in rows)

    monkeypatch.setattr(shutil, "get_terminal_size", lambda: os.terminal_size((80, 40)))
    assert katas("--root", suite, "solution", 1) == 0
    output = capsys.readouterr().out
    assert output.index("== your answer") < output.index(answer.splitlines()[-1])
    assert output.index("== reference") < output.index(SOLUTION.read_text().splitlines()[-1])


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


WATCH = [sys.executable, "-m", "torch_katas", "watch", "1", "--", "--device", "cpu"]


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
        assert "not started: write fit_line" in screen.wait_for("q01: some tests fail")
        screen.wait_for("Enter: rerun  h: hint  n: next kata  q: quit")
        shutil.copy(SOLUTION, KATA.stub_path(root))  # a save, as an editor makes it
        assert re.search(r"\d+ passed in", screen.wait_for("q01: all tests pass"))
        os.write(terminal, b"h")
        screen.wait_for(f"hint 1/{len(KATA.hints)}: {KATA.hints[0]}")
        os.write(terminal, b"\r")
        screen.wait_for("katas watch: q01 Fit a line with autograd")
        screen.wait_for("q01: all tests pass")
        os.write(terminal, b"n")
        screen.wait_for("katas watch: q02 Cross the NumPy bridge")
        os.write(terminal, b"q")  # while q02 runs: that run ends too
        assert watch.wait(timeout=30) == 0
    finally:
        watch.kill()
        watch.wait()
        os.close(terminal)
    assert processes_in(root) == []  # the spare interpreter ended with it


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
        screen.wait_for("q01: some tests fail")
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
