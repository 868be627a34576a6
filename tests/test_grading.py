"""`katas takehome` and `katas grade`, tried the way an interviewer and a candidate meet them.

Each grade runs real processes (one per kata), so one take-home covers many cases: every
kata in it is a different way for a returned stub to be right, wrong, broken or dishonest.
"""

import ast
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import textwrap
import time
import zipfile
from pathlib import Path

import pytest

from torch_katas import catalog, cli
from torch_katas.catalog import UsageError
from torch_katas.grading import reports, sandbox, schema, takehome
from torch_katas.grading.reports import Flag, KataGrade, Report
from torch_katas.runtime import mistakes

ROOT = Path(__file__).resolve().parents[1]
KATAS = catalog.load(ROOT)
PARTLY_RIGHT = mistakes.Mistake(
    ROOT / mistakes.WRONG_ANSWERS / f"q01_fit_line__default_dtype_params{mistakes.SUFFIX}"
)
GRADING_LIMIT = 600  # seconds for a test that grades a take-home (see the marks below)
SUITE_FILES = ("conftest.py", "pyproject.toml", "torch_katas", "katas", "solutions")
# As root, grading without bwrap is refused unless allowed: these tests allow it.
ROOT_OK = ["--allow-root"] if sandbox.is_root() else []


def katas(*args: object) -> int:
    return cli.main([str(a) for a in args])


def committed_stubs(source: Path, root: Path) -> None:
    """Put the stubs of `source` as committed at git HEAD into the copy `root` (a stub not
    committed yet, or a source that is no git checkout, leaves the copy's as it is)."""
    for kata in catalog.load(source).values():
        relative = kata.stub_path(source).relative_to(source).as_posix()
        try:
            (root / relative).write_bytes(takehome.committed(source, [relative])[relative])
        except (UsageError, KeyError):
            continue


def interviewer_checkout(source: Path, root: Path) -> Path:
    """A git checkout in `root` of the suite in `source`, with its reference answers: the
    harness and tests as they are, the stubs as committed (a learner's answers in `source`
    would otherwise be handed out)."""
    ignore = shutil.ignore_patterns("__pycache__")
    for name in SUITE_FILES:
        if (source / name).is_dir():
            shutil.copytree(source / name, root / name, ignore=ignore)
        else:
            root.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / name, root / name)
    committed_stubs(source, root)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    for command in (["init", "-q"], ["add", "."], ["commit", "-qm", "suite"]):
        subprocess.run([*git, *command], cwd=root, check=True)
    return root


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    """The interviewer's git checkout of the suite, with its reference answers."""
    return interviewer_checkout(ROOT, tmp_path_factory.mktemp("interviewer") / "suite")


def test_the_interviewers_checkout_hands_out_the_committed_stubs_not_the_learners(tmp_path):
    # A learner's clone of the suite in which kata 6 is partly written.
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    practised = stub(clone, 6)
    original = practised.read_text()
    practised.write_text(original.replace("raise NotImplementedError", "return None", 1))
    root = interviewer_checkout(clone, tmp_path / "suite")
    assert stub(root, 6).read_text() == original
    folder = hand_out(root, tmp_path / "takehome", 6)
    assert stub(folder, 6).read_text() == original


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
    code = katas("--root", suite, "grade", folder, "--device", "cpu", *ROOT_OK, *options)
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
    assert {"README.md", ".gitignore", "conftest.py", "pyproject.toml", takehome.MANIFEST} <= files
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


@pytest.mark.parametrize("hints", ["none", "first", "all"])
def test_takehome_ships_the_hints_the_interviewer_chose(suite, tmp_path, hints):
    folder = tmp_path / f"hints-{hints}"
    assert katas("--root", suite, "takehome", 2, 6, "--out", folder, "--hints", hints) == 0
    shipped = catalog.load(folder)
    for module, kata in shipped.items():
        every = KATAS[module].hints
        assert kata.hints == {"none": (), "first": every[:1], "all": every}[hints]
        assert (kata.title, kata.topic, kata.imports) == (
            KATAS[module].title,
            KATAS[module].topic,
            KATAS[module].imports,
        )
    record = json.loads((suite / takehome.RECORDS / f"hints-{hints}.json").read_text())
    assert record["hints"] == hints
    readme = (folder / "README.md").read_text()
    said = {
        "none": "ships no hints",
        "first": "a kata's first hint, the only one shipped",
        "all": "one more each time",
    }
    assert said[hints] in " ".join(readme.split())


def test_the_candidate_readme_says_how_to_install_and_how_grading_works(suite, tmp_path):
    folder = hand_out(suite, tmp_path / "readme", 2, 28)
    readme = (folder / "README.md").read_text()
    version = takehome.torch_version()
    assert version and "+" not in version
    cpu = f"pip install torch=={version} --index-url https://download.pytorch.org/whl/cpu"
    assert cpu in readme and f"\n  pip install torch=={version}\n" in readme
    assert "a Mac" in readme and ".venv\\Scripts\\activate" in readme
    assert "The tests run with any torch" in readme and "from 2.7 (what this suite" in readme
    assert f"graded with torch {version}" in readme
    # How grading works, as the grader does it.
    flat = " ".join(readme.split())
    for said in (
        "Each kata is graded on its own",
        "without network",
        "runs to its end and passes",
        "a skip raised by your code",
        "policy for returned code",
        "`katas review katas/q02_numpy_bridge.py`",
        "for q28, `io`, `os`, `pathlib`, `tempfile`, `torch.save`, `torch.load`",
        "*flagged* (it scores 0)",
    ):
        assert said in flat, said
    allowed = ("math", "itertools", "dataclasses", "numpy", "logging", "operator")
    assert all(f"`{module}`" in readme for module in allowed)


def readme_block(readme: str, after: str) -> str:
    """The first code block of the README after the words `after`, as one command."""
    block = readme.split(after, 1)[1].split("```", 2)[1]
    return " && ".join(line.strip() for line in block.strip().splitlines())


def made_by_working(folder: Path) -> None:
    """What installing and running the take-home leaves in its folder: an environment (the
    README's .venv, and one of another name), caches, build folders, an editor's file."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", folder / ".venv"], check=True)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", folder / "env2"], check=True)
    for made in ("__pycache__", "katas/__pycache__", ".pytest_cache/v", "build/lib", "dist"):
        (folder / made).mkdir(parents=True, exist_ok=True)
        (folder / made / "x.pyc").write_bytes(b"cached")
    (folder / "torch_katas.egg-info").mkdir()
    (folder / ".hypothesis").mkdir()
    (folder / ".DS_Store").write_bytes(b"finder")


def test_the_candidate_readme_says_what_to_return_without_the_venv(suite, tmp_path):
    folder = hand_out(suite, tmp_path / "ada", 2)
    made_by_working(folder)
    readme = (folder / "README.md").read_text()
    # The archive, with the command the README gives, run in the folder.
    subprocess.run(readme_block(readme, "an archive"), shell=True, cwd=folder, check=True)
    with tarfile.open(tmp_path / "ada.tar.gz") as archive:
        names = {name.removeprefix("./") for name in archive.getnames()}
    assert "katas/q02_numpy_bridge.py" in names and "README.md" in names
    assert not [n for n in names if n.startswith((".venv", ".pytest_cache", "build", "dist"))]
    assert not [n for n in names if "__pycache__" in n or ".egg-info" in n]
    # The git repository, with the README's commands.
    git = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@example.com"}
    git.update(GIT_COMMITTER_NAME="a", GIT_COMMITTER_EMAIL="a@example.com")
    subprocess.run(
        readme_block(readme, "a git repository"), shell=True, cwd=folder, env=git, check=True
    )
    tracked = subprocess.run(["git", "ls-files"], cwd=folder, capture_output=True, text=True)
    assert "katas/q02_numpy_bridge.py" in tracked.stdout.split()
    assert ".venv" not in tracked.stdout and "__pycache__" not in tracked.stdout


CPU_INDEX = " --index-url https://download.pytorch.org/whl/cpu"


# Every kata's reference answer, returned as the candidate's: each is solved, nothing flagged.
# A kata whose own tests do what grading refuses (start a program, write outside the kata's
# folder) can be solved by no candidate: minutes for 50 katas, so it is slow.
@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_every_reference_answer_returned_in_a_take_home_is_solved(suite, tmp_path):
    chosen = list(KATAS.values())
    folder = hand_out(suite, tmp_path / "references", *(kata.number for kata in chosen))
    for kata in chosen:
        kata.stub_path(folder).write_text(kata.solution_path(suite).read_text())
    code, report = grade(suite, folder)
    unsolved = {n: v for n, v in verdicts(report).items() if v != "solved"}
    assert not unsolved and not report["flags"], (unsolved, report["flags"])
    assert code == 0


# Installs torch and the suite into a fresh virtual environment, runs the take-home's tests and
# grades the folder: minutes, so it is slow and has a time limit of its own.
@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_a_candidate_installs_the_takehome_as_its_readme_says_and_it_grades(suite, tmp_path):
    folder = hand_out(suite, tmp_path / "laptop", 2, 6)
    readme = (folder / "README.md").read_text()
    block = readme.split("without an NVIDIA GPU", 1)[1].split("```", 2)[1]
    lines = [line.strip() for line in block.strip().splitlines()]
    assert any(CPU_INDEX in line for line in lines), lines
    # The CPU line as written, less its index: this machine cannot reach download.pytorch.org,
    # and its pip finds the same CPU build of torch on local disk.
    install = " && ".join(line.replace(CPU_INDEX, "") for line in lines)
    shutil.copy(KATAS["q02_numpy_bridge"].solution_path(suite), stub(folder, 2))
    environment = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    done = subprocess.run(
        [
            "bash",
            "-c",
            f"{install} && python -c 'import torch; print(torch.__version__)' && pytest",
        ],
        cwd=folder,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 1, output[-3000:]  # kata 6 is still a stub
    assert "+cpu" in output and "nvidia" not in output.lower(), output[-3000:]
    assert "q02" in output and "Solved 1 of 2 katas" in output, output[-3000:]

    code, report = grade(suite, folder, "--timeout", 300)
    assert code == 1 and verdicts(report) == {2: "solved", 6: "not started"}
    assert report["flags"] == []  # the environment and caches it made are not new files
    candidate = report["candidate_environment"]
    assert candidate["torch"].endswith("+cpu") and candidate["python"] == report["python"]


def test_the_report_shows_the_candidates_torch_from_their_last_run(tmp_path):
    from torch_katas.grading import grade as grading

    assert grading.candidate_environment(tmp_path) is None
    # Where earlier versions kept it, in pytest's cache; then where the store keeps it now.
    cache = tmp_path / ".pytest_cache" / "v" / "torch_katas"
    cache.mkdir(parents=True)
    (cache / "environment").write_text('{"torch": "2.6.0+cpu", "python": "3.12.1", "x": 1}')
    assert grading.candidate_environment(tmp_path) == {"torch": "2.6.0+cpu", "python": "3.12.1"}
    kept = tmp_path / ".katas-progress" / "environment.json"
    kept.parent.mkdir()
    kept.write_text('{"torch": "2.7.0+cpu", "python": "3.12.2"}')
    assert grading.candidate_environment(tmp_path) == {"torch": "2.7.0+cpu", "python": "3.12.2"}
    kept.write_text("not json")
    assert grading.candidate_environment(tmp_path) is None


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

os.write(int(sys.argv[1]), json.dumps({"event": "end", "tests": {"all": "passed"}}).encode())
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
@pytest.mark.slow  # end to end, in processes of its own: the full tier's
@pytest.mark.timeout(GRADING_LIMIT)
def test_grading_gives_each_kata_its_verdict_and_flags(suite, tmp_path, capsys):
    folder = hand_out(suite, tmp_path / "many", 1, 2, 6, 7, 9, 10, 14, 16, 17, 18, 20)
    stub(folder, 1).write_text(PARTLY_RIGHT.source(ROOT), encoding="utf-8")
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
    # Each of the stubs that do what an answer has no use for is flagged by the policy for
    # returned code, before it runs; what its run showed is kept beside the verdict.
    assert verdicts(report) == {
        1: "partly solved",
        2: "error",
        6: "flagged",
        7: "flagged",
        9: "flagged",
        10: "flagged",
        14: "flagged",
        16: "flagged",
        17: "flagged",
        18: "not started",
        20: "flagged",
    }
    entries = {int(m[1:3]): e for m, e in report["katas"].items()}
    runs = {n: entries[n].get("run_verdict") for n in (6, 7, 9, 10, 14, 16, 20)}
    assert runs == {
        6: "error",
        7: "error",
        9: "flagged",
        10: "flagged",
        14: "not started",  # the forged results were never written
        16: "flagged",
        20: "flagged",  # results without the grader's secret
    }
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
    assert "not all written by the grading plugin" in entries[20]["reason"]
    assert all(entries[n]["reason"] for n in (2, 6, 7, 9, 10, 16, 17, 18))

    tampering = {i["kata"][:3] for i in flags_of(report, "tampering")}
    assert tampering == {"q09", "q10", "q16", "q20"}
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
    refused = {
        (i["kata"][:3], i["line"], i["rule"], i["reason"]) for i in flags_of(report, "policy")
    }
    assert (
        "q10",
        2,
        "import",
        "imports gc (not among the modules this kata's answers may import)",
    ) in refused
    assert (
        "q07",
        1,
        "import",
        "imports ctypes (not among the modules this kata's answers may import)",
    ) in refused
    assert {kata for kata, *_ in refused} == {"q06", "q07", "q09", "q10", "q14", "q16", "q20"}
    assert all(item["file"] == f"katas/{item['kata']}.py" for item in flags_of(report, "policy"))

    # The report: what an interviewer reads, and nothing left from before.
    assert report["candidate"] == "many"
    assert report["sandbox"] == ("bwrap" if sandbox.bwrap_works() else "none")
    assert report["devices"] == ["cpu"] and report["suite_commit"]
    assert report["hints"] == "first"
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
    assert "not started: katas/q18\\_" in markdown
    assert "(its tests alone: error)" in markdown
    assert (
        "- policy: imports gc (not among the modules this kata's answers may import) [import]"
        in (markdown)
    )
    assert "`katas/q10_containers.py:2`" in markdown
    messages = [f["message"] for f in entries[1]["failures"]]
    assert len(messages) == len(set(messages)) and all(messages)
    output = capsys.readouterr().out
    assert "[1/11] q01 Fit a line with autograd: partly solved" in output
    assert "[11/11] q20" in output


# Writes a file outside the kata's folder below Python's audit hooks (grading's file guard
# refuses such writes), as C code could: how a hanging answer tells a self-check its pid.
WRITE_BELOW_HOOKS = """
import ctypes
import os
import time


def _write(path, text):
    libc = ctypes.CDLL(None)
    descriptor = libc.open(path.encode(), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.write(descriptor, text.encode())
    os.close(descriptor)
"""

BACKGROUND = (
    WRITE_BELOW_HOOKS.replace("{", "{{").replace("}", "}}")
    + """

if os.fork() == 0:
    try:
        os.setsid()
        if os.fork() == 0:
            _write({pid_file!r}, str(os.getpid()))
            time.sleep(40)  # past kata 3's run even on a busy machine: killed with it first
            _write({report!r}, '{{"forged": true}}')
    finally:
        os._exit(0)
time.sleep(0.5)
"""
)


# Grades a whole take-home, a process per kata: on a busy 2-core machine that takes far
# longer than the suite's 60 s limit per test, so it has a limit of its own.
@pytest.mark.slow  # end to end, in processes of its own: the full tier's
@pytest.mark.timeout(GRADING_LIMIT)
def test_one_hanging_kata_costs_its_time_limit_and_nothing_else(suite, tmp_path):
    handed = hand_out(suite, tmp_path / "three", 1, 2, 3)
    folder = handed.rename(tmp_path / "returned by mail")  # graded by --katas, elsewhere
    shutil.copy(KATAS["q01_fit_line"].solution_path(suite), stub(folder, 1))
    inject(folder, 2, "while True:\n    pass")
    pid_file = tmp_path / "daemon.pid"
    report_path = folder / "grading" / "report.json"
    inject(folder, 3, BACKGROUND.format(pid_file=str(pid_file), report=str(report_path)))
    # Long enough for kata 1's whole run on a busy machine (it took over 15 s under a load
    # of seven processes a core), so only the hanging kata meets it.
    limit = 45

    started = time.monotonic()
    code, report = grade(
        suite, folder, "--katas", 1, 2, 3, "--sandbox", "none", "--timeout", limit,
        "--name", "Jane Doe", "--format", "gradescope",
    )  # fmt: skip
    elapsed = time.monotonic() - started

    assert code == 1
    assert verdicts(report) == {1: "solved", 2: "error", 3: "flagged"}
    assert report["katas"]["q03_vectorised_ops"]["run_verdict"] == "not started"
    entries = list(report["katas"].values())
    assert f"{limit:g} s limit" in entries[1]["reason"]
    others = entries[0]["seconds"] + entries[2]["seconds"]
    # The rest is the collection of the suite's tests (one pytest process) and the reports.
    assert elapsed < limit + others + 25, (elapsed, others)
    # The candidate's daemon was killed with its kata, so the report stays the grader's.
    daemon = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(daemon, 0)
    assert report["candidate"] == "Jane Doe" and report["sandbox"] == "none"
    assert "forged" not in report_path.read_text()
    # Only the daemon's code is refused by the policy; nothing else differs from what was sent.
    assert {(item["kind"], item["kata"]) for item in report["flags"]} == {
        ("policy", "q03_vectorised_ops")
    }
    gradescope = json.loads((folder / "grading" / "results.json").read_text())
    assert gradescope["score"] == 1 and gradescope["execution_time"] >= limit
    assert [t["status"] for t in gradescope["tests"]] == ["passed", "failed", "failed"]
    assert [t["max_score"] for t in gradescope["tests"]] == [1, 1, 1]
    assert gradescope["tests"][0]["name"] == "q01 Fit a line with autograd"
    assert "limit" in gradescope["tests"][1]["output"]


# Grades a whole take-home, a process per kata: on a busy 2-core machine that takes far
# longer than the suite's 60 s limit per test, so it has a limit of its own.
@pytest.mark.slow
@pytest.mark.timeout(GRADING_LIMIT)
def test_a_skip_from_the_stub_counts_as_a_failure(suite, tmp_path):
    folder = hand_out(suite, tmp_path / "skips", 21)
    path = stub(folder, 21)
    source = path.read_text().replace("raise NotImplementedError", 'pytest.skip("not handled")')
    path.write_text("import pytest\n" + source)
    _, report = grade(suite, folder, "--timeout", 60)
    (entry,) = report["katas"].values()
    assert entry["verdict"] == "flagged" and entry["run_verdict"] == "partly solved"
    assert entry["total"] > 0 and entry["passed"] == 0 and entry["skipped"] == 0
    assert "not handled" in entry["failures"][0]["message"]


# Grades a whole take-home, a process per kata: on a busy 2-core machine that takes far
# longer than the suite's 60 s limit per test, so it has a limit of its own.
@pytest.mark.timeout(GRADING_LIMIT)
def test_ctrl_c_stops_grading_and_leaves_nothing_behind(suite, tmp_path):
    folder = hand_out(suite, tmp_path / "interrupted", 1)
    pid_file = tmp_path / "hang.pid"
    inject(
        folder,
        1,
        f"{WRITE_BELOW_HOOKS}\n_write({str(pid_file)!r}, str(os.getpid()))\nwhile 1: pass",
    )
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    command = [sys.executable, "-m", "torch_katas", "--root", str(suite), "grade", str(folder)]
    grader = subprocess.Popen(
        [*command, "--sandbox", "none", "--timeout", "600", *ROOT_OK],
        env={**os.environ, "TMPDIR": str(scratch)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(lambda: pid_file.is_file() and pid_file.read_text())
        grader.send_signal(signal.SIGINT)
        _, errors = grader.communicate(timeout=30)
    finally:
        if grader.poll() is None:  # failed: leave no grader running behind
            grader.kill()
            grader.communicate()
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


# -- the attacks of a candidate who reads the harness -----------------------------------------

THREAD_OP = """
from concurrent.futures import ThreadPoolExecutor

import torch.nn.functional as F


def cross_entropy(logits, target, *, ignore_index=-100, label_smoothing=0.0, reduction="mean"):
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(
            F.cross_entropy, logits, target, ignore_index=ignore_index,
            label_smoothing=label_smoothing, reduction=reduction,
        ).result()
"""

RECORDER_SUMMARY = """
def _forge():
    try:
        raise ValueError
    except ValueError as error:
        frame = error.__traceback__.tb_frame
    while frame is not None:
        recorder = frame.f_locals.get("recorder")
        if recorder is not None and hasattr(recorder, "summary"):
            honest = recorder.summary

            def summary(code):
                data = honest(code)
                for test in data["tests"].values():
                    test.update(outcome="passed", called=True, message="")
                data["tampering"], data["exit_code"] = [], 0
                return data

            recorder.summary = summary
            return
        frame = frame.f_back


_forge()
"""

TEST_HOOK = """

class _Planted:
    @property
    def __test__(self):
        try:
            raise ValueError
        except ValueError as error:
            frame = error.__traceback__.tb_frame
        while frame is not None:
            module = getattr(frame.f_locals.get("self"), "obj", None)
            if getattr(module, "__name__", "").endswith("_test"):
                for name, value in list(vars(module).items()):
                    if name.startswith("test_"):
                        value.__code__ = (lambda device: None).__code__
                return False
            frame = frame.f_back
        return False


CenterAndScale = _Planted()
"""

COMPARISONS_REPLACED = """

def decay_groups(model):
    torch.isclose = lambda *args, **kwargs: torch.tensor(True)
    torch.equal = lambda *args, **kwargs: True
    torch.isnan = lambda x: torch.zeros_like(x, dtype=torch.bool)
    raise NotImplementedError
"""

AGREEABLE = """

class _Agreeable(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        result = super().__torch_function__(func, types, args, kwargs or {})
        if getattr(func, "__name__", "") in ("eq", "__eq__", "isclose", "allclose", "equal"):
            return True if func.__name__ in ("allclose", "equal") else torch.ones_like(result)
        return result


def softplus(x):
    return torch.zeros_like(x).as_subclass(_Agreeable)


def class_probabilities(logits, layout, log=False):
    return torch.zeros_like(logits).as_subclass(_Agreeable)
"""

DEEP_RESULTS = """
import os
import sys

os.write(int(sys.argv[1]), b"[" * 200_000 + b"]" * 200_000)
os._exit(0)
"""

SEEKED_OUTPUT = """
import os

os.lseek(1, 2**40, os.SEEK_SET)
os.write(1, b"x")
os._exit(0)
"""

FORK_CHAIN = """
import os
import time

if os.fork() == 0:
    while True:  # each process forks the next, then leaves it to the grader
        if os.fork():
            os._exit(0)
        os.setsid()
        time.sleep(0.002)
"""

STARTS_A_PROGRAM = """
import subprocess
import sys

try:
    subprocess.run([sys.executable, "-c", "print(open('/etc/hostname').read())"], check=False)
except PermissionError:
    pass
"""

FAKE_ROWS = (
    'raise ValueError("no | q99 | Fake | solved | 99/99 | 0.0 | '
    '<table><tr><td>q98 solved</td></tr></table>\\n| q97 | Fake | solved |")'
)

ATTACKS = {  # kata: (how the stub is changed, what it is)
    21: ("interrupt", "the stub's function raises KeyboardInterrupt"),
    24: ("skip", "the stub's function raises unittest.SkipTest"),
    13: ("append", THREAD_OP),
    27: ("inject", RECORDER_SUMMARY),
    32: ("append", TEST_HOOK),
    14: ("append", COMPARISONS_REPLACED),
    12: ("append", AGREEABLE),
    41: ("inject", DEEP_RESULTS),
    28: ("inject", SEEKED_OUTPUT),
    36: ("inject", FORK_CHAIN),
    44: ("inject", STARTS_A_PROGRAM),
    40: ("inject", FAKE_ROWS),
}


def attack(folder: Path, number: int) -> None:
    how, code = ATTACKS[number]
    path = stub(folder, number)
    text = path.read_text()
    if how == "interrupt":
        path.write_text(text.replace("raise NotImplementedError", "raise KeyboardInterrupt"))
    elif how == "skip":
        skipped = text.replace("raise NotImplementedError", 'raise unittest.SkipTest("cannot")')
        path.write_text("import unittest\n" + skipped)
    elif how == "append":
        path.write_text(text + code)
    else:
        inject(folder, number, code)


def processes_in(kata: str) -> list[int]:
    """Processes still running in a grade's copy of the suite for `kata` (as seen from here:
    under bwrap, processes see other paths, and none outlive their sandbox)."""
    found = []
    for cwd in Path("/proc").glob("[0-9]*/cwd"):
        with contextlib.suppress(OSError):
            place = os.readlink(cwd)
            if "katas-grade-" in place and f"/{kata}/" in place:
                found.append(int(cwd.parent.name))
    return found


# Grades a whole take-home, a process per kata, once per sandbox: minutes on a busy 2-core
# machine, far longer than the suite's 60 s limit per test, so it has a limit of its own.
@pytest.mark.slow
@pytest.mark.timeout(GRADING_LIMIT)
@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_every_attack_is_flagged_or_gets_its_verdict(suite, tmp_path, mode):
    if mode == "bwrap" and not sandbox.bwrap_works():
        pytest.skip("bubblewrap cannot run on this machine")
    folder = hand_out(suite, tmp_path / f"attacks-{mode}", *ATTACKS)
    for number in ATTACKS:
        attack(folder, number)
    (folder / "katas" / "new\n| q96 | Fake | solved | 9 of 9 | 0 |.py").write_text("")

    started = time.monotonic()
    code, report = grade(suite, folder, "--sandbox", mode, "--timeout", 120)
    elapsed = time.monotonic() - started

    assert code == 1 and report["sandbox"] == mode
    entries = {int(m[1:3]): e for m, e in report["katas"].items()}
    verdicts_now = {n: e["verdict"] for n, e in entries.items()}
    # Every attack needs code an answer has no use for: the policy flags each before it runs,
    # except the stub whose only trick is its error message.
    assert verdicts_now == {n: "error" if n == 40 else "flagged" for n in ATTACKS}
    rules: dict[int, set[str]] = {}
    for item in flags_of(report, "policy"):
        assert item["file"] == f"katas/{item['kata']}.py" and item["line"] > 0
        rules.setdefault(int(item["kata"][1:3]), set()).add(item["rule"])
    assert set(rules) == set(ATTACKS) - {40}
    expected_rules = {
        21: {"raise"},
        24: {"import"},
        13: {"import"},
        27: {"dunder", "frame"},
        32: {"definition", "dunder"},
        14: {"patch"},
        12: {"definition"},
        41: {"name", "private"},  # sys.argv: sys offers its streams and a few facts only
        28: {"private"},
        36: {"import"},
        44: {"import"},
    }
    assert {n: expected_rules[n] & rules[n] for n in expected_rules} == expected_rules
    runs = {n: e.get("run_verdict") for n, e in entries.items()}
    reasons = {n: e["reason"] for n, e in entries.items()}
    tampering = {int(i["kata"][1:3]): i["reason"] for i in flags_of(report, "tampering")}

    # What the runs alone show, beside the policy.
    # KeyboardInterrupt: the run stops; the tests it never ran are failed, not left out.
    assert runs[21] == "error" and "pytest exit status 2: interrupted" in reasons[21]
    assert entries[21]["passed"] == 0 and entries[21]["total"] > 1
    # unittest.SkipTest from the stub: failures, not skips.
    assert runs[24] == "partly solved" and entries[24]["skipped"] == 0
    assert "only the harness may skip" in entries[24]["failures"][0]["message"]
    # A forbidden op on a worker thread fails the rule, saying so.
    assert runs[13] == "partly solved"
    assert any("ran on another thread" in f["message"] for f in entries[13]["failures"])
    # The recorder's summary replaced on the instance: the results are still the real ones.
    assert runs[27] == "not started" and entries[27]["passed"] == 0
    # Test functions' code swapped through a __test__ lookup at collection.
    # (Either the swap is seen, or the planted object breaks collection: never a pass.)
    swapped = runs[32] == "flagged" and "is not its test file's" in tampering.get(32, "")
    broken = runs[32] == "error" and "collecting the tests failed" in reasons[32]
    assert swapped or broken, (runs[32], reasons[32])
    # Comparisons replaced inside each call: what the state guard put back is tampering.
    assert runs[14] == "flagged" and "torch.isclose was replaced during" in tampering[14]
    # A returned tensor subclass that makes comparisons agree is refused by the checks.
    # (The tests that look at no result, such as one that checks the input is left alone,
    # pass: the answer does leave it alone.)
    refused_subclass = [
        f for f in entries[12]["failures"] if "subclass of torch.Tensor" in f["message"]
    ]
    assert runs[12] == "partly solved" and sum(len(f["tests"]) for f in refused_subclass) >= 5
    # Results nested 200,000 deep, and output seeked to 1 TB: that kata's error only.
    assert runs[41] == "error" and "could not be read" in reasons[41] and 41 in tampering
    assert runs[28] == "error" and "File too large" in reasons[28]  # RLIMIT_FSIZE
    # A chain of processes forking once per session is stopped and killed; it costs little.
    assert runs[36] == "not started" and entries[36]["seconds"] < 60
    assert processes_in("q36_grad_accumulation") == []  # no other test grades kata 36
    # A program started by the answer would run without the checks: refused.
    assert runs[44] == "flagged" and "started a program" in tampering[44]
    # A multi-line reason adds no rows to the report.
    markdown = (folder / "grading" / "report.md").read_text()
    assert "q99" in reasons[40] and "<table>" in reasons[40]
    assert not [line for line in markdown.splitlines() if line.startswith(("| q99", "| q96"))]
    assert "no \\| q99 \\| Fake" in markdown
    assert "<table>" not in markdown and "&lt;table&gt;" in markdown
    assert elapsed < GRADING_LIMIT


def test_results_that_do_not_fit_are_refused_without_a_crash(tmp_path, monkeypatch):
    deep = "[" * 200_000 + "]" * 200_000
    for text, message in [
        (deep, "nested deeper"),
        ('{"token": "t", "event": "report"}', "report.nodeid: wrong type"),
        ('{"token": "t", "event": "made up"}', "unknown event"),
        ("[]", "not a JSON object"),
        ("{" + "x" * 100, "not JSON"),
    ]:
        with pytest.raises(schema.SchemaError, match=message):
            schema.message(text, "t")
    with pytest.raises(schema.Forged):
        schema.message('{"token": "guessed", "event": "end"}', "t")
    with pytest.raises(schema.NoResults):
        schema.collect(b"", "t")
    # More than the limit on the results pipe is drained (the child does not block), not kept.
    monkeypatch.setattr(sandbox, "RESULTS_LIMIT", 2**20)
    code = "import os, sys\nos.write(int(sys.argv[1]), bytes(2**21))"
    suite, work = tmp_path / "suite", tmp_path / "work"
    suite.mkdir()
    work.mkdir()
    outcome = sandbox.run(
        ["-c", code, sandbox.RESULTS_FD], suite=suite, work=work, mode="none", timeout=60,
        stdin="", log=tmp_path / "log.txt",
    )  # fmt: skip
    assert outcome.returncode == 0 and outcome.overflow and len(outcome.messages) <= 2**20


def test_the_markdown_report_escapes_what_the_candidate_wrote():
    grade = KataGrade("Title", "error", reason="x\n| q99 | fake | solved | 1/1 | 0 |\n<b>bold</b>")
    grade.failures = [reports.FailureGroup("a\n## Fake heading\n- fake item | x", ["t"])]
    report = Report(
        candidate="c", date="d", suite_commit=None, handed_out=None, torch="t", python="p",
        devices=[], sandbox="none", timeout=1, seconds=1, katas={"q01_fit_line": grade},
        flags=[Flag("y\n| q98 | fake |", "tampering", "katas/q01_fit_line.py\n| q97 |")],
        diffs={}, warnings=["w\n| q96 |"],
    )  # fmt: skip
    markdown = reports.markdown(report)
    rows = [line for line in markdown.splitlines() if line.startswith("| q")]
    assert len(rows) == 1 and rows[0].startswith("| q01 | Title | error: x \\| q99")
    assert not [line for line in markdown.splitlines() if line.startswith(("## Fake", "- fake"))]
    assert "&lt;b&gt;bold&lt;/b&gt;" in markdown and "<b>" not in markdown


@pytest.mark.slow  # grades a take-home, a process per kata
def test_the_report_gives_the_interviewer_each_katas_causes_largest_first(suite, tmp_path):
    folder = hand_out(suite, tmp_path / "causes", 1, 6)
    stub(folder, 1).write_text(PARTLY_RIGHT.source(ROOT), encoding="utf-8")  # kata 6 unwritten
    code, report = grade(suite, folder, "--timeout", 300)
    assert code == 1 and verdicts(report) == {1: "partly solved", 6: "not started"}
    markdown = (folder / "grading" / "report.md").read_text()
    why = markdown.split("## Why tests fail", 1)[1]
    title = catalog.load(ROOT)["q06_gradients"].title
    q06 = why.split(f"### q06 {title}")[1]
    total = report["katas"]["q06_gradients"]["total"]
    causes = [line for line in q06.splitlines() if line.startswith("- **")]
    # One cause per unwritten function of the stub.
    written = ast.parse(stub(folder, 6).read_text(encoding="utf-8")).body
    functions = [node for node in written if isinstance(node, ast.FunctionDef)]
    assert (
        f"not started: 0 of {total} tests passed, {total} failed ({len(functions)} causes)." in q06
    )
    counts = [int(line.split("**")[1].split()[0]) for line in causes]
    assert len(causes) == len(functions) and counts == sorted(counts, reverse=True)
    assert sum(counts) == total
    # Candidate text is escaped for Markdown: underscores too.
    name = r"hessian\_vector\_product()"
    hvp = next(line for line in causes if f"{name} was left unwritten" in line)
    assert f": {name} was left unwritten: it still raises NotImplementedError." in hvp
    assert "`test_hessian_vector_product_matches_the_one_worked_out_by_hand`" in hvp
    assert all("[" not in line.split("Breaks", 1)[1] for line in causes)  # names, not ids
    q01 = why.split("### q01 Fit a line with autograd")[1].split("###")[0]
    assert "- **1 test**: " in q01 and not re.search(r"\b1 tests", markdown)
    # The learner's voice is gone: no instruction to open a file or replace anything.
    assert "replace its NotImplementedError" not in markdown and "open katas/" not in markdown


def archive_text(out: Path, name: str) -> str:
    with zipfile.ZipFile(out / "autograder.zip") as archive:
        return archive.read(name).decode()


def gradescope_layout(base: Path, autograder: Path, submission: Path) -> Path:
    """/autograder as Gradescope lays it out, under `base`: the uploaded zip unpacked into
    source/, run_autograder copied beside it, the student's files in submission/."""
    root = base / "autograder"
    with zipfile.ZipFile(autograder) as archive:
        archive.extractall(root / "source")
    shutil.copy(root / "source" / "run_autograder", root / "run_autograder")
    (root / "run_autograder").chmod(0o755)
    shutil.copytree(submission, root / "submission" / submission.name, symlinks=True)
    return root


@pytest.mark.slow  # grades a submission as Gradescope runs it
def test_gradescope_autograder_grades_a_submission_laid_out_as_gradescope_lays_it(
    suite, tmp_path, capsys
):
    out = tmp_path / "autograder"
    assert katas("--root", suite, "gradescope", 1, 2, "--out", out) == 0
    assert "upload " in capsys.readouterr().out
    with zipfile.ZipFile(out / "autograder.zip") as archive:
        names = set(archive.namelist())
        modes = {name: archive.getinfo(name).external_attr >> 16 for name in names}
    assert {"setup.sh", "run_autograder", "suite/pyproject.toml", "suite/katas/katas.toml"} <= names
    assert modes["setup.sh"] & 0o111 and modes["run_autograder"] & 0o111
    assert not [n for n in names if n.startswith(("suite/solutions", "suite/tests"))]
    assert archive_text(out, "suite/katas/q02_numpy_bridge.py") == stub(suite, 2).read_text()
    setup = (out / "setup.sh").read_text()
    assert f"torch=={takehome.torch_version()}" in setup and 'pip" install --quiet -e' in setup
    assert subprocess.run(["bash", "-n", out / "setup.sh"]).returncode == 0
    # A student's upload: the take-home folder, as zipped (one level down), with kata 2
    # solved and what working on it leaves behind.
    folder = hand_out(suite, tmp_path / "student", 1, 2)
    shutil.copy(KATAS["q02_numpy_bridge"].solution_path(suite), stub(folder, 2))
    made_by_working(folder)
    root = gradescope_layout(tmp_path, out / "autograder.zip", folder)
    # setup.sh made /autograder/venv; here the environment running this test has katas.
    environment = {**os.environ, "AUTOGRADER_ROOT": str(root)}
    environment["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{environment['PATH']}"
    done = subprocess.run(
        [root / "run_autograder"], env=environment, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    results = json.loads((root / "results" / "results.json").read_text())
    tests = {test["name"][:3]: test for test in results["tests"]}
    assert tests["q02"]["score"] == 1 and tests["q02"]["status"] == "passed"
    assert tests["q01"]["score"] == 0 and tests["q01"]["status"] == "failed"
    assert tests["q01"]["output"].startswith("not started: 0/")
    assert "fit_line() was left unwritten" in tests["q01"]["output"]
    assert results["score"] == 1
    # The environments, caches and build folders it returned are not flagged.
    assert json.loads((root / "results" / "report.json").read_text())["flags"] == []


def test_auto_falls_back_to_none_with_a_warning_where_bwrap_cannot_start(
    suite, tmp_path, monkeypatch, capsys
):
    # As on a runner whose kernel refuses unprivileged user namespaces (Ubuntu 24.04's
    # AppArmor default, some containers): bwrap is installed but cannot start.
    fake = tmp_path / "bin" / "bwrap"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(sandbox, "BWRAP", str(fake))
    sandbox.bwrap_problem.cache_clear()
    try:
        folder = hand_out(suite, tmp_path / "fallback", 2)
        shutil.copy(KATAS["q02_numpy_bridge"].solution_path(suite), stub(folder, 2))
        code, report = grade(suite, folder, "--timeout", 120)
        assert katas("--root", suite, "grade", folder, "--sandbox", "bwrap") == 2
    finally:
        sandbox.bwrap_problem.cache_clear()
    assert code == 0 and report["sandbox"] == "none"
    (warning,) = report["warnings"]
    assert "--sandbox auto fell back to none" in warning and "uid map: Permission denied" in warning
    err = capsys.readouterr().err
    assert "warning: --sandbox auto fell back to none" in err
    assert "--sandbox bwrap:" in err and "(bwrap: setting up uid map: Permission denied)" in err
    markdown = (folder / "grading" / "report.md").read_text()
    assert "**Warning**: --sandbox auto fell back to none" in markdown


def test_asking_for_bwrap_where_it_cannot_run_is_an_error(monkeypatch):
    monkeypatch.setattr(sandbox, "is_root", lambda: False)  # as root, none is refused
    monkeypatch.setattr(sandbox, "BWRAP", "no-such-bwrap")
    sandbox.bwrap_problem.cache_clear()
    try:
        mode, warning = sandbox.choose("auto")
        assert mode == "none" and "no-such-bwrap is not installed" in warning
        assert "ran as you" in warning
        with pytest.raises(ValueError, match="needs the bubblewrap package"):
            sandbox.choose("bwrap")
    finally:
        sandbox.bwrap_problem.cache_clear()


PURE_FORK_CHAIN = """
import os, time
if os.fork() == 0:
    while True:
        if os.fork():
            os._exit(0)
        os.setsid()
        time.sleep(0.002)
time.sleep(60)
"""


def run_python(
    tmp_path, code: str, timeout: float, mode: str = "none"
) -> tuple[sandbox.Outcome, str]:
    suite, work = tmp_path / "suite", tmp_path / "work"
    suite.mkdir()
    work.mkdir()
    log = tmp_path / "log.txt"
    outcome = sandbox.run(
        ["-c", code], suite=suite, work=work, mode=mode, timeout=timeout, stdin="", log=log
    )
    return outcome, log.read_text()


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_the_sandbox_limits_files_and_processes_in_every_mode(tmp_path, mode):
    if mode == "bwrap" and not sandbox.bwrap_works():
        pytest.skip("bubblewrap cannot run on this machine")
    code = "import resource; print(resource.getrlimit(resource.RLIMIT_FSIZE)[0])"
    outcome, log = run_python(tmp_path, code, 60, mode)
    assert outcome.returncode == 0 and int(log.split()[-1]) == sandbox.FILE_LIMIT


def test_a_process_chain_is_stopped_and_killed_within_the_deadline(tmp_path):
    # Children an earlier self-check in this worker left running (a kernel, a server) are
    # not the chain's.
    earlier = sandbox.children()
    reaping = sandbox.set_subreaper(True)
    try:
        started = time.monotonic()
        outcome, _ = run_python(tmp_path, PURE_FORK_CHAIN, 3)
        elapsed = time.monotonic() - started
    finally:
        if reaping:
            sandbox.set_subreaper(False)
    assert outcome.returncode is None and outcome.survivors == 0
    assert elapsed < 3 + sandbox.KILL_DEADLINE
    assert sandbox.children() - earlier == set()


def test_a_full_scratch_folder_ends_the_run(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox, "SCRATCH_LIMIT", 2**20)
    code = "import os, time\nopen(os.environ['TMPDIR'] + '/big', 'wb').write(bytes(2**22))"
    code += "\ntime.sleep(60)"
    started = time.monotonic()
    outcome, _ = run_python(tmp_path, code, 60)
    assert outcome.exceeded == "wrote more than 1 MiB in its scratch folder"
    assert time.monotonic() - started < 30


def test_equal_weight_per_kata():
    grades = [
        KataGrade("a", "solved", passed=1, total=1),
        KataGrade("b", "partly solved", passed=1, total=100),
        KataGrade("c", "flagged", passed=50, total=50),
    ]
    assert [grade.share for grade in grades] == [1.0, 0.01, 0.0]
