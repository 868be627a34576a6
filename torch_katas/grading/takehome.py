"""`katas takehome`: a folder for a candidate, and the interviewer's record of what it held.

The folder holds the chosen katas' stubs and tests as committed (git HEAD, never the working
copy, which may hold a practised answer), the harness and a README. The record, kept in the
suite's folder where the candidate never sees it, lists the katas and a digest of every file
shipped, so grading need not trust anything in the returned folder.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import io
import json
import re
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

from torch_katas import catalog
from torch_katas.catalog import UsageError, pick, sha256

MANIFEST = ".takehome.json"
RECORDS = ".katas-takehomes"
HARNESS = ("conftest.py", "pyproject.toml", "katas/__init__.py", "torch_katas")


@dataclass
class Record:
    """The interviewer's record of one take-home: what it held, by digest."""

    name: str
    written: str
    folder: str
    commit: str | None
    katas: list[str]
    files: dict[str, str]  # path -> sha256 of what was shipped

    @classmethod
    def load(cls, path: Path) -> Record:
        """The record at `path`; UsageError where it is not one."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls(**{f.name: data[f.name] for f in dataclasses.fields(cls)})
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise UsageError(f"{path} is not a take-home record ({error})") from None


def commit(root: Path) -> str | None:
    done = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=False
    )
    return done.stdout.strip() if done.returncode == 0 else None


def committed(root: Path, paths: list[str]) -> dict[str, bytes]:
    """The files under `paths` as committed at HEAD, by path relative to `root`."""
    done = subprocess.run(
        ["git", "archive", "--format=tar", "HEAD", "--", *paths],
        cwd=root,
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        raise UsageError(
            f"cannot read {', '.join(paths)} from git HEAD in {root}: take-homes are written "
            f"from a git checkout of torch-katas ({done.stderr.decode().strip()})"
        )
    files: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as tar:
        for member in tar.getmembers():
            if member.isfile() and "__pycache__" not in member.name:
                extracted = tar.extractfile(member)
                assert extracted is not None  # a regular file
                files[member.name] = extracted.read()
    return files


def working_copy(root: Path, paths: list[str]) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for name in paths:
        path = root / name
        found = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for file in found:
            if file.is_file() and "__pycache__" not in file.parts:
                files[str(file.relative_to(root))] = file.read_bytes()
    return files


def suite_files(root: Path, chosen: list[catalog.Kata], *, stubs: bool) -> dict[str, bytes]:
    """The harness and the chosen katas' tests (and stubs), as committed.

    Grading on a machine where the suite is not a git checkout (an unpacked release) reads
    the files as they are; stubs are never read from there.
    """
    paths = [*HARNESS, str(catalog.CATALOG)]
    for kata in chosen:
        paths.append(f"katas/{kata.module}_test.py")
        if stubs:
            paths.append(f"katas/{kata.module}.py")
    if stubs or commit(root) is not None:
        files = committed(root, paths)
    else:
        files = working_copy(root, paths)
    files[str(catalog.CATALOG)] = catalog_text(files[str(catalog.CATALOG)].decode(), chosen)
    return files


def practice_copy(root: Path, target: Path, chosen: list[catalog.Kata]) -> None:
    """A suite in `target` with only the chosen katas: the harness and tests as they are in
    `root` (edits included), the stubs as committed. For the self-checks and benchmarks."""
    paths = [*HARNESS, *(f"katas/{kata.module}_test.py" for kata in chosen)]
    files = working_copy(root, paths)
    text = (root / catalog.CATALOG).read_text(encoding="utf-8")
    files[str(catalog.CATALOG)] = catalog_text(text, chosen)
    files.update(committed(root, [f"katas/{kata.module}.py" for kata in chosen]))
    write_files(target, files)


def catalog_text(text: str, chosen: list[catalog.Kata]) -> bytes:
    """katas.toml with only the chosen katas' entries, copied as written."""
    header, *entries = re.split(r"(?m)^(?=\[\[kata\]\])", text)
    modules = {kata.module for kata in chosen}
    keep = [
        entry
        for entry in entries
        if (found := re.search(r'module = "([^"]+)"', entry)) and found.group(1) in modules
    ]
    return (header + "".join(keep)).encode()


def write_files(target: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        path = target / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


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

- Edit only the stub modules listed above, and keep each one a plain file in `katas/`.
  Grading runs each stub against a clean copy of the tests and harness; edits to any other
  file, and new files, are not used and are flagged for the interviewer.
- Your code is graded by the tests alone: code that inspects or changes the tests, the
  harness, pytest or torch.testing, or reads files outside your folder, is flagged.
- Read the tests as much as you like: they are the specification.
"""


def record_path(root: Path, name: str) -> Path:
    return root / RECORDS / f"{name}.json"


def cmd_takehome(args: argparse.Namespace, root: Path, katas: dict[str, catalog.Kata]) -> int:
    chosen = pick(katas, args.katas)
    out = Path(args.out).resolve()
    if out.exists() and any(out.iterdir()):
        raise UsageError(f"{out} is not empty: choose a new folder for the take-home")
    record = record_path(root, out.name)
    if record.exists():
        raise UsageError(
            f"{record} already records a take-home named {out.name!r}: choose another folder name"
        )
    files = suite_files(root, chosen, stubs=True)
    rows = "\n".join(f"| {k.label} | {k.title} | `katas/{k.module}.py` |" for k in chosen)
    count = f"{len(chosen)} kata" + ("s" if len(chosen) > 1 else "")
    readme = CANDIDATE_README.format(count=count, rows=rows, first=chosen[0].module)
    files["README.md"] = readme.encode()
    manifest = {"name": out.name, "katas": [kata.module for kata in chosen]}
    files[MANIFEST] = (json.dumps(manifest, indent=2) + "\n").encode()
    write_files(out, files)
    record.parent.mkdir(exist_ok=True)
    (record.parent / ".gitignore").write_text("*\n", encoding="utf-8")
    entry = Record(
        name=out.name,
        written=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        folder=str(out),
        commit=commit(root),
        katas=[kata.module for kata in chosen],
        files={name: sha256(data) for name, data in sorted(files.items())},
    )
    record.write_text(json.dumps(dataclasses.asdict(entry), indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out} with katas {', '.join(k.label for k in chosen)}")
    print(f"the record of what it holds is {record} (grading uses it)")
    return 0
