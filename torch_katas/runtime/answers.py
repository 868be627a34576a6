"""Choose which answers the kata tests import, and import them so that one cannot spoil the rest.

Kata tests always write `from katas.q06_autograd import grad_of`. Without options that is
the learner's stub; `--solutions` (or `--answer-file`) loads `katas.q06_autograd` from another
file instead, so the same tests check another answer.

Every kata module is imported by the finder here, under a time limit and inside the same
state guard as the tests: changes it makes to global state at import are undone (and
reported), and a module that does not import (a syntax error, an exception, `sys.exit`, an
endless loop) becomes a stand-in whose every public name fails with one line naming the file
and line. Its test module still imports, so only that kata's tests fail.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
import traceback
import types
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from torch_katas.catalog import module_of

if TYPE_CHECKING:
    from torch_katas.runtime.timelimit import TimeLimit

__all__ = [
    "Imports",
    "StubUnavailable",
    "answer_files",
    "import_changes",
    "install",
    "is_kata_package",
]


class StubUnavailable(BaseException):
    """Raised by every public name of a kata module that failed to import.

    A BaseException, so that no `pytest.raises(Exception)` or `except Exception` in a test
    can take it for the error it expects.
    """


class ImportTimeout(BaseException):
    """The module was still importing when its time ran out."""


@dataclass
class Imports:
    """What importing the kata modules did, for the run's report."""

    root: Path
    files: dict[str, Path]  # kata module -> the file imported for it
    time_limit: float = 0  # seconds; 0 for none
    changes: dict[str, list[str]] = field(default_factory=dict)  # module -> what it changed
    # Kata modules not to import, with their one-line failure (their import crashed a process).
    broken: dict[str, str] = field(default_factory=dict)
    # Told (module, False) before a kata module is imported and (module, True) after.
    announce: Callable[[str, bool], None] | None = None

    def shown(self, path: Path) -> str:
        """`path` as the learner would type it: relative to the suite when inside it."""
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)


class AnswerFinder(importlib.abc.MetaPathFinder):
    """Finds `katas.<module>` for every kata: the mapped file, or else the stub in katas/."""

    def __init__(self, imports: Imports, modules: set[str]):
        self.imports = imports
        self.modules = modules | set(imports.files)

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        package, _, module = fullname.partition(".")
        if package != "katas" or module not in self.modules:
            return None
        file = self.imports.files.get(module, self.imports.root / "katas" / f"{module}.py")
        loader = GuardedLoader(fullname, str(file), self.imports, module)
        return importlib.util.spec_from_file_location(fullname, file, loader=loader)


class GuardedLoader(importlib.machinery.SourceFileLoader):
    """Executes a kata module under a time limit and the state guard."""

    def __init__(self, fullname: str, path: str, imports: Imports, module: str):
        super().__init__(fullname, path)
        self.imports = imports
        self.kata = module

    def exec_module(self, module: types.ModuleType) -> None:
        path = Path(self.path)
        if self.kata in self.imports.broken:
            stand_in(module, f"{self.imports.shown(path)} {self.imports.broken[self.kata]}")
            return
        if self.imports.announce is not None:
            self.imports.announce(self.kata, False)
        try:
            self.guarded_exec(module, path)
        finally:
            if self.imports.announce is not None:
                self.imports.announce(self.kata, True)

    def guarded_exec(self, module: types.ModuleType, path: Path) -> None:
        # Imported here: the plugin imports this module before torch.
        from torch_katas.runtime.isolation import GlobalState, stop_threads_in
        from torch_katas.runtime.timelimit import TimeLimit

        state = GlobalState()

        def expire() -> None:
            raise ImportTimeout

        limit = TimeLimit(self.imports.time_limit, expire)
        message: str | None = None
        try:
            if not path.is_file():
                raise FileNotFoundError(path)
            with limit:
                super().exec_module(module)
        except KeyboardInterrupt as error:
            if not limit.expired:
                raise
            message = self.failure(ImportTimeout(), error.__traceback__, limit)
        except BaseException as error:  # whatever the module did, this kata alone pays
            message = self.failure(error, error.__traceback__, limit)
        finally:
            changed = state.restore(everything=True)
            if changed:
                self.imports.changes[self.kata] = changed
        threads = stop_threads_in(path)
        if message is None and threads:
            message = (
                f"{self.imports.shown(path)} started a thread while importing that was still "
                f"running its code afterwards ({', '.join(threads)}); torch-katas stopped it. "
                "A kata's module must not leave threads running: they would change the state "
                "the other katas' tests rely on"
            )
        if message is not None:
            stand_in(module, message)
        elif "__getattr__" not in vars(module):
            shown = self.imports.shown(path)
            module.__getattr__ = lambda name: missing_name(module, shown, name)  # type: ignore[method-assign]

    def failure(
        self, error: BaseException, tb: types.TracebackType | None, limit: TimeLimit
    ) -> str:
        """One line: which file, which line, what went wrong."""
        path = Path(self.path)
        shown = self.imports.shown(path)
        if isinstance(error, FileNotFoundError) and not path.exists():
            return f"{shown} is missing (`katas reset` restores the stub)"
        if isinstance(error, SyntaxError) and error.lineno is not None:
            return f"{shown} line {error.lineno} does not import: {one_line(error)}"
        line = None
        if isinstance(error, ImportTimeout):
            entry = limit.last_line_in(path)
            line = entry.lineno if entry is not None else None
        else:
            for entry in reversed(traceback.extract_tb(tb)):
                if Path(entry.filename) == path:
                    line = entry.lineno
                    break
        where = f"{shown} line {line}" if line is not None else shown
        if isinstance(error, ImportTimeout):
            return (
                f"{where} was still running after {limit.seconds:g} s of importing; "
                "an import must not loop or wait (do the work inside your functions)"
            )
        if isinstance(error, SystemExit):
            return f"{where} called sys.exit({error.code!r}) while importing"
        return f"{where} does not import: {one_line(error)}"


def one_line(error: BaseException) -> str:
    text = traceback.format_exception_only(type(error), error)[-1].strip()
    if isinstance(error, SyntaxError):
        text = f"{type(error).__name__}: {error.msg}"
    return text.splitlines()[0] if text else type(error).__name__


class _Unavailable(type):
    """The type of a stand-in: calling it, or asking it for a public attribute, fails."""

    def __call__(cls, *args: object, **kwargs: object) -> NoReturn:
        raise StubUnavailable(cls.__kata_error__)

    def __getattr__(cls, name: str) -> NoReturn:
        if name.startswith("_"):  # pytest, inspect and copy probe for these: not found
            raise AttributeError(name)
        raise StubUnavailable(cls.__kata_error__)


def missing_name(module: types.ModuleType, shown: str, name: str) -> type:
    """A stand-in for a public name the module lacks, so that its kata's tests still import
    (and fail) instead of stopping the whole run at collection."""
    if name.startswith("_"):
        raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")
    message = (
        f"{shown} has no {name}, which its tests use: was it renamed or deleted? "
        "(`katas reset` restores the stub)"
    )
    return _Unavailable(name, (), {"__kata_error__": message, "__module__": module.__name__})


def stand_in(module: types.ModuleType, message: str) -> None:
    """Turn `module` into one whose public names all fail with `message`.

    Names the module defined before it failed go too: a half-imported module must not pass
    some of its kata's tests.
    """
    for name in [n for n in vars(module) if not n.startswith("__")]:
        delattr(module, name)

    def missing(name: str) -> type:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Unavailable(name, (), {"__kata_error__": message, "__module__": module.__name__})

    module.__getattr__ = missing  # type: ignore[method-assign]
    module.__kata_error__ = message  # type: ignore[attr-defined]


def answer_files(
    root: Path, solutions: bool, extra: list[str], katas: Collection[str] = ()
) -> dict[str, Path]:
    """Map kata modules to the files that stand in for their stubs.

    Raises ValueError where an --answer-file is missing or not named after one of `katas`
    (the modules of the catalogue; where empty, any kata-like name is taken).
    """
    files: dict[str, Path] = {}
    if solutions:
        for path in sorted((root / "solutions").glob("q*.py")):
            if module := module_of(path):
                files[module] = path
    for name in extra:
        path = Path(name).resolve()
        module = module_of(path)
        if not path.is_file():
            raise ValueError(f"--answer-file {name}: no such file")
        if module is None or (katas and module not in katas):
            raise ValueError(f"--answer-file {name}: {expected_names(path.name, katas)}")
        files[module] = path
    return files


def expected_names(name: str, katas: Collection[str]) -> str:
    """What an answer file named `name` should have been named, for the usage error."""
    same_number = [m for m in sorted(katas) if name[:3] == m[:3] and name[:1] == "q"]
    if same_number:
        module = same_number[0]
        return (
            f"not named after a kata; kata {int(module[1:3])}'s answer is named "
            f"{module}.py (or {module}__any_note.py)"
        )
    example = sorted(katas)[0] if katas else "q06_gradients"
    return (
        "not named after a kata; name it as the stub it stands in for is named in katas/ "
        f"(for example {example}.py, or {example}__any_note.py)"
    )


def is_kata_package(name: str) -> bool:
    """True for `katas`, `solutions` and the modules in them."""
    return name.split(".")[0] in ("katas", "solutions")


def import_changes(module: str) -> list[str]:
    """What importing the kata module changed that the state guard put back, in the runs now
    going on in this process."""
    finders = [finder for finder in sys.meta_path if isinstance(finder, AnswerFinder)]
    return [name for finder in finders for name in finder.imports.changes.get(module, [])]


def install(imports: Imports, modules: set[str]) -> Callable[[], None]:
    """Import every kata module of `modules` (and of `imports.files`) through the guarded
    finder for this run; returns the function that undoes it.

    A run inside another (the self-checks run pytest in-process) sets the outer run's
    finder aside, so the inner run tests exactly the answers it was asked to.
    """
    outer = [finder for finder in sys.meta_path if isinstance(finder, AnswerFinder)]
    for finder in outer:
        sys.meta_path.remove(finder)
    # Forget the kata packages imported before this run (an earlier in-process run may have
    # loaded other answers, or another project's), so this run imports what it chose now.
    for name in [n for n in sys.modules if is_kata_package(n)]:
        del sys.modules[name]
    finder = AnswerFinder(imports, modules)
    sys.meta_path.insert(0, finder)

    def undo() -> None:
        if finder in sys.meta_path:
            sys.meta_path.remove(finder)
        sys.meta_path[:0] = outer

    return undo
