"""The result model: what each kata test did, and the rules that make a kata's status of it.

One set of rules, used alike by the plugin (the learner's progress), the CLI (`katas list`) and
grading (a candidate's verdicts). A kata is solved only when every one of its tests has passed,
and none failed; it is not started while nothing passed and every failure is a function the
stub still leaves unwritten; anything between is partly solved.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import pytest


__all__ = [
    "CRASHED",
    "DOES_NOT_IMPORT",
    "ERROR",
    "FLAGGED",
    "MESSAGE",
    "NOT_IMPLEMENTED",
    "NOT_STARTED",
    "PARTLY",
    "RESTORED",
    "SKIPPED",
    "SOLVED",
    "STOPPED",
    "TIMED_OUT",
    "Earlier",
    "KataResult",
    "PhaseReport",
    "TestOutcome",
    "decide",
    "message_of",
    "solved_count",
]


class PhaseReport(Protocol):
    """What the merge reads of one phase's report: pytest's TestReport, or the grader's
    record of one the grading child sent."""

    @property
    def when(self) -> str | None: ...

    @property
    def duration(self) -> float: ...

    @property
    def user_properties(self) -> list[tuple[str, object]]: ...

    @property
    def longrepr(self) -> object: ...

    @property
    def failed(self) -> bool: ...

    @property
    def skipped(self) -> bool: ...


SOLVED, PARTLY, NOT_STARTED, SKIPPED = "solved", "partly solved", "not started", "skipped"
# Grading only: the kata could not be graded (a crash, a time-out), or its answer broke a rule.
ERROR, FLAGGED = "error", "flagged"

# Report properties the plugin sets on kata tests, read by the summary, grading and the
# self-checks.
NOT_IMPLEMENTED = "torch_katas_not_implemented"  # value: the stub function not written yet
DOES_NOT_IMPORT = "torch_katas_does_not_import"  # value: the one-line import failure
TIMED_OUT = "torch_katas_timed_out"  # value: where the time ran out
CRASHED = "torch_katas_crashed"  # value: how the answer's code ended the test process
STOPPED = "torch_katas_stopped"  # value: why the test did not run (an earlier one timed out...)
RESTORED = "torch_katas_restored"  # on a teardown report: what the state guard put back (list)
# On each failed or skipped kata test report: what went wrong (or why it skipped) in one line,
# without the traceback, whatever the run's verbosity; the digest and grading read this.
MESSAGE = "torch_katas_message"


def decide(
    passed: set[str],
    failed: set[str],
    skipped: set[str],
    every: set[str] | None,
    unwritten_only: bool,
) -> str:
    """A kata's status from its tests' outcomes.

    `passed` and `skipped` (by the harness) may cover several runs of the same answer; `failed`
    are the tests failing now; `every` is the kata's whole list of tests, None where it is not
    known; `unwritten_only` says that each failure is an unwritten stub function.
    """
    if failed:
        return NOT_STARTED if not passed and unwritten_only else PARTLY
    if every is not None and every <= passed | skipped:
        return SOLVED if passed & every else SKIPPED
    if not passed:
        return SKIPPED if skipped else NOT_STARTED
    return PARTLY  # what ran passed, but not every test has passed for this answer


@dataclass
class TestOutcome:
    """One test's setup, call and teardown reports, merged."""

    outcome: str = "passed"  # passed, failed or skipped, over setup, call and teardown
    finished: bool = False  # its teardown was reported
    called: bool = False  # its call phase ran to an end (passed or failed)
    unwritten: str | None = None  # the stub function that raised NotImplementedError
    message: str = ""  # the first failure's MESSAGE (or the skip's, for a skipped test)
    seconds: float = 0.0  # over its phases
    properties: dict[str, object] = field(default_factory=dict)

    def add(self, report: PhaseReport) -> None:
        """Merge one phase's report: a failure in any phase fails the test, and its first
        failure is the one that says why."""
        properties = dict(report.user_properties)
        if report.failed and self.outcome != "failed":
            self.outcome = "failed"
            self.message = message_of(report, properties)
        elif report.skipped and self.outcome == "passed":
            self.outcome = "skipped"
            self.message = message_of(report, properties)
        self.finished = self.finished or report.when == "teardown"
        self.called = self.called or (report.when == "call" and not report.skipped)
        self.seconds += report.duration
        self.properties.update(properties)
        if report.failed and self.unwritten is None:
            unwritten = properties.get(NOT_IMPLEMENTED)
            self.unwritten = str(unwritten) if unwritten else None


def message_of(report: PhaseReport, properties: dict[str, object]) -> str:
    """The report's MESSAGE; for a test outside the katas (no MESSAGE), pytest's own one-line
    description of the exception, where it kept one."""
    if MESSAGE in properties:
        return str(properties[MESSAGE])
    crash = getattr(report.longrepr, "reprcrash", None)
    return str(getattr(crash, "message", "") or "").strip().partition("\n")[0]


@dataclass
class Earlier:
    """One kata's tests that passed, or that the harness skipped, since its stub changed."""

    passed: set[str] = field(default_factory=set)
    skipped: set[str] = field(default_factory=set)

    @classmethod
    def from_record(cls, record: dict[str, object]) -> Earlier:
        def names(key: str) -> set[str]:
            value = record.get(key, [])
            return {str(name) for name in value} if isinstance(value, list) else set()

        return cls(names("passed"), names("skipped"))


@dataclass
class KataResult:
    """The outcome of each of one kata's tests in this run."""

    tests: dict[str, TestOutcome] = field(default_factory=dict)

    def add(self, report: pytest.TestReport) -> TestOutcome:
        """Merge a report into its test's outcome; returns that outcome."""
        test = self.tests.setdefault(report.nodeid, TestOutcome())
        test.add(report)
        return test

    def ids(self, outcome: str) -> set[str]:
        return {nodeid for nodeid, test in self.tests.items() if self.outcome_of(test) == outcome}

    @staticmethod
    def outcome_of(test: TestOutcome) -> str:
        # A test whose call never ended (cut off by Ctrl-C) passed nothing.
        if test.outcome == "passed" and not test.called:
            return "unfinished"
        return test.outcome

    @property
    def passed(self) -> int:
        return len(self.ids("passed"))

    @property
    def failed(self) -> int:
        return len(self.ids("failed"))

    @property
    def finished(self) -> bool:
        return all(test.finished for test in self.tests.values())

    def unwritten(self) -> list[str]:
        """The stub functions still to write, in the order the tests met them."""
        names = (test.unwritten for test in self.tests.values() if test.outcome == "failed")
        return list(dict.fromkeys(name for name in names if name))

    def first(self, key: str) -> tuple[str, object] | None:
        """The first test with the report property `key`, and its value."""
        for nodeid, test in self.tests.items():
            if key in test.properties:
                return nodeid, test.properties[key]
        return None

    def restored(self) -> list[str]:
        """What the state guard put back after this kata's tests, each name once."""
        names: dict[str, None] = {}
        for test in self.tests.values():
            value = test.properties.get(RESTORED)
            names.update(dict.fromkeys(map(str, value)) if isinstance(value, list) else {})
        return list(names)

    def count(self, key: str) -> int:
        """How many tests carry the report property `key`."""
        return sum(key in test.properties for test in self.tests.values())

    def since_stub_changed(self, earlier: Earlier) -> Earlier:
        """`earlier` updated with this run's outcomes."""
        passed, skipped, failed = self.ids("passed"), self.ids("skipped"), self.ids("failed")
        return Earlier(
            passed=(earlier.passed | passed) - failed - skipped,
            skipped=(earlier.skipped | skipped) - failed - passed,
        )

    def status(self, earlier: Earlier, every_test: set[str] | None) -> str:
        """This kata's status, given its tests' outcomes in earlier runs of the same stub
        and every test the kata has (None when this run could not tell)."""
        now = self.since_stub_changed(earlier)
        failed = [test for test in self.tests.values() if test.outcome == "failed"]
        return decide(
            now.passed,
            self.ids("failed"),
            now.skipped,
            every_test,
            unwritten_only=all(test.unwritten for test in failed),
        )


def solved_count(statuses: Iterable[str]) -> int:
    return sum(status == SOLVED for status in statuses)
