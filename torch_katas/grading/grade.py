"""`katas grade`: grade a returned take-home folder, one kata at a time, trusting only the stubs.

What was handed out comes from the interviewer's record (takehome.py) or `--katas`, never from
the returned folder. Each returned stub is read against the policy for returned code
(policy.py) before anything runs. The list of each kata's tests comes from one collection of
the suite with the stubs as handed out, before the candidate's code runs. Each kata then runs
in a process of its own (child.py), in a fresh copy of the suite holding only that kata's test,
the harness and the candidate's stub, under a time limit and a sandbox where the machine has
one (sandbox.py); a test that process does not report as passed in its call is failed. The
grader alone writes the reports (reports.py), after every process the candidate's code started
is gone.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import difflib
import importlib.metadata
import json
import os
import platform
import re
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from torch_katas import catalog, status, store
from torch_katas.catalog import UsageError, pick, sha256
from torch_katas.grading import policy, reports, sandbox, schema, takehome, testwrite
from torch_katas.grading.reports import REPORTS, FailureGroup, Flag, KataGrade, Report
from torch_katas.practice import bughunt, testwrite as practice
from torch_katas.status import ERROR, FLAGGED, NOT_STARTED

__all__ = [
    "cmd_grade",
]

TEST_TIMEOUT = 60  # pytest-timeout's limit per test, as in pyproject.toml
# Left by working on the take-home (version control, environments, caches, builds, the
# learner's progress and backups), not answers: never flagged, never read. A folder holding
# pyvenv.cfg is an environment whatever its name.
IGNORED = {
    *(".git", ".hg", ".svn", ".venv", "venv", "env", ".tox", ".nox", ".eggs", "build", "dist"),
    *("__pycache__", ".pytest_cache", ".ruff_cache", ".mypy_cache", ".hypothesis"),
    *(".ipynb_checkpoints", ".idea", ".vscode", store.FOLDER, ".katas-backups"),
}
IGNORED_FILES = {".DS_Store", "Thumbs.db"}


def ignored(folder: Path, name: str) -> bool:
    """Whether `name` in `folder` is left by working on the take-home, not part of it."""
    path = folder / name
    if name in IGNORED_FILES:
        return True
    if name in IGNORED or name.endswith(".egg-info"):
        return path.is_dir() or path.is_symlink()
    return path.is_dir() and not path.is_symlink() and (path / "pyvenv.cfg").is_file()


# Isolated (-I: no PYTHON* variables, no user site, not the working folder first) and without
# site (-S: no .pth file runs): the standard library first, then the suite, then site-packages.
CHILD = (
    "import os, sys; sys.path += sys.argv.pop(1).split(os.pathsep); "
    "from torch_katas.grading.child import main; main()"
)
LISTED = 30  # new or edited files listed one by one; more are counted
LOG_TAIL = 64 * 1024  # bytes read from the end of a kata process's output
RETURNED_LIMIT = 4 * 1024 * 1024  # bytes read of any one returned file
DEVICE = re.compile(r"[a-z]{1,16}(:[0-9]{1,3})?")  # a device's name: cpu, cuda:1, sim
COLLECT_TIMEOUT = 300  # seconds for collecting the suite's own tests
# pytest's exit statuses other than 0 (all passed) and 1 (some failed): the run did not finish.
PYTEST_EXITS = {2: "interrupted", 3: "internal error", 4: "usage error", 5: "no tests collected"}


@dataclass
class Options:
    timeout: float
    device: str | None
    sandbox: str
    forbidden: list[str]  # paths the candidate's code may not read
    seed: int = 0  # the random generators' seed before each test (held out: another)


def pytest_options(options: Options) -> list[str]:
    """What every pytest process of a grade runs with, the collection's included."""
    args = ["-p", "pytest_timeout", "-p", "no:cacheprovider", "-q", "--color=no"]
    args += ["-o", f"timeout={min(TEST_TIMEOUT, options.timeout):g}"]
    args += ["--katas-seed", str(options.seed)] if options.seed else []
    return args + (["--device", options.device] if options.device else [])


# -- what was handed out ------------------------------------------------------------------


def find_record(root: Path, folder: Path, manifest: dict[str, object]) -> takehome.Record | None:
    records = root / takehome.RECORDS
    for name in (folder.name, manifest.get("name")):
        plain = isinstance(name, str) and name and "/" not in name and not name.startswith(".")
        path = records / f"{name}.json" if plain else None
        if path is not None and path.is_file():
            return takehome.Record.load(path)
    for path in sorted(records.glob("*.json")):
        record = takehome.Record.load(path)
        if record.folder == str(folder):
            return record
    return None


class NotPlain(Exception):
    """A returned file that is not read: not a regular file, or too large; the message says
    which."""


def read_returned(path: Path, limit: int = RETURNED_LIMIT) -> bytes:
    """A returned file's contents. Only a regular file is opened (a named pipe would block,
    a device would never end, a symbolic link leads elsewhere), checked with lstat before
    and fstat after opening, and read from at most `limit` bytes."""
    info = os.lstat(path)
    kinds = {stat.S_ISLNK: "a symbolic link", stat.S_ISFIFO: "a named pipe"}
    kinds |= {stat.S_ISCHR: "a device", stat.S_ISBLK: "a device", stat.S_ISSOCK: "a socket"}
    kinds |= {stat.S_ISDIR: "a folder"}
    for test, kind in kinds.items():
        if test(info.st_mode):
            raise NotPlain(f"is {kind}, not a regular file")
    if info.st_size > limit:
        raise NotPlain(f"is larger than {limit // 2**20} MiB")
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)
    descriptor = os.open(path, flags)
    with os.fdopen(descriptor, "rb") as file:
        now = os.fstat(file.fileno())
        if not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino) != (info.st_dev, info.st_ino):
            raise NotPlain("changed while it was read")
        data = file.read(limit + 1)
    if len(data) > limit:
        raise NotPlain(f"is larger than {limit // 2**20} MiB")
    return data


def read_manifest(folder: Path) -> dict[str, object]:
    path = folder / takehome.MANIFEST
    try:
        data = json.loads(read_returned(path, 64 * 1024)) if os.path.lexists(path) else {}
    except (OSError, ValueError, NotPlain):
        return {}
    return data if isinstance(data, dict) else {}


def handed_out(
    args: argparse.Namespace, root: Path, folder: Path, katas: dict[str, catalog.Kata]
) -> tuple[list[catalog.Kata], takehome.Record | None, list[Flag]]:
    """The katas to grade, the record (or None) and the flags about the manifest."""
    manifest = read_manifest(folder)
    record = find_record(root, folder, manifest)
    if args.katas:
        chosen = pick(katas, args.katas)
    elif record is not None:
        chosen = pick(katas, record.katas)
    else:
        raise UsageError(
            f"no record of the take-home {folder.name!r} in {root / takehome.RECORDS} "
            "(`katas takehome` writes one): pass --katas 6 13 24 to say what was handed out"
        )
    flags = []
    listed = manifest.get("katas")
    if listed != [kata.module for kata in chosen]:
        shown = ", ".join(map(str, listed)) if isinstance(listed, list) else "nothing readable"
        flags.append(
            Flag(
                f"the returned {takehome.MANIFEST} lists {shown}; graded what was handed out: "
                + ", ".join(kata.module for kata in chosen),
                "edited",
                file=takehome.MANIFEST,
            )
        )
    return chosen, record, flags


# -- the returned folder ------------------------------------------------------------------


def returned_files(folder: Path) -> dict[str, Path]:
    """Every file in the returned folder by relative path, symlinks included, not followed."""
    found = {}
    for current, dirs, files in os.walk(folder):
        here = Path(current)
        dirs[:] = sorted(d for d in dirs if not ignored(here, d) and not (here / d).is_symlink())
        for name in [*files, *(d for d in os.listdir(here) if (here / d).is_symlink())]:
            if not ignored(here, name):
                found[str((here / name).relative_to(folder))] = here / name
    return found


@dataclass
class Refusal:
    """Why a returned stub is not run: its verdict, and the flag's kind where it is flagged."""

    verdict: str
    reason: str
    flag_kind: str | None = None


def check_stub(folder: Path, kata: catalog.Kata, relative: str | None = None) -> bytes | Refusal:
    """The stub's contents (or those of the returned file at `relative`), or why it cannot be
    graded."""
    relative = relative or f"katas/{kata.module}.py"
    path = folder / relative
    if not os.path.lexists(path):
        return Refusal(NOT_STARTED, f"{relative} is missing (deleted)")
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode) or (folder / "katas").is_symlink():
        target = os.path.realpath(path)
        reason = f"{relative} is a symbolic link (to {target}); only plain files are graded"
        return Refusal(FLAGGED, reason, "refused")
    if not stat.S_ISREG(info.st_mode):
        return Refusal(
            FLAGGED, f"{relative} is not a regular file; only plain files are graded", "refused"
        )
    if info.st_nlink > 1:
        reason = f"{relative} is a hard link ({info.st_nlink} names); only plain files are graded"
        return Refusal(FLAGGED, reason, "refused")
    if folder.resolve() not in path.resolve().parents:
        return Refusal(FLAGGED, f"{relative} resolves outside the returned folder", "refused")
    try:
        source = read_returned(path)
    except (OSError, NotPlain) as error:
        return Refusal(FLAGGED, f"{relative} {error}; only plain files are graded", "refused")
    try:
        compile(source, relative, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as error:
        line = getattr(error, "lineno", None)
        where = f" (line {line})" if line else ""
        message = getattr(error, "msg", None) or str(error)
        return Refusal(ERROR, f"syntax error{where}: {message}")
    return source


def file_flags(
    folder: Path,
    chosen: list[catalog.Kata],
    record: takehome.Record | None,
    suite: dict[str, bytes],
) -> tuple[list[Flag], dict[str, str]]:
    """Flags for every file that differs from what was handed out, and diffs of harness files."""
    stubs = {f"katas/{kata.module}.py" for kata in chosen}
    expected: dict[str, str | None] = (
        dict(record.files) if record else {n: sha256(d) for n, d in suite.items()}
    )
    if not record:  # written by `katas takehome`, not knowable here
        expected.update({"README.md": None, ".gitignore": None, takehome.MANIFEST: None})
    flags, diffs = [], {}
    found = returned_files(folder)
    extra = []
    for name, path in sorted(found.items()):
        if name in stubs or name == takehome.MANIFEST:
            continue
        if path.is_symlink():
            flags.append(Flag(f"{name} is a symbolic link; not used for grading", "added", name))
            continue
        if name not in expected:
            extra.append(name)
            continue
        try:
            data = read_returned(path)
        except (OSError, NotPlain) as error:
            flags.append(Flag(f"{name} {error}; not read, not used for grading", "refused", name))
            continue
        if expected[name] is not None and sha256(data) != expected[name]:
            flags.append(
                Flag(f"{name} was edited; the grade used the suite's copy", "edited", name)
            )
            if name in suite:
                diffs[name] = diff(suite[name], data, name)
    for name in extra[:LISTED]:
        flags.append(Flag(f"{name} is a new file; not used for grading", "added", name))
    if len(extra) > LISTED:
        flags.append(Flag(f"{len(extra) - LISTED} more new files", "added"))
    unused = {"README.md", ".gitignore", takehome.MANIFEST}  # the candidate's to change
    for name in sorted(set(expected) - set(found) - stubs - unused):
        flags.append(Flag(f"{name} was deleted; the grade used the suite's copy", "edited", name))
    return flags, diffs


def diff(ours: bytes, theirs: bytes, name: str) -> str:
    lines = difflib.unified_diff(
        ours.decode(errors="replace").splitlines(keepends=True),
        theirs.decode(errors="replace").splitlines(keepends=True),
        f"handed out/{name}",
        f"returned/{name}",
    )
    return "".join(lines)


# -- one kata -------------------------------------------------------------------------------


def grade_kata(
    kata: catalog.Kata,
    source: bytes,
    root: Path,
    scratch: Path,
    options: Options,
    collection: Collection,
) -> tuple[KataGrade, list[Flag]]:
    """The kata's grade from its run (of the tests the collection found), and the flags the
    run raised."""
    place = scratch / kata.module
    suite, work = place / "suite", place / "work"
    files = takehome.suite_files(root, [kata], stubs=False)
    files[f"katas/{kata.module}.py"] = source
    takehome.write_files(suite, files)
    for path in suite.rglob("*"):  # read-only: the candidate's code may not rewrite the tests
        path.chmod(0o555 if path.is_dir() else 0o444)
    suite.chmod(0o555)
    work.mkdir()
    token = secrets.token_hex(16)
    pytest_args = [f"katas/{kata.module}_test.py", *pytest_options(options)]
    paths = os.pathsep.join([str(suite), *sandbox.site_packages()])
    command = ["-I", "-S", "-B", "-c", CHILD, paths, sandbox.RESULTS_FD, kata.module]
    outcome = sandbox.run(
        [*command, "--", *pytest_args],
        suite=suite,
        work=work,
        mode=options.sandbox,
        timeout=options.timeout,
        stdin=f"{token}\n{json.dumps(options.forbidden)}",
        log=place / "log.txt",
    )
    expected = collection.tests()
    if isinstance(expected, str):  # the suite's own problem, not the candidate's
        return KataGrade(kata.title, ERROR, reason=expected, seconds=round(outcome.seconds, 2)), []
    log = place / "log.txt"
    grade, flags = judge(kata, outcome, token, log, options, expected[kata.module])
    grade.seconds = round(outcome.seconds, 2)
    if outcome.survivors:
        reason = (
            f"{outcome.survivors} processes its code started were still being created "
            f"{sandbox.KILL_DEADLINE:g} s after the kata ended; some may still run"
        )
        flags.append(Flag(reason, "sandbox", f"katas/{kata.module}.py", kata.module))
        grade.verdict, grade.reason = ERROR, reason
    return grade, flags


def last_line(log: Path) -> str:
    """The last line of a process's output, read from its last LOG_TAIL bytes only."""
    try:
        with log.open("rb") as file:
            file.seek(max(0, file.seek(0, os.SEEK_END) - LOG_TAIL))
            text = file.read(LOG_TAIL).decode(errors="replace")
    except OSError:
        return ""
    lines = [line.strip() for line in text.splitlines()]
    lines = [line for line in lines if line and not line.startswith("=")]
    return lines[-1][:200] if lines else ""


def judge(
    kata: catalog.Kata,
    outcome: sandbox.Outcome,
    token: str,
    log: Path,
    options: Options,
    expected: set[str],
) -> tuple[KataGrade, list[Flag]]:
    """The kata's grade from what its process did and wrote, and the flags it raised.

    The tests are those of `expected`, the suite's own collection: one the process does not
    report as passed in its call is failed, whatever the process says of it.
    """
    stub = f"katas/{kata.module}.py"
    grade = KataGrade(kata.title, ERROR, total=len(expected))
    if outcome.exceeded:
        grade.reason = f"its code {outcome.exceeded}: killed"
        return grade, []
    if outcome.returncode is None:
        grade.reason = (
            f"no result within the {options.timeout:g} s limit (an endless loop or a hang, "
            "perhaps at import): killed"
        )
        return grade, []
    if outcome.returncode < 0:
        try:
            name = signal.Signals(-outcome.returncode).name
        except ValueError:
            name = f"signal {-outcome.returncode}"
        grade.reason = f"the test process crashed ({name})"
        if name == "SIGXFSZ":
            grade.reason += f": it wrote a file past the {sandbox.FILE_LIMIT // 2**20} MiB limit"
        return grade, []
    try:
        if outcome.overflow:
            raise schema.SchemaError(f"more than {sandbox.RESULTS_LIMIT // 2**20} MiB of results")
        data = schema.collect(outcome.messages, token)
    except schema.Forged:
        grade.verdict = FLAGGED
        grade.reason = "its results were not all written by the grading plugin"
        return grade, [Flag(grade.reason, "tampering", stub, kata.module)]
    except schema.NoResults:
        hint = last_line(log)
        grade.reason = (
            f"the test process exited (status {outcome.returncode}) before reporting its tests"
            + (f"; last output: {hint}" if hint else "")
        )
        return grade, []
    except schema.SchemaError as error:
        # The child always writes results that fit; these were written by something else.
        grade.reason = f"its results could not be read ({error})"
        flag = f"its results were not written by the grading plugin ({error})"
        return grade, [Flag(flag, "tampering", stub, kata.module)]
    if outcome.returncode != 0:
        grade.reason = f"the test process exited with status {outcome.returncode}"
        return grade, []
    reported = data["tests"]
    tests = {name: reported[name] for name in expected if name in reported}
    passed = {n for n, t in tests.items() if t["outcome"] == "passed" and t["called"]}
    skipped = {n for n, t in tests.items() if t["outcome"] == "skipped"}
    failed = set(expected) - passed - skipped
    grade.devices = [d for d in data["devices"] if DEVICE.fullmatch(d)]
    if grade.devices != data["devices"]:
        data["problems"].append("the run named devices that are not device names")
    grade.autoloaded_plugins = data["autoloaded_plugins"]
    grade.passed, grade.total, grade.skipped = (
        len(passed),
        len(expected) - len(skipped),
        len(skipped),
    )
    ordered = sorted(expected, key=lambda name: (name not in reported, name))
    grade.tests_run = [name.split("::", 1)[-1] for name in ordered if name not in skipped]
    by_message: dict[str, list[str]] = {}
    for name in ordered:
        if name in failed:
            if name not in reported:
                message = "never reported: the test run ended before this test, or lost its report"
            else:
                message = tests[name]["message"] or "its call never finished"
            by_message.setdefault(message, []).append(name.split("::", 1)[-1])
    grade.failures = [FailureGroup(m, t) for m, t in by_message.items()]
    problems = data["problems"] + data["tampering"] + data["refused_reads"]
    extra = sorted(set(reported) - set(expected))
    if extra:
        shown = ", ".join(name.split("::", 1)[-1][:80] for name in extra[:3])
        problems.append(f"the run reported {len(extra)} tests the suite does not have ({shown})")
    if problems:
        grade.verdict = FLAGGED
        grade.reason = "; ".join(problems[:5])
        return grade, [Flag(grade.reason, "tampering", stub, kata.module)]
    exit_code = data["exit_code"]
    if not data["stub_imported"]:
        message = (data["collect_errors"] or list(by_message) or ["no message"])[0]
        grade.reason = f"the stub failed to import: {message}"
    elif data["collect_errors"]:
        grade.reason = f"collecting the tests failed: {data['collect_errors'][0]}"
    elif exit_code not in (0, 1):
        what = PYTEST_EXITS.get(exit_code, "an unknown status")
        grade.reason = f"the test run did not finish (pytest exit status {exit_code}: {what})"
    else:
        unwritten_only = all(tests[n]["not_implemented"] for n in failed if n in tests)
        unwritten_only = unwritten_only and failed <= set(tests)
        verdict = status.decide(passed, failed, skipped, set(expected), unwritten_only)
        if verdict == status.SKIPPED:
            grade.reason = "no test ran"
        else:
            grade.verdict = verdict
    return grade, []


class Collection:
    """Each kata's tests (node ids), from one `pytest --collect-only` of the suite with the
    stubs as handed out, in a process of its own that no code of the candidate's can reach:
    started before any of it runs, read when first needed."""

    def __init__(self, root: Path, chosen: list[catalog.Kata], scratch: Path, options: Options):
        self.chosen = chosen
        place = scratch / "collection"
        suite, work = place / "suite", place / "work"
        # Only the tests' names come of it: stubs of an unpacked suite do as well as any.
        takehome.write_files(suite, takehome.suite_files(root, chosen, stubs=True, unpacked=True))
        work.mkdir()
        test_files = [f"katas/{kata.module}_test.py" for kata in chosen]
        command = [sys.executable, "-m", "pytest", "--collect-only", *test_files]
        self.output = place / "output.txt"
        self.started = time.monotonic()
        with self.output.open("wb") as output:
            self.process = subprocess.Popen(
                [*command, *pytest_options(options)],
                cwd=suite,
                env=sandbox.environment(suite, work),
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
            )
        self.result: dict[str, set[str]] | str | None = None

    def tests(self) -> dict[str, set[str]] | str:
        """The tests by kata module, or why the collection failed."""
        if self.result is None:
            self.result = self.finish()
        return self.result

    def finish(self) -> dict[str, set[str]] | str:
        left = COLLECT_TIMEOUT - (time.monotonic() - self.started)
        try:
            returncode = self.process.wait(timeout=max(left, 0))
        except subprocess.TimeoutExpired:
            self.stop()
            return f"collecting the suite's tests took over {COLLECT_TIMEOUT} s"
        output = self.output.read_text(errors="replace")
        if returncode != 0:
            lines = [line for line in output.splitlines() if line.strip()]
            last = lines[-1][:200] if lines else "no output"
            return f"collecting the suite's tests failed (status {returncode}): {last}"
        found: dict[str, set[str]] = {kata.module: set() for kata in self.chosen}
        for line in output.splitlines():
            module = catalog.module_of(Path(line.split("::", 1)[0])) if "::" in line else None
            if module in found:
                found[module].add(line.strip())
        empty = [module for module, tests in found.items() if not tests]
        if empty:
            return f"collecting the suite's tests found none for {', '.join(empty)}"
        return found

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


# -- the whole take-home --------------------------------------------------------------------


def clear_old_reports(folder: Path, out: Path) -> None:
    """No report from an earlier grade, or shipped by the candidate, survives this one."""
    for path in (folder / "grading", out):
        if path.is_symlink() or path.is_file():
            path.unlink()
        elif path == folder / "grading" and path.is_dir():
            remove_tree(path)
    if out.is_dir():
        for name in REPORTS:
            if os.path.lexists(out / name):
                (out / name).unlink()


def remove_tree(path: Path) -> None:
    """Remove a folder, also where its copy of the suite was made read-only."""
    if not os.path.lexists(path):
        return
    if path.is_dir() and not path.is_symlink():
        for current, _, _ in os.walk(path):
            os.chmod(current, 0o700)
    shutil.rmtree(path, ignore_errors=True)


def forbidden_paths(root: Path, folder: Path, out: Path) -> list[str]:
    """What the candidate's code may not read: the suite's checkout, the returned folder, the
    reports, the interviewer's home."""
    paths = {root, folder, out, Path.home(), Path.cwd()}
    return sorted(str(p.resolve()) for p in paths if p.resolve() != Path("/"))


def version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def candidate_environment(folder: Path) -> dict[str, str] | None:
    """The torch and Python the candidate's last run of the take-home reported, where the
    folder holds that run's cache (informative only: the candidate can write anything there)."""
    # Read, not opened as a Store: that would write to the candidate's folder.
    path = store.Store(folder / store.FOLDER).path(store.ENVIRONMENT_KEY)
    older = folder / store.DEFAULT_CACHE_DIR / "v" / "torch_katas" / store.ENVIRONMENT_KEY
    try:
        # The progress folder, or pytest's cache where versions before it kept the same key:
        # each read as any returned file is (a regular file only, capped).
        found = next((p for p in (path, older) if p is not None and os.path.lexists(p)), None)
        if found is None:
            return None
        data = json.loads(read_returned(found, 4096).decode(errors="replace"))
    except (OSError, ValueError, NotPlain):
        return None
    if not isinstance(data, dict):
        return None
    return {key: str(data[key])[:60] for key in ("torch", "python", "platform") if key in data}


def practice_verdict(
    root: Path,
    record: takehome.Record | None,
    kata: catalog.Kata,
    source: bytes,
    grade: KataGrade,
    held_out: list[str] | None = None,
) -> bughunt.Verdict | None:
    """A bug hunt's take-home: whether the kata's bug was found and fixed, and how."""
    if record is None or record.mode != "bughunt" or not record.bughunt:
        return None
    hunt = bughunt.Hunt.from_dict(record.bughunt.get(kata.module))
    if hunt is None:
        return None
    text = source.decode(errors="replace")
    return bughunt.hunt_verdict(root, hunt, text, grade.verdict, held_out or [])


def failed_tests(grade: KataGrade) -> set[str]:
    return {test for group in grade.failures for test in group.tests}


def graded_held_out(
    kata: catalog.Kata,
    source: bytes,
    root: Path,
    scratch: Path,
    options: Options,
    collection: Collection,
    passing: tuple[str, ...],
) -> tuple[KataGrade, list[Flag], list[str]]:
    """A kata's grade, its flags, and the tests it fails only on held-out inputs.

    The tests draw their inputs from generators seeded as the candidate's own runs seed them,
    so they run first on held-out inputs: the generators seeded anew (a seed the candidate
    cannot know beforehand) and each file's tests in a random order. An answer that passes
    there, fails only where its functions are unwritten, or hangs (its time limit spent), is
    graded by that run alone.
    Otherwise the tests run again as shipped, which gives the grade; a test that failed only
    on held-out inputs (every test, where that run did not finish) is one the answer passes
    only on the inputs as shipped, unless the reference under the same seed fails it too
    (where the suite has no references, or their run does not finish, it counts)."""
    seed = options.seed or secrets.randbelow(2**31 - 1) + 1
    held = dataclasses.replace(options, seed=seed)
    first, flags = grade_kata(kata, source, root, scratch / "held-out", held, collection)
    if first.verdict in (status.SOLVED, FLAGGED, NOT_STARTED):
        return first, flags, []
    if first.verdict == ERROR and first.seconds >= options.timeout:
        return first, flags, []  # a hang: it has spent the kata's time limit
    grade, more = grade_kata(kata, source, root, scratch, options, collection)
    flags += [flag for flag in more if flag not in flags]  # each once, raised by either run
    grade.seconds = round(grade.seconds + first.seconds, 2)
    if grade.verdict not in passing:
        return grade, flags, []
    failed = failed_tests(first)
    if first.verdict not in (status.SOLVED, status.PARTLY):
        # A run that did not finish (a hang, a crash, an exit where the inputs are not those
        # shipped) passed nothing: its failures name only the tests it reported.
        tests = collection.tests()
        if isinstance(tests, dict):
            failed |= {name.split("::", 1)[-1] for name in tests.get(kata.module, ())}
    extra = failed - failed_tests(grade)
    if not extra:
        return grade, flags, []
    reference = kata.solution_path(root)
    if not reference.is_file():  # a suite without its references (Gradescope's)
        return grade, flags, sorted(extra)
    theirs, _ = grade_kata(
        kata, reference.read_bytes(), root, scratch / "held-out-reference", held, collection
    )
    if theirs.verdict not in (status.SOLVED, status.PARTLY):
        # The reference did not finish: nothing clears those tests, so they count as failed
        # (as where the suite has no references), never as passed.
        return grade, flags, sorted(extra)
    return grade, flags, sorted(extra - failed_tests(theirs))


def recognised_inputs(
    root: Path, kata: catalog.Kata, source: bytes, suite: dict[str, bytes]
) -> str | None:
    """Why a plain kata's answer can recognise the tests' fixed inputs, or None: it decides by
    numbers the kata's tests use that neither the stub (with every hint) nor the reference has
    (`loss <= tol != 1.75`, spelled as arithmetic or digits too): it passes those inputs, which
    held-out seeds do not change, and does otherwise for every other (a bug hunt's fix is held
    to the same)."""

    reference = kata.solution_path(root)
    if not reference.is_file():
        return None  # a suite without its references (Gradescope's): every number is suspect
    # Where the suite is not a git checkout (Gradescope's), its stubs are those handed out.
    files = takehome.suite_files(root, [kata], stubs=True, hints="all", unpacked=True)
    stub = files.get(f"katas/{kata.module}.py", b"")
    found = bughunt.recognised(
        reference.read_text(encoding="utf-8"),
        stub.decode(errors="replace"),
        source.decode(errors="replace"),
        suite.get(f"katas/{kata.module}_test.py", b"").decode(errors="replace"),
    )
    if not found:
        return None
    shown = ", ".join(repr(value) for value in found[:3])
    return (
        f"it decides by values of the tests' fixed inputs ({shown}) that neither the stub nor "
        "the reference has: it can recognise the inputs the tests use instead of computing"
    )


HELD_OUT = (
    "fails on held-out inputs (the random generators seeded anew, where the reference "
    "passes): an answer tuned to the inputs as shipped"
)


def fail_held_out(grade: KataGrade, missed: list[str]) -> None:
    """The tests a plain kata's answer passed on the inputs as shipped and fails on held-out
    ones, where the reference passes: counted as failed."""
    already = failed_tests(grade)
    tuned = [test for test in missed if test not in already]
    if not tuned:
        return
    grade.passed = max(grade.passed - len(tuned), 0)
    grade.failures.insert(0, FailureGroup(HELD_OUT, tuned))
    grade.verdict = status.PARTLY
    grade.reason = (
        f"{len(tuned)} of its tests fail on held-out inputs (the random generators seeded "
        f"anew), where the reference passes: {tuned[0]}"
    )


def apply_policy(grade: KataGrade, findings: list[policy.Finding]) -> None:
    """A refused construct makes the kata flagged; what its tests said is kept beside it."""
    grade.run_verdict = grade.verdict
    shown = "; ".join(str(finding) for finding in findings[:3])
    more = f" and {len(findings) - 3} more" if len(findings) > 3 else ""
    refused = f"the policy for returned code refuses {shown}{more}"
    grade.reason = refused + (f"; its tests: {grade.reason}" if grade.reason else "")
    grade.verdict = FLAGGED


def cmd_grade(args: argparse.Namespace, root: Path, katas: dict[str, catalog.Kata]) -> int:
    folder = Path(args.folder).resolve()
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder: give the candidate's take-home folder")
    if args.timeout <= 0:
        raise UsageError("--timeout: give the seconds each kata may take, such as 300")
    out = Path(args.out).resolve() if args.out else folder / "grading"
    try:
        mode, warning = sandbox.choose(args.sandbox, args.allow_root)
    except ValueError as error:
        raise UsageError(str(error)) from None
    chosen, record, flags = handed_out(args, root, folder, katas)
    warnings = [warning] if warning else []
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    clear_old_reports(folder, out)
    suite = takehome.suite_files(root, chosen, stubs=False)
    more, diffs = file_flags(folder, chosen, record, suite)
    testing = record is not None and record.mode == "testwrite"  # the candidate wrote tests
    if testing:  # the returned test modules are graded, not "edited"
        returned = {practice.returned_file(kata) for kata in chosen}
        more = [flag for flag in more if flag.file not in returned]
        diffs = {name: text for name, text in diffs.items() if name not in returned}
    flags += more
    options = Options(args.timeout, args.device, mode, forbidden_paths(root, folder, out))
    started = time.monotonic()
    grades: dict[str, KataGrade] = {}
    print(f"grading {folder.name}: {len(chosen)} katas, sandbox {mode}, {args.timeout:g} s each")
    scratch = Path(tempfile.mkdtemp(prefix="katas-grade-"))
    reaping = sandbox.set_subreaper(True)
    collection: Collection | None = None
    try:
        # What each kata's tests are, from a process the candidate's code cannot reach: under
        # bwrap it runs beside the first kata (in namespaces of its own); under none, first.
        collection = Collection(root, chosen, scratch, options)
        if mode == "none":
            collection.tests()
        for number, kata in enumerate(chosen, 1):
            print(f"[{number}/{len(chosen)}] {kata.label} {kata.title}: ", end="", flush=True)
            stub = practice.returned_file(kata) if testing else f"katas/{kata.module}.py"
            source = check_stub(folder, kata, stub)
            if isinstance(source, Refusal):
                grade = KataGrade(kata.title, source.verdict, reason=source.reason)
                if source.flag_kind is not None:
                    flags.append(Flag(source.reason, source.flag_kind, stub, kata.module))
            else:
                text = source.decode(errors="replace")
                findings = (
                    testwrite.check(text, kata, stub)
                    if testing
                    else policy.check(
                        text,
                        kata.imports,
                        stub,
                        kata.allow,
                        suite.get(f"katas/{kata.module}_test.py"),
                    )
                )
                for finding in findings:
                    flags.append(
                        Flag(finding.text, "policy", stub, kata.module, finding.line, finding.rule)
                    )
                missed: list[str] = []
                hunting = record is not None and record.mode == "bughunt" and record.bughunt
                passing = (status.SOLVED,) if hunting else (status.SOLVED, status.PARTLY)
                if testing:
                    grade, raised = testwrite.grade_kata(
                        kata,
                        source,
                        root,
                        scratch,
                        timeout=options.timeout,
                        mode=options.sandbox,
                        forbidden=options.forbidden,
                        pytest_args=["--device", options.device] if options.device else [],
                    )
                else:
                    grade, raised, missed = graded_held_out(
                        kata, source, root, scratch, options, collection, passing
                    )
                flags += raised
                if findings:
                    apply_policy(grade, findings)
                # The tests' fixed inputs are the same under every seed: an answer can
                # recognise them by their numbers.
                if not testing and not hunting and grade.verdict in passing:
                    recognising = recognised_inputs(root, kata, source, suite)
                    if recognising is not None:
                        flags.append(Flag(recognising, "policy", stub, kata.module, rule="inputs"))
                        grade.run_verdict, grade.verdict = grade.verdict, FLAGGED
                        grade.reason = recognising
                if missed and grade.verdict in passing:
                    if hunting:
                        grade.verdict = status.PARTLY
                        grade.reason = (
                            f"{len(missed)} of its tests fail on held-out inputs (the random "
                            f"generators seeded anew), where the reference passes: {missed[0]}"
                        )
                    else:
                        fail_held_out(grade, missed)
                if grade.verdict != FLAGGED:  # a flagged module's verdict says so alone
                    hunt = practice_verdict(root, record, kata, source, grade, missed)
                    grade.practice = hunt.words if hunt else None
                    unfixed = hunt is not None and hunt.outcome == bughunt.NOT_FIXED
                    if unfixed and grade.verdict == status.SOLVED:  # its tests alone pass
                        grade.verdict = status.PARTLY
                    if hunt is not None and hunt.outcome == bughunt.REVIEW:
                        flags.append(Flag(hunt.why, "policy", stub, kata.module, rule="bughunt"))
                        grade.run_verdict, grade.verdict = grade.verdict, FLAGGED
                        grade.reason = hunt.why
                        grade.practice = hunt.headline  # the reason says why
            grades[kata.module] = grade
            shown = grade.verdict + (f" ({grade.reason})" if grade.reason else "")
            shown += f"; {grade.practice}" if grade.practice else ""
            shown = reports.plain(
                shown
            )  # no escape sequence of the candidate's reaches the terminal
            print(f"{shown}, {grade.passed}/{grade.total} tests, {grade.seconds:.1f} s")
        problem = collection.tests()
        if isinstance(problem, str):
            print(f"warning: {reports.plain(problem)}", file=sys.stderr)
            warnings.append(problem)
    except KeyboardInterrupt:
        print("\ngrading interrupted: no report written", file=sys.stderr)
        return 130
    finally:
        if collection is not None:
            collection.stop()
        if reaping:
            sandbox.set_subreaper(False)
        remove_tree(scratch)
    report = Report(
        candidate=args.name or folder.name,
        date=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        suite_commit=takehome.commit(root),
        handed_out=record.commit if record else None,
        torch=version("torch"),
        python=platform.python_version(),
        devices=sorted({d for grade in grades.values() for d in grade.devices}),
        sandbox=mode,
        timeout=args.timeout,
        seconds=round(time.monotonic() - started, 2),
        katas=grades,
        flags=flags,
        diffs=diffs,
        warnings=warnings,
        hints=record.hints if record else None,
        candidate_environment=candidate_environment(folder),
    )
    written = reports.write(out, report, args.format)
    print(
        f"score {report.score:.0%}, {report.solved} of {len(grades)} katas solved, "
        f"{len(flags)} flags; report in {out} ({', '.join(written)})"
    )
    return 0 if report.solved == len(grades) else 1
