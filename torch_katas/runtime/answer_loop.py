"""Run a kata's tests against many answers in one nested pytest session: the wrong-answer
self-check, the mutation job and `katas testwrite` (which runs a learner's tests against the
reference and its mistakes) use it."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any, Protocol

import pytest

from torch_katas.runtime import answers

__all__ = ["AnswerLoop", "Fork"]


class Fork(Protocol):
    """Runs each answer in a process of its own (AnswerLoop's `fork`): `run` calls `work` in
    a forked process and puts what it found in `loop` (failures, caught), here, by the time
    `wait` returns (several answers may run at once)."""

    def run(self, work: Callable[[], list[pytest.TestReport]], answer: Path, loop: Any) -> None: ...

    def wait(self, loop: Any) -> None: ...


class AnswerLoop:
    """A nested pytest session's plugin: runs the kata tests it collected once per answer,
    in this one session, so that pytest starts once per kata rather than once per answer.

    Nothing one answer did reaches the next: before each, the kata modules are forgotten and
    collected again (its test module imports the answer afresh), and its last test tears down
    every fixture, so the harness's state guard puts back everything at that test's end, as
    at the end of any run. The fast tests run first, those on the CPU before those on other
    devices. With `first_failure`, those that caught an earlier answer run first of all, and
    the tests after an answer's first failure do not run (the slow ones, then, never start),
    so a mistake the CPU shows never starts a test on another device. An answer given tests
    in `only` runs those alone, and stops at the first that passes. With a `fork`, each
    answer runs in a process of its own, forked from this session's, which imports no test
    module: nothing of one answer's run (a module's state, a setting, the environment) is
    there for the next.
    """

    def __init__(
        self,
        module: str,
        answers: list[Path],
        first_failure: bool = True,
        only: dict[Path, set[str]] | None = None,
        forget: Collection[Path] = (),
        complete: Collection[Path] = (),
        caught: Collection[str] = (),
        fork: Fork | None = None,
    ):
        self.module, self.answers, self.first_failure = module, answers, first_failure
        # Test files outside the kata packages (a learner's own tests): imported afresh too.
        self.forget = {path.resolve() for path in forget}
        self.forget_names = {path.name for path in self.forget} | {path.name for path in forget}
        self.complete = set(complete)  # answers whose every test runs, first_failure or not
        self.only = only or {}  # an answer's tests to run, by node id, where not all
        self.restricted = False
        self.failures: dict[Path, list[pytest.TestReport]] = {}
        self.current: list[pytest.TestReport] | None = None
        self.stop = False  # skip the current answer's remaining tests
        self.stopping = first_failure  # whether the current answer stops at its first failure
        # The tests that failed on earlier answers, first first (those of earlier runs too).
        self.caught: list[str] = list(caught)
        self.fork = fork

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection(self, session: pytest.Session) -> bool | None:
        # Forked, this process imports no test module: each fork collects for its answer.
        return True if self.fork is not None else None

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        for answer in self.answers:
            if self.fork is None:
                self.run(session, answer)
            else:
                self.fork.run(functools.partial(self.run, session, answer), answer, self)
            if session.shouldstop:  # out of time: the answers left have no entry
                break
        if self.fork is not None:
            self.fork.wait(self)
        return True

    def run(self, session: pytest.Session, answer: Path) -> list[pytest.TestReport]:
        """Collect the tests afresh for `answer` and run them: the reports of those failed."""
        (finder,) = [f for f in sys.meta_path if isinstance(f, answers.AnswerFinder)]
        finder.imports.files[self.module] = answer
        finder.modules.add(self.module)
        for name in [n for n in sys.modules if self.forgotten(n)]:
            del sys.modules[name]
        items = [
            item
            for item in session.perform_collect()
            if answer not in self.only or item.nodeid in self.only[answer]
        ]
        # Fast tests first; among them, those that failed on this kata's earlier answers
        # (a mistake is most often caught where another was: the tests seed every random
        # generator before each test, so their order changes none of their outcomes).
        # Tests on the CPU before those on other devices: most mistakes show on every device,
        # and on the CPU most cheaply (the simulated device costs several times more).
        caught = {nodeid: rank for rank, nodeid in enumerate(self.caught)}
        items.sort(
            key=lambda item: (
                bool(item.get_closest_marker("slow")),
                off_the_cpu(item),
                caught.get(item.nodeid, len(caught)) if self.first_failure else 0,
            )
        )
        self.current, self.stop = [], False
        self.failures[answer] = self.current
        self.restricted = answer in self.only
        self.stopping = self.first_failure and answer not in self.complete
        for index, item in enumerate(items):
            following = items[index + 1] if index + 1 < len(items) else None
            if self.stop:
                # The outcome is known: this test, skipped, ends the answer's run, so its
                # teardown is the last (every fixture, the whole state guard).
                item.ihook.pytest_runtest_protocol(item=item, nextitem=None)
                break
            item.ihook.pytest_runtest_protocol(item=item, nextitem=following)
        self.current = None
        return self.failures[answer]

    def forgotten(self, name: str) -> bool:
        if answers.is_kata_package(name):
            return True
        file = getattr(sys.modules[name], "__file__", None)
        if not self.forget or not isinstance(file, str):
            return False
        # By name first: resolving the path of each of the thousands of modules torch loads
        # costs more than an answer's whole run of a short test module.
        return Path(file).name in self.forget_names and Path(file).resolve() in self.forget

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        if self.stop:
            pytest.skip("this answer's outcome is known")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.current is None:
            return
        if report.failed:
            self.current.append(report)
            if report.nodeid not in self.caught and self.stopping:  # a correct answer's: no lead
                self.caught.append(report.nodeid)
            self.stop = self.stop or self.stopping
        elif report.when == "call" and report.passed and self.restricted:
            self.stop = True


def off_the_cpu(item: pytest.Item) -> bool:
    """Whether the test runs on a device other than the CPU (its `device` parameter)."""
    callspec = getattr(item, "callspec", None)
    device = callspec.params.get("device") if callspec is not None else None
    return device is not None and str(device).partition(":")[0] != "cpu"
