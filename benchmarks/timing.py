"""A pytest plugin for the benchmarks: the session's own time and its number of tests, written as
JSON to the file $TORCH_KATAS_TIMING names (profilers would be masked by the rules' own
sys.setprofile; timing hooks are not)."""

from __future__ import annotations

import json
import os
import time

import pytest

_started = 0.0
_tests = 0


def pytest_sessionstart(session: pytest.Session) -> None:
    global _started
    _started = time.perf_counter()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    global _tests
    _tests += report.when == "call" or (report.when == "setup" and report.skipped)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    path = os.environ.get("TORCH_KATAS_TIMING")
    if path and _started:
        data = {"seconds": time.perf_counter() - _started, "tests": _tests}
        with open(path, "w", encoding="utf-8") as file:
            json.dump(data, file)
