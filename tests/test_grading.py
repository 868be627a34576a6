"""`katas takehome` and `katas grade`, tried the way an interviewer and a candidate meet them.

Each grade runs real processes (one per kata), so one take-home covers many cases: every
kata in it is a different way for a returned stub to be right, wrong, broken or dishonest.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from torch_katas import catalog, cli
from torch_katas.grading import review, sandbox, takehome
from torch_katas.grading.reports import KataGrade

ROOT = Path(__file__).resolve().parents[1]
KATAS = catalog.load(ROOT)
PARTLY_RIGHT = ROOT / "tests" / "wrong_answers" / "q01_fit_line__default_dtype_params.py"
GRADING_LIMIT = 600  # seconds for a test that grades a take-home (see the marks below)
SUITE_FILES = ("conftest.py", "pyproject.toml", "torch_katas", "katas", "solutions")


def katas(*args: object) -> int:
    return cli.main([str(a) for a in args])


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    """The interviewer's git checkout of the suite, with its reference answers."""
    root = tmp_path_factory.mktemp("interviewer") / "suite"
    ignore = shutil.ignore_patterns("__pycache__")
    for name in SUITE_FILES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, root / name, ignore=ignore)
        else:
            root.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, root / name)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    for command in (["init", "-q"], ["add", "."], ["commit", "-qm", "suite"]):
        subprocess.run([*git, *command], cwd=root, check=True)
    return root


def hand_out(suite: Path, folder: Path, *numbers: int) -> Path:
    assert katas("--root", suite, "takehome", *numbers, "--out", folder) == 0
    return folder


def stub(folder: Path, number: int) -> Path:
    kata = next(k for k in KATAS.values() if k.number == number)
    return kata.stub_path(folder)


def inject(folder: Path, number: int, code: str) -> None:
    """The candidate's stub with `code` run at import, before the stub's own code."""
    path = stub(folder, number)
    path.write_text(textwrap.dedent(code) + "\n" + path.read_text())


def grade(suite: Path, folder: Path, *options: object) -> tuple[int, dict]:
    code = katas("--root", suite, "grade", folder, "--device", "cpu", *options)
    out = folder / "grading"
    return code, json.loads((out / "report.json").read_text())


def verdicts(report: dict) -> dict[int, str]:
    return {int(module[1:3]): entry["verdict"] for module, entry in report["katas"].items()}


def flags_of(report: dict, kind: str) -> list[dict]:
    return [item for item in report["flags"] if item["kind"] == kind]


# -- take-home ------------------------------------------------------------------------------


def test_takehome_ships_the_committed_stubs_and_keeps_a_record(suite, tmp_path):
    practised = stub(suite, 1)
    committed = practised.read_text()
    practised.write_text(KATAS["q01_fit_line"].solution_path(suite).read_text())
    try:
        folder = hand_out(suite, tmp_path / "jane", 1, 2)
    finally:
        practised.write_text(committed)
    assert stub(folder, 1).read_text() == committed  # from HEAD, not the practised answer
    files = {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}
    assert {"README.md", "conftest.py", "pyproject.toml", takehome.MANIFEST} <= files
    assert {f for f in files if f.startswith("katas/")} == {
        "katas/__init__.py",
        "katas/katas.toml",
        "katas/q01_fit_line.py",
        "katas/q01_fit_line_test.py",
        "katas/q02_numpy_bridge.py",
        "katas/q02_numpy_bridge_test.py",
    }
    assert not any(f.startswith(("solutions", "tests", ".katas")) for f in files)
    assert list(catalog.load(folder)) == ["q01_fit_line", "q02_numpy_bridge"]
    record = json.loads((suite / takehome.RECORDS / "jane.json").read_text())
    assert record["katas"] == ["q01_fit_line", "q02_numpy_bridge"]
    assert set(record["files"]) == files
    assert record["files"]["katas/q01_fit_line.py"] == catalog.sha256(committed.encode())
    assert (suite / takehome.RECORDS / ".gitignore").read_text() == "*\n"
    assert katas("--root", suite, "takehome", 1, "--out", folder) == 2  # will not overwrite


def test_grading_without_a_record_asks_what_was_handed_out(suite, tmp_path, capsys):
    folder = hand_out(suite, tmp_path / "norecord", 1)
    moved = folder.rename(tmp_path / "renamed")
    (moved / takehome.MANIFEST).unlink()
    assert katas("--root", suite, "grade", moved) == 2
    assert "pass --katas 6 13 24" in capsys.readouterr().err


# -- grading ---------------------------------------------------------------------------------

GC_PLUGIN = """
import gc
import warnings

import _pytest.config
import pytest


class _AllGreen:
    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item, call):
        report = yield
        report.outcome, report.longrepr = "passed", None
        return report


with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    _configs = [o for o in gc.get_objects() if type(o) is _pytest.config.Config]
for _config in _configs:
    _config.pluginmanager.register(_AllGreen(), "helpful")
"""

PATCHES = """
import torch.testing
from _pytest.reports import TestReport

torch.testing.assert_close = lambda *args, **kwargs: None
_original = TestReport.from_item_and_call.__func__


def _passed(cls, item, call):
    report = _original(cls, item, call)
    report.outcome, report.longrepr = "passed", None
    return report


TestReport.from_item_and_call = classmethod(_passed)
"""

ATEXIT_FORGERY = """
import atexit
import json
import sys


def _forge():
    with open(sys.argv[1], "w") as file:
        json.dump({"tests": {"all": {"outcome": "passed"}}, "tampering": []}, file)


atexit.register(_forge)
"""

FORGED_RESULTS_THEN_EXIT = """
import json
import os
import sys

with open(sys.argv[1], "w") as file:
    json.dump({"tests": {"all": {"outcome": "passed"}}, "tampering": []}, file)
os._exit(0)
"""

READS_THE_REFERENCE = """
import importlib.metadata
import json
import os


def _reference(name):
    places = [f"/proc/{os.getppid()}/cwd"]
    try:
        url = json.loads(importlib.metadata.distribution("torch-katas").read_text(
            "direct_url.json") or "{}").get("url", "")
        places.append(url.removeprefix("file://"))
    except Exception:
        pass
    for place in places:
        try:
            with open(os.path.join(place, "solutions", name)) as file:
                return file.read()
        except OSError:
            continue
    return None


_code = _reference(os.path.basename(__file__))
if _code:
    exec(_code)
    raise SystemExit  # stop here: the reference's functions are defined
"""


# Grades a whole take-home, a process per kata: on a busy 2-core machine that takes far
# longer than the suite's 60 s limit per test, so it has a limit of its own.
@pytest.mark.timeout(GRADING_LIMIT)
def test_grading_gives_each_kata_its_verdict_and_flags(suite, tmp_path, capsys):
    folder = hand_out(suite, tmp_path / "many", 1, 2, 6, 7, 9, 10, 14, 16, 17, 18, 20)
    shutil.copy(PARTLY_RIGHT, stub(folder, 1))
    stub(folder, 2).write_text("def broken(:\n")
    inject(folder, 6, "import sys\nsys.exit(0)")
    inject(folder, 7, "import ctypes\nctypes.string_at(0)")
    inject(folder, 9, PATCHES)
    inject(folder, 10, GC_PLUGIN)
    inject(folder, 14, ATEXIT_FORGERY)
    inject(folder, 16, READS_THE_REFERENCE)
    stub(folder, 17).unlink()
    stub(folder, 17).symlink_to(KATAS["q17_init_weights"].solution_path(suite))
    stub(folder, 18).unlink()
    inject(folder, 20, FORGED_RESULTS_THEN_EXIT)
    # Edits outside the stubs, and a report shipped with the folder.
    (folder / "katas" / "q01_fit_line_test.py").write_text("def test_ok():\n    pass\n")
    (folder / "katas" / "conftest.py").write_text("")
    for name in ("pyproject.toml", "katas/katas.toml", "katas/__init__.py"):
        with open(folder / name, "a") as file:
            file.write("\n# edited\n")
    (folder / takehome.MANIFEST).write_text(json.dumps({"katas": ["q01_fit_line"]}))
    (folder / "grading").mkdir()
    (folder / "grading" / "report.json").write_text('{"forged": true}')
    (folder / "grading" / "extra.txt").write_text("stale")

    code, report = grade(suite, folder, "--timeout", 60)

    assert code == 1
    assert verdicts(report) == {
        1: "partly solved",
        2: "error",
        6: "error",
        7: "error",
        9: "flagged",
        10: "flagged",
        14: "not started",  # the forged results were never written
        16: "flagged",
        17: "flagged",
        18: "not started",
        20: "flagged",
    }
    entries = {int(m[1:3]): e for m, e in report["katas"].items()}
    # The suite's tests ran, not the candidate's one-test replacement.
    assert 0 < entries[1]["passed"] < entries[1]["total"] > 1
    assert "syntax error (line 1)" in entries[2]["reason"]
    assert "failed to import" in entries[6]["reason"] and "sys.exit(0)" in entries[6]["reason"]
    assert "SIGSEGV" in entries[7]["reason"]
    assert "torch.testing.assert_close was replaced" in entries[9]["reason"]
    assert "TestReport.from_item_and_call was replaced" in entries[9]["reason"]
    assert "plugins changed (added: helpful)" in entries[10]["reason"]
    assert "solutions" in entries[16]["reason"]
    assert "symbolic link" in entries[17]["reason"]
    assert "missing" in entries[18]["reason"]
    assert "results file was not written by the grading plugin" in entries[20]["reason"]
    assert all(entries[n]["reason"] for n in (2, 6, 7, 9, 10, 16, 17, 18))

    assert {i["kata"][:3] for i in flags_of(report, "tampering")} == {"q09", "q10", "q16", "q20"}
    assert [i["kata"] for i in flags_of(report, "refused")] == ["q17_init_weights"]
    edited = {item["file"] for item in flags_of(report, "edited")}
    assert edited == {
        takehome.MANIFEST,
        "katas/q01_fit_line_test.py",
        "pyproject.toml",
        "katas/katas.toml",
        "katas/__init__.py",
    }
    assert {item["file"] for item in flags_of(report, "added")} == {"katas/conftest.py"}
    assert set(report["diffs"]) == edited - {takehome.MANIFEST}
    assert "+# edited" in report["diffs"]["pyproject.toml"]
    reviewed = {(i["kata"][:3], i["reason"].split(": ", 1)[1]) for i in flags_of(report, "review")}
    assert ("q10", "imports gc (the garbage collector (a way to reach the harness's objects))") in (
        reviewed
    )
    assert ("q07", "imports ctypes (raw memory and C calls)") in reviewed
    assert not [i for i in flags_of(report, "review") if i["kata"].startswith("q01")]

    # The report: what an interviewer reads, and nothing left from before.
    assert report["candidate"] == "many"
    assert report["sandbox"] == ("bwrap" if sandbox.bwrap_works() else "none")
    assert report["devices"] == ["cpu"] and report["suite_commit"]
    # pytest-xdist and pytest-timeout are installed; grading loads neither on its own.
    assert all(entry.get("autoloaded_plugins", []) == [] for entry in entries.values())
    assert report["torch"] and report["python"] == ".".join(map(str, sys.version_info[:3]))
    share = entries[1]["passed"] / entries[1]["total"]
    assert report["score"] == pytest.approx(share / 11, abs=1e-4)  # each kata weighs the same
    assert sorted(p.name for p in (folder / "grading").iterdir()) == [
        "junit.xml",
        "report.json",
        "report.md",
    ]
    markdown = (folder / "grading" / "report.md").read_text()
    assert "| q01 | Fit a line with autograd | partly solved | " in markdown
    assert "not started: katas/q18_" in markdown
    messages = [f["message"] for f in entries[1]["failures"]]
    assert len(messages) == len(set(messages)) and all(messages)
    output = capsys.readouterr().out
    assert "[1/11] q01 Fit a line with autograd: partly solved" in output
    assert "[11/11] q20" in output


BACKGROUND = """
import os
import time

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        with open({pid_file!r}, "w") as file:
            file.write(str(os.getpid()))
        time.sleep(5)
        with open({report!r}, "w") as file:
            file.write('{{"forged": true}}')
        os._exit(0)
    os._exit(0)
time.sleep(0.5)
"""


# Grades a whole take-home, a process per kata: on a busy 2-core machine that takes far
# longer than the suite's 60 s limit per test, so it has a limit of its own.
@pytest.mark.timeout(GRADING_LIMIT)
def test_one_hanging_kata_costs_its_time_limit_and_nothing_else(suite, tmp_path):
    handed = hand_out(suite, tmp_path / "three", 1, 2, 3)
    folder = handed.rename(tmp_path / "returned by mail")  # graded by --katas, elsewhere
    shutil.copy(KATAS["q01_fit_line"].solution_path(suite), stub(folder, 1))
    inject(folder, 2, "while True:\n    pass")
    pid_file = tmp_path / "daemon.pid"
    report_path = folder / "grading" / "report.json"
    inject(folder, 3, BACKGROUND.format(pid_file=str(pid_file), report=str(report_path)))
    limit = 15

    started = time.monotonic()
    code, report = grade(
        suite, folder, "--katas", 1, 2, 3, "--sandbox", "none", "--timeout", limit,
        "--name", "Jane Doe", "--format", "gradescope",
    )  # fmt: skip
    elapsed = time.monotonic() - started

    assert code == 1
    assert verdicts(report) == {1: "solved", 2: "error", 3: "not started"}
    entries = list(report["katas"].values())
    assert f"{limit:g} s limit" in entries[1]["reason"]
    others = entries[0]["seconds"] + entries[2]["seconds"]
    assert elapsed < limit + others + 5, (elapsed, others)
    # The candidate's daemon was killed with its kata, so the report stays the grader's.
    daemon = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(daemon, 0)
    assert report["candidate"] == "Jane Doe" and report["sandbox"] == "none"
    assert "forged" not in report_path.read_text()
    # Only the daemon's code is listed for review; nothing else differs from what was sent.
    assert {(item["kind"], item["kata"]) for item in report["flags"]} == {
        ("review", "q03_vectorised_ops")
    }
    gradescope = json.loads((folder / "grading" / "results.json").read_text())
    assert gradescope["score"] == 1 and gradescope["execution_time"] >= limit
    assert [t["status"] for t in gradescope["tests"]] == ["passed", "failed", "failed"]
    assert [t["max_score"] for t in gradescope["tests"]] == [1, 1, 1]
    assert gradescope["tests"][0]["name"] == "q01 Fit a line with autograd"
    assert "limit" in gradescope["tests"][1]["output"]


# Grades a whole take-home, a process per kata: on a busy 2-core machine that takes far
# longer than the suite's 60 s limit per test, so it has a limit of its own.
@pytest.mark.timeout(GRADING_LIMIT)
def test_a_skip_from_the_stub_counts_as_a_failure(suite, tmp_path):
    folder = hand_out(suite, tmp_path / "skips", 21)
    path = stub(folder, 21)
    source = path.read_text().replace("raise NotImplementedError", 'pytest.skip("not handled")')
    path.write_text("import pytest\n" + source)
    _, report = grade(suite, folder, "--timeout", 60)
    (entry,) = report["katas"].values()
    assert entry["verdict"] != "solved"
    assert entry["total"] > 0 and entry["passed"] == 0 and entry["skipped"] == 0
    assert "not handled" in entry["failures"][0]["message"]


# Grades a whole take-home, a process per kata: on a busy 2-core machine that takes far
# longer than the suite's 60 s limit per test, so it has a limit of its own.
@pytest.mark.timeout(GRADING_LIMIT)
def test_ctrl_c_stops_grading_and_leaves_nothing_behind(suite, tmp_path):
    folder = hand_out(suite, tmp_path / "interrupted", 1)
    pid_file = tmp_path / "hang.pid"
    inject(
        folder, 1, f"import os\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))\nwhile 1: pass"
    )
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    command = [sys.executable, "-m", "torch_katas", "--root", str(suite), "grade", str(folder)]
    grader = subprocess.Popen(
        [*command, "--sandbox", "none", "--timeout", "600"],
        env={**os.environ, "TMPDIR": str(scratch)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for(lambda: pid_file.is_file() and pid_file.read_text())
    grader.send_signal(signal.SIGINT)
    _, errors = grader.communicate(timeout=30)
    assert grader.returncode == 130
    assert "grading interrupted" in errors
    assert list(scratch.iterdir()) == []
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)
    assert not (folder / "grading").exists()


def wait_for(found, seconds: float = 60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if value := found():
            return value
        time.sleep(0.1)
    raise AssertionError("timed out")


def test_review_lists_what_a_solution_has_no_business_doing():
    findings = review.scan(PATCHES + READS_THE_REFERENCE + "import subprocess, socket\n")
    text = "\n".join(findings)
    for expected in (
        "imports _pytest.reports",
        "assigns to torch.testing.assert_close",
        "imports importlib.metadata",
        "calls exec",
        "uses __file__",
        "imports subprocess",
        "imports socket",
    ):
        assert expected in text
    for kata in KATAS.values():
        assert review.scan(kata.solution_path(ROOT).read_text()) == [], kata.module


def test_asking_for_bwrap_where_it_cannot_run_is_an_error(monkeypatch):
    monkeypatch.setattr(sandbox, "BWRAP", "no-such-bwrap")
    sandbox.bwrap_works.cache_clear()
    try:
        assert sandbox.choose("auto") == "none"
        with pytest.raises(ValueError, match="install the bubblewrap package"):
            sandbox.choose("bwrap")
    finally:
        sandbox.bwrap_works.cache_clear()


def test_equal_weight_per_kata():
    grades = [
        KataGrade("a", "solved", passed=1, total=1),
        KataGrade("b", "partly solved", passed=1, total=100),
        KataGrade("c", "flagged", passed=50, total=50),
    ]
    assert [grade.share for grade in grades] == [1.0, 0.01, 0.0]
