"""The end of a run: which tests of each kata ran, the progress they make, and the summary.

`Selection` sees what this process collected (on xdist workers, each worker's share);
`ProgressRecorder`, on the only process or the xdist controller, sees every report, merges
the run into the learner's store and writes the progress summary after the failures.
"""

from __future__ import annotations

import textwrap
from collections.abc import Generator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from _pytest.terminal import TerminalReporter

import torch_katas.plugin.digest as digest
from torch_katas import catalog
from torch_katas.catalog import Kata
from torch_katas.plugin.run import RUN, kata_of
from torch_katas.status import (
    CRASHED,
    DOES_NOT_IMPORT,
    NOT_IMPLEMENTED,
    NOT_STARTED,
    PARTLY,
    SKIPPED,
    SOLVED,
    STOPPED,
    TIMED_OUT,
    KataResult,
)
from torch_katas.store import Store, upcoming
from torch_katas.text import fit, names_that_fit, notes_that_fit

__all__ = [
    "ProgressRecorder",
    "Selection",
]

COLOURS = {SOLVED: "green", PARTLY: "yellow", NOT_STARTED: "red", SKIPPED: "cyan"}
WIDTH = 80  # the summary fits 80 columns


def whole_paths(config: pytest.Config) -> list[Path]:
    """The paths this run collects whole: its arguments without a `::` test name."""
    base = config.invocation_params.dir
    return [(base / arg).resolve() for arg in config.args if "::" not in arg]


class Selection:
    """Which tests of each kata this process collected, and whether it saw them all.

    Where collection happens: in the run's own process, or in each xdist worker, which
    hands its findings to the controller.
    """

    def __init__(self, config: pytest.Config):
        self.config = config
        self.selected: dict[str, set[str]] = {}
        self.deselected: dict[str, set[str]] = {}
        self.narrowed: set[str] = set()

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        from torch_katas.plugin.params import THINNED  # imports torch: not at the top

        for item in items:
            # A test the sim pass thins out is none of the kata's tests in this run's setting.
            if (kata := kata_of(item)) and not item.stash.get(THINNED, False):
                self.deselected.setdefault(kata.module, set()).add(item.nodeid)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.count(session.items)

    def count(self, items: list[pytest.Item]) -> None:
        """Note `items` as selected (the run's, or tests an earlier supervised child ran)."""
        whole = whole_paths(self.config)
        # --lf leaves out the tests that passed last time while collecting, unannounced.
        last_failed = bool(self.config.getoption("lf", False))
        collected_whole: dict[Path, bool] = {}  # per test file: resolving a path is slow
        for item in items:
            kata = kata_of(item)
            if kata is None:
                continue
            self.selected.setdefault(kata.module, set()).add(item.nodeid)
            inside = collected_whole.get(item.path)
            if inside is None:
                path = item.path.resolve()
                inside = any(root == path or root in path.parents for root in whole)
                collected_whole[item.path] = inside
            if last_failed or not inside:
                self.narrowed.add(kata.module)

    def tests(self) -> dict[str, set[str] | None]:
        """Every test of each kata collected, or None where some were never collected."""
        modules = self.selected.keys() | self.deselected.keys()
        return {
            module: None
            if module in self.narrowed
            else self.selected.get(module, set()) | self.deselected.get(module, set())
            for module in modules
        }

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        output = getattr(self.config, "workeroutput", None)
        if output is not None:
            run = self.config.stash[RUN]
            output["torch_katas"] = {
                "tests": {m: sorted(t) if t is not None else None for m, t in self.tests().items()},
                "selected": {m: sorted(t) for m, t in self.selected.items()},
                "changes": run.imports.changes,
            }


class ProgressRecorder:
    """Collects each kata test's outcome, records progress and writes the summary.

    Registered on the xdist controller (or the only process), which sees every report.
    """

    def __init__(self, config: pytest.Config, selection: Selection):
        self.config = config
        self.run = config.stash[RUN]
        self.selection = selection
        self.results: dict[str, KataResult] = {}
        self.tests: dict[str, set[str] | None] = {}
        self.selected: dict[str, set[str]] = {}
        self.changes: dict[str, list[str]] = {}
        self.digests: dict[str, str | None] = {}
        self.summary: Summary | None = None
        self.kata_of_file: dict[str, str | None] = {}  # test file (as in node ids) -> kata

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        # Taken before any test runs: an edit during the run gives a new digest next time,
        # so passes of the old stub are never credited to the new one.
        self.digests = {
            kata.module: catalog.files_digest(
                kata.stub_path(self.run.root), kata.test_path(self.run.root)
            )
            for kata in self.run.katas.values()
        }

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # Over several katas, one line of test letters per file only lengthens the run's
        # output: the summary has a line per kata. -v still names every test.
        files = {item.path for item in session.items if kata_of(item) is not None}
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if len(files) > 1 and reporter is not None and self.config.get_verbosity() == 0:
            reporter.showfspath = False

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        module = self.kata_module(report.nodeid)
        if module is not None:
            self.results.setdefault(module, KataResult()).add(report)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        found = getattr(node, "workeroutput", {}).get("torch_katas")
        if not found:
            return
        for module, tests in found["tests"].items():
            known = self.tests.get(module, set())
            self.tests[module] = None if tests is None or known is None else known | set(tests)
        for module, tests in found["selected"].items():
            self.selected.setdefault(module, set()).update(tests)
        self.changes.update(found["changes"])

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if not self.results:
            return
        if self.selection.selected:  # collected here, not on xdist workers
            self.tests, self.selected = self.selection.tests(), self.selection.selected
        self.changes.update(self.run.imports.changes)
        interrupted = exitstatus == pytest.ExitCode.INTERRUPTED
        store = Store.for_config(self.config) if self.run.learner else None
        store = store or Store(None)
        remembered = store.remember(
            self.results, self.tests, self.selected, self.digests, interrupted=interrupted
        )
        hints = {}
        if self.config.getoption("hints"):
            hint_store = Store.for_config(self.config) or Store(None)
            for module, kata in self.run.katas.items():
                if module in self.results and self.results[module].failed:
                    hints[module] = hint_store.take_hints(kata)[0]
        files = self.run.imports
        self.summary = Summary(
            katas=self.run.katas,
            results=self.results,
            known=remembered.known,
            statuses=remembered.this_run,
            root=self.run.root,
            verbosity=self.config.get_verbosity(),
            hints=hints,
            changes={
                files.shown(files.files.get(m, self.run.root / "katas" / f"{m}.py")): changed
                for m, changed in self.changes.items()
            },
            restored={
                files.shown(files.files.get(m, self.run.root / "katas" / f"{m}.py")): changed
                for m, result in self.results.items()
                if (changed := result.restored())
            },
            damaged=remembered.damaged,
            interrupted=interrupted,
            progress=remembered.progress,
            skips=self.skips(session),
            letters=bool(self.run.shown_unwritten),
        )

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_terminal_summary(
        self, terminalreporter: TerminalReporter
    ) -> Generator[None, None, None]:
        """Show the failures worth reading (the digest, in a default run), then the progress
        summary."""
        stats = terminalreporter.stats
        brief = digest.active(self.config)
        saved = {key: stats.get(key) for key in ("failed", "error")}
        by_kata: dict[Kata, list[Any]] = {}
        for key, reports in saved.items():
            if not reports or (key == "error" and not brief):
                continue
            others, kata_reports = self.failures_to_show(reports)
            stats[key] = others if brief else others + kata_reports
            for report in kata_reports:
                kata = self.run.katas[self.kata_module(report.nodeid) or ""]
                by_kata.setdefault(kata, []).append(report)
        if brief and by_kata:
            terminalreporter.write_sep("=", "what to fix", red=True)
            digest.write(terminalreporter, by_kata, self.config.getoption("digest_height"))
        try:
            result = yield
        finally:
            for key, reports in saved.items():
                if reports:
                    stats[key] = reports
        if self.summary is not None:
            write_summary(terminalreporter, self.summary)
        return result

    def failures_to_show(self, reports: list[Any]) -> tuple[list[Any], list[Any]]:
        """Other tests' failures, and kata failures first failing kata first, without the ones
        the summary sums up.

        "Not implemented yet" failures become the summary's list of functions to write,
        a stub that does not import is shown once, and tests stopped early not at all.
        """
        others, shown, broken = [], [], set()
        for report in reports:
            properties = dict(getattr(report, "user_properties", ()))
            module = self.kata_module(report.nodeid)
            if module is None:
                others.append(report)
            elif NOT_IMPLEMENTED in properties or STOPPED in properties:
                continue
            elif DOES_NOT_IMPORT not in properties or module not in broken:
                broken.update([module] if DOES_NOT_IMPORT in properties else [])
                shown.append((self.run.katas[module].number, report))
        shown.sort(key=lambda pair: pair[0])
        return others, [report for _, report in shown]

    def skips(self, session: pytest.Session) -> dict[str, int]:
        """The reasons of this run's skips, with their counts, most first."""
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        counts: dict[str, int] = {}
        for report in getattr(reporter, "stats", {}).get("skipped", []):
            longrepr = report.longrepr
            reason = str(longrepr[2] if isinstance(longrepr, tuple) else longrepr)
            # "needs CUDA: none found" and its like: the part before the colon says it.
            reason = reason.removeprefix("Skipped: ").split(":")[0]
            counts[reason] = counts.get(reason, 0) + 1
        return dict(sorted(counts.items(), key=lambda item: -item[1]))

    def kata_module(self, nodeid: str) -> str | None:
        """The kata a test belongs to (by its node id), or None for other tests."""
        file = nodeid.split("::")[0]
        if file not in self.kata_of_file:
            path = Path(file)
            module = catalog.module_of(path)
            in_katas = path.parent == Path("katas") and module in self.run.katas
            self.kata_of_file[file] = module if in_katas else None
        return self.kata_of_file[file]


# -- the summary ------------------------------------------------------------


@dataclass
class Summary:
    """Everything the progress summary shows."""

    katas: dict[str, Kata]
    results: dict[str, KataResult]
    known: dict[str, str]  # every kata's status, this run's and remembered ones
    statuses: dict[str, str]  # the status of each kata that ran, as this run saw it
    root: Path
    # Each kata that ran: tests passed since its stub changed, and how many it has.
    progress: dict[str, tuple[int, int | None]] = field(default_factory=dict)
    verbosity: int = 0
    hints: dict[str, list[str]] = field(default_factory=dict)
    changes: dict[str, list[str]] = field(default_factory=dict)  # stub -> state it changed
    restored: dict[str, list[str]] = field(default_factory=dict)  # ... during its tests
    damaged: list[str] = field(default_factory=list)
    interrupted: bool = False
    skips: dict[str, int] = field(default_factory=dict)  # reason -> tests the harness skipped
    letters: bool = False  # the progress line showed `n` for katas not started


def detail(
    result: KataResult, status: str, progress: tuple[int, int | None], interrupted: bool, room: int
) -> str:
    """What the learner should know about one kata, in `room` characters, in whole words."""
    passed, every = progress
    total = every if every is not None else len(result.tests)
    # A stub whose functions are still unwritten: the same advice, cut off or not (another
    # run would only fail the same way).
    if status == NOT_STARTED and (unwritten := result.unwritten()):
        return f"{status}: write " + names_that_fit(unwritten, room - len(status) - 8)
    if interrupted and not result.finished:
        return notes_that_fit(f"cut off by Ctrl-C at {passed}/{total}", ["run it again"], room)
    if status == NOT_STARTED:
        return status
    head = f"{status} {passed}/{total}"
    if status == SOLVED:
        return head
    if status == SKIPPED:
        return "skipped: no test of it can run on these devices"
    notes = []
    broken = result.first(DOES_NOT_IMPORT)
    if broken:
        notes.append("does not import (see above)")
    stopped = result.count(STOPPED)
    if result.first(TIMED_OUT):
        notes.append("timed out")
    if crashed := result.first(CRASHED):
        notes.append(str(crashed[1]).replace(" the test process", ""))
    if stopped:
        notes.append(f"{stopped} more stopped")
    unwritten = result.unwritten()
    if unwritten and not broken:
        notes.append("write " + ", ".join(unwritten))
    summed_up = (DOES_NOT_IMPORT, TIMED_OUT, CRASHED, STOPPED)
    others = sum(
        not test.unwritten and not any(key in test.properties for key in summed_up)
        for test in result.tests.values()
        if test.outcome == "failed"
    )
    if others and not broken:
        notes.append(f"{others} failing")
    failing = sum(test.outcome == "failed" for test in result.tests.values())
    skipped = len(result.ids("skipped"))
    if every is None:
        notes.append("its other tests not run yet")
    elif (left := every - passed - failing - skipped) > 0:
        notes.append(f"{left} not run yet")
    return notes_that_fit(head, notes, room)


def kata_line(kata: Kata, summary: Summary, title_width: int) -> tuple[str, str, str]:
    """The kata and its title, then its status and what is left to do, and its colour."""
    status = summary.statuses[kata.module]
    progress = summary.progress.get(kata.module, (summary.results[kata.module].passed, None))
    prefix = f"  {kata.label}  {fit(kata.title, title_width):<{title_width}}  "
    text = detail(
        summary.results[kata.module], status, progress, summary.interrupted, WIDTH - len(prefix)
    )
    return prefix, text, COLOURS[status]


def write_summary(tr: TerminalReporter, summary: Summary) -> None:
    tr.write_sep("=", "torch-katas progress")
    warnings = [(stub, changed, "at import") for stub, changed in summary.changes.items()]
    warnings += [(stub, changed, "in its tests") for stub, changed in summary.restored.items()]
    for stub, changed, when in warnings:
        text = (
            f"warning: {stub} changed {', '.join(changed)} {when}; torch-katas undid that "
            "for the other katas (change global state inside your functions, and put it back)"
        )
        for line in textwrap.wrap(text, WIDTH, subsequent_indent="  "):
            tr.write_line(line, yellow=True)
    for name in summary.damaged:
        tr.write_line(
            fit(f"warning: {name} was damaged; kept what was readable", WIDTH),
            yellow=True,
        )
    if summary.verbosity >= -1:
        write_table(tr, summary)
    if summary.skips and summary.verbosity >= 0:
        skipped = [f"{count} {reason}" for reason, count in summary.skips.items()]
        line = notes_that_fit("Skipped by the harness", skipped, WIDTH - 12) + " (-rs: why)"
        tr.write_line(line, cyan=True)
    write_totals(tr, summary)


def not_started_line(katas: list[Kata], indent: str) -> str:
    return fit(f"{indent}not started: " + " ".join(kata.label for kata in katas), WIDTH)


def write_table(tr: TerminalReporter, summary: Summary) -> None:
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
        # Two or more katas not started share one line, unless the learner asked for their
        # hints; one alone gets its own line, naming the functions to write.
        waiting = [
            k
            for k in shown
            if summary.statuses[k.module] == NOT_STARTED
            and k.module not in summary.hints
            and (summary.results[k.module].finished or not summary.interrupted)
        ]
        if len(waiting) < 2:
            waiting = []
        own = [k for k in shown if k not in waiting]
        solved = sum(summary.known.get(kata.module) == SOLVED for kata in members)
        header = f"{topic}: {solved} of {len(members)} solved"
        if (
            not quiet
            and waiting
            and not own
            and len(not_started_line(waiting, header + "; ")) < WIDTH
        ):
            tr.write_line(not_started_line(waiting, header + "; "), bold=True)
            continue
        if not quiet:
            tr.write_line(header, bold=True)
        for kata in own:
            prefix, text, colour = kata_line(kata, summary, title_width)
            tr.write(prefix)
            tr.write_line(text, **{colour: True})
            for hint in summary.hints.get(kata.module, []):
                for text in textwrap.wrap(
                    hint, WIDTH, initial_indent=" " * 7, subsequent_indent=" " * 9
                ):
                    tr.write_line(text)
        if waiting:
            tr.write_line(not_started_line(waiting, "  "), red=True)
    if summary.letters and not quiet:
        tr.write_line("(n in the line of test letters: a kata whose functions are not written yet)")


def write_totals(tr: TerminalReporter, summary: Summary) -> None:
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
    ran = [kata for kata in katas.values() if kata.module in summary.results]
    # A run of whole topics (pytest -m optimizers, katas run optimizers) goes on within them.
    topics = {kata.topic for kata in ran}
    whole = all(k.module in summary.results for k in katas.values() if k.topic in topics)
    within = topics if whole and len(topics) < len({k.topic for k in katas.values()}) else None
    following = upcoming(summary.root, katas, known, ran, within) or upcoming(
        summary.root, katas, known, ran
    )
    if following is None:
        return
    if len(ran) == 1 and known.get(ran[0].module) != SOLVED:
        head = f"After {ran[0].label}"  # the kata `n` in katas watch moves on to
    elif any(status != NOT_STARTED for status in known.values()):
        head = "Next"
    else:
        head = "Start here"
    # Whole words, no line of the full width (some terminals wrap a line of exactly 80), and
    # the stub's path whole on one line.
    text = f"{head}: {following.label} {following.title},"
    lines = textwrap.wrap(text, WIDTH - 1, subsequent_indent="  ", break_on_hyphens=False)
    where = f"in katas/{following.module}.py"
    if len(lines[-1]) + 1 + len(where) < WIDTH:
        lines[-1] += f" {where}"
    else:
        lines.append(f"  {where}")
    for line in lines:
        tr.write_line(line)
    tr.write_line(f"  run its tests: pytest katas/{following.module}_test.py")
