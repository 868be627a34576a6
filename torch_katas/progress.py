"""Progress: each kata's status from its tests' outcomes, remembered between runs."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from torch_katas.catalog import Kata

SOLVED, PARTLY, NOT_STARTED, SKIPPED = "solved", "partly solved", "not started", "skipped"
CACHE_KEY = "torch_katas/status"
COLOURS = {SOLVED: "green", PARTLY: "yellow", NOT_STARTED: "red", SKIPPED: "cyan"}


@dataclass
class Tally:
    passed: int = 0
    failed: int = 0
    not_implemented: int = 0
    skipped: int = 0

    def add(self, report: pytest.TestReport, not_implemented: bool) -> None:
        if report.when == "call" and report.passed:
            self.passed += 1
        elif report.failed:
            self.failed += 1
            self.not_implemented += not_implemented
        elif report.skipped:
            self.skipped += 1

    @property
    def status(self) -> str:
        if self.failed == 0:
            return SOLVED if self.passed else SKIPPED
        if self.passed == 0 and self.not_implemented == self.failed:
            return NOT_STARTED
        return PARTLY


def format_hints(kata: Kata) -> str:
    lines = [f"\n\nHints for {kata.label} ({kata.title}):"]
    lines += [f"  {number}. {hint}" for number, hint in enumerate(kata.hints, 1)]
    return "\n".join(lines)


def remember(config: pytest.Config, statuses: dict[str, str], learner: bool) -> dict[str, str]:
    """Merge this run's statuses into the ones kept in pytest's cache and return them all.

    Only runs of the learner's own answers are remembered: a --solutions run says nothing
    about the learner's progress.
    """
    cache = getattr(config, "cache", None)
    if not learner or cache is None:
        return statuses
    known = {**cache.get(CACHE_KEY, {}), **statuses}
    cache.set(CACHE_KEY, known)
    return known


def write_summary(tr, katas: dict[str, Kata], results: dict[str, Tally], known: dict[str, str]):
    tr.write_sep("=", "torch-katas progress")
    width = max(len(kata.title) for kata in katas.values())
    topics: dict[str, list[Kata]] = {}
    for kata in katas.values():
        topics.setdefault(kata.topic, []).append(kata)
    for topic, members in topics.items():
        ran = [kata for kata in members if kata.module in results]
        if not ran:
            continue
        solved = sum(known.get(kata.module) == SOLVED for kata in members)
        tr.write_line(f"{topic}: {solved} of {len(members)} solved", bold=True)
        for kata in ran:
            tally = results[kata.module]
            status = tally.status
            tests = f"{tally.passed}/{tally.passed + tally.failed} tests passed"
            tr.write(f"  {kata.label}  {kata.title:<{width}}  ")
            tr.write(f"{status:<13}", **{COLOURS[status]: True})
            tr.write_line(f"  {tests}")
    counts = {status: 0 for status in (SOLVED, PARTLY, NOT_STARTED)}
    for kata in katas.values():
        remembered = known.get(kata.module)
        if remembered in counts:
            counts[remembered] += 1
    not_run = len(katas) - sum(counts.values())
    tr.write_line(
        f"Solved {counts[SOLVED]} of {len(katas)} katas "
        f"({counts[PARTLY]} partly solved, {counts[NOT_STARTED]} not started"
        + (f", {not_run} not run yet)" if not_run else ")"),
        bold=True,
    )
