"""The learner's state between runs: each kata's status, the tests that passed for the stub as
it is now, and how many hints were shown. One object for the plugin and the CLI alike.

It lives in `.katas-progress/` in the suite's folder, one JSON file per key, outside pytest's
cache folder: `pytest --cache-clear`, a common habit, must not forget a learner's progress.
Progress kept by earlier versions in pytest's cache (`.pytest_cache/v/torch_katas/`) is
copied there once. Every write goes to a temporary file renamed into place: a run killed while
writing leaves the old file whole. A file damaged anyway (a bad edit) keeps the entries before
the damage.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import tempfile
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from torch_katas import catalog, status
from torch_katas.catalog import Kata

if TYPE_CHECKING:
    import pytest

__all__ = [
    "BUGHUNTS_KEY",
    "CHANGED",
    "DEFAULT_CACHE_DIR",
    "ENVIRONMENT_KEY",
    "FOLDER",
    "HINTS_KEY",
    "PASSED_KEY",
    "STATUS_KEY",
    "Progress",
    "Remembered",
    "Store",
    "next_unsolved",
    "upcoming",
]

FOLDER = ".katas-progress"
STATUS_KEY = "status"
PASSED_KEY = "passed"
HINTS_KEY = "hints"
# The torch and Python of the last run (grading shows a take-home's, as its candidate ran it).
ENVIRONMENT_KEY = "environment"
# The bug hunts (practice/bughunt.py), kept apart from the katas' statuses: while a kata's
# stub holds a hunt's module, its runs record nothing of the kata.
BUGHUNTS_KEY = "bughunts"
KEYS = (STATUS_KEY, PASSED_KEY, HINTS_KEY, ENVIRONMENT_KEY)
# Where versions before FOLDER kept the same keys: pytest's cache, as pytest lays it out.
DEFAULT_CACHE_DIR = ".pytest_cache"
# What `katas list` and the summary say of a kata whose stub or tests changed since the run
# that recorded its status: that status was of other files.
CHANGED = "changed, not run"


@dataclass
class Remembered:
    """This run's statuses and the ones kept in the store, for the summary."""

    this_run: dict[str, str]  # each kata that ran, as this run saw it
    known: dict[str, str]  # every kata's status after this run
    damaged: list[str] = field(default_factory=list)  # entries that had to be salvaged
    # Each kata that ran: its tests passed since its stub last changed (this run and earlier
    # ones), and how many tests it has (None where no run could tell).
    progress: dict[str, tuple[int, int | None]] = field(default_factory=dict)


@dataclass
class Progress:
    """One kata as the store has it after its last run."""

    status: str  # its status, "not run" where none is kept
    passed: int | None = None  # its tests passed since the stub last changed, where kept
    total: int | None = None  # how many tests it has, where a run saw them all
    current: bool = False  # the record is of the stub and tests as they are now


class Store:
    """The learner's state in `folder` (FOLDER in the suite's folder); with None, a store that
    keeps nothing (a run of other answers than the learner's says nothing of their progress)."""

    def __init__(self, folder: Path | None):
        self.folder = folder
        self.damaged: list[str] = []

    @classmethod
    def for_config(cls, config: pytest.Config) -> Store | None:
        """The store of a pytest run; None where the run keeps no cache (-p no:cacheprovider,
        as the suite's self-checks run: a run that keeps no cache keeps no progress either)."""
        if getattr(config, "cache", None) is None:
            return None
        return cls.for_root(config.rootpath, str(config.getini("cache_dir")))

    @classmethod
    def for_root(cls, root: Path, cache_dir: str | None = None) -> Store:
        """The store of the suite in `root`, with what an earlier version kept in pytest's
        cache folder (`cache_dir`: pyproject.toml's where not given) moved in first."""
        folder = root / FOLDER
        store = cls(folder)
        if not folder.exists():
            store.migrate(_resolve(root, cache_dir or _cache_dir(root)) / "v" / "torch_katas")
        return store

    def migrate(self, old: Path) -> None:
        """Copy each key an earlier version kept in `old` (once: this store is new)."""
        for key in KEYS:
            try:
                text = (old / key).read_text(encoding="utf-8")
            except OSError:
                continue
            self.write(key, self.read_text(key, text))

    # -- raw entries ---------------------------------------------------------------------

    def path(self, key: str) -> Path | None:
        return None if self.folder is None else self.folder / f"{key}.json"

    def read(self, key: str) -> dict[str, object]:
        """The dict kept under `key` ({} if none); a damaged file gives what it still holds."""
        path = self.path(key)
        if path is None:
            return {}
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return {}
        return self.read_text(key, text)

    def read_text(self, key: str, text: str) -> dict[str, object]:
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if isinstance(value, dict):
            return value
        name = f"{FOLDER}/{key}.json"
        if name not in self.damaged:
            self.damaged.append(name)
        return salvage(text)

    def write(self, key: str, value: dict[str, object]) -> None:
        path = self.path(key)
        if path is None or self.folder is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            ignore = self.folder / ".gitignore"
            if not ignore.exists():  # the learner's own, never committed
                ignore.write_text("# Created by torch-katas automatically.\n*\n", "utf-8")
            descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
            with os.fdopen(descriptor, "w", encoding="utf-8") as file:
                json.dump(value, file, ensure_ascii=False, indent=2, sort_keys=True)
            os.replace(temporary, path)
        except OSError:
            pass  # a read-only checkout: the run still reports, it only forgets

    # -- what the CLI and the plugin ask -------------------------------------------------

    def statuses(self) -> dict[str, str]:
        return {module: str(value) for module, value in self.read(STATUS_KEY).items()}

    def status_of(self, kata: Kata, default: str = "not run") -> str:
        return self.statuses().get(kata.module, default)

    def known(
        self, root: Path, katas: dict[str, Kata], digests: dict[str, str | None] | None = None
    ) -> dict[str, str]:
        """Each kata's status as kept here, CHANGED where its stub or tests are no longer the
        files the status is of (`digests`: the files' digests where already taken)."""
        return changed_since(self.statuses(), self.read(PASSED_KEY), root, katas, digests)

    def progress(self, root: Path, kata: Kata) -> Progress:
        """The kata's status, and its tests passed of all, as the last run recorded them."""
        known = Progress(self.status_of(kata))
        record = self.read(PASSED_KEY).get(kata.module)
        if not isinstance(record, dict):
            return known
        digest = catalog.files_digest(kata.stub_path(root), kata.test_path(root))
        known.current = digest is not None and record.get("digest") == digest
        passed, every = record.get("passed"), record.get("tests")
        if isinstance(passed, list):
            tests = set(map(str, every)) if isinstance(every, list) and every else None
            known.passed = len(set(map(str, passed)) & tests) if tests else len(passed)
            known.total = len(tests) if tests else None
        return known

    def hunted(self) -> set[str]:
        """The katas whose stubs hold a bug hunt's module now."""
        hunts = self.read(BUGHUNTS_KEY).get("active")
        return set(hunts) if isinstance(hunts, dict) else set()

    def forget(self, kata: Kata) -> None:
        """Drop the kata's status and passed tests: its stub starts over."""
        for key in (STATUS_KEY, PASSED_KEY):
            entries = self.read(key)
            if entries.pop(kata.module, None) is not None:
                self.write(key, entries)

    def next_unsolved(
        self,
        root: Path,
        katas: dict[str, Kata],
        after: Kata | None = None,
        topics: Collection[str] | None = None,
    ) -> Kata | None:
        """The first kata in the suggested order that the store does not know as solved."""
        return next_unsolved(root, katas, self.known(root, katas), after, topics)

    def take_hints(self, kata: Kata, show_all: bool = False) -> tuple[list[str], bool]:
        """The kata's hints up to one more than shown before (or all), and whether they were
        all shown already; the count is remembered for `katas hint` and `--hints` alike."""
        shown = self.read(HINTS_KEY)
        before = _count(shown.get(kata.module))
        count = len(kata.hints) if show_all else min(before + 1, len(kata.hints))
        shown[kata.module] = max(count, before)
        self.write(HINTS_KEY, shown)
        hints = [
            f"hint {number}/{len(kata.hints)}: {hint}"
            for number, hint in enumerate(kata.hints[:count], 1)
        ]
        return hints, before >= len(kata.hints) and not show_all

    def remember(
        self,
        results: dict[str, status.KataResult],
        tests: dict[str, set[str] | None],
        selected: dict[str, set[str]],
        digests: dict[str, str | None],
        interrupted: bool,
    ) -> Remembered:
        """Merge one run's outcomes into the statuses kept here.

        `tests` holds each kata's full list of tests where the run could tell it (it collected
        the whole test file); `selected`, the tests the run meant to run; `digests`, a digest of
        each kata's stub and tests as the run found them: passes of an older stub never count.
        """
        known, records = self.statuses(), self.read(PASSED_KEY)
        this_run, statuses = {}, dict(known)
        hunted = self.hunted()
        progress: dict[str, tuple[int, int | None]] = {}
        for module, result in results.items():
            record = records.get(module)
            if not isinstance(record, dict) or record.get("digest") != digests.get(module):
                record = {}
            earlier = status.Earlier.from_record(record)
            every = tests.get(module)
            if every is None and isinstance(record.get("tests"), list) and record["tests"]:
                every = {str(name) for name in record["tests"]}
            now = this_run[module] = result.status(earlier, every)
            since = result.since_stub_changed(earlier)
            progress[module] = (len(since.passed), len(every) if every is not None else None)
            finished = module in selected and all(
                nodeid in result.tests and result.tests[nodeid].finished
                for nodeid in selected[module]
            )
            if interrupted and (now == status.SOLVED or not finished):
                continue  # an interrupted run proves no kata solved, and judges none it cut short
            if module in hunted:
                continue  # the stub holds a bug hunt's module, not the learner's answer
            statuses[module] = now
            if digests.get(module) is not None:
                records[module] = {
                    "digest": digests[module],
                    "passed": sorted(since.passed),
                    "skipped": sorted(since.skipped),
                    "tests": sorted(every) if every is not None else [],
                }
        self.write(STATUS_KEY, dict(statuses))
        self.write(PASSED_KEY, records)
        self.write(ENVIRONMENT_KEY, environment())
        known = changed_since(statuses, records, None, {}, digests)
        return Remembered(this_run, known, list(self.damaged), progress)


def changed_since(
    statuses: dict[str, str],
    records: dict[str, object],
    root: Path | None,
    katas: dict[str, Kata],
    digests: dict[str, str | None] | None,
) -> dict[str, str]:
    """`statuses`, with CHANGED for each kata whose files' digest now (from `digests`, else
    read under `root`) is not the one its record was made with."""
    found = dict(statuses)
    for module in statuses:
        record = records.get(module)
        kept = record.get("digest") if isinstance(record, dict) else None
        if kept is None:
            continue  # no digest was recorded: nothing to compare
        if digests is not None and module in digests:
            now = digests[module]
        elif root is not None and module in katas:
            kata = katas[module]
            now = catalog.files_digest(kata.stub_path(root), kata.test_path(root))
        else:
            continue
        if now is not None and now != kept:
            found[module] = CHANGED
    return found


def environment() -> dict[str, object]:
    """This run's torch and Python, without importing torch (the run already has)."""
    torch = sys.modules.get("torch")
    return {
        "torch": str(getattr(torch, "__version__", "not imported")),
        "python": platform.python_version(),
        "platform": f"{sys.platform} {platform.machine()}",
    }


def next_unsolved(
    root: Path,
    katas: dict[str, Kata],
    known: dict[str, str],
    after: Kata | None = None,
    topics: Collection[str] | None = None,
) -> Kata | None:
    """The first kata in the suggested order not solved in `known`; with `after`, the first
    one after that kata (wrapping round), never `after` itself; with `topics`, one of theirs."""
    order = catalog.suggested_order(root, katas)
    if after is not None:
        place = order.index(after)
        order = order[place + 1 :] + order[:place]
    if topics is not None:
        order = [kata for kata in order if kata.topic in topics]
    return next((k for k in order if known.get(k.module) != status.SOLVED), None)


def upcoming(
    root: Path,
    katas: dict[str, Kata],
    known: dict[str, str],
    worked_on: list[Kata],
    topics: Collection[str] | None = None,
) -> Kata | None:
    """The kata to go on to: the one the run's "Next:" line names and watch's `n` moves to.
    After work on one kata, the first kata not solved after it in the suggested order
    (wrapping round, never that kata); after a run of several, or none, the first not solved;
    with `topics`, within them."""
    after = worked_on[0] if len(worked_on) == 1 else None
    return next_unsolved(root, katas, known, after, topics)


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _cache_dir(root: Path) -> str:
    """pytest's cache folder as the suite's pyproject.toml sets it."""
    try:
        ini = catalog.tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
        return str(ini["tool"]["pytest"]["ini_options"].get("cache_dir", DEFAULT_CACHE_DIR))
    except (OSError, KeyError, TypeError, ValueError):
        return DEFAULT_CACHE_DIR


def _resolve(root: Path, folder: str) -> Path:
    # As pytest resolves cache_dir: variables and ~ expanded, relative to the root folder.
    return root / os.path.expandvars(os.path.expanduser(folder))


def salvage(text: str) -> dict[str, object]:
    """The complete `"key": value` entries at the start of a JSON object cut short."""
    decoder = json.JSONDecoder()
    kept: dict[str, object] = {}
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
