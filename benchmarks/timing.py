"""A pytest plugin for the benchmarks: the session's own time and its number of tests, written as
JSON to the file $TORCH_KATAS_TIMING names (profilers would be masked by the rules' own
sys.setprofile; timing hooks are not), with the modules torch imports only on first use that the
session loaded (LAZY)."""

from __future__ import annotations

import json
import os
import sys
import time

import pytest

# What torch imports on first use, each a second or so: Dynamo (any optimizer's first param
# group, torch.compile, checkpoint), sympy (torch._check_with, as in MultiheadAttention's
# key-padding check), the ONNX exporter and runtime.
LAZY = ("torch._dynamo", "sympy", "onnxscript", "onnxruntime")

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
        data = {
            "seconds": time.perf_counter() - _started,
            "tests": _tests,
            "lazy": [name for name in LAZY if name in sys.modules],
        }
        with open(path, "w", encoding="utf-8") as file:
            json.dump(data, file)
