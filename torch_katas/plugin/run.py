"""What the plugin knows about one pytest run, kept in the config's stash.

This module, like the plugin's hook file, does not import torch: a run starts without it
(see supervisor.py), and the modules that need torch are imported once the run is configured.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from torch_katas import catalog
from torch_katas.runtime.answers import Imports

if TYPE_CHECKING:
    from torch_katas.runtime.isolation import GlobalState

__all__ = [
    "RUN",
    "KataRun",
    "kata_of",
]


@dataclass
class KataRun:
    """The katas, devices and answers of this run."""

    root: Path
    katas: dict[str, catalog.Kata]
    devices: list[str]
    answers: str  # what is under test, for the report header
    learner: bool  # the learner's own stubs are under test (no --solutions, no --answer-file)
    imports: Imports
    undo: list[Callable[[], object]] = field(default_factory=list)  # run at the run's end
    # Kata -> why its tests that did not run yet fail at once: an earlier one timed out, or
    # crashed the test process.
    stopped: dict[str, str] = field(default_factory=dict)
    # Katas whose "not implemented yet" letter the progress line has shown already.
    shown_unwritten: set[str] = field(default_factory=set)
    kata_of_file: dict[Path, catalog.Kata | None] = field(default_factory=dict)
    thinned: int = 0  # tests the sim pass left out (params.thin_simulated), as deselected
    # The global state every test starts from, recorded before the first one.
    guard: GlobalState | None = None

    def answer_path(self, kata: catalog.Kata) -> Path:
        """The file this run imports for `kata`."""
        return self.imports.files.get(kata.module, kata.stub_path(self.root))

    def finish(self) -> None:
        for undo in reversed(self.undo):
            undo()
        self.undo.clear()


RUN = pytest.StashKey[KataRun]()


def kata_of(item: pytest.Item) -> catalog.Kata | None:
    """The kata a collected test belongs to, or None for other tests."""
    # Asked several times for every test: worked out once per test file.
    run = item.config.stash[RUN]
    if item.path not in run.kata_of_file:
        module = catalog.module_of(item.path)
        in_katas = module is not None and item.path.parent == run.root / "katas"
        run.kata_of_file[item.path] = run.katas.get(module) if module and in_katas else None
    return run.kata_of_file[item.path]
