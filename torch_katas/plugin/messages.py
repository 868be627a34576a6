"""What a failing kata test says: one line where one line says it all (an unwritten stub, a
stub that does not import, a time-out), and a skip raised by the answer turned into a failure.

Time limits come through pytest-timeout's public hooks: the plugin sets them with its own
TimeLimit, whose exception (TimedOut) tells a time-out from any other failure by its type.
"""

from __future__ import annotations

import linecache
import os
import signal
import threading
import unittest
from pathlib import Path
from typing import Any

import _pytest
import pluggy
import pytest

import torch_katas.plugin.digest as digest
from torch_katas import catalog
from torch_katas.plugin.run import RUN, KataRun, kata_of
from torch_katas.runtime.answers import StubUnavailable
from torch_katas.runtime.timelimit import TimedOut, TimeLimit
from torch_katas.status import (
    DOES_NOT_IMPORT,
    MESSAGE,
    NOT_IMPLEMENTED,
    RESTORED,
    STOPPED,
    TIMED_OUT,
)

__all__ = [
    "RESTORED_BY_GUARD",
    "cancel_timer",
    "explain",
    "fail_on_state_left_changed",
    "report_briefly",
    "set_timer",
    "stop_early",
    "stop_threads_left_running",
    "test_status",
    "time_limit",
]

TIME_LIMIT = pytest.StashKey[TimeLimit]()
STOPPED_EARLY = pytest.StashKey[str]()  # on a test not run because an earlier one timed out
UNWRITTEN = pytest.StashKey[str]()  # on a test an unwritten stub stopped: the function's name
RESTORED_BY_GUARD = pytest.StashKey[list[str]]()  # what the per-test guard put back
# Where pytest's own code lives: frames there raise the skips that marks and helpers ask for.
PYTEST_CODE = tuple(Path(str(module.__file__)).parent for module in (pytest, _pytest, pluggy))
SKIPS = (pytest.skip.Exception, pytest.xfail.Exception, unittest.SkipTest)
HARNESS_CODE = Path(__file__).parents[1]


def time_limit(config: pytest.Config) -> float:
    """The per-test limit pytest-timeout applies (0: none), which also bounds each kata's
    import: its --timeout option, else PYTEST_TIMEOUT, else the `timeout` ini setting."""
    if not config.pluginmanager.has_plugin("timeout"):
        return 0
    value = config.getoption("timeout", None)
    if value is None:
        value = os.environ.get("PYTEST_TIMEOUT") or config.getini("timeout")
    try:
        return float(value or 0)
    except (TypeError, ValueError):
        return 0


def set_timer(item: pytest.Item, settings: Any) -> bool | None:
    """pytest-timeout's signal method, plus a note of where the time ran out.

    A long C++ operation delays the signal until it returns, and by then the learner's line
    that started it may have returned too; the note keeps it for the failure message.
    """
    if settings.method != "signal" or not hasattr(signal, "SIGALRM"):
        return None  # the thread method ends the run on a timeout; nothing to add
    if threading.current_thread() is not threading.main_thread():
        return None

    import pytest_timeout  # type: ignore[import-untyped]  # the plugin calling this hook

    def expire() -> None:
        __tracebackhide__ = True
        if settings.disable_debugger_detection or not pytest_timeout.is_debugging():
            raise TimedOut(f"Timeout (>{settings.timeout:g}s)")

    item.stash[TIME_LIMIT] = TimeLimit(settings.timeout, expire).__enter__()
    return True


def cancel_timer(item: pytest.Item) -> bool | None:
    limit = item.stash.get(TIME_LIMIT, None)
    if limit is None:
        return None
    limit.__exit__(None, None, None)
    return True


def stop_early(item: pytest.Item) -> None:
    """Once a test of a kata has timed out (or crashed the test process), fail its other
    tests at once instead of letting each wait for its own time limit."""
    kata = kata_of(item)
    run = item.config.stash[RUN]
    if kata is not None and kata.module in run.stopped:
        item.stash[STOPPED_EARLY] = run.stopped[kata.module]
        pytest.fail(
            f"not run, because {run.stopped[kata.module]}; fix that one and run again",
            pytrace=False,
        )


def stop_threads_left_running(item: pytest.Item) -> None:
    """Fail a test whose answer left a thread running its code, once the thread is stopped."""
    from torch_katas.runtime.isolation import stop_threads_in

    kata = kata_of(item)
    if kata is None:
        return
    answer = item.config.stash[RUN].answer_path(kata)
    threads = stop_threads_in(answer)
    if threads:
        shown = item.config.stash[RUN].imports.shown(answer)
        pytest.fail(
            f"{kata.label} {kata.title}: {shown} left a thread running after this test "
            f"({', '.join(threads)}); torch-katas stopped it. Join every thread your code "
            "starts before returning: a thread left running could change the global state "
            "(default dtype, random generators) that other tests rely on",
            pytrace=False,
        )


def fail_on_state_left_changed(item: pytest.Item, changed: list[str]) -> None:
    """Fail a kata test after which the state guard had to put something back: a setting
    (grad mode, default dtype, cuDNN flags...), a hook or mode left registered, a torch name
    replaced. Every contract leaves the process as the answer found it, except what a kata's
    own tests ask for and put back themselves."""
    kata = kata_of(item)
    if kata is None or not changed:
        return
    shown = item.config.stash[RUN].imports.shown(item.config.stash[RUN].answer_path(kata))
    pytest.fail(
        f"{kata.label} {kata.title}: after this test, {', '.join(changed)} had changed and "
        f"torch-katas put it back. Leave the process as you found it: whatever {shown} "
        "changes for its own work (a setting, a hook, a mode), it puts back before it returns, "
        "also when it raises (in a finally)",
        pytrace=False,
    )


def _no_traceback(excinfo: pytest.ExceptionInfo[BaseException], style: object = None) -> str:
    return ""


def report_briefly(item: pytest.Item, call: pytest.CallInfo[None]) -> pytest.TestReport | None:
    """The report of a failing kata test, without pytest's formatted traceback.

    An unwritten stub's failure is one line (explain() writes it); in a default run any other
    failure is the digest's short text. Formatting thousands of full tracebacks, through
    torch's internals and the stub's docstring, took most of the time of a red run.
    """
    if call.when != "call" or call.excinfo is None or (kata := kata_of(item)) is None:
        return None
    if call.excinfo.errisinstance(SKIPS):
        return None
    function = unimplemented_function(call.excinfo, item.config.stash[RUN].answer_path(kata))
    if function is not None:
        item.stash[UNWRITTEN] = function
        item.repr_failure = _no_traceback  # type: ignore[method-assign]
    elif digest.active(item.config):
        item.repr_failure = lambda excinfo, style=None: digest.brief(item, excinfo)  # type: ignore[method-assign]
    else:
        return None
    try:
        return pytest.TestReport.from_item_and_call(item, call)
    finally:
        del item.repr_failure


def explain(
    item: pytest.Item,
    report: pytest.TestReport,
    when: str,
    excinfo: pytest.ExceptionInfo[BaseException] | None,
) -> None:
    """Rewrite a kata test's report where the harness knows better than the traceback."""
    kata = kata_of(item)
    if kata is None:
        return
    if when == "teardown" and RESTORED_BY_GUARD in item.stash:
        report.user_properties.append((RESTORED, item.stash[RESTORED_BY_GUARD]))
    if excinfo is None:
        return
    run = item.config.stash[RUN]
    if report.skipped:
        skipped_by_answer(report, excinfo, kata, run, item.path)
    if report.failed:
        explain_failure(item, report, excinfo, kata, run)
    if (report.failed or report.skipped) and MESSAGE not in dict(report.user_properties):
        if report.skipped:
            longrepr = report.longrepr
            text = str(longrepr[2] if isinstance(longrepr, tuple) else longrepr)
            text = text.removeprefix("Skipped: ")
        else:
            text = digest.exception_lines(excinfo)[0]
        record_message(report, text)


def record_message(report: pytest.TestReport, text: str) -> None:
    """Note on the report, as data, the one line that says what went wrong (status.MESSAGE)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    report.user_properties.append((MESSAGE, lines[0] if lines else "failed"))


def skipped_by_answer(
    report: pytest.TestReport,
    excinfo: pytest.ExceptionInfo[BaseException],
    kata: catalog.Kata,
    run: KataRun,
    test_file: Path,
) -> None:
    """A skip (or xfail) that the harness did not ask for is a failure, not a skip.

    Only the harness may skip a kata test: a mark, or the kata's test file (a device or dtype
    the machine lacks, an optional package missing). A skip raised anywhere else, by the
    answer or by anything it called (pytest.skip, unittest.SkipTest, pytest.xfail), must not
    look as if the answer handled the case.
    """
    if not excinfo.errisinstance(SKIPS):
        return  # an xfail marker turned a failure into this skip: not the answer's doing
    origin = skip_origin(excinfo)
    if origin is None or origin == test_file or HARNESS_CODE in origin.parents:
        return
    answer = run.answer_path(kata)
    entry = last_entry_in(excinfo, origin)
    where = run.imports.shown(origin) + (f" line {entry.lineno + 1}" if entry else "")
    by = "" if origin == answer else f" (called from {run.imports.shown(answer)})"
    if hasattr(report, "wasxfail"):
        del report.wasxfail
    reason = str(excinfo.value) or type(excinfo.value).__name__
    report.outcome = "failed"
    message = (
        f"{where}{by} skipped this test ({reason}); only the "
        "harness may skip a kata's tests, so this counts as a failure"
    )
    report.longrepr = f"{kata.label} {kata.title}: {message}"
    record_message(report, message)


def skip_origin(excinfo: pytest.ExceptionInfo[BaseException]) -> Path | None:
    """The file of the innermost frame outside pytest that led to a skip, or None."""
    for entry in reversed(excinfo.traceback):
        path = Path(entry.path)
        if not any(root in path.parents for root in PYTEST_CODE):
            return path
    return None


def explain_failure(
    item: pytest.Item,
    report: pytest.TestReport,
    excinfo: pytest.ExceptionInfo[BaseException],
    kata: catalog.Kata,
    run: KataRun,
) -> None:
    """Replace the traceback with one line where one line says it all."""
    if excinfo.errisinstance(StubUnavailable):
        line = str(excinfo.value)
        report.user_properties.append((DOES_NOT_IMPORT, line))
    elif STOPPED_EARLY in item.stash:
        line = str(excinfo.value)
        report.user_properties.append((STOPPED, item.stash[STOPPED_EARLY]))
    elif excinfo.errisinstance(TimedOut):
        run.stopped.setdefault(
            kata.module, f"an earlier test of this kata timed out ({item.nodeid})"
        )
        where = timeout_location(item, run.answer_path(kata), run)
        line = where or f"{excinfo.value}: still running at the time limit"
        report.user_properties.append((TIMED_OUT, where or str(excinfo.value)))
    elif (function := item.stash.get(UNWRITTEN, None)) is not None:
        line = (
            f"{function}() is not implemented yet; "
            f"open {run.imports.shown(run.answer_path(kata))} and replace its NotImplementedError"
        )
        report.user_properties.append((NOT_IMPLEMENTED, function))
    else:
        return
    report.longrepr = f"{kata.label} {kata.title}: {line}"
    record_message(report, line)


def timeout_location(item: pytest.Item, answer: Path, run: KataRun) -> str | None:
    """Where in the answer the time ran out, or None if it ran out elsewhere."""
    limit = item.stash.get(TIME_LIMIT, None)
    entry = limit.last_line_in(answer) if limit is not None else None
    if limit is None or entry is None:
        return None
    code = f": {entry.line.strip()}" if entry.line else ""
    return (
        f"still running after the {limit.seconds:g} s time limit, at "
        f"{run.imports.shown(answer)} line {entry.lineno}{code}"
    )


def last_entry_in(excinfo: pytest.ExceptionInfo[BaseException], path: Path) -> Any:
    """The innermost traceback entry in `path`, or None."""
    for entry in reversed(excinfo.traceback):
        if Path(entry.path) == path:
            return entry
    return None


def unimplemented_function(excinfo: pytest.ExceptionInfo[BaseException], stub: Path) -> str | None:
    """The stub function that raised NotImplementedError, or None if it was not a stub.

    Only a `raise` in the stub counts: torch raises NotImplementedError too ("not
    implemented for 'ComplexFloat'"), and that is a mistake in written code, not a stub.
    """
    if not excinfo.errisinstance(NotImplementedError):
        return None
    entry = excinfo.traceback[-1]
    if Path(entry.path) != stub:
        return None
    # The raising line itself, a raise statement's first: thousands of untouched stubs'
    # tests pass here, and entry.statement parses the whole file for each.
    if not linecache.getline(str(entry.path), entry.lineno + 1).lstrip().startswith("raise"):
        return None
    code = entry.frame.code.raw
    return str(getattr(code, "co_qualname", code.co_name))


def test_status(report: pytest.TestReport, config: pytest.Config) -> tuple[str, str, str] | None:
    """One `n` per kata in the progress line for tests of functions not written yet.

    The untouched stubs fail thousands of tests the same way; a letter each would fill
    dozens of lines before the summary, which lists those katas one line each.
    """
    if report.when != "call" or not report.failed:
        return None
    if not any(name == NOT_IMPLEMENTED for name, _ in report.user_properties):
        return None
    module = catalog.module_of(Path(report.nodeid.split("::")[0]))
    shown = config.stash[RUN].shown_unwritten
    letter = "" if module in shown else "n"
    shown.add(module or "")
    return "failed", letter, "NOT IMPLEMENTED"
