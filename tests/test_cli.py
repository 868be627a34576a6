"""The `katas` command: list, hint, reset, run and watch (takehome and grade: test_grading.py)."""

import subprocess
import sys
from pathlib import Path

import pytest

from torch_katas import catalog, cli, progress, takehome

ROOT = Path(__file__).resolve().parents[1]
KATA = catalog.load(ROOT)["q01_fit_line"]
SOLUTION = KATA.solution_path(ROOT)


def katas(*args: str) -> int:
    return cli.main([str(a) for a in args])


@pytest.fixture
def suite(tmp_path):
    """A git checkout of the suite holding kata 1, where commands may write."""
    root = tmp_path / "suite"
    harness = ["conftest.py", "pyproject.toml", "torch_katas", "katas/__init__.py"]
    kata = [f"katas/{KATA.module}.py", f"katas/{KATA.module}_test.py"]
    files = takehome.working_copy(ROOT, [*harness, *kata])
    files[str(catalog.CATALOG)] = takehome.catalog_text(
        (ROOT / catalog.CATALOG).read_text(encoding="utf-8"), [KATA]
    )
    takehome.write_files(root, files)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    for command in (["init", "-q"], ["add", "."], ["commit", "-qm", "suite"]):
        subprocess.run([*git, *command], cwd=root, check=True)
    return root


@pytest.mark.parametrize("command", ["list", "hint", "reset", "run", "watch", "takehome", "grade"])
def test_every_command_has_help(command, capsys):
    with pytest.raises(SystemExit) as exit:
        katas(command, "--help")
    assert exit.value.code == 0
    assert "usage: katas" in capsys.readouterr().out


def test_list_shows_each_kata_with_its_status_from_the_last_run(suite, capsys):
    assert katas("--root", suite, "list") == 0
    assert "q01  Fit a line with autograd  autograd  *..  not run" in capsys.readouterr().out
    cli.write_cache(suite, progress.CACHE_KEY, {KATA.module: progress.SOLVED})
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
    (backup,) = (suite / cli.BACKUPS).glob("q01_fit_line-*.py")
    assert backup.read_text() == "# my attempt\n"
    assert katas("--root", suite, "reset", 1) == 0  # nothing to do, nothing backed up
    assert len(list((suite / cli.BACKUPS).iterdir())) == 1


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


def test_watch_reruns_through_pytest_watcher(suite, monkeypatch):
    calls = []
    monkeypatch.setattr(cli.shutil, "which", lambda name: f"/bin/{name}")
    monkeypatch.setattr(cli.subprocess, "call", lambda command, cwd: calls.append(command) or 0)
    assert katas("--root", suite, "watch", 1, "--", "--hints") == 0
    assert calls == [["ptw", "--now", "--clear", ".", "katas/q01_fit_line_test.py", "--hints"]]
