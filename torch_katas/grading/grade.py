"""`katas grade`: grade a returned take-home folder, one kata at a time, trusting only the stubs.

What was handed out comes from the interviewer's record (takehome.py) or `--katas`, never from
the returned folder. Each kata runs in a process of its own (child.py), in a fresh copy of
the suite holding only that kata's test, the harness and the candidate's stub, under a time
limit and a sandbox where the machine has one (sandbox.py). The grader alone writes the
reports (reports.py), after every process the candidate's code started is gone.
"""

from __future__ import annotations

import argparse
import datetime
import difflib
import importlib.metadata
import json
import os
import platform
import secrets
import shutil
import signal
import stat
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from torch_katas import catalog, status
from torch_katas.catalog import UsageError, pick, sha256
from torch_katas.grading import reports, review, sandbox, schema, takehome
from torch_katas.grading.reports import REPORTS, FailureGroup, Flag, KataGrade, Report
from torch_katas.status import ERROR, FLAGGED, NOT_STARTED

TEST_TIMEOUT = 60  # pytest-timeout's limit per test, as in pyproject.toml
# Left by running the take-home (environments, caches), not written by the candidate.
IGNORED = {".git", ".venv", "venv", "__pycache__", ".pytest_cache", ".ruff_cache", ".mypy_cache"}
CHILD = "from torch_katas.grading.child import main; main()"
LISTED = 30  # new or edited files listed one by one; more are counted


@dataclass
class Options:
    timeout: float
    device: str | None
    sandbox: str
    forbidden: list[str]  # paths the candidate's code may not read


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


def read_manifest(folder: Path) -> dict[str, object]:
    path = folder / takehome.MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, ValueError):
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
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in IGNORED and not d.endswith(".egg-info") and not (here / d).is_symlink()
        )
        for name in [*files, *(d for d in os.listdir(here) if (here / d).is_symlink())]:
            found[str((here / name).relative_to(folder))] = here / name
    return found


@dataclass
class Refusal:
    """Why a returned stub is not run: its verdict, and the flag's kind where it is flagged."""

    verdict: str
    reason: str
    flag_kind: str | None = None


def check_stub(folder: Path, kata: catalog.Kata) -> bytes | Refusal:
    """The stub's contents, or why it cannot be graded."""
    relative = f"katas/{kata.module}.py"
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
    source = path.read_bytes()
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
        expected.update({"README.md": None, takehome.MANIFEST: None})
    flags, diffs = [], {}
    found = returned_files(folder)
    extra = []
    for name, path in sorted(found.items()):
        if name in stubs or name == takehome.MANIFEST:
            continue
        if path.is_symlink():
            flags.append(Flag(f"{name} is a symbolic link; not used for grading", "added", name))
        elif name not in expected:
            extra.append(name)
        elif expected[name] is not None and sha256(path.read_bytes()) != expected[name]:
            flags.append(
                Flag(f"{name} was edited; the grade used the suite's copy", "edited", name)
            )
            if name in suite:
                diffs[name] = diff(suite[name], path.read_bytes(), name)
    for name in extra[:LISTED]:
        flags.append(Flag(f"{name} is a new file; not used for grading", "added", name))
    if len(extra) > LISTED:
        flags.append(Flag(f"{len(extra) - LISTED} more new files", "added"))
    for name in sorted(set(expected) - set(found) - stubs - {"README.md", takehome.MANIFEST}):
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
    kata: catalog.Kata, source: bytes, root: Path, scratch: Path, options: Options
) -> tuple[KataGrade, str | None]:
    """The kata's grade and, where it is flagged, the flag's kind."""
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
    results = work / "results.json"
    pytest_args = [f"katas/{kata.module}_test.py", "-p", "pytest_timeout", "-p", "no:cacheprovider"]
    pytest_args += ["-o", f"timeout={min(TEST_TIMEOUT, options.timeout)}", "-q", "--color=no"]
    if options.device:
        pytest_args += ["--device", options.device]
    command = ["-S", "-c", CHILD, str(results), kata.module]
    outcome = sandbox.run(
        [*command, "--", *pytest_args],
        suite=suite,
        work=work,
        mode=options.sandbox,
        timeout=options.timeout,
        stdin=f"{token}\n{json.dumps(options.forbidden)}",
        log=place / "log.txt",
    )
    grade, kind = judge(kata, outcome, results, token, place / "log.txt", options.timeout)
    grade.seconds = round(outcome.seconds, 2)
    return grade, kind


def last_line(log: Path) -> str:
    try:
        lines = [line.strip() for line in log.read_text(errors="replace").splitlines()]
    except OSError:
        return ""
    lines = [line for line in lines if line and not line.startswith("=")]
    return lines[-1][:200] if lines else ""


def judge(
    kata: catalog.Kata,
    outcome: sandbox.Outcome,
    path: Path,
    token: str,
    log: Path,
    limit: float,
) -> tuple[KataGrade, str | None]:
    """The kata's grade from what its process did and wrote, and the flag's kind if any."""
    grade = KataGrade(kata.title, ERROR)
    if outcome.returncode is None:
        grade.reason = (
            f"no result within the {limit:g} s limit (an endless loop or a hang, perhaps at "
            "import): killed"
        )
        return grade, None
    if outcome.returncode < 0:
        try:
            name = signal.Signals(-outcome.returncode).name
        except ValueError:
            name = f"signal {-outcome.returncode}"
        grade.reason = f"the test process crashed ({name})"
        return grade, None
    try:
        data = schema.read(path)
    except schema.NoResults:
        hint = last_line(log)
        grade.reason = (
            f"the test process exited (status {outcome.returncode}) before reporting its tests"
            + (f"; last output: {hint}" if hint else "")
        )
        return grade, None
    except schema.SchemaError as error:
        # The child always writes results that fit; these were written by something else.
        grade.verdict = FLAGGED
        grade.reason = f"the results file was not written by the grading plugin ({error})"
        return grade, "tampering"
    if not secrets.compare_digest(data["token"], token):
        grade.verdict = FLAGGED
        grade.reason = "the results file was not written by the grading plugin"
        return grade, "tampering"
    if outcome.returncode != 0:
        grade.reason = f"the test process exited with status {outcome.returncode}"
        return grade, None
    tests = data["tests"]
    passed = {n for n, t in tests.items() if t["outcome"] == "passed" and t["called"]}
    skipped = {n for n, t in tests.items() if t["outcome"] == "skipped"}
    failed = set(tests) - passed - skipped
    counted = [n for n in tests if n not in skipped]
    grade.devices = data["devices"]
    grade.autoloaded_plugins = data["autoloaded_plugins"]
    grade.passed, grade.total, grade.skipped = len(passed), len(counted), len(skipped)
    grade.tests_run = [name.split("::", 1)[-1] for name in counted]
    by_message: dict[str, list[str]] = {}
    for name in counted:
        if name in failed:
            message = tests[name]["message"] or "its call never finished"
            by_message.setdefault(message, []).append(name.split("::", 1)[-1])
    grade.failures = [FailureGroup(m, t) for m, t in by_message.items()]
    problems = data["tampering"] + data["refused_reads"]
    if problems:
        grade.verdict = FLAGGED
        grade.reason = "; ".join(problems[:5])
        return grade, "tampering"
    if not data["stub_imported"]:
        message = (data["collect_errors"] or list(by_message) or ["no message"])[0]
        grade.reason = f"the stub failed to import: {message}"
    elif data["collect_errors"]:
        grade.reason = f"collecting the tests failed: {data['collect_errors'][0]}"
    else:
        unwritten_only = all(tests[name]["not_implemented"] for name in failed)
        verdict = status.decide(passed, failed, skipped, set(tests), unwritten_only)
        if verdict == status.SKIPPED:
            grade.reason = "no test ran"
        else:
            grade.verdict = verdict
    return grade, None


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


def cmd_grade(args: argparse.Namespace, root: Path, katas: dict[str, catalog.Kata]) -> int:
    folder = Path(args.folder).resolve()
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder: give the candidate's take-home folder")
    if args.timeout <= 0:
        raise UsageError("--timeout: give the seconds each kata may take, such as 300")
    out = Path(args.out).resolve() if args.out else folder / "grading"
    try:
        mode = sandbox.choose(args.sandbox)
    except ValueError as error:
        raise UsageError(str(error)) from None
    chosen, record, flags = handed_out(args, root, folder, katas)
    clear_old_reports(folder, out)
    suite = takehome.suite_files(root, chosen, stubs=False)
    more, diffs = file_flags(folder, chosen, record, suite)
    flags += more
    options = Options(args.timeout, args.device, mode, forbidden_paths(root, folder, out))
    started = time.monotonic()
    grades: dict[str, KataGrade] = {}
    print(f"grading {folder.name}: {len(chosen)} katas, sandbox {mode}, {args.timeout:g} s each")
    scratch = Path(tempfile.mkdtemp(prefix="katas-grade-"))
    reaping = sandbox.set_subreaper(True)
    try:
        for number, kata in enumerate(chosen, 1):
            print(f"[{number}/{len(chosen)}] {kata.label} {kata.title}: ", end="", flush=True)
            stub = f"katas/{kata.module}.py"
            source = check_stub(folder, kata)
            if isinstance(source, Refusal):
                grade = KataGrade(kata.title, source.verdict, reason=source.reason)
                kind = source.flag_kind
            else:
                grade, kind = grade_kata(kata, source, root, scratch, options)
                for finding in review.scan(source.decode(errors="replace")):
                    flags.append(Flag(finding, "review", stub, kata.module))
            if kind is not None and grade.reason:
                flags.append(Flag(grade.reason, kind, stub, kata.module))
            grades[kata.module] = grade
            shown = grade.verdict + (f" ({grade.reason})" if grade.reason else "")
            print(f"{shown}, {grade.passed}/{grade.total} tests, {grade.seconds:.1f} s")
    except KeyboardInterrupt:
        print("\ngrading interrupted: no report written", file=sys.stderr)
        return 130
    finally:
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
    )
    written = reports.write(out, report, args.format)
    print(
        f"score {report.score:.0%}, {report.solved} of {len(grades)} katas solved, "
        f"{len(flags)} flags; report in {out} ({', '.join(written)})"
    )
    return 0 if report.solved == len(grades) else 1
