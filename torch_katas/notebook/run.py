"""One kata's tests for a notebook cell: the plain `python -m pytest katas/qNN_name_test.py` in
a fresh process, and what of its output the cell shows.

The run is the learner's `pytest` itself, with the default device list and the learner's
store: the progress it records, and what it prints (the plugin's account of what to fix, then
the progress summary), are what a run in a terminal records and prints for the same stub. The
cell adds one line above it, the verdict, and leaves out pytest's session header. Nothing
here imports pytest, torch or the kata.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from torch_katas.catalog import Kata
from torch_katas.cli.watch import VERDICTS
from torch_katas.store import Store

__all__ = [
    "report",
    "run_tests",
]

# The plugin's summary section, and its header line naming the devices of the run.
PROGRESS_HEADER = "torch-katas progress"
DEVICES_LINE = "torch-katas: devices"
# Colour codes, which a kernel asks pytest for (FORCE_COLOR) and front ends show as colour.
ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@dataclass
class Outcome:
    """What one run of a kata's tests did: pytest's exit code and output, and the kata's
    status in the learner's store after it."""

    kata: Kata
    test_file: str  # as the command names it, relative to the suite
    command: list[str]
    exit_code: int
    output: str  # pytest's stdout and stderr, interleaved
    seconds: float
    status: str

    @property
    def tested(self) -> bool:
        """Whether pytest ran the tests to their summary (not a crash or a missing pytest)."""
        return PROGRESS_HEADER in ESCAPES.sub("", self.output)


def run_tests(root: Path, kata: Kata, pytest_args: list[str]) -> Outcome:
    """Run the kata's tests in a new process in `root`; interrupting the kernel stops it."""
    test_file = kata.test_path(root).relative_to(root).as_posix()
    # sys.executable: the kernel's own interpreter, so the run sees the packages it sees.
    argv = [sys.executable, "-m", "pytest", test_file, *pytest_args]
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
    return Outcome(
        kata=kata,
        test_file=test_file,
        command=argv,
        exit_code=process.returncode,
        output=output,
        seconds=time.perf_counter() - start,
        status=Store.for_root(root).status_of(kata),
    )


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


def verdict(outcome: Outcome) -> str:
    kata, code = outcome.kata, outcome.exit_code
    if not outcome.tested:
        return f"{kata.label} {kata.title}: pytest did not run the tests (exit code {code})"
    said = VERDICTS.get(code, f"exit code {code}")
    return f"{kata.label} {kata.title}: {said}; {outcome.status}"


def report(outcome: Outcome) -> str:
    """The cell's text: the verdict, the devices, then what pytest printed from its first
    line of test results on (the session header left out)."""
    lines = outcome.output.rstrip().splitlines()
    plain = [ESCAPES.sub("", line) for line in lines]
    start = next((i for i, line in enumerate(plain) if line.startswith(outcome.test_file)), 0)
    head = [
        line
        for line, bare in zip(lines[:start], plain[:start], strict=True)
        if bare.startswith(DEVICES_LINE)
    ]
    return "\n".join([verdict(outcome), *head, "", *lines[start:]])
