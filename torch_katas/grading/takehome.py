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
import importlib.metadata
import io
import json
import random
import re
import subprocess
import tarfile
import textwrap
from dataclasses import dataclass
from pathlib import Path

from torch_katas import catalog
from torch_katas.catalog import UsageError, pick, sha256
from torch_katas.grading import policy
from torch_katas.practice import testwrite

__all__ = [
    "MANIFEST",
    "RECORDS",
    "Record",
    "cmd_takehome",
    "commit",
    "suite_files",
    "torch_floor",
    "torch_version",
    "write_files",
]

MANIFEST = ".takehome.json"
RECORDS = ".katas-takehomes"
HARNESS = ("conftest.py", "pyproject.toml", "katas/__init__.py", "torch_katas")
# `--hints`: which of each kata's hints the take-home ships.
HINTS = ("none", "first", "all")
# `--mode`: what the candidate does: write the stubs (katas), find and fix the bug in each
# module (bughunt), or write each kata's tests given its reference (testwrite).
MODES = ("katas", "bughunt", "testwrite")
POLICY_TRIES = 20  # draws of a bug hunt's mistakes before giving up on one the policy takes


@dataclass
class Record:
    """The interviewer's record of one take-home: what it held, by digest."""

    name: str
    written: str
    folder: str
    commit: str | None
    katas: list[str]
    files: dict[str, str]  # path -> sha256 of what was shipped
    hints: str = "all"  # which hints it shipped (HINTS); records written before had all
    mode: str = "katas"  # MODES: stubs to write, answers with bugs to find, or tests to write
    # bughunt: each kata's hunt (practice/bughunt.py Hunt, as a dict): the mistakes and the
    # module handed out, for grading's verdict on the fix.
    bughunt: dict[str, dict] | None = None

    @classmethod
    def load(cls, path: Path) -> Record:
        """The record at `path`; UsageError where it is not one."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            fields = dataclasses.fields(cls)
            return cls(
                **{
                    f.name: data[f.name]
                    for f in fields
                    if f.name in data or f.default is dataclasses.MISSING
                }
            )
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
        # Every file of a folder, as git would list it: the harness's data (the policy's
        # public_names.json) as well as its code.
        found = sorted(path.rglob("*")) if path.is_dir() else [path]
        for file in found:
            if file.is_file() and "__pycache__" not in file.parts and file.suffix != ".pyc":
                files[str(file.relative_to(root))] = file.read_bytes()
    return files


def suite_files(
    root: Path,
    chosen: list[catalog.Kata],
    *,
    stubs: bool,
    hints: str = "all",
    unpacked: bool = False,
) -> dict[str, bytes]:
    """The harness and the chosen katas' tests (and stubs), as committed.

    Grading on a machine where the suite is not a git checkout (an unpacked release, the
    Gradescope autograder) reads the files as they are; stubs are read from there only where
    `unpacked` says that is fine (collecting the tests' names), never for a take-home.
    """
    paths = [*HARNESS, str(catalog.CATALOG)]
    for kata in chosen:
        paths.append(f"katas/{kata.module}_test.py")
        if stubs:
            paths.append(f"katas/{kata.module}.py")
    if commit(root) is not None or (stubs and not unpacked):
        files = committed(root, paths)
    else:
        files = working_copy(root, paths)
    text = files[str(catalog.CATALOG)].decode()
    files[str(catalog.CATALOG)] = catalog_text(text, chosen, hints)
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


def catalog_text(text: str, chosen: list[catalog.Kata], hints: str = "all") -> bytes:
    """katas.toml with only the chosen katas' entries, copied as written, and of their hints
    all, the first or none."""
    header, *entries = re.split(r"(?m)^(?=\[\[kata\]\])", text)
    by_module = {kata.module: kata for kata in chosen}
    keep = []
    for entry in entries:
        found = re.search(r'module = "([^"]+)"', entry)
        if found and found.group(1) in by_module:
            kata = by_module[found.group(1)]
            keep.append(
                entry if hints == "all" else with_hints(entry, kata.hints[: HINTS.index(hints)])
            )
    return (header + "".join(keep)).encode()


def with_hints(entry: str, hints: tuple[str, ...]) -> str:
    """A katas.toml entry with its `hints = [...]` array replaced by `hints`."""
    start = re.search(r"(?m)^hints = \[", entry)
    if start is None:
        raise UsageError("katas.toml: an entry without hints")
    end, in_string, escaped = start.end(), "", False
    while end < len(entry):  # the closing bracket, outside the strings
        char = entry[end]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\" and in_string == '"':
                escaped = True
            elif char == in_string:
                in_string = ""
        elif char in "\"'":
            in_string = char
        elif char == "]":
            break
        end += 1
    # JSON strings are TOML basic strings.
    items = "".join(f"    {json.dumps(hint, ensure_ascii=False)},\n" for hint in hints)
    array = f"hints = [\n{items}]" if hints else "hints = []"
    return entry[: start.start()] + array + entry[end + 1 :]


def write_files(target: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        path = target / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


CANDIDATE_README = """# PyTorch take-home: {count}

Each kata is a Python module in `katas/` with a task, a contract and a
`raise NotImplementedError` where your code goes. Its tests (`katas/*_test.py`) are red until
your code is right. Read the stub's docstring first: it is the specification, and the tests
check what it promises.

| kata | title | stub to edit |
| --- | --- | --- |
{rows}

## Install

With Python 3.10 or newer, in this folder. Pick the lines for your machine:

- a laptop or desktop without an NVIDIA GPU (Linux or Windows): take the CPU-only build of
  PyTorch (a plain `pip install torch` brings the CUDA build to Linux, several GB):

  ```
  python -m venv .venv && . .venv/bin/activate
  pip install {torch_requirement} --index-url https://download.pytorch.org/whl/cpu
  pip install -e .
  ```

- a machine with an NVIDIA GPU (CUDA), or a Mac (the macOS build runs on the CPU and on
  Apple GPUs):

  ```
  python -m venv .venv && . .venv/bin/activate
  pip install {torch_requirement}
  pip install -e .
  ```

On Windows, activate with `.venv\\Scripts\\activate` instead. The tests run with any torch
{torch_range} (what this suite supports); your work is graded with torch {grader_torch}, the
version the interviewer's suite runs, which the lines above install.

## Practise

```
pytest                                  # every kata's tests
pytest katas/{first}_test.py  # one kata's tests
katas watch {first_number}  # rerun them each time you save the stub
```

A kata's tests take a few seconds on a laptop's CPU, most of it importing torch. They run on
the CPU and on each GPU the machine has (or on `sim`, a simulated GPU that catches tensors
left on the wrong device), as they will when graded. {hints}

## What to return

Your code in the stubs listed above: edit only those files and keep each one a plain file in
`katas/`; nothing else you change is used. Return the folder without `.venv` (about 1 GB of
installed packages) and caches, in one of two ways, whichever the interviewer asked for:

- a git repository (this folder's `.gitignore` leaves `.venv` and the caches out), pushed to
  a private repository you share with the interviewer:

  ```
  git init -q && git add . && git commit -qm "My answers"
  ```

- an archive, made in this folder (`tar` comes with Linux, macOS and Windows 10 and later),
  which writes `{archive}` beside it, to send as it is:

  ```
  {tar}
  ```

## How it is graded

- Each kata is graded on its own: your stub, and nothing else from this folder, runs against
  the suite's own copy of its tests and of the harness (`conftest.py`, `pyproject.toml`,
  `katas/katas.toml`, `torch_katas/`), in a process of its own (normally in a sandbox,
  without network), with a time limit for the kata (300 s unless the interviewer says
  otherwise) and for each test (60 s). Edited or new files are not used, and the interviewer
  sees them listed.
- A kata is *solved* when every one of its tests passes; *partly solved* when some do. Its
  score is its share of tests passed, and each kata weighs the same. A test counts as passed
  only if it runs to its end and passes: a test the run never reaches, a skip raised by your
  code, a stub that does not import, and a run that stops early all count against the kata.
- Before any of your code runs, each stub is read (not run) against a policy for returned
  code. A solution may import torch and its public modules (`torch.nn`,
  `torch.nn.functional`, `torch.optim`, `torch.utils.data`, `torch.autograd`, ...) and
  {allowed}{extra}. It may define functions, classes (with private attributes and helpers,
  `super().__init__()`, a Dataset's `__len__` and `__getitem__`), dataclasses, comprehensions
  and generators. Every name it reaches from an import must be a public name of that module
  (not a module another one imports, such as `torch.sys`). It may not import anything else
  (os, sys, subprocess, threading, pytest, ...), use torch's private or internal parts
  (`torch._C`, `torch.ops`, `torch.overrides`, `torch.library`), read or write files with
  torch's or NumPy's functions (`torch.load`, `np.load`) unless listed for its kata, call
  `eval`, `exec`, `compile`, `globals`, `locals`, `vars`, `__import__` or `open` (unless the
  kata may import `io`), use `getattr`, `setattr` or `delattr` with a computed name or a
  dunder name, assign to an attribute of a module or class, change the state the tests keep
  in the objects they hand over (a count of calls, a record), define `__torch_function__`,
  `__getattr__`, `__eq__`, a metaclass and similar hooks, subclass `torch.Tensor`, read frame,
  traceback or code attributes, raise `KeyboardInterrupt` or `SystemExit`, or start threads
  or processes. Anything the policy
  refuses makes that kata *flagged* (it scores 0), with its line shown to the interviewer.
  `katas review katas/{first}.py` runs the same check here.
- Tests and harness files are the suite's own: code that inspects or changes them, pytest,
  or torch's testing functions, or that reads files outside this folder, is flagged too.
"""
HINT_LINES = {
    "none": "This take-home ships no hints.",
    "first": "`katas hint {number}` shows a kata's first hint, the only one shipped, and "
    "`pytest --hints` adds it to the failures.",
    "all": "`katas hint {number}` shows a kata's next hint, one more each time (the last "
    "ones come close to the answer), and `pytest --hints` adds them to the failures.",
}


def torch_floor(root: Path) -> str:
    """The torch versions the suite's pyproject.toml accepts, such as `>=2.7`."""
    try:
        project = catalog.tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
        for requirement in project["project"]["dependencies"]:
            found = re.fullmatch(r"torch\s*([<>=!~][^;]*)", str(requirement).strip())
            if found:
                return found.group(1).strip()
    except (OSError, KeyError, TypeError, ValueError):
        pass
    return ">=2.7"


def torch_version() -> str | None:
    """The torch this interpreter has, as a public version (`2.13.0`, not `2.13.0+cpu`)."""
    try:
        return importlib.metadata.version("torch").split("+")[0]
    except importlib.metadata.PackageNotFoundError:
        return None


# Left out of what a candidate returns: made by installing and running the take-home.
LEFT_OUT = (".venv", "__pycache__", ".pytest_cache", "*.egg-info", "build", "dist")
GITIGNORE = "".join(f"{name}/\n" for name in LEFT_OUT)


def archive_command(name: str) -> tuple[str, str]:
    """The archive a candidate returns and the command, run in the folder, that writes it."""
    archive = f"{name}.tar.gz"
    # Quoted where a shell would expand them (bash, zsh, cmd and PowerShell all take "").
    excluded = " ".join(f'--exclude="{n}"' if "*" in n else f"--exclude={n}" for n in LEFT_OUT)
    return archive, f"tar -czf ../{archive} {excluded} ."


def candidate_readme(root: Path, chosen: list[catalog.Kata], hints: str, name: str) -> str:
    rows = "\n".join(f"| {k.label} | {k.title} | `katas/{k.module}.py` |" for k in chosen)
    extra = [
        f"for {k.label}, {', '.join(f'`{m}`' for m in (*k.imports, *k.allow))}"
        for k in chosen
        if k.imports or k.allow
    ]
    grader = torch_version()
    floor = torch_floor(root)
    text = CANDIDATE_README.format(
        count=f"{len(chosen)} kata" + ("s" if len(chosen) > 1 else ""),
        rows=rows,
        first=chosen[0].module,
        first_number=chosen[0].number,
        torch_requirement=f"torch=={grader}" if grader else f'"torch{floor}"',
        torch_range=floor.replace(">=", "from ").replace(",", ", "),
        grader_torch=grader or "the interviewer's",
        hints=HINT_LINES[hints].format(number=chosen[0].number),
        allowed=", ".join(f"`{m}`" for m in policy.ALLOWED if m != "__future__"),
        extra=f" (and also: {'; '.join(extra)})" if extra else "",
        archive=archive_command(name)[0],
        tar=archive_command(name)[1],
    )
    return wrapped(text)


def wrapped(text: str, width: int = 94) -> str:
    """`text` with its long prose lines wrapped (code blocks and tables as they are)."""
    lines, in_code = [], False
    for line in text.splitlines():
        if line.strip().startswith("```"):
            in_code = not in_code
        if in_code or len(line) <= width or line.lstrip().startswith("|"):
            lines.append(line)
            continue
        indent = line[: len(line) - len(line.lstrip())]
        follow = indent + ("  " if line.lstrip().startswith("- ") else "")
        lines += textwrap.wrap(
            line.strip(), width, initial_indent=indent, subsequent_indent=follow,
            break_on_hyphens=False, break_long_words=False,
        )  # fmt: skip
    return "\n".join(lines) + "\n"


BUGHUNT_README = """# Find the bug

This take-home is a bug hunt: each kata's module in `katas/` below is a complete answer that
carries {bugs} (a mistake a PyTorch engineer could make), and its tests show that something is
wrong. For each kata: run its tests, find the mistaken lines and fix them. Keep each fix
small: change the lines that hold the mistake, not the whole module (the grade says when a fix
is a rewrite), made of what the module already uses: a fix that brings in a name the module
and its correct version never use (a builtin, an attribute, a module), or whose condition reads
more together than the module's own conditions do, is flagged for the interviewer to read
rather than counted as a fix (a fix decides as the module does, not by what else it can tell
about the inputs). The module's docstrings state the task and contract, as for any kata below.

"""


def bug_hunts(
    root: Path, chosen: list[catalog.Kata], files: dict[str, bytes], args: argparse.Namespace
) -> dict[str, dict]:
    """Write a bug hunt's module into each chosen kata's stub in `files`; each hunt, by kata.
    A module the policy for returned code would refuse as handed out is drawn again."""
    from torch_katas.practice import bughunt  # only for this mode

    bugs, hidden = getattr(args, "bugs", None) or 1, bool(getattr(args, "hidden", False))
    seed = getattr(args, "seed", None)
    rng = random.Random(seed if seed is not None else random.SystemRandom().randrange(2**32))
    hunts: dict[str, dict] = {}
    for kata in chosen:
        name = f"katas/{kata.module}.py"
        stub = files[name].decode()
        for _ in range(POLICY_TRIES):
            hunt = bughunt.new_hunt(root, kata, bugs, hidden, rng, stub)
            tests = files.get(f"katas/{kata.module}_test.py")
            if not policy.check(hunt.handed_out, kata.imports, name, kata.allow, tests):
                break
        else:
            raise UsageError(f"{kata.label}: no bug hunt found that the policy takes as handed out")
        files[name] = hunt.handed_out.encode()
        hunts[kata.module] = dataclasses.asdict(hunt)
    return hunts


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
    hints = getattr(args, "hints", None) or "first"
    files = suite_files(root, chosen, stubs=True, hints=hints)
    files["README.md"] = candidate_readme(root, chosen, hints, out.name).encode()
    files[".gitignore"] = GITIGNORE.encode()
    mode = getattr(args, "mode", None) or "katas"
    bughunt_options = getattr(args, "bugs", 1) not in (None, 1) or getattr(args, "hidden", False)
    if mode != "bughunt" and bughunt_options:
        raise UsageError("--bugs and --hidden are options of --mode bughunt")
    hunts = bug_hunts(root, chosen, files, args) if mode == "bughunt" else None
    if hunts is not None:
        bugs = "one bug" if getattr(args, "bugs", 1) in (None, 1) else "two bugs"
        intro = BUGHUNT_README.format(bugs=bugs)
        files["README.md"] = (intro + files["README.md"].decode()).encode()
    manifest = {"name": out.name, "katas": [kata.module for kata in chosen]}
    files[MANIFEST] = (json.dumps(manifest, indent=2) + "\n").encode()
    if mode == "testwrite":
        references = committed(root, [f"solutions/{kata.module}.py" for kata in chosen])
        testwrite.takehome_files(root, chosen, files, references)
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
        hints=hints,
        mode=mode,
        bughunt=hunts,
    )
    record.write_text(json.dumps(dataclasses.asdict(entry), indent=2) + "\n", encoding="utf-8")
    shown = f"hints: {hints}" + (f", mode: {mode}" if mode != "katas" else "")
    print(f"wrote {out} with katas {', '.join(k.label for k in chosen)} ({shown})")
    print(f"the record of what it holds is {record} (grading uses it)")
    return 0
