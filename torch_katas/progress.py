"""Progress: each kata's status from its tests' outcomes, remembered between runs.

A kata is solved only when every one of its tests has passed since its stub last changed:
all of them in one run, or over several runs of the same stub (each run keeps which tests
passed, keyed by the stub's digest). A run of some of its tests (-k, -m, node ids) can lower
a status but never raise it to solved on its own, and an interrupted run records no kata as
solved and leaves alone every kata it did not finish.
"""

from __future__ import annotations

import hashlib
import json
import os
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from torch_katas import catalog
from torch_katas.catalog import Kata

SOLVED, PARTLY, NOT_STARTED, SKIPPED = "solved", "partly solved", "not started", "skipped"
COLOURS = {SOLVED: "green", PARTLY: "yellow", NOT_STARTED: "red", SKIPPED: "cyan"}
# pytest's cache: each kata's status (what `katas list` shows), the tests that passed for the
# stub as it is now, and how many hints the learner has seen (shared with `katas hint`).
CACHE_KEY = "torch_katas/status"
PASSED_KEY = "torch_katas/passed"
HINTS_KEY = "torch_katas/hints"

# Report properties the plugin sets on kata tests, read here and by the self-checks.
NOT_IMPLEMENTED = "torch_katas_not_implemented"  # value: the stub function not written yet
DOES_NOT_IMPORT = "torch_katas_does_not_import"  # value: the one-line import failure
TIMED_OUT = "torch_katas_timed_out"  # value: where the time ran out
AFTER_TIMEOUT = "torch_katas_after_timeout"  # value: the node id of the test that timed out

WIDTH = 80  # the summary fits 80 columns


@dataclass
class TestOutcome:
    outcome: str = "passed"  # passed, failed or skipped, over setup, call and teardown
    finished: bool = False  # its teardown was reported
    unwritten: str | None = None  # the stub function that raised NotImplementedError
    properties: dict[str, object] = field(default_factory=dict)


@dataclass
class KataResult:
    """The outcome of each of one kata's tests in this run."""

    tests: dict[str, TestOutcome] = field(default_factory=dict)

    def add(self, report: pytest.TestReport) -> None:
        test = self.tests.setdefault(report.nodeid, TestOutcome())
        if report.failed:
            test.outcome = "failed"
        elif report.skipped and test.outcome == "passed":
            test.outcome = "skipped"
        test.finished = test.finished or report.when == "teardown"
        test.properties.update(report.user_properties)
        if report.failed and test.unwritten is None:
            unwritten = dict(report.user_properties).get(NOT_IMPLEMENTED)
            test.unwritten = str(unwritten) if unwritten else None

    def ids(self, outcome: str) -> set[str]:
        return {nodeid for nodeid, test in self.tests.items() if test.outcome == outcome}

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
        if failed:
            if not now.passed and all(test.unwritten for test in failed):
                return NOT_STARTED
            return PARTLY
        if every_test is not None and every_test <= now.passed | now.skipped:
            return SOLVED if now.passed & every_test else SKIPPED
        if not now.passed:
            return SKIPPED if self.tests else NOT_STARTED
        return PARTLY  # what ran passed, but not every test has passed for this stub


@dataclass
class Earlier:
    """One kata's tests that passed, or that the harness skipped, since its stub changed."""

    passed: set[str] = field(default_factory=set)
    skipped: set[str] = field(default_factory=set)

    @classmethod
    def from_record(cls, record: dict) -> Earlier:
        return cls(set(record.get("passed", [])), set(record.get("skipped", [])))


# -- pytest's cache ------------------------------------------------------------------------


def cache_path(config: pytest.Config, key: str) -> Path:
    """Where pytest keeps `key` (the same resolution as pytest's `cache_dir` option)."""
    folder = os.path.expandvars(os.path.expanduser(config.getini("cache_dir")))
    return config.rootpath / folder / "v" / key


def read(config: pytest.Config, key: str) -> tuple[dict, bool]:
    """The dict cached under `key`, and whether its file was damaged.

    From a damaged file (a run killed while writing it, a bad edit) the entries before the
    damage are kept.
    """
    cache = getattr(config, "cache", None)
    if cache is None:
        return {}, False
    value = cache.get(key, None)
    if isinstance(value, dict):
        return value, False
    try:
        text = cache_path(config, key).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}, False
    return salvage(text), True


def salvage(text: str) -> dict:
    """The complete `"key": value` entries at the start of a JSON object cut short."""
    decoder = json.JSONDecoder()
    kept: dict = {}
    position = text.find("{") + 1
    if position == 0:
        return kept
    while True:
        position = _skip(text, position, ",")
        try:
            key, position = decoder.raw_decode(text, position)
            position = _skip(text, position, ":")
            value, position = decoder.raw_decode(text, position)
        except (ValueError, IndexError):
            return kept
        if not isinstance(key, str):
            return kept
        kept[key] = value


def _skip(text: str, position: int, separator: str) -> int:
    while position < len(text) and (text[position].isspace() or text[position] == separator):
        position += 1
    return position


@dataclass
class Remembered:
    """This run's statuses and the ones kept in the cache, for the summary."""

    this_run: dict[str, str]  # each kata that ran, as this run saw it
    known: dict[str, str]  # every kata's status after this run
    damaged: list[str] = field(default_factory=list)  # cache entries that had to be salvaged


def remember(
    config: pytest.Config,
    results: dict[str, KataResult],
    tests: dict[str, set[str] | None],
    selected: dict[str, set[str]],
    digests: dict[str, str | None],
    learner: bool,
    interrupted: bool,
) -> Remembered:
    """Merge this run's outcomes into the statuses kept in pytest's cache.

    Only runs of the learner's own answers are remembered: a --solutions run says nothing
    about the learner's progress. `tests` holds each kata's full list of tests where this
    run could tell it (it collected the whole test file); `selected`, the tests this run
    meant to run; `digests`, a digest of each kata's stub and tests as this run found them.
    """
    known, status_damaged = read(config, CACHE_KEY) if learner else ({}, False)
    records, passed_damaged = read(config, PASSED_KEY) if learner else ({}, False)
    damaged = [
        key for key, bad in ((CACHE_KEY, status_damaged), (PASSED_KEY, passed_damaged)) if bad
    ]
    this_run, statuses = {}, dict(known)
    for module, result in results.items():
        record = records.get(module)
        if not isinstance(record, dict) or record.get("digest") != digests.get(module):
            record = {}
        earlier = Earlier.from_record(record)
        every = tests.get(module)
        if every is None and record.get("tests"):
            every = set(record["tests"])
        status = this_run[module] = result.status(earlier, every)
        finished = module in selected and all(
            nodeid in result.tests and result.tests[nodeid].finished for nodeid in selected[module]
        )
        if interrupted and (status == SOLVED or not finished):
            continue  # an interrupted run proves no kata solved, and judges none it cut short
        statuses[module] = status
        if digests.get(module) is not None:
            now = result.since_stub_changed(earlier)
            records[module] = {
                "digest": digests[module],
                "passed": sorted(now.passed),
                "skipped": sorted(now.skipped),
                "tests": sorted(every) if every is not None else [],
            }
    cache = getattr(config, "cache", None)
    if learner and cache is not None:
        cache.set(CACHE_KEY, statuses)
        cache.set(PASSED_KEY, records)
    return Remembered(this_run, statuses if learner else this_run, damaged)


def digest(*paths: Path) -> str | None:
    """A digest of the files' contents; None when one cannot be read."""
    hasher = hashlib.sha256()
    try:
        for path in paths:
            hasher.update(path.read_bytes())
    except OSError:
        return None
    return hasher.hexdigest()


def take_hints(config: pytest.Config, katas: Iterable[Kata]) -> dict[str, list[str]]:
    """One more hint for each of `katas` than last time (as `katas hint` gives them)."""
    shown, _ = read(config, HINTS_KEY)
    hints = {}
    for kata in katas:
        count = min(int(shown.get(kata.module, 0)) + 1, len(kata.hints))
        shown[kata.module] = count
        hints[kata.module] = [
            f"hint {number}/{len(kata.hints)}: {hint}"
            for number, hint in enumerate(kata.hints[:count], 1)
        ]
    cache = getattr(config, "cache", None)
    if cache is not None:
        cache.set(HINTS_KEY, shown)
    return hints


# -- the summary ---------------------------------------------------------------------------


def next_kata(root: Path, katas: dict[str, Kata], known: dict[str, str]) -> Kata | None:
    """The first kata in the suggested order that is not solved (as `katas next` says)."""
    order = catalog.suggested_order(root, katas)
    return next((k for k in order if known.get(k.module) != SOLVED), None)


def fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def names_that_fit(names: list[str], width: int) -> str:
    """`a, b, c`, or as many as fit then `+N more`."""
    for shown in range(len(names), 0, -1):
        rest = len(names) - shown
        text = ", ".join(names[:shown]) + (f", +{rest} more" if rest else "")
        if len(text) <= width or shown == 1:
            return fit(text, width)
    return ""


@dataclass
class Summary:
    """Everything the progress summary shows."""

    katas: dict[str, Kata]
    results: dict[str, KataResult]
    known: dict[str, str]  # every kata's status, this run's and remembered ones
    statuses: dict[str, str]  # the status of each kata that ran, as this run saw it
    root: Path
    verbosity: int = 0
    hints: dict[str, list[str]] = field(default_factory=dict)
    changes: dict[str, list[str]] = field(default_factory=dict)  # stub -> state it changed
    damaged: list[str] = field(default_factory=list)
    interrupted: bool = False


def detail(result: KataResult, status: str, room: int) -> str:
    """What the learner should know about one kata, in `room` characters."""
    total = len(result.tests)
    if status == NOT_STARTED:
        return f"{status}: " + names_that_fit(result.unwritten(), room - len(status) - 2)
    text = f"{status} {result.passed}/{total}"
    if status in (SOLVED, SKIPPED):
        return text
    notes = []
    broken = result.first(DOES_NOT_IMPORT)
    if broken:
        notes.append("does not import (see above)")
    timed_out = result.first(TIMED_OUT)
    if timed_out:
        stopped = sum(AFTER_TIMEOUT in test.properties for test in result.tests.values())
        notes.append("timed out" + (f", {stopped} more stopped" if stopped else ""))
    unwritten = result.unwritten()
    if unwritten and not broken:
        notes.append("write " + ", ".join(unwritten))
    summed_up = (DOES_NOT_IMPORT, TIMED_OUT, AFTER_TIMEOUT)
    others = sum(
        not test.unwritten and not any(key in test.properties for key in summed_up)
        for test in result.tests.values()
        if test.outcome == "failed"
    )
    if others and not broken:
        notes.append(f"{others} failing")
    if not notes:
        notes.append("its other tests did not run" if result.finished else "not finished")
    return fit(text + (": " + "; ".join(notes) if notes else ""), room)


def kata_line(kata: Kata, result: KataResult, status: str, title_width: int) -> tuple[str, str]:
    """The kata and its title, then its status and what is left to do."""
    prefix = f"  {kata.label}  {fit(kata.title, title_width):<{title_width}}  "
    return prefix, detail(result, status, WIDTH - len(prefix))


def write_summary(tr, summary: Summary) -> None:
    tr.write_sep("=", "torch-katas progress")
    for stub, changed in summary.changes.items():
        text = (
            f"warning: {stub} changed {', '.join(changed)} at import; torch-katas undid "
            "that for the other katas (change global state inside your functions, and put "
            "it back)"
        )
        for line in textwrap.wrap(text, WIDTH, subsequent_indent="  "):
            tr.write_line(line, yellow=True)
    for key in summary.damaged:
        tr.write_line(
            fit(f"warning: progress cache {key} was damaged; kept what was readable", WIDTH),
            yellow=True,
        )
    if summary.verbosity >= -1:
        write_table(tr, summary)
    write_totals(tr, summary)


def write_table(tr, summary: Summary) -> None:
    ran = [kata for kata in summary.katas.values() if kata.module in summary.results]
    title_width = min(24, max((len(kata.title) for kata in ran), default=0))
    quiet = summary.verbosity < 0
    # Topics in the suggested order, each kata by number.
    topics: dict[str, list[Kata]] = {topic: [] for topic in catalog.topics(summary.root)}
    for kata in summary.katas.values():
        topics[kata.topic].append(kata)
    for topic, members in topics.items():
        shown = [k for k in members if k.module in summary.results]
        if quiet:  # only the katas being worked on
            shown = [k for k in shown if summary.statuses[k.module] == PARTLY]
        if not shown:
            continue
        if not quiet:
            solved = sum(summary.known.get(kata.module) == SOLVED for kata in members)
            tr.write_line(f"{topic}: {solved} of {len(members)} solved", bold=True)
        for kata in shown:
            status = summary.statuses[kata.module]
            prefix, text = kata_line(kata, summary.results[kata.module], status, title_width)
            tr.write(prefix)
            tr.write_line(text, **{COLOURS[status]: True})
            for hint in summary.hints.get(kata.module, []):
                for text in textwrap.wrap(
                    hint, WIDTH, initial_indent=" " * 7, subsequent_indent=" " * 9
                ):
                    tr.write_line(text)


def write_totals(tr, summary: Summary) -> None:
    katas, known = summary.katas, summary.known
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
    if summary.interrupted:
        tr.write_line(
            "Interrupted: no kata was recorded as solved, and katas that did not finish "
            "keep their status"
        )
    if summary.verbosity < -1:
        return
    upcoming = next_kata(summary.root, katas, known)
    if upcoming is None:
        return
    started = any(status != NOT_STARTED for status in known.values())
    stub = f"katas/{upcoming.module}.py"
    title = fit(upcoming.title, WIDTH - len(f"Start here: {upcoming.label} , in {stub}"))
    tr.write_line(f"{'Next' if started else 'Start here'}: {upcoming.label} {title}, in {stub}")
    tr.write_line(f"  run its tests: pytest katas/{upcoming.module}_test.py")
