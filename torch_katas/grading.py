"""`katas grade`: grade a returned take-home folder, one kata at a time, trusting only the stubs.

What was handed out comes from the interviewer's record (takehome.py) or `--katas`, never from
the returned folder. Each kata runs in a process of its own (results.py), in a fresh copy of
the suite holding only that kata's test, the harness and the candidate's stub, under a time
limit and a sandbox where the machine has one (sandbox.py). The grader alone writes the
reports, after every process the candidate's code started is gone.
"""

from __future__ import annotations

import datetime
import difflib
import hashlib
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
import xml.etree.ElementTree as ET
from pathlib import Path

from torch_katas import catalog, review, sandbox, takehome
from torch_katas.cli import UsageError, pick

SOLVED, PARTLY, NOT_STARTED, ERROR, FLAGGED = (
    "solved",
    "partly solved",
    "not started",
    "error",
    "flagged",
)
TEST_TIMEOUT = 60  # pytest-timeout's limit per test, as in pyproject.toml
REPORTS = ("report.md", "report.json", "junit.xml", "results.json")
# Left by running the take-home (environments, caches), not written by the candidate.
IGNORED = {".git", ".venv", "venv", "__pycache__", ".pytest_cache", ".ruff_cache", ".mypy_cache"}
CHILD = "from torch_katas.results import main; main()"
LISTED = 30  # new or edited files listed one by one; more are counted


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def flag(reason: str, kind: str, file: str | None = None, kata: str | None = None) -> dict:
    entry = {"reason": reason, "kind": kind}
    if file:
        entry["file"] = file
    if kata:
        entry["kata"] = kata
    return entry


# -- what was handed out ------------------------------------------------------------------


def find_record(root: Path, folder: Path, manifest: dict) -> dict | None:
    records = root / takehome.RECORDS
    for name in (folder.name, manifest.get("name")):
        plain = isinstance(name, str) and name and "/" not in name and not name.startswith(".")
        path = records / f"{name}.json" if plain else None
        if path is not None and path.is_file():
            return json.loads(path.read_text(encoding="utf-8"))
    for path in sorted(records.glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        if record.get("folder") == str(folder):
            return record
    return None


def read_manifest(folder: Path) -> dict:
    path = folder / takehome.MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def handed_out(args, root: Path, folder: Path, katas: dict[str, catalog.Kata]):
    """The katas to grade, the record (or None) and the flags about the manifest."""
    manifest = read_manifest(folder)
    record = find_record(root, folder, manifest)
    if args.katas:
        chosen = pick(katas, args.katas)
    elif record is not None:
        chosen = pick(katas, record["katas"])
    else:
        raise UsageError(
            f"no record of the take-home {folder.name!r} in {root / takehome.RECORDS} "
            "(`katas takehome` writes one): pass --katas 6 13 24 to say what was handed out"
        )
    flags = []
    listed = manifest.get("katas")
    if listed != [kata.module for kata in chosen]:
        shown = ", ".join(listed) if isinstance(listed, list) else "nothing readable"
        flags.append(
            flag(
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


def check_stub(folder: Path, kata: catalog.Kata) -> tuple[bytes | None, dict | None]:
    """The stub's contents, or why it cannot be graded: (None, entry) with its verdict."""
    relative = f"katas/{kata.module}.py"
    path = folder / relative
    if not os.path.lexists(path):
        return None, {"verdict": NOT_STARTED, "reason": f"{relative} is missing (deleted)"}
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode) or (folder / "katas").is_symlink():
        target = os.path.realpath(path)
        reason = f"{relative} is a symbolic link (to {target}); only plain files are graded"
        return None, {"verdict": FLAGGED, "reason": reason, "flag_kind": "refused"}
    if not stat.S_ISREG(info.st_mode):
        reason = f"{relative} is not a regular file; only plain files are graded"
        return None, {"verdict": FLAGGED, "reason": reason, "flag_kind": "refused"}
    if info.st_nlink > 1:
        reason = f"{relative} is a hard link ({info.st_nlink} names); only plain files are graded"
        return None, {"verdict": FLAGGED, "reason": reason, "flag_kind": "refused"}
    if folder.resolve() not in path.resolve().parents:
        reason = f"{relative} resolves outside the returned folder"
        return None, {"verdict": FLAGGED, "reason": reason, "flag_kind": "refused"}
    source = path.read_bytes()
    try:
        compile(source, relative, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as error:
        line = getattr(error, "lineno", None)
        where = f" (line {line})" if line else ""
        message = getattr(error, "msg", None) or str(error)
        return None, {"verdict": ERROR, "reason": f"syntax error{where}: {message}"}
    return source, None


def file_flags(
    folder: Path, chosen: list[catalog.Kata], record: dict | None, suite: dict[str, bytes]
) -> tuple[list[dict], dict[str, str]]:
    """Flags for every file that differs from what was handed out, and diffs of harness files."""
    stubs = {f"katas/{kata.module}.py" for kata in chosen}
    expected = dict(record["files"]) if record else {n: digest(d) for n, d in suite.items()}
    if not record:  # written by `katas takehome`, not knowable here
        expected.update({"README.md": None, takehome.MANIFEST: None})
    flags, diffs = [], {}
    found = returned_files(folder)
    extra = []
    for name, path in sorted(found.items()):
        if name in stubs or name == takehome.MANIFEST:
            continue
        if path.is_symlink():
            flags.append(flag(f"{name} is a symbolic link; not used for grading", "added", name))
        elif name not in expected:
            extra.append(name)
        elif expected[name] is not None and digest(path.read_bytes()) != expected[name]:
            flags.append(
                flag(f"{name} was edited; the grade used the suite's copy", "edited", name)
            )
            if name in suite:
                diffs[name] = diff(suite[name], path.read_bytes(), name)
    for name in extra[:LISTED]:
        flags.append(flag(f"{name} is a new file; not used for grading", "added", name))
    if len(extra) > LISTED:
        flags.append(flag(f"{len(extra) - LISTED} more new files", "added"))
    for name in sorted(set(expected) - set(found) - stubs - {"README.md", takehome.MANIFEST}):
        flags.append(flag(f"{name} was deleted; the grade used the suite's copy", "edited", name))
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
    options: dict,
) -> dict:
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
    pytest_args += ["-o", f"timeout={min(TEST_TIMEOUT, options['timeout'])}", "-q", "--color=no"]
    if options["device"]:
        pytest_args += ["--device", options["device"]]
    command = ["-S", "-c", CHILD, str(results), kata.module]
    outcome = sandbox.run(
        [*command, "--", *pytest_args],
        suite=suite,
        work=work,
        mode=options["sandbox"],
        timeout=options["timeout"],
        stdin=f"{token}\n{json.dumps(options['forbidden'])}",
        log=place / "log.txt",
    )
    entry = judge(kata, outcome, results, token, place / "log.txt", options["timeout"])
    entry["seconds"] = round(outcome.seconds, 2)
    return entry


def read_results(path: Path) -> dict | None:
    try:
        if path.is_symlink() or not path.is_file():
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def last_line(log: Path) -> str:
    try:
        lines = [line.strip() for line in log.read_text(errors="replace").splitlines()]
    except OSError:
        return ""
    lines = [line for line in lines if line and not line.startswith("=")]
    return lines[-1][:200] if lines else ""


def judge(
    kata: catalog.Kata, outcome: sandbox.Outcome, path: Path, token: str, log: Path, limit: float
) -> dict:
    entry = {"verdict": ERROR, "passed": 0, "total": 0, "skipped": 0, "failures": []}
    if outcome.returncode is None:
        entry["reason"] = (
            f"no result within the {limit:g} s limit (an endless loop or a hang, perhaps at "
            "import): killed"
        )
        return entry
    if outcome.returncode < 0:
        try:
            name = signal.Signals(-outcome.returncode).name
        except ValueError:
            name = f"signal {-outcome.returncode}"
        entry["reason"] = f"the test process crashed ({name})"
        return entry
    data = read_results(path)
    if data is None:
        hint = last_line(log)
        entry["reason"] = (
            f"the test process exited (status {outcome.returncode}) before reporting its tests"
            + (f"; last output: {hint}" if hint else "")
        )
        return entry
    if not secrets.compare_digest(str(data.get("token", "")), token):
        entry["verdict"] = FLAGGED
        entry["reason"] = "the results file was not written by the grading plugin"
        entry["flag_kind"] = "tampering"
        return entry
    if outcome.returncode != 0:
        entry["reason"] = f"the test process exited with status {outcome.returncode}"
        return entry
    tests = data["tests"]
    counted = {n: t for n, t in tests.items() if t["outcome"] != "skipped"}
    entry["devices"] = data["devices"]
    entry["autoloaded_plugins"] = data["autoloaded_plugins"]
    entry["passed"] = sum(t["outcome"] == "passed" for t in counted.values())
    entry["total"] = len(counted)
    entry["skipped"] = len(tests) - len(counted)
    entry["tests_run"] = [name.split("::", 1)[-1] for name in counted]
    by_message: dict[str, list[str]] = {}
    for name, test in counted.items():
        if test["outcome"] == "failed":
            by_message.setdefault(test["message"], []).append(name.split("::", 1)[-1])
    entry["failures"] = [{"message": m, "tests": t} for m, t in by_message.items()]
    problems = data["tampering"] + data["refused_reads"]
    if problems:
        entry["verdict"] = FLAGGED
        entry["reason"] = "; ".join(problems[:5])
        entry["flag_kind"] = "tampering"
    elif not data["stub_imported"]:
        message = (data["collect_errors"] or [m for m in by_message] or ["no message"])[0]
        entry["reason"] = f"the stub failed to import: {message}"
    elif data["collect_errors"]:
        entry["reason"] = f"collecting the tests failed: {data['collect_errors'][0]}"
    elif not entry["total"]:
        entry["reason"] = "no test ran"
    elif entry["passed"] == entry["total"]:
        entry["verdict"] = SOLVED
    elif entry["passed"] == 0 and all(
        t["not_implemented"] for t in counted.values() if t["outcome"] == "failed"
    ):
        entry["verdict"] = NOT_STARTED
    else:
        entry["verdict"] = PARTLY
    return entry


def share(entry: dict) -> float:
    """A kata's part of the score: its share of tests passed, 0 when it cannot be trusted."""
    if entry["verdict"] in (ERROR, FLAGGED) or not entry["total"]:
        return 0.0
    return entry["passed"] / entry["total"]


# -- reports --------------------------------------------------------------------------------

WORDING = {NOT_STARTED: "not attempted", PARTLY: "partly solved", SOLVED: "solved"}


def markdown(report: dict) -> str:
    katas = report["katas"]
    solved = sum(entry["verdict"] == SOLVED for entry in katas.values())
    lines = [f"# Grading: {report['candidate']}", "", "| | |", "| --- | --- |"]
    lines += [
        f"| date | {report['date']} |",
        f"| suite commit | {report['suite_commit'] or 'unknown (not a git checkout)'} |",
        f"| torch / Python | {report['torch']} / {report['python']} |",
        f"| devices | {', '.join(report['devices']) or 'none reported'} |",
        f"| sandbox | {report['sandbox']} |",
        f"| time limit per kata | {report['timeout']:g} s |",
        "",
        f"**Score {report['score']:.0%}**: {solved} of {len(katas)} katas solved. Each kata "
        "weighs the same: its share of tests passed (0 for `error` and `flagged`).",
        "",
        "| kata | title | verdict | tests passed | time (s) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for module, entry in katas.items():
        verdict = WORDING.get(entry["verdict"], entry["verdict"])
        if entry.get("reason"):
            verdict += f": {entry['reason']}".replace("|", "\\|")
        lines.append(
            f"| {module[:3]} | {entry['title']} | {verdict} | {entry['passed']}/{entry['total']} "
            f"| {entry['seconds']:.1f} |"
        )
    if report["flags"]:
        lines += ["", "## Flags", ""]
        for item in report["flags"]:
            where = ", ".join(f"`{item[key]}`" for key in ("kata", "file") if item.get(key))
            lines.append(f"- {item['kind']}: {item['reason']}" + (f" ({where})" if where else ""))
    for module, entry in katas.items():
        if entry["failures"]:
            lines += ["", f"## {module}: failures", ""]
            for failure in entry["failures"]:
                tests = failure["tests"]
                where = f"`{tests[0]}`" if len(tests) == 1 else f"{len(tests)} tests"
                lines.append(f"- {where}: {failure['message']}")
    if report["diffs"]:
        lines += ["", "## Edited test and harness files (not used for grading)", ""]
        for name, text in report["diffs"].items():
            lines += [f"### {name}", "", "```diff", text.rstrip("\n"), "```", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def junit(report: dict) -> bytes:
    suites = ET.Element("testsuites", name=f"grading of {report['candidate']}")
    for module, entry in report["katas"].items():
        suite = ET.SubElement(suites, "testsuite", name=module, time=str(entry["seconds"]))
        classname = f"katas.{module}_test"
        failed = {t: f["message"] for f in entry["failures"] for t in f["tests"]}
        if entry["verdict"] in (ERROR, FLAGGED) or not entry["total"]:
            case = ET.SubElement(suite, "testcase", classname=classname, name=module)
            reason = f"{entry['verdict']}: {entry.get('reason', '')}"
            ET.SubElement(case, "error", message=reason).text = reason
            continue
        for name in entry["tests_run"]:
            case = ET.SubElement(suite, "testcase", classname=classname, name=name)
            if name in failed:
                ET.SubElement(case, "failure", message=failed[name]).text = failed[name]
    return ET.tostring(suites, encoding="utf-8", xml_declaration=True)


def gradescope(report: dict) -> dict:
    tests = []
    for module, entry in report["katas"].items():
        output = [f"{entry['verdict']}: {entry['passed']}/{entry['total']} tests passed"]
        if entry.get("reason"):
            output.append(entry["reason"])
        output += [f"- {f['message']} ({len(f['tests'])} tests)" for f in entry["failures"]]
        tests.append(
            {
                "name": f"{module[:3]} {entry['title']}",
                "score": round(share(entry), 4),
                "max_score": 1,
                "status": "passed" if entry["verdict"] == SOLVED else "failed",
                "output": "\n".join(output),
            }
        )
    return {
        "score": round(sum(share(entry) for entry in report["katas"].values()), 4),
        "execution_time": round(report["seconds"]),
        "tests": tests,
    }


def write_reports(out: Path, report: dict, formats: str) -> list[str]:
    if out.is_symlink():
        out.unlink()
    out.mkdir(parents=True, exist_ok=True)
    outputs = {
        "report.md": markdown(report).encode(),
        "report.json": (json.dumps(report, indent=2) + "\n").encode(),
        "junit.xml": junit(report),
    }
    if formats == "gradescope":
        outputs["results.json"] = (json.dumps(gradescope(report), indent=2) + "\n").encode()
    for name, data in outputs.items():
        # Written aside and renamed into place: a symlink planted there is replaced, not followed.
        fd, temporary = tempfile.mkstemp(dir=out, prefix=f".{name}.")
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.replace(temporary, out / name)
    return list(outputs)


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


def cmd_grade(args, root: Path, katas: dict[str, catalog.Kata]) -> int:
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
    options = {
        "timeout": args.timeout,
        "device": args.device,
        "sandbox": mode,
        "forbidden": forbidden_paths(root, folder, out),
    }
    started = time.monotonic()
    results: dict[str, dict] = {}
    print(f"grading {folder.name}: {len(chosen)} katas, sandbox {mode}, {args.timeout:g} s each")
    scratch = Path(tempfile.mkdtemp(prefix="katas-grade-"))
    reaping = sandbox.set_subreaper(True)
    try:
        for number, kata in enumerate(chosen, 1):
            print(f"[{number}/{len(chosen)}] {kata.label} {kata.title}: ", end="", flush=True)
            source, refused = check_stub(folder, kata)
            if source is None:
                assert refused is not None  # check_stub gives one or the other
                entry = {"passed": 0, "total": 0, "skipped": 0, "failures": [], **refused}
                entry["seconds"] = 0.0
            else:
                entry = grade_kata(kata, source, root, scratch, options)
                for finding in review.scan(source.decode(errors="replace")):
                    flags.append(flag(finding, "review", f"katas/{kata.module}.py", kata.module))
            kind = entry.pop("flag_kind", None)
            if kind is not None:
                flags.append(flag(entry["reason"], kind, f"katas/{kata.module}.py", kata.module))
            entry.setdefault("tests_run", [])
            results[kata.module] = {"title": kata.title, **entry}
            shown = entry["verdict"] + (f" ({entry['reason']})" if entry.get("reason") else "")
            print(f"{shown}, {entry['passed']}/{entry['total']} tests, {entry['seconds']:.1f} s")
    except KeyboardInterrupt:
        print("\ngrading interrupted: no report written", file=sys.stderr)
        return 130
    finally:
        if reaping:
            sandbox.set_subreaper(False)
        remove_tree(scratch)
    devices = sorted({d for entry in results.values() for d in entry.get("devices", [])})
    report = {
        "candidate": args.name or folder.name,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "suite_commit": takehome.commit(root),
        "handed_out": record.get("commit") if record else None,
        "torch": version("torch"),
        "python": platform.python_version(),
        "devices": devices,
        "sandbox": mode,
        "timeout": args.timeout,
        "seconds": round(time.monotonic() - started, 2),
        "score": round(sum(share(e) for e in results.values()) / len(results), 4),
        "katas": results,
        "flags": flags,
        "diffs": diffs,
    }
    written = write_reports(out, report, args.format)
    solved = sum(entry["verdict"] == SOLVED for entry in results.values())
    print(
        f"score {report['score']:.0%}, {solved} of {len(results)} katas solved, "
        f"{len(flags)} flags; report in {out} ({', '.join(written)})"
    )
    return 0 if solved == len(results) else 1
