"""One kata's tests for a notebook cell: the plain `python -m pytest katas/qNN_name_test.py` in
a fresh process, and what of its outcome the cell shows.

The run is the learner's `pytest` itself, with the default device list and the learner's
store: the progress it records is what a run in a terminal records for the same stub. The
notebook only adds `--junitxml` to read each test's outcome and message back without
parsing tracebacks; the progress summary shown is the plugin's own, cut from pytest's
output. Nothing here imports pytest, torch or the kata.
"""

from __future__ import annotations

import contextlib
import html
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from pathlib import Path

from torch_katas.catalog import Kata
from torch_katas.cli.watch import VERDICTS
from torch_katas.store import Store

# The header line of the plugin's summary, and its line naming the devices of the run.
PROGRESS_HEADER = "torch-katas progress"
DEVICES_LINE = "torch-katas: devices"
SHOWN_FAILURES = 8  # distinct messages shown in the cell; the rest are counted
SHOWN_TESTS = 4  # test names shown for each message
# Colour codes: a kernel may ask for colour (FORCE_COLOR), which HTML would show as noise.
ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@dataclass
class Failure:
    """One distinct failure message and the tests that failed with it."""

    message: str
    tests: list[str] = field(default_factory=list)


@dataclass
class Outcome:
    """What one run of a kata's tests did, as pytest and the learner's store tell it."""

    kata: Kata
    command: list[str]
    exit_code: int
    output: str  # pytest's stdout and stderr, interleaved
    seconds: float
    status: str  # the kata's status in the store after the run
    reported: bool = False  # whether pytest wrote its report of the tests
    tests: int = 0
    passed: int = 0
    skipped: int = 0
    failures: list[Failure] = field(default_factory=list)

    @property
    def failed(self) -> int:
        return sum(len(failure.tests) for failure in self.failures)


def command(root: Path, kata: Kata, junit: Path, pytest_args: list[str]) -> list[str]:
    test_file = kata.test_path(root).relative_to(root).as_posix()
    # sys.executable: the kernel's own interpreter, so the run sees the packages it sees.
    return [sys.executable, "-m", "pytest", test_file, f"--junitxml={junit}", *pytest_args]


def run_tests(root: Path, kata: Kata, pytest_args: list[str]) -> Outcome:
    """Run the kata's tests in a new process in `root`; interrupting the kernel stops it."""
    with tempfile.TemporaryDirectory(prefix="torch-katas-") as scratch:
        junit = Path(scratch) / "junit.xml"
        argv = command(root, kata, junit, pytest_args)
        start = time.perf_counter()
        # A process group of its own: an interrupt of the kernel is passed on to it below.
        process = subprocess.Popen(
            argv,
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            encoding="utf-8",
            errors="replace",
            start_new_session=os.name == "posix",
        )
        try:
            output, _ = process.communicate()
        except KeyboardInterrupt:
            stop(process)
            raise
        seconds = time.perf_counter() - start
        outcome = Outcome(
            kata=kata,
            command=argv,
            exit_code=process.returncode,
            output=ESCAPES.sub("", output),
            seconds=seconds,
            status=Store.for_root(root).status_of(kata),
        )
        if junit.is_file():
            read_junit(junit, outcome)
    return outcome


def stop(process: subprocess.Popen) -> None:
    """Interrupt the run as Ctrl-C in a terminal would, its whole process group (pytest then
    records no kata as solved); kill the group if it is still running 10 s later."""
    if os.name != "posix":  # pragma: no cover - no process groups to signal
        process.kill()
        process.communicate()
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGINT)
    try:
        process.communicate(timeout=10)
    except subprocess.TimeoutExpired:  # still running, so the group is still its own
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate()


def read_junit(path: Path, outcome: Outcome) -> None:
    """Count the run's tests and group its failures by message, from pytest's JUnit XML."""
    try:
        tree = ElementTree.parse(path)
    except ElementTree.ParseError:
        return
    outcome.reported = True
    groups: dict[str, Failure] = {}
    for case in tree.getroot().iter("testcase"):
        outcome.tests += 1
        name = case.get("name", "?")
        problems = [child for child in case if child.tag in ("failure", "error")]
        if problems:
            message = (problems[0].get("message") or problems[0].tag).strip()
            groups.setdefault(message, Failure(message)).tests.append(name)
        elif case.find("skipped") is not None:
            outcome.skipped += 1
        else:
            outcome.passed += 1
    outcome.failures = list(groups.values())


def progress_block(output: str) -> list[str]:
    """The plugin's progress summary at the end of pytest's output, without the rulers."""
    lines = output.rstrip().splitlines()
    start = next((i for i, line in enumerate(lines) if PROGRESS_HEADER in line), None)
    if start is None:
        return []
    return [line.strip("= ") if line.startswith("=") else line for line in lines[start:]]


def verdict(outcome: Outcome) -> str:
    kata, code = outcome.kata, outcome.exit_code
    said = VERDICTS.get(code, f"exit code {code}")
    if not outcome.reported:
        return f"{kata.label} {kata.title}: pytest did not run the tests (exit code {code})"
    if code not in (0, 1):
        return f"{kata.label} {kata.title}: {said}"
    counts = f"{outcome.passed} of {outcome.tests} tests pass"
    if outcome.skipped:
        counts += f", {outcome.skipped} skipped"
    return f"{kata.label} {kata.title}: {said}; {outcome.status} ({counts})"


def report(outcome: Outcome) -> str:
    """The cell's text: the verdict, the devices, each failure message once, the progress."""
    lines = [verdict(outcome)]
    devices = next((ln for ln in outcome.output.splitlines() if ln.startswith(DEVICES_LINE)), None)
    if devices:
        lines.append(devices.removeprefix("torch-katas: ").strip())
    if not outcome.reported or outcome.exit_code not in (0, 1):  # show what pytest said
        lines += ["", *outcome.output.rstrip().splitlines()[-40:]]
        return "\n".join(lines)
    if outcome.failures:
        distinct = len(outcome.failures)
        lines += ["", f"{outcome.failed} failing, {distinct} distinct message(s):"]
        for failure in outcome.failures[:SHOWN_FAILURES]:
            first, *rest = failure.message.splitlines() or [""]
            lines.append(f"- {first}")
            lines += [f"  {line}" for line in rest]
            names = ", ".join(failure.tests[:SHOWN_TESTS])
            more = len(failure.tests) - SHOWN_TESTS
            lines.append(f"  ({names}{f' and {more} more' if more > 0 else ''})")
        if distinct > SHOWN_FAILURES:
            lines.append(f"... and {distinct - SHOWN_FAILURES} more messages (pytest's output)")
    block = progress_block(outcome.output)
    if block:
        lines += ["", *block]
    return "\n".join(lines)


def report_html(outcome: Outcome) -> str:
    """The same text for front ends that show HTML, with pytest's whole output folded."""
    whole = html.escape(outcome.output)
    count = len(outcome.output.splitlines())
    return (
        f"<pre>{html.escape(report(outcome))}</pre>"
        f"<details><summary>pytest's output ({count} lines)</summary><pre>{whole}</pre></details>"
    )
