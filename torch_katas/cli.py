"""`katas`: the command line for learners, dojos and interviewers.

katas list                      every kata, with its status from your last run
katas hint 6 [--all]            the next hint for kata 6 (or all of them)
katas reset 6                   restore kata 6's stub; your attempt is backed up first
katas run 6 7 8 [-- ARGS]       run these katas' tests (ARGS go to pytest)
katas watch 6 [-- ARGS]         rerun kata 6's tests on every save
katas takehome 6 24 --out DIR   write a take-home folder with only these katas
katas grade DIR [--out REPORT]  grade a returned take-home folder in a clean copy of the suite
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from torch_katas import catalog, progress

MANIFEST = ".takehome.json"
HINTS_KEY = progress.HINTS_KEY
BACKUPS = ".katas-backups"
HARNESS = ("conftest.py", "pyproject.toml", "torch_katas")


class UsageError(Exception):
    """A problem with what was asked; the message says what to do instead."""


# -- finding the suite and its katas ------------------------------------------------------


def find_root(start: Path) -> Path:
    for folder in (start, *start.parents):
        if (folder / catalog.CATALOG).is_file():
            return folder
    raise UsageError(
        f"no {catalog.CATALOG} in {start} or above: run this inside a torch-katas folder "
        "or pass --root"
    )


def pick(katas: dict[str, catalog.Kata], wanted: list[str]) -> list[catalog.Kata]:
    """Katas by number (6, 06, q06) or module name, in the order given."""
    by_number = {kata.number: kata for kata in katas.values()}
    chosen = []
    for name in wanted:
        kata = katas.get(name)
        digits = name.lower().removeprefix("q")
        if kata is None and digits.isdigit():
            kata = by_number.get(int(digits))
        if kata is None:
            raise UsageError(f"no kata {name!r}: give a number such as 6, or run `katas list`")
        if kata not in chosen:
            chosen.append(kata)
    return chosen


# -- pytest's cache, where runs keep each kata's status -----------------------------------


def cache_file(root: Path, key: str) -> Path:
    return root / ".pytest_cache" / "v" / key


def read_cache(root: Path, key: str) -> dict:
    try:
        return json.loads(cache_file(root, key).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def write_cache(root: Path, key: str, value: dict) -> None:
    # The same layout and format as pytest's own cache.set().
    path = cache_file(root, key)
    path.parent.mkdir(parents=True, exist_ok=True)
    ignore = root / ".pytest_cache" / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# Created by torch-katas automatically.\n*\n", encoding="utf-8")
    path.write_text(json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True))


# -- learner commands ---------------------------------------------------------------------


def cmd_list(args, root: Path, katas: dict[str, catalog.Kata]) -> int:
    statuses = read_cache(root, progress.CACHE_KEY)
    shown = [k for k in katas.values() if args.topic in (None, k.topic)]
    if not shown:
        raise UsageError(f"no kata has topic {args.topic!r}; topics: {topics(katas)}")
    width = max(len(kata.title) for kata in shown)
    topic_width = max(len(kata.topic) for kata in shown)
    for kata in shown:
        level = "*" * kata.difficulty + "." * (3 - kata.difficulty)
        status = statuses.get(kata.module, "not run")
        print(
            f"{kata.label}  {kata.title:<{width}}  {kata.topic:<{topic_width}}  {level}  {status}"
        )
    solved = sum(statuses.get(kata.module) == progress.SOLVED for kata in katas.values())
    print(f"\nSolved {solved} of {len(katas)} katas. Difficulty: * easy, ** medium, *** hard.")
    return 0


def topics(katas: dict[str, catalog.Kata]) -> str:
    return ", ".join(sorted({kata.topic for kata in katas.values()}))


def cmd_hint(args, root: Path, katas: dict[str, catalog.Kata]) -> int:
    (kata,) = pick(katas, [args.kata])
    shown = read_cache(root, HINTS_KEY)
    count = len(kata.hints) if args.all else min(shown.get(kata.module, 0) + 1, len(kata.hints))
    print(f"{kata.label} {kata.title}")
    for number, hint in enumerate(kata.hints[:count], 1):
        print(f"  hint {number}/{len(kata.hints)}: {hint}")
    if count == shown.get(kata.module) and not args.all:
        print("  (that was the last hint)")
    shown[kata.module] = count
    write_cache(root, HINTS_KEY, shown)
    return 0


def original_stub(root: Path, kata: catalog.Kata) -> str:
    """The stub as the suite ships it: from git, the upstream branch or else HEAD."""
    relative = f"katas/{kata.module}.py"
    for ref in ("@{upstream}", "HEAD"):
        done = subprocess.run(
            ["git", "show", f"{ref}:{relative}"], cwd=root, capture_output=True, text=True
        )
        if done.returncode == 0:
            return done.stdout
    raise UsageError(
        f"cannot find the original {relative}: reset needs a git checkout of torch-katas"
    )


def cmd_reset(args, root: Path, katas: dict[str, catalog.Kata]) -> int:
    (kata,) = pick(katas, [args.kata])
    stub = kata.stub_path(root)
    original = original_stub(root, kata)
    current = stub.read_text(encoding="utf-8") if stub.exists() else None
    if current == original:
        print(f"{stub.relative_to(root)} is already the original stub; nothing to reset")
        return 0
    if current is not None:
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        backup = root / BACKUPS / f"{kata.module}-{stamp}.py"
        backup.parent.mkdir(exist_ok=True)
        backup.write_text(current, encoding="utf-8")
        print(f"your attempt is saved as {backup.relative_to(root)}")
    stub.write_text(original, encoding="utf-8")
    print(f"{stub.relative_to(root)} is back to the original stub")
    return 0


def test_files(root: Path, chosen: list[catalog.Kata]) -> list[str]:
    return [str(kata.test_path(root).relative_to(root)) for kata in chosen]


def cmd_run(args, root: Path, katas: dict[str, catalog.Kata]) -> int:
    import pytest

    os.chdir(root)
    return int(pytest.main([*test_files(root, pick(katas, args.katas)), *args.pytest_args]))


def cmd_watch(args, root: Path, katas: dict[str, catalog.Kata]) -> int:
    if shutil.which("ptw") is None:
        raise UsageError("watch mode uses pytest-watcher: pip install pytest-watcher")
    files = test_files(root, pick(katas, [args.kata]))
    command = ["ptw", "--now", "--clear", ".", *files, *args.pytest_args]
    return subprocess.call(command, cwd=root)


# -- interviewer commands -----------------------------------------------------------------


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def catalog_text(root: Path, chosen: list[catalog.Kata]) -> str:
    """katas.toml with only the chosen katas' entries, copied as written."""
    text = (root / catalog.CATALOG).read_text(encoding="utf-8")
    header, *entries = re.split(r"(?m)^(?=\[\[kata\]\])", text)
    modules = {kata.module for kata in chosen}
    keep = [e for e in entries if re.search(r'module = "([^"]+)"', e).group(1) in modules]
    return header + "".join(keep)


def copy_harness(root: Path, target: Path, chosen: list[catalog.Kata], stubs_from: Path) -> None:
    """A runnable suite in `target`: the harness, the chosen katas' tests from `root`, and
    their stubs from `stubs_from` (the suite's own, or a candidate's)."""
    (target / "katas").mkdir(parents=True, exist_ok=True)
    for name in HARNESS:
        source = root / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target / name)
    shutil.copy2(root / "katas" / "__init__.py", target / "katas" / "__init__.py")
    (target / catalog.CATALOG).write_text(catalog_text(root, chosen), encoding="utf-8")
    for kata in chosen:
        shutil.copy2(kata.test_path(root), kata.test_path(target))
        stub = kata.stub_path(stubs_from)
        shutil.copy2(stub if stub.is_file() else kata.stub_path(root), kata.stub_path(target))


CANDIDATE_README = """# PyTorch take-home: {count}

Each kata is a Python module in `katas/` with a task, a contract and a
`raise NotImplementedError` where your code goes. Its tests (`katas/*_test.py`) are red until
your code is right.

| kata | title | stub to edit |
| --- | --- | --- |
{rows}

## Run

With Python 3.10 or newer:

```
python -m venv .venv && . .venv/bin/activate && pip install -e . && pytest
```

`pytest katas/{first}_test.py` runs one kata; `--hints` adds hints to failures. The tests run on
the CPU and on any GPU this machine has.

## Rules

- Edit only the stub modules listed above. Grading copies just those files into a clean copy
  of the tests; changes to tests or to the harness are not used, and edited tests are flagged.
- Read the tests as much as you like: they are the specification.
"""


def cmd_takehome(args, root: Path, katas: dict[str, catalog.Kata]) -> int:
    chosen = pick(katas, args.katas)
    out = Path(args.out)
    if out.exists() and any(out.iterdir()):
        raise UsageError(f"{out} is not empty: choose a new folder for the take-home")
    copy_harness(root, out, chosen, stubs_from=root)
    rows = "\n".join(f"| {k.label} | {k.title} | `katas/{k.module}.py` |" for k in chosen)
    count = f"{len(chosen)} kata" + ("s" if len(chosen) > 1 else "")
    readme = CANDIDATE_README.format(count=count, rows=rows, first=chosen[0].module)
    (out / "README.md").write_text(readme, encoding="utf-8")
    manifest = {
        "katas": [kata.module for kata in chosen],
        "tests": {kata.module: digest(kata.test_path(root)) for kata in chosen},
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out} with katas {', '.join(k.label for k in chosen)}")
    return 0


def returned_katas(folder: Path, katas: dict[str, catalog.Kata]) -> list[catalog.Kata]:
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        modules = manifest["katas"]
    except (OSError, ValueError, KeyError):
        # No manifest: grade every kata whose stub the folder holds.
        modules = sorted(p.stem for p in (folder / "katas").glob("q*.py") if p.stem in katas)
    chosen = [katas[m] for m in modules if m in katas]
    if not chosen:
        raise UsageError(f"{folder} holds no kata stubs to grade (expected katas/qNN_*.py)")
    return chosen


def edited_files(root: Path, folder: Path, chosen: list[catalog.Kata]) -> list[str]:
    """The candidate's tests and harness files that differ from the suite's."""
    pairs = [(kata.test_path(root), kata.test_path(folder)) for kata in chosen]
    pairs.append((root / "conftest.py", folder / "conftest.py"))
    pairs += [
        (path, folder / path.relative_to(root))
        for path in sorted((root / "torch_katas").glob("*.py"))
    ]
    return [
        str(theirs.relative_to(folder))
        for ours, theirs in pairs
        if theirs.exists() and digest(ours) != digest(theirs)
    ]


def read_junit(path: Path, chosen: list[catalog.Kata]) -> dict[str, dict]:
    results = {
        kata.module: {"title": kata.title, "passed": 0, "total": 0, "seconds": 0.0, "failures": []}
        for kata in chosen
    }
    for case in ET.parse(path).iter("testcase"):
        module = case.get("classname", "").split(".")[-1].removesuffix("_test")
        if module not in results:
            continue
        entry = results[module]
        entry["seconds"] = round(entry["seconds"] + float(case.get("time", 0)), 3)
        problem = next((c for c in case if c.tag in ("failure", "error")), None)
        if any(c.tag == "skipped" for c in case):
            continue
        entry["total"] += 1
        if problem is None:
            entry["passed"] += 1
        else:
            message = (problem.get("message") or problem.text or "").strip().splitlines()
            entry["failures"].append(
                {"test": case.get("name"), "message": message[0] if message else ""}
            )
    return results


def markdown_report(folder: Path, results: dict[str, dict], edited: list[str], devices: str) -> str:
    lines = [f"# Grading of {folder.name}", "", f"Devices: {devices}", ""]
    lines += ["| kata | title | passed | time (s) |", "| --- | --- | --- | --- |"]
    for module, entry in results.items():
        lines.append(
            f"| {module[:3]} | {entry['title']} | {entry['passed']}/{entry['total']} "
            f"| {entry['seconds']:.2f} |"
        )
    passed = sum(entry["passed"] for entry in results.values())
    total = sum(entry["total"] for entry in results.values())
    lines += ["", f"**{passed} of {total} tests passed.**", ""]
    if edited:
        lines += ["## Edited files (flagged; not used for grading)", ""]
        lines += [f"- `{name}`" for name in edited] + [""]
    for module, entry in results.items():
        if entry["failures"]:
            lines += [f"## {module}: failures", ""]
            # A stub left as it was fails every test with one message: say it once.
            by_message: dict[str, list[str]] = {}
            for failure in entry["failures"]:
                by_message.setdefault(failure["message"], []).append(failure["test"])
            for message, tests in by_message.items():
                where = f"`{tests[0]}`" if len(tests) == 1 else f"{len(tests)} tests"
                lines.append(f"- {where}: {message}")
            lines.append("")
    return "\n".join(lines)


def cmd_grade(args, root: Path, katas: dict[str, catalog.Kata]) -> int:
    folder = Path(args.folder).resolve()
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder: give the candidate's take-home folder")
    chosen = returned_katas(folder, katas)
    out = Path(args.out or folder / "grading").resolve()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="katas-grade-") as scratch:
        suite = Path(scratch) / "suite"
        copy_harness(root, suite, chosen, stubs_from=folder)
        junit = out / "junit.xml"
        command = [sys.executable, "-m", "pytest", "katas", "-p", "no:cacheprovider"]
        command += [f"--junitxml={junit}", *(["--device", args.device] if args.device else [])]
        started = time.perf_counter()
        done = subprocess.run(command, cwd=suite, capture_output=True, text=True)
        if done.returncode not in (0, 1) or not junit.exists():
            raise UsageError(f"the grading run failed to start:\n{done.stdout}{done.stderr}")
        header = re.search(r"torch-katas: devices (.*)", done.stdout)
    results = read_junit(junit, chosen)
    edited = edited_files(root, folder, chosen)
    devices = header.group(1) if header else "unknown"
    report = {
        "folder": str(folder),
        "devices": devices,
        "seconds": round(time.perf_counter() - started, 2),
        "katas": results,
        "edited_files": edited,
    }
    (out / "report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    (out / "report.md").write_text(markdown_report(folder, results, edited, devices), "utf-8")
    passed = sum(entry["passed"] for entry in results.values())
    total = sum(entry["total"] for entry in results.values())
    print(f"{passed} of {total} tests passed; report in {out} (report.md, report.json, junit.xml)")
    if edited:
        print(f"flagged: the candidate edited {', '.join(edited)}")
    return 0


# -- entry point ---------------------------------------------------------------------------


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(
        prog="katas",
        description="Practise, run, hand out and grade torch-katas.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n")[1],
    )
    main.add_argument("--root", help="the torch-katas folder (default: found from here)")
    commands = main.add_subparsers(dest="command", required=True, metavar="COMMAND")

    listing = commands.add_parser("list", help="every kata, with its status from your last run")
    listing.add_argument("--topic", help="only this topic")
    listing.set_defaults(run=cmd_list)

    hint = commands.add_parser("hint", help="the next hint for a kata, one more each time")
    hint.add_argument("kata", help="kata number, e.g. 6")
    hint.add_argument("--all", action="store_true", help="show every hint")
    hint.set_defaults(run=cmd_hint)

    reset = commands.add_parser("reset", help="restore a kata's stub, backing up your attempt")
    reset.add_argument("kata", help="kata number, e.g. 6")
    reset.set_defaults(run=cmd_reset)

    run = commands.add_parser("run", help="run the tests of these katas")
    run.add_argument("katas", nargs="+", help="kata numbers, e.g. 6 7 8")
    run.set_defaults(run=cmd_run)

    watch = commands.add_parser("watch", help="rerun a kata's tests whenever a file is saved")
    watch.add_argument("kata", help="kata number, e.g. 6")
    watch.set_defaults(run=cmd_watch)

    takehome = commands.add_parser("takehome", help="write a take-home folder for a candidate")
    takehome.add_argument("katas", nargs="+", help="kata numbers, e.g. 6 24 36")
    takehome.add_argument("--out", required=True, help="the new folder to write")
    takehome.set_defaults(run=cmd_takehome)

    grade = commands.add_parser("grade", help="grade a returned take-home folder")
    grade.add_argument("folder", help="the candidate's folder")
    grade.add_argument("--out", help="where to write the report (default: FOLDER/grading)")
    grade.add_argument("--device", help="devices to grade on, as pytest's --device")
    grade.set_defaults(run=cmd_grade)
    return main


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # Everything after `--` goes to pytest (run, watch).
    pytest_args = argv[argv.index("--") + 1 :] if "--" in argv else []
    argv = argv[: argv.index("--")] if "--" in argv else argv
    args = parser().parse_args(argv)
    args.pytest_args = pytest_args
    try:
        root = Path(args.root).resolve() if args.root else find_root(Path.cwd())
        if not (root / catalog.CATALOG).is_file():
            raise UsageError(f"{root} has no {catalog.CATALOG}: is it a torch-katas folder?")
        return args.run(args, root, catalog.load(root))
    except UsageError as error:
        print(f"katas {args.command}: {error}", file=sys.stderr)
        return 2
