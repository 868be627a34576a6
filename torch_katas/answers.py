"""Choose which answers the kata tests import.

Kata tests always write `from katas.q06_autograd import grad_of`. Without options that is
the learner's stub. `--solutions` (or `--answer-file`) installs an import finder that loads
`katas.q06_autograd` from another file instead, so the same tests check another answer.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path

from torch_katas.catalog import module_of


class AnswerFinder(importlib.abc.MetaPathFinder):
    """Loads `katas.<module>` from the file mapped to that module."""

    def __init__(self, files: dict[str, Path]):
        self.files = files

    def find_spec(self, fullname, path=None, target=None):
        package, _, module = fullname.partition(".")
        if package != "katas" or module not in self.files:
            return None
        return importlib.util.spec_from_file_location(fullname, self.files[module])


def answer_files(root: Path, solutions: bool, extra: list[str]) -> dict[str, Path]:
    """Map kata modules to the files that stand in for their stubs."""
    files: dict[str, Path] = {}
    if solutions:
        for path in sorted((root / "solutions").glob("q*.py")):
            if module := module_of(path):
                files[module] = path
    for name in extra:
        path = Path(name).resolve()
        module = module_of(path)
        if module is None or not path.is_file():
            raise ValueError(
                f"--answer-file {name}: expected an existing file named after a kata, "
                "such as q06_autograd.py or q06_autograd__some_mistake.py"
            )
        files[module] = path
    return files


def is_kata_package(name: str) -> bool:
    """True for `katas`, `solutions` and the modules in them."""
    return name.split(".")[0] in ("katas", "solutions")


def install(files: dict[str, Path]) -> Callable[[], None]:
    """Make this run import `files` for their katas; returns the function that undoes it.

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
    finder = AnswerFinder(files)
    sys.meta_path.insert(0, finder)

    def undo() -> None:
        if finder in sys.meta_path:
            sys.meta_path.remove(finder)
        sys.meta_path[:0] = outer

    return undo
