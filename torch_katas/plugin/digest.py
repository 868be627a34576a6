"""The failures of a red run, as a learner reads them: each failing kata's tests grouped by
cause, each cause once with its count, the learner's own lines and the test's advice.

In a default run (no -v, no --tb) a failing kata test's report is made short at once: its
message and the lines of the answer it ran through, never pytest's full traceback through
torch's internals and the stub's docstring, which took most of a red run's time to format.
`-v` or any `--tb` gives pytest's own reports instead.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from torch_katas.catalog import Kata
from torch_katas.plugin.run import RUN, kata_of
from torch_katas.status import MESSAGE

__all__ = [
    "active",
    "brief",
    "exception_lines",
    "write",
]

WIDTH = 80
MESSAGE_LINES = 6  # of a cause's message, for its first test
FRAMES = 3  # of the answer's lines a cause shows, innermost last
CAUSES = 4  # per kata; more are counted
# Where a report's short text says where the answer was: "  at katas/q13_x.py:30 in f: code".
AT = "  at "


def active(config: pytest.Config) -> bool:
    """Whether this run shows the digest instead of pytest's reports of kata failures."""
    return config.get_verbosity() <= 0 and config.option.tbstyle == "auto"


def exception_lines(excinfo: pytest.ExceptionInfo[BaseException]) -> list[str]:
    """What an exception says: an assertion's own message, else `Type: message`."""
    value = excinfo.value
    text = str(value) if isinstance(value, AssertionError) else excinfo.exconly()
    return (text.strip() or excinfo.typename).splitlines()


def brief(item: pytest.Item, excinfo: pytest.ExceptionInfo[BaseException]) -> str:
    """A kata failure's report: the exception's message, then the answer's own lines."""
    run = item.config.stash[RUN]
    kata = kata_of(item)
    lines = exception_lines(excinfo)
    answer = run.answer_path(kata) if kata is not None else None
    frames = []
    for entry in excinfo.traceback:
        if answer is not None and Path(entry.path) == answer:
            source = str(entry.statement).strip().splitlines()
            code = f": {source[0]}" if source else ""
            shown = run.imports.shown(answer)
            frames.append(f"{AT}{shown}:{entry.lineno + 1} in {entry.name}{code}")
    return "\n".join(lines[:MESSAGE_LINES] + frames[-FRAMES:])


@dataclass
class Cause:
    """One way a kata's tests fail: the first line of their message."""

    first: str
    text: str  # the first test's whole short report
    tests: list[str] = field(default_factory=list)


def causes(reports: Iterable[Any]) -> list[Cause]:
    """The reports' causes (their MESSAGE, the one line grading reads too), most tests first."""
    found: dict[str, Cause] = {}
    for report in reports:
        text = str(report.longrepr or "").strip() or "failed"
        if not hasattr(report, "user_properties"):  # a test file that does not import
            errors = [line[1:].strip() for line in text.splitlines() if line.startswith("E ")]
            first = f"{report.nodeid} does not import: {errors[-1] if errors else text}"
        else:
            first = str(dict(report.user_properties).get(MESSAGE) or text.splitlines()[0])
        name = report.nodeid.split("::", 1)[-1]
        found.setdefault(first, Cause(first, text)).tests.append(name)
    return sorted(found.values(), key=lambda cause: -len(cause.tests))


def promise(test: str) -> str:
    """`test_keeps_float64[cpu]` -> `keeps float64`: the promise the test checks."""
    return test.partition("[")[0].removeprefix("test_").replace("_", " ")


# Lines of pytest's assertion explanations that say nothing a learner can act on.
NOISE = ("Use -v to get more diff", "Omitting ")


def kata_lines(kata: Kata, reports: list[Any]) -> list[str]:
    lines = []
    found = causes(reports)
    for cause in found[:CAUSES]:
        count = len(cause.tests)
        head = f"{count} tests" if count > 1 else "1 test"
        rest = cause.text.splitlines()[1:]
        message = cause.first.removeprefix(f"{kata.label} {kata.title}: ")  # the heading says it
        lines += textwrap.wrap(f"{head}: {message}", WIDTH, subsequent_indent="    ")
        details = [
            line
            for line in rest
            if line.strip() and not line.startswith(AT) and not line.startswith(NOISE)
        ]
        frames = [line for line in rest if line.startswith(AT)]
        lines += ["    " + textwrap.shorten(line, WIDTH - 4, placeholder="…") for line in details]
        lines += [line if len(line) <= WIDTH else line[: WIDTH - 1] + "…" for line in frames]
        checks = sorted(dict.fromkeys(promise(test) for test in cause.tests))
        shown = ", ".join(checks[:2]) + (f" and {len(checks) - 2} more" if len(checks) > 2 else "")
        lines += textwrap.wrap(
            f"checked by: {shown}", WIDTH, initial_indent="  ", subsequent_indent="    "
        )
    if len(found) > CAUSES:
        more = sum(len(cause.tests) for cause in found[CAUSES:])
        lines.append(f"and {more} more tests failing {len(found) - CAUSES} other ways (pytest -v)")
    return lines


def write(tr: Any, by_kata: dict[Kata, list[Any]], height: int | None) -> None:
    """The digest of every failing kata, in kata order, in at most `height` lines."""
    lines: list[str] = []
    for kata in sorted(by_kata, key=lambda kata: kata.number):
        title = f" {kata.label} {kata.title} "
        lines.append(title.center(WIDTH, "_") if len(title) < WIDTH - 2 else title.strip())
        lines += kata_lines(kata, by_kata[kata])
    if height is not None and len(lines) > height:
        cut = len(lines) - height + 1
        lines = [*lines[: height - 1], f"… {cut} more lines (run without --digest-height)"]
    for line in lines:
        tr.write_line(line, red=not line.startswith(("  ", "_", "…")), bold=line.startswith("_"))
