"""The kata tests that fail on each of many answers, from one nested pytest session
(torch_katas/runtime/answer_loop.py): tests/store_mistakes.py uses it."""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import pytest

from torch_katas.runtime import answers
from torch_katas.runtime.answer_loop import AnswerLoop

__all__ = ["AnswerLoop", "failing_each", "kind"]

ROOT = Path(__file__).resolve().parents[1]


def failing_each(
    module: str, paths: list[Path], marks: str = "", only: dict[Path, set[str]] | None = None
) -> dict[Path, dict[str, str]]:
    """The kata tests that fail on each answer in `paths` (on the default devices), each with
    how it failed; of an answer in `only`, among those tests alone, until one passes."""
    loop = AnswerLoop(module, paths, first_failure=False, only=only)
    test = ROOT / "katas" / f"{module}_test.py"
    options = ["-q", "-p", "no:cacheprovider", "-p", "no:randomly", "--timeout", "120"]
    options += ["-m", marks] if marks else []
    with contextlib.redirect_stdout(io.StringIO()):
        pytest.main([str(test), "--answer-file", str(paths[0]), *options], plugins=[loop])
    for name in [n for n in sys.modules if answers.is_kata_package(n)]:
        del sys.modules[name]
    return {path: {report.nodeid: kind(report) for report in loop.failures[path]} for path in paths}


def kind(report: pytest.TestReport) -> str:
    """How a test failed: the exception's type name, as its report gives it."""
    crash = getattr(report.longrepr, "reprcrash", None)
    message = crash.message if crash is not None else str(report.longrepr)
    return message.split(":")[0].split()[0] if message.strip() else "failed"
