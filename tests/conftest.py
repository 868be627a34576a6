import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

# pytester's in-process runs forget the modules imported during them, and torch's modules
# that register native operators fail when imported a second time. Kata 38's compiled tests
# import this one: import it once, for the whole session, here.
import torch.distributed.tensor  # noqa: F401

from torch_katas import catalog
from torch_katas.runtime.answers import is_kata_package

ROOT = Path(__file__).resolve().parents[1]

# Options for this run (PYTEST_ADDOPTS, read before this file is) are not the learner's: the
# self-checks' nested pytest runs, which compare what a learner's terminal shows, go without.
os.environ.pop("PYTEST_ADDOPTS", None)


# Under xdist (`-n 2`), the run ends when its last test does: a long self-check that starts
# late keeps one worker busy while the other idles. So the workers steal queued tests from
# each other (xdist's worksteal scheduling, in place of its default `load`), and the run
# queues the self-checks first, those marked slow first of all, and the thousands of short
# kata tests last, which the two share until both end together.
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    if config.getoption("dist") == "load":
        from xdist.scheduler import WorkStealingScheduling

        return WorkStealingScheduling(config, log)
    return None


# The ini's 60 s per test bounds a learner's infinite loop in a kata. A self-check that starts
# processes (grading, fresh environments, nested runs) can take longer on a busy machine: its
# limit only catches a hang, so it is generous, never a timing assertion.
SELF_CHECK_LIMIT = 600


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    tests = ROOT / "tests"
    for item in items:
        if item.path.parent == tests and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(SELF_CHECK_LIMIT))
    if not hasattr(config, "workerinput"):  # not an xdist worker: the order as collected
        return
    items.sort(key=lambda item: (item.path.parent != tests, not item.get_closest_marker("slow")))


class _Reports:
    """Collects an in-process run's reports and stops the run when its time is up.

    The nested run's per-test timeouts (pytest-timeout) bound each of its tests, but they
    replace the outer test's alarm, so the whole run is bounded here instead: once
    `time_limit` seconds have passed, no further test starts.
    """

    def __init__(self, time_limit: float):
        self.reports: list[pytest.TestReport] = []
        self.deadline = time.monotonic() + time_limit
        self.out_of_time = False

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.reports.append(report)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item):
        result = yield
        if time.monotonic() > self.deadline:
            self.out_of_time = True
            item.session.shouldstop = "the time limit of this run is spent"
        return result


class InlineRun(list):
    """The reports of an in-process run; `out_of_time` says whether it was cut short."""

    out_of_time: bool = False


@pytest.fixture
def run_pytest_inline():
    """Run pytest in this process and return its test reports.

    Unlike pytester's in-process runs, this keeps every module the run imported except the
    kata modules: torch registers native operators when some of its modules are first
    imported, and importing them a second time fails.
    """

    def run(*args: str, time_limit: float = 120, plugins: tuple = ()) -> InlineRun:
        recorder = _Reports(time_limit)
        kata_modules = {n: m for n, m in sys.modules.items() if is_kata_package(n)}
        try:
            # unraisableexception runs full garbage collections at the end of every run:
            # with torch loaded that is a third of a short run's time.
            options = ["-p", "no:cacheprovider", "-p", "no:unraisableexception", "-q"]
            pytest.main([*args, *options], plugins=[recorder, *plugins])
        finally:
            for name in [n for n in sys.modules if is_kata_package(n)]:
                del sys.modules[name]
            sys.modules.update(kata_modules)
        reports = InlineRun(recorder.reports)
        reports.out_of_time = recorder.out_of_time
        return reports

    return run


@pytest.fixture
def committed_stub(tmp_path):
    """The path of a kata's stub as committed in git, so that a learner's solved kata in the
    working copy changes no self-check; the working copy where there is no git checkout or
    the stub is not committed yet."""

    def stub(kata: catalog.Kata) -> Path:
        relative = kata.stub_path(ROOT).relative_to(ROOT).as_posix()
        try:
            shown = subprocess.run(
                # "./": relative to ROOT, also where ROOT is a folder inside a larger repository.
                ["git", "-C", str(ROOT), "show", f"HEAD:./{relative}"],
                capture_output=True,
                check=True,
                timeout=30,
            )
        except (OSError, subprocess.SubprocessError):
            return kata.stub_path(ROOT)
        path = tmp_path / f"{kata.module}.py"
        path.write_bytes(shown.stdout)
        return path

    return stub


@pytest.fixture
def kata_harness(pytester, monkeypatch):
    """An empty project laid out as torch-katas is (a katas/ package), using the real plugin."""
    # Subprocess runs import the harness of this checkout, not whichever one is installed.
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makefile(
        ".toml",
        pyproject=textwrap.dedent("""
            [tool.pytest.ini_options]
            python_files = ["*_test.py"]
            pythonpath = ["."]
            addopts = ["--strict-markers"]
            filterwarnings = ["error"]
        """),
    )
    pytester.makeconftest('pytest_plugins = ["torch_katas.plugin"]')
    pytester.mkpydir("katas")
    return pytester
