"""`katas testwrite`: write a kata's tests, scored by the mistakes they catch.

The learner gets the kata's reference answer (testwrite/<module>__reference.py) and its
contract (the stub's docstring), and a test module to fill in (testwrite/<module>_test.py),
which imports the kata's API as kata tests do (`from katas.<module> import ...`), so the
kata's own test module is a fair start. Scoring runs that module, in one pytest session of
its own (torch imported once; the learner's code never runs in the CLI's process), against
each answer in a process forked from it (runtime/answer_loop.py): the reference and the
correct answers in other styles the suite keeps (every test must pass on each: a test that
rejects one makes the module invalid), then each curated mistake (runtime/mistakes.py) and,
with `mutants`, each mutant of the reference (runtime/mutants.py) that is not reviewed as
equivalent. The score is the share of mistakes some test rejects; the report names those
missed in words, never their code.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import io
import json
import os
import random
import re
import secrets
import selectors
import subprocess
import sys
import tempfile
import tokenize
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from torch_katas import catalog
from torch_katas.catalog import UsageError
from torch_katas.runtime import mistakes as mistakes_module, mutants as mutants_module

__all__ = [
    "CORRECT_ANSWERS",
    "FOLDER",
    "Answer",
    "Score",
    "answers_for",
    "judge",
    "prepare",
    "reference_path",
    "returned_file",
    "run_answers",
    "score",
    "takehome_files",
    "template",
    "test_path",
]

FOLDER = Path("testwrite")  # in the suite's folder: the learner's tests and the reference
CORRECT_ANSWERS = Path("tests") / "correct_answers"
TEST_TIMEOUT = 20  # seconds per test: a mutant that loops fails the test that hangs
RUN_TIMEOUT = 600  # seconds for the whole scoring process
JOBS = 4  # answers run at once, at most (as many as there are CPUs)
# Modules that most answers' runs import (the harness the tests use, and torch's symbolic
# shapes, which some of its checks reach): imported once before the forks, not in each.
# Importing them runs no torch op, so forking stays safe.
WARM = (
    "torch_katas.facets",
    "torch_katas.testing",
    "torch.fx.experimental.symbolic_shapes",
    "torch._subclasses.schema_check_mode",
    "sysconfig",
)

# Operators as the mutants' changes name them (ast's class names), as written in Python.
SYMBOLS = {
    "Add": "+",
    "Sub": "-",
    "Mult": "*",
    "Div": "/",
    "FloorDiv": "//",
    "Mod": "%",
    "Pow": "**",
    "MatMult": "@",
    "Lt": "<",
    "LtE": "<=",
    "Gt": ">",
    "GtE": ">=",
    "Eq": "==",
    "NotEq": "!=",
    "Is": "is",
    "IsNot": "is not",
    "In": "in",
    "NotIn": "not in",
    "And": "and",
    "Or": "or",
    "USub": "unary -",
    "Not": "not",
    "UAdd": "unary +",
}


@dataclass
class Answer:
    kind: str  # reference, correct, mistake, mutant
    path: Path
    description: str  # in words, for the report: never the answer's code

    @property
    def wrong(self) -> bool:
        return self.kind in ("mistake", "mutant")


def test_path(root: Path, kata: catalog.Kata) -> Path:
    return root / FOLDER / f"{kata.module}_test.py"


def reference_path(root: Path, kata: catalog.Kata) -> Path:
    return root / FOLDER / f"{kata.module}__reference.py"


def public_names(stub: Path) -> list[str]:
    """The stub's public functions and classes, as its tests import them."""
    tree = ast.parse(stub.read_text(encoding="utf-8"))
    return [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and not node.name.startswith("_")
    ]


def template(root: Path, kata: catalog.Kata, run: str, score: str) -> str:
    """The test module the learner starts from: the kata's API imported, one test to fill;
    its docstring says how to `run` it against the reference and how to `score` it."""
    names = public_names(kata.stub_path(root))
    first = names[0] if names else "the_function"
    return f'''"""My tests for kata {kata.number}: {kata.title}.

They must pass on every correct answer (the contract is in katas/{kata.module}.py) and
fail on the mistakes a learner makes. Run them against the reference answer:
    {run}{score}
"""

import torch

from katas.{kata.module} import {", ".join(names) or first}


def test_{first.lower()}(device):
    # TODO: call {first} on `device` and check what its contract promises.
    pass
'''


def prepare(root: Path, kata: catalog.Kata) -> tuple[Path, Path, bool]:
    """Write the reference (always afresh) and the test module (unless it exists): their
    paths, and whether the test module is new."""
    reference, tests = reference_path(root, kata), test_path(root, kata)
    reference.parent.mkdir(exist_ok=True)
    reference.write_text(kata.solution_path(root).read_text(encoding="utf-8"), encoding="utf-8")
    new = not tests.exists()
    if new:
        shown = reference.relative_to(root).as_posix()
        run = f"pytest {FOLDER.as_posix()}/{kata.module}_test.py --answer-file {shown}"
        score = (
            "\nScore them (the share of the kata's mistakes they catch):\n"
            f"    katas testwrite {kata.number} --score"
        )
        tests.write_text(template(root, kata, run, score), encoding="utf-8")
    return reference, tests, new


def returned_file(kata: catalog.Kata) -> str:
    """The file a take-home's candidate returns for the kata: its test module."""
    return f"katas/{kata.module}_test.py"


def takehome_files(
    root: Path, chosen: list[catalog.Kata], files: dict[str, bytes], references: dict[str, bytes]
) -> None:
    """Turn a take-home's files into the testwrite mode's: each stub replaced by the reference
    (`references`, by path: solutions/<module>.py as committed), each kata's tests by a module
    to fill in, and the README."""
    for kata in chosen:
        reference = references[f"solutions/{kata.module}.py"]
        files[f"katas/{kata.module}.py"] = reference
        run = f"pytest {returned_file(kata)}  (katas/{kata.module}.py is the reference)"
        files[returned_file(kata)] = template(root, kata, run, "").encode()
    files["README.md"] = readme(chosen).encode()


def readme(chosen: list[catalog.Kata]) -> str:
    rows = "\n".join(f"| {k.label} | {k.title} | `{returned_file(k)}` |" for k in chosen)
    return f"""# PyTorch take-home: write the tests

Each kata's module in `katas/` holds a working answer: its docstring is the contract, its code
the reference. Write the tests that catch the mistakes people make when they write it, in the
kata's test module:

| kata | title | tests to write |
| --- | --- | --- |
{rows}

Install (Python 3.10 or newer): `python -m venv .venv && . .venv/bin/activate`, then
`pip install torch` and `pip install -e .`. Then `pytest` runs your tests against the working
answers: every test must pass there.

## How it is graded

Your tests run against the answer shipped here, against other correct answers written in other
styles (every test must pass on each of them: a test that rejects a correct answer makes the
module invalid, scored 0), and against wrong answers, each a mistake people make. A kata's
score is the share of wrong answers some test of yours fails. Tests take the `device` fixture
(`def test_x(device):`) and run on the CPU and on every accelerator present. They import the
kata's functions as the module does now (`from katas.<module> import ...`), and may import
torch, pytest and the suite's helpers (`torch_katas.testing`), nothing that reads files or
starts processes. Return the folder (without `.venv`); only the test modules are graded.

What a test module may use, read on its code before it runs. The suite's own kata tests are
the model: what they use is allowed, but what reaches the grader's run of your tests, the
results it reports, the file system or the process (a test that could tell the answers apart by
anything but their behaviour):

- of pytest: `raises`, `warns`, `deprecated_call`, `approx`, `fail`, `skip`, `xfail`,
  `param`, `fixture` and `mark` (`parametrize`, `skipif`, any marker), and `importorskip`
  called with the name of a module the kata's answers may import; nothing else of it (not
  `MonkeyPatch`, `main`, hooks: they reach the run itself);
- of `torch.testing`: `assert_close` and `make_tensor`; of `numpy.testing`: its `assert_...`
  functions;
- the helpers of `torch_katas.testing`, `torch_katas.facets` and `torch_katas.op_families`
  their `__all__` declares (not the rest of those modules, which reaches the harness);
- of the standard library beyond what an answer may import: `io.BytesIO` and `StringIO`,
  `json.dumps` and `loads`, `pickle.dumps` (not `loads`: unpickling runs code), `weakref`'s
  references, `inspect.signature` and `getattr_static` with a plain name (not `getsource`),
  `os.cpu_count` and `getpid`; `torch.save` and `torch.load(..., weights_only=True)`;
- of what `with pytest.raises(...) as caught` (or the helpers' `raises`) binds: `value`,
  `type`, `typename`, `match`, `errisinstance`, `exconly` (not the traceback: its frames
  reach the harness and the answer's file);
- fixtures: `device`, `tmp_path`, `capsys`, `recwarn` and the like, and `monkeypatch` on
  objects (`monkeypatch.setattr(torch, "compile", fake)`, `setenv`, `context`), not on a
  dotted path (`setattr("a.b", ...)` patches any module, the grader's too), nor its `chdir`
  or `syspath_prepend`; not the fixtures that reach pytest's run (`request`, `pytestconfig`,
  `cache`, `pytester`), and no `.config`, `.session`, `.hook`, `.ihook` or `.pluginmanager`
  of a fixture (your own objects may have attributes of those names);
- modules as values (`forbidden_modules(torch.optim, ...)`) and your own torch function mode
  (`torch.overrides.TorchFunctionMode`), which sees the answer's operations; not frames, the
  garbage collector, `sys.modules`, threads or processes, `vars`, `getattr` with a computed
  name, torch's private modules, nor an assignment to a module's or class's attribute (it
  outlives the test: patch with `monkeypatch`, naming the attribute);
- nothing that says where code is: not the lines or files of warning and log records
  (`lineno`, `filename`, `pathname`, `funcName`), `stacklevel`, `stack_info` or `exc_info`
  (the lines of the answer that call torch are not its behaviour).

A test module that uses anything else is flagged for review.
"""


# -- what the tests run against -------------------------------------------------------------


def describe_mutant(mutant: mutants_module.Mutant, lines: list[str]) -> str:
    """A mutant in words: the line of the reference and the change (operators as written)."""

    def symbol(match: re.Match[str]) -> str:
        return f"`{SYMBOLS.get(match[1], match[1])}` changed to `{SYMBOLS.get(match[2], match[2])}`"

    change = re.sub(r"^(\w+) -> (\w+)$", symbol, mutant.change)
    for name, text in SYMBOLS.items():
        change = change.replace(f"swap the sides of {name}", f"the sides of `{text}` swapped")
    change = change.replace("drop ", "dropped ", 1) if change.startswith("drop ") else change
    text = lines[mutant.line - 1].strip() if 0 < mutant.line <= len(lines) else ""
    return f"line {mutant.line} of the reference (`{text[:60]}`): {change}"


def answers_for(
    root: Path,
    kata: catalog.Kata,
    scratch: Path,
    *,
    mutants: bool,
    reference: Path | None = None,
) -> list[Answer]:
    """Every answer the tests run against, correct ones first; the wrong modules are
    written to `scratch` (named as --answer-file takes them)."""
    reference = reference or kata.solution_path(root)
    found = [Answer("reference", reference, "the reference answer")]
    for path in sorted((root / CORRECT_ANSWERS).glob(f"{kata.module}__*.py")):
        style = path.stem.partition("__")[2].replace("_", " ")
        whole = standalone(path, kata.solution_path(root), scratch)
        found.append(Answer("correct", whole, f"a correct answer in another style ({style})"))
    moved = scratch / f"{kata.module}__moved.py"
    moved.write_text(restated(spaced(reference.read_text(encoding="utf-8"))), encoding="utf-8")
    found.append(Answer("correct", moved, MOVED))
    for mistake in mistakes_module.mistakes(root, kata.module):
        words = mistake.description.removeprefix("Wrong:").strip()
        found.append(Answer("mistake", mistake.write(scratch, root), words))
    if mutants:
        source = kata.solution_path(root).read_text(encoding="utf-8")
        lines = source.splitlines()
        equivalent = mutants_module.equivalent_mutants(root / mutants_module.EQUIVALENT)
        for number, mutant in enumerate(
            mutants_module.counted(source, equivalent.get(kata.module, set()))
        ):
            path = scratch / f"{kata.module}__mutant{number}.py"
            path.write_text(mutant.source, encoding="utf-8")
            found.append(Answer("mutant", path, describe_mutant(mutant, lines)))
    return found


MOVED = "the reference with its lines moved, and names and docstrings of its own"


def restated(source: str) -> str:
    """The module with what its code does as it was, and what it says of itself drawn anew: a
    docstring of its own before each function's and class's body (the one it had, if any,
    left as a plain string) and a module-level name of its own, so that a test that tells
    answers by their text (the names `dir()` lists, `__doc__`: a mistake that adds a helper,
    or a docstring, beside the reference's code) fails on a correct answer."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return source
    lines = source.splitlines(keepends=True)
    before: dict[int, list[str]] = {}  # 0-based line -> the lines put in before it
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        first = node.body[0]
        start = min([first.lineno, *(d.lineno for d in getattr(first, "decorator_list", []))])
        header = lines[start - 1][: first.col_offset]
        if start > node.lineno and not header.strip():  # the body on lines of its own
            words = f"{header}{_drawn_words()!r}\n"
            before.setdefault(start - 1, []).append(words)
    body = "".join("".join(before.get(number, [])) + line for number, line in enumerate(lines))
    ending = "" if body.endswith("\n") or not body else "\n"
    return f"{body}{ending}\n_{secrets.token_hex(4)} = {_drawn_words()!r}\n"


def _drawn_words() -> str:
    """Words drawn anew, as a sentence (no string of it reads as a name)."""
    count = random.SystemRandom().randint(1, 4)
    return "Drawn: " + " ".join(secrets.token_hex(3) for _ in range(count)) + "."


def spaced(source: str) -> str:
    """The module with blank lines put in after logical lines drawn by chance: the same code
    at lines no test module can know, so a test that tells answers by where their code is
    (the lines that call torch, by any channel) fails on a correct answer."""
    draw = random.SystemRandom()
    lines = source.splitlines(keepends=True)
    try:
        ends = {
            token.end[0]
            for token in tokenize.generate_tokens(io.StringIO(source).readline)
            if token.type == tokenize.NEWLINE
        }
    except (tokenize.TokenError, SyntaxError):
        return source
    return "".join(
        line + "\n" * (draw.randint(1, 3) if number in ends and draw.random() < 0.3 else 0)
        for number, line in enumerate(lines, 1)
    )


def standalone(answer: Path, reference: Path, scratch: Path) -> Path:
    """A correct answer that takes the rest from its reference (`from solutions.<module>
    import ...`) as a module of its own, written to `scratch`: the reference's source, then
    the answer's without that import, so its definitions replace the reference's. Where the
    tests run (a grading sandbox) there is no `solutions` package to import."""
    source = answer.read_text(encoding="utf-8")
    imports = [
        node
        for node in ast.parse(source).body
        if isinstance(node, ast.ImportFrom) and node.module == f"solutions.{reference.stem}"
    ]
    if not imports:
        return answer
    lines = source.splitlines()
    for node in reversed(imports):
        del lines[node.lineno - 1 : node.end_lineno]
    parts = [reference.read_text(encoding="utf-8"), "\n".join(lines)]
    future = "from __future__ import annotations"
    hoisted = [future] if any(future in part for part in parts) else []
    body = [part.replace(future, "") for part in parts]
    path = scratch / answer.name
    path.write_text("\n".join([*hoisted, *body]) + "\n", encoding="utf-8")
    return path


# -- the run, in a process of its own -------------------------------------------------------


class Collected:
    """A plugin for the run: how many tests each collection found, and what failed to."""

    def __init__(self) -> None:
        self.tests = 0
        self.errors: list[str] = []

    def pytest_collectreport(self, report: object) -> None:
        if getattr(report, "failed", False):
            text = str(getattr(report, "longrepr", "")).strip().splitlines()
            line = next((t for t in reversed(text) if t.startswith("E ")), text[-1] if text else "")
            if line and line not in self.errors:
                self.errors.append(line.removeprefix("E").strip()[:300])

    def pytest_collection_finish(self, session: object) -> None:
        self.tests = max(self.tests, len(getattr(session, "items", [])))


def message(report: object) -> str:
    """A failed test's message: its crash line, or the last line of its report."""
    crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
    text = crash.message if crash is not None else str(getattr(report, "longrepr", ""))
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return (lines[0] if lines else "failed")[:300]


def run_answers(
    module: str,
    tests: Path,
    answers: Sequence[Path],
    complete: int,
    pytest_args: Sequence[str],
    plugins: Sequence[object] = (),
) -> dict[str, object]:
    """Run the test module `tests` against each answer in one pytest session, each answer in
    a process forked from this one (call it from a process of its own); the first `complete`
    answers (the correct ones) run every test, the others stop at their first failure.

    A fork per answer gives each answer the same start: nothing the tests did for one (a
    counter kept in a module, a setting, a cache, an attribute on torch) is there for the
    next, so they cannot tell answers apart by their order. Torch, pytest and the harness are
    imported, and the session configured, here once; this process imports no test module and
    runs no torch op (forking after one is unsafe).
    """
    # CUDA may not be initialised before a fork (the forks could not use it): torch checks
    # whether it is there through NVML instead, which leaves it uninitialised.
    os.environ.setdefault("PYTORCH_NVML_BASED_CUDA_CHECK", "1")
    import pytest
    import torch  # noqa: F401 - with torch imported the plugin runs unsupervised: forks do

    from torch_katas.runtime.answer_loop import AnswerLoop

    for name in WARM:
        importlib.import_module(name)

    paths = list(answers)
    hide_locations(module, paths)
    collected = Collected()
    forks = Forks(collected)
    loop = AnswerLoop(module, paths, forget=[tests], complete=paths[:complete], fork=forks)
    args = [str(tests), "--answer-file", str(paths[0]), "-p", "torch_katas.plugin"]
    # Native tracebacks: a failure's message is all the score reads, and pytest's own
    # formatting parses each failing test's source to show it.
    args += ["-p", "no:cacheprovider", "-p", "no:randomly", "-q", "--no-header", "--tb=native"]
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):  # as grading runs: none autoloaded
        args += ["-p", "pytest_timeout"]
    args += ["--timeout", str(TEST_TIMEOUT), *pytest_args]
    # The suite's settings (warnings as errors, markers) wherever the test module lies.
    args += ["-c", "pyproject.toml"] if Path("pyproject.toml").is_file() else []
    with contextlib.redirect_stdout(io.StringIO()):
        code = pytest.main(args, plugins=[loop, collected, *plugins])
    # The session here collected nothing (5): the forks' outcomes say how the run went.
    code = 1 if int(code) == 5 and any(forks.failures.values()) else int(code)
    return {
        "exit_code": 0 if code == 5 and collected.tests else code,
        "tests": collected.tests,
        "collect_errors": collected.errors,
        "failures": forks.failures,
    }


HIDDEN_FILE = "<hidden>"  # where every warning and log record of the scoring says it was raised
# The module every warning of the scoring is raised from, the same for all (so no filter on a
# module tells one place from another): inside torch, as torch's own filters ask of its
# warnings (`module="torch"`, which hides a deprecated attribute that torch.compile reads).
HIDDEN_MODULE = "torch.<hidden>"


def hide_locations(module: str = "", answers: Sequence[Path] = ()) -> None:
    """Make every warning and log record (and every autograd node's forward stack, which
    anomaly mode keeps) say it was raised at line 0 of HIDDEN_FILE, in no function: a test may
    record them, print them or log them, and learn nothing of where the answer's code calls
    what, nor how deep (which lines call torch tell the reference from a mistake as well as
    any behaviour does, and `stacklevel` walks up to the answer's frames). And show the
    answers' lines (those of `answers`, and of any file named as the kata `module`'s answers
    are) to no reader but the harness's: torch writes the source of the code it traces into
    its exceptions (dynamo's "from user code", a data-dependent guard's message), where a
    test reads it (`caught.value`), and the text of an answer, comments and all, tells the
    reference from a mistake without running either. For this process alone: the scoring's,
    which shows no warning's place to anyone."""
    import linecache
    import logging
    import warnings

    from torch_katas import testing

    hidden = {str(path) for path in answers}
    hidden |= {os.path.abspath(path) for path in answers}
    hidden |= {os.path.realpath(path) for path in answers}
    lines_of = linecache.getlines

    def getlines(filename: str, module_globals: Any = None) -> list[str]:
        lines = lines_of(filename, module_globals)
        name = os.path.basename(filename)
        named = bool(module) and (name == f"{module}.py" or name.startswith(f"{module}__"))
        answer = filename in hidden or named
        if answer and not testing.harness_reads_source():
            return ["\n"] * len(lines)  # as many lines, so that line numbers stay in range
        return lines

    linecache.getlines = getlines

    class WarningMessage(warnings.WarningMessage):
        def __init__(
            self, message: Any, category: Any, filename: Any, lineno: Any, *args: Any, **kw: Any
        ):
            super().__init__(message, category, HIDDEN_FILE, 0, *args, **kw)

    warnings.WarningMessage = WarningMessage  # type: ignore[misc]
    # Filters and the "default"/"module" registries act on the place a warning is raised at,
    # before any record is made: a filter for one line (`filterwarnings("error", "", Warning,
    # "", 17)`) with a stacklevel that walks up to the answer tells which of its lines call
    # torch. Raised through warnings.warn, a warning has no place: line 0 of HIDDEN_FILE,
    # whatever stacklevel says, and no registry.
    explicit = warnings.warn_explicit

    def warn(
        message: Any, category: Any = None, stacklevel: int = 1, source: Any = None, **kw: Any
    ) -> None:
        if isinstance(message, Warning):
            category = type(message)
        category = category or UserWarning
        explicit(message, category, HIDDEN_FILE, 0, HIDDEN_MODULE, None, None, source)

    warnings.warn = warn
    factory = logging.getLogRecordFactory()

    def record(*args: Any, **kwargs: Any) -> logging.LogRecord:
        made = factory(*args, **kwargs)
        made.pathname, made.filename, made.module = HIDDEN_FILE, HIDDEN_FILE, HIDDEN_FILE
        made.lineno, made.funcName, made.stack_info = 0, "?", None
        return made

    logging.setLogRecordFactory(record)
    # Anomaly mode keeps the stack of each autograd node's forward (its metadata, its warning).
    import torch.fx.traceback

    def format_stack() -> list[str]:
        return [f'  File "{HIDDEN_FILE}", line 0, in ?\n']

    torch.fx.traceback.format_stack = format_stack


class Forks:
    """AnswerLoop's fork: each answer's tests run in a process forked from the session's, as
    many at once as there are CPUs (up to JOBS); each answer's outcome is its own process's,
    so their order changes no score (only which test an answer meets first)."""

    def __init__(self, collected: Collected, jobs: int | None = None):
        self.collected = collected
        self.failures: dict[str, list[list[str]]] = {}
        self.jobs = jobs or min(JOBS, cpus())
        self.running: dict[int, Child] = {}  # by the read end of each child's pipe

    def run(self, work: Callable[[], list[Any]], answer: Path, loop: Any) -> None:
        import torch

        if torch.cuda.is_initialized():
            raise RuntimeError("CUDA was initialised before the answers' forks: they cannot use it")

        def child() -> dict[str, object]:
            failed = [[report.nodeid, message(report)] for report in work()]
            return {
                "failures": failed,
                "caught": loop.caught,
                "tests": self.collected.tests,
                "collect_errors": self.collected.errors,
            }

        while len(self.running) >= self.jobs:
            self.reap(loop)
        started = Child(child, answer)
        self.running[started.read] = started

    def wait(self, loop: Any) -> None:
        while self.running:
            self.reap(loop)

    def reap(self, loop: Any) -> None:
        """Read from the running children until one ends; record its outcome."""
        with selectors.DefaultSelector() as selector:
            for read in self.running:
                selector.register(read, selectors.EVENT_READ)
            while True:
                for key, _ in selector.select():
                    child = self.running[int(key.fd)]
                    if child.read_some():
                        del self.running[child.read]
                        self.record(child.answer, child.result(), loop)
                        return

    def record(self, answer: Path, one: dict[str, Any] | None, loop: Any) -> None:
        if one is None:  # it died (a crash, os._exit): the tests failed on this answer
            one = {"failures": [["", "the test process died"]]}
        self.failures[str(answer)] = [[str(t), str(w)] for t, w in one.get("failures", [])]
        loop.caught += [str(t) for t in one.get("caught", []) if t not in loop.caught]
        self.collected.tests = max(self.collected.tests, int(one.get("tests", 0)))
        for error in one.get("collect_errors", []):
            if error not in self.collected.errors:
                self.collected.errors.append(str(error))


def cpus() -> int:
    """The CPUs this process may use."""
    if hasattr(os, "sched_getaffinity"):  # Linux: what the sandbox or a container allows
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


class Child:
    """A forked process running `work`, which sends back what it returns on a pipe."""

    def __init__(self, work: Callable[[], dict[str, object]], answer: Path):
        self.answer = answer
        self.key = secrets.token_hex(16)  # its result line: the tests' writes on the pipe lack it
        self.chunks: list[bytes] = []
        self.read, write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the child: never returns
            status = 1
            try:
                os.close(self.read)
                line = f"{self.key} {json.dumps(work())}\n".encode()
                while line:
                    line = line[os.write(write, line) :]
                status = 0
            finally:
                os._exit(status)
        os.close(write)

    def read_some(self) -> bool:
        """Read what the child wrote; True once it closed the pipe (and has been waited for)."""
        chunk = os.read(self.read, 1 << 16)
        if chunk:
            self.chunks.append(chunk)
            return False
        os.close(self.read)
        os.waitpid(self.pid, 0)
        return True

    def result(self) -> dict[str, Any] | None:
        """What `work` returned; None when the child died without a result."""
        for said in b"".join(self.chunks).decode("utf-8", errors="replace").splitlines():
            if said.startswith(self.key + " "):
                try:
                    value = json.loads(said[len(self.key) + 1 :])
                except ValueError:
                    return None
                return value if isinstance(value, dict) else None
        return None


def main() -> None:
    """The scoring process: `python -m torch_katas.practice.testwrite PLAN RESULTS`."""
    plan = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    answers = [Path(p) for p in plan["answers"]]
    result = run_answers(
        plan["module"], Path(plan["tests"]), answers, plan["complete"], plan["pytest_args"]
    )
    Path(sys.argv[2]).write_text(json.dumps(result), encoding="utf-8")


# -- the score ------------------------------------------------------------------------------


@dataclass
class Score:
    kata: catalog.Kata
    tests: int = 0  # tests the module holds
    rejected: list[tuple[Answer, str, str]] = field(default_factory=list)  # (answer, test, why)
    caught: list[Answer] = field(default_factory=list)
    missed: list[Answer] = field(default_factory=list)
    problem: str | None = None  # why the module could not be run at all
    correct: int = 0  # correct answers run against

    @property
    def valid(self) -> bool:
        return self.problem is None and not self.rejected and self.tests > 0

    @property
    def total(self) -> int:
        return len(self.caught) + len(self.missed)

    @property
    def share(self) -> float:
        """The share of mistakes caught; 0 while the module is invalid."""
        return len(self.caught) / self.total if self.valid and self.total else 0.0

    def last_line(self) -> str:
        counts = f"caught {len(self.caught)} of {self.total} mistakes"
        if self.valid:
            return f"{counts} ({round(100 * self.share)} %)"
        return f"{counts} (invalid: {self.reason()})"

    def reason(self) -> str:
        if self.problem is not None:
            return self.problem
        if self.tests == 0:
            return "the module holds no test"
        answers = {answer.description for answer, _, _ in self.rejected}
        return f"tests fail on {len(answers)} correct answer{'s' * (len(answers) > 1)}"

    def report(self) -> str:
        """The learner's report, ending with the score's line."""
        kata = self.kata
        lines = [f"{kata.label} {kata.title}: {self.tests} tests"]
        mutants = sum(a.kind == "mutant" for a in self.caught + self.missed)
        lines[0] += (
            f", run against the reference, {self.correct} correct answers in other styles, "
            f"{self.total - mutants} curated mistakes"
        ) + (f" and {mutants} mutants" if mutants else "")
        if self.problem:
            lines.append(f"your tests could not run: {self.problem}")
        for answer, test, why in self.rejected:
            lines.append(f"  {test.split('::')[-1]} fails on {answer.description}: {why}")
        if self.rejected:
            lines.insert(1, "invalid: every test must pass on every correct answer; these do not:")
        if self.valid and self.missed:
            lines.append("missed:")
            lines += [f"  - {answer.description}" for answer in self.missed]
        lines.append(self.last_line())
        return "\n".join(lines)

    def to_json(self) -> dict[str, object]:
        return {
            "kata": self.kata.module,
            "tests": self.tests,
            "valid": self.valid,
            "problem": self.problem,
            "caught": len(self.caught),
            "total": self.total,
            "share": round(self.share, 4),
            "missed": [a.description for a in self.missed],
            "rejected": [
                {"answer": a.description, "test": test, "message": why}
                for a, test, why in self.rejected
            ],
        }


def judge(kata: catalog.Kata, answers: list[Answer], result: dict[str, object]) -> Score:
    """The score from the run's result (run_answers)."""
    score = Score(kata, correct=sum(a.kind == "correct" for a in answers))
    tests = result.get("tests")
    score.tests = tests if isinstance(tests, int) else 0
    errors = result.get("collect_errors")
    errors = errors if isinstance(errors, list) else []
    failures = result.get("failures")
    if not isinstance(failures, dict):
        failures = {}
    if errors:
        score.problem = f"collecting them failed: {errors[0]}"
    elif result.get("exit_code") not in (0, 1, 5):
        status = result.get("exit_code")
        score.problem = f"the test run did not finish (pytest exit status {status})"
    for answer in answers:
        key = str(answer.path)
        if key not in failures:  # never run: the run ended early
            if answer.wrong:
                score.missed.append(answer)
            continue
        failed = failures[key]
        if not answer.wrong:
            score.rejected += [(answer, str(test), str(why)) for test, why in failed]
        elif failed:
            score.caught.append(answer)
        else:
            score.missed.append(answer)
    return score


def score(
    root: Path,
    kata: catalog.Kata,
    tests: Path,
    *,
    mutants: bool = False,
    pytest_args: Sequence[str] = (),
) -> Score:
    """Score the test module `tests` of `kata`, in a process of its own."""
    if not tests.is_file():
        raise UsageError(f"{tests}: no such file (`katas testwrite {kata.number}` writes one)")
    with tempfile.TemporaryDirectory(prefix="katas-testwrite-") as folder:
        scratch = Path(folder)
        answers = answers_for(root, kata, scratch, mutants=mutants)
        plan = {
            "module": kata.module,
            "tests": str(tests.resolve()),
            "answers": [str(a.path) for a in answers],
            "complete": sum(not a.wrong for a in answers),
            "pytest_args": list(pytest_args),
        }
        (scratch / "plan.json").write_text(json.dumps(plan), encoding="utf-8")
        results = scratch / "results.json"
        command = [sys.executable, "-m", "torch_katas.practice.testwrite"]
        command += [str(scratch / "plan.json"), str(results)]
        try:
            done = subprocess.run(
                command, cwd=root, capture_output=True, text=True, timeout=RUN_TIMEOUT
            )
        except subprocess.TimeoutExpired:
            return Score(kata, problem=f"the run took over {RUN_TIMEOUT} s")
        if not results.is_file():
            said = (done.stderr or done.stdout).strip().splitlines()
            last = said[-1][:200] if said else f"status {done.returncode}"
            return Score(kata, problem=f"the scoring process ended early: {last}")
        return judge(kata, answers, json.loads(results.read_text(encoding="utf-8")))


if __name__ == "__main__":
    main()
