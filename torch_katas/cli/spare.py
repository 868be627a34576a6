"""A warm spare interpreter for `katas watch`.

It imports ahead of time what every kata run needs (torch, pytest, the harness), then waits
for one line on stdin, a JSON list of pytest arguments, runs pytest once and exits. One run
per process: a module kept from an earlier run could pass a test that the file on disk fails.
It is started with subprocess, never forked from a process that has run torch ops.

    python -m torch_katas.cli.spare      (then write ["katas/q01_fit_line_test.py"] and a newline)
"""

import gc
import json
import os
import sys
import traceback

__all__ = [
    "main",
]

INTERNAL_ERROR = 3  # pytest's own exit code for a failure outside the tests


def warm_pytest() -> None:
    """Import now what pytest would import when the run starts: its own plugins, and what
    the installed plugins import (never the plugins' own modules, whose asserts pytest
    rewrites as it imports them)."""
    import contextlib
    import importlib

    from _pytest.config import default_plugins

    for name in default_plugins:
        importlib.import_module(f"_pytest.{name}")
    with contextlib.suppress(ImportError):
        importlib.import_module("execnet")  # pytest-xdist's


def main() -> None:
    try:
        # Not torch_katas.plugin, nor any pytest plugin: pytest imports those itself, to rewrite
        # their asserts, and warns (an error in this suite) when they were imported before.
        import numpy  # noqa: F401
        import pytest

        from torch_katas import catalog, devices, status, store, testing  # noqa: F401
        from torch_katas.runtime import answers, isolation, timelimit  # noqa: F401

        warm_pytest()

        # Setting up the simulated device runs its first op: pay that now, while the learner
        # edits, when the default run will use the device.
        devices.set_up(devices.present())
    except BaseException:
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(INTERNAL_ERROR)
    # What was imported lives as long as the process: keep it out of the garbage collections
    # pytest runs at the end of every session, which would otherwise walk all of torch.
    gc.collect()
    gc.freeze()
    line = sys.stdin.readline()
    if not line.strip():
        os._exit(0)  # the watcher quit before it needed this spare
    try:
        code = int(pytest.main(json.loads(line)))
    except BaseException:
        traceback.print_exc()
        code = INTERNAL_ERROR
    sys.stdout.flush()
    sys.stderr.flush()
    # No interpreter teardown: it only costs time, and nothing is left to clean up.
    os._exit(code)


if __name__ == "__main__":
    main()
