"""Keep a crash in one kata's code from taking the run with it.

No code inside a process survives a segmentation fault in an extension, a CUDA error that
kills the process, or `os._exit()` in a stub. So a learner's run happens in a child process,
forked from the `pytest` process before torch is imported (while forking is safe), and the
parent, the supervisor, only reads what the child tells it on a pipe: the kata module it is
importing, the test it is running, each test's report. When the child dies before the run
ends, the supervisor knows where it was: it fails that test (or that kata's import) in one
line, and forks a new child for what is left, handing it the reports so far, so that the
summary, the exit status and the learner's progress cover the whole run.

The run is supervised where it can be: on systems with fork, when torch is not imported yet
(a run inside another, such as pytester's, or the warm interpreter of `katas watch`, is not),
when the caller passed pytest no plugin objects to watch the run in its own process (the
grading child does), and without xdist, which replaces a crashed worker itself.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import sys
import tempfile
from collections.abc import Generator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from torch_katas import catalog
from torch_katas.plugin.run import RUN
from torch_katas.status import CRASHED, MESSAGE

__all__ = [
    "CHILD",
    "ChildReporter",
    "should_supervise",
    "supervise",
]

CHILD = pytest.StashKey["Child"]()
# Options after which pytest runs no test, or runs them elsewhere.
UNSUPERVISED_OPTIONS = (
    "help",
    "version",
    "markers",
    "showfixtures",
    "show_fixtures_per_test",
    "cacheshow",
    "collectonly",
    "numprocesses",
    "tx",
)
FRAME = re.compile(r'^\s*File "(?P<path>.+)", line (?P<line>\d+) in (?P<name>\S+)')


@dataclass
class Crash:
    """Where a child died: in a test (nodeid) or importing a kata module, and how."""

    kata: str
    how: str  # "crashed the test process (SIGSEGV)", "ended the test process (exit status 0)"
    file: str  # the answer's file, as the learner would type it
    line: int | None  # its innermost line that was running, where faulthandler showed it
    nodeid: str | None = None
    location: tuple[str, int | None, str] | None = None

    def place(self) -> str:
        return f"{self.file} line {self.line}" if self.line else self.file


@dataclass
class Resume:
    """What a new child needs to go on where the last one died."""

    reports: list[dict[str, Any]] = field(default_factory=list)  # serialized, in order
    done: set[str] = field(default_factory=set)  # tests whose teardown was reported
    crashes: list[Crash] = field(default_factory=list)

    def broken_imports(self) -> dict[str, str]:
        """Kata module -> the one-line failure of its import, for the katas whose import
        crashed."""
        return {
            crash.kata: (f"line {crash.line} " if crash.line else "")
            + f"{crash.how} while importing"
            for crash in self.crashes
            if crash.nodeid is None
        }

    def stopped(self) -> dict[str, str]:
        """Kata module -> why its tests that did not run yet fail at once."""
        return {
            crash.kata: f"an earlier test of this kata {crash.how} ({crash.nodeid})"
            for crash in self.crashes
            if crash.nodeid is not None
        }


@dataclass
class Child:
    """The child's side: the pipe it reports on, and what an earlier child left."""

    fd: int
    resume: Resume
    dump: Path  # where faulthandler writes the stack of a fatal error

    def send(self, **event: Any) -> None:
        with contextlib.suppress(OSError):
            os.write(self.fd, (json.dumps(event) + "\n").encode())


def should_supervise(config: pytest.Config) -> bool:
    if not hasattr(os, "fork") or "torch" in sys.modules or CHILD in config.stash:
        return False
    if config.invocation_params.plugins or hasattr(config, "workerinput"):
        return False
    if os.environ.get("TORCH_KATAS_SUPERVISOR") == "0":
        return False
    return not any(getattr(config.option, name, None) for name in UNSUPERVISED_OPTIONS)


def supervise(config: pytest.Config) -> int | None:
    """Run the session in children until one finishes it; None in each child, which then
    runs the session itself; the exit status in this process."""
    resume = Resume()
    dump = Path(tempfile.mkstemp(prefix="torch-katas-crash-")[1])
    try:
        for _ in range(1 + len(catalog.load(config.rootpath)) * 2):
            read_fd, write_fd = os.pipe()
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                os.close(read_fd)
                _die_with_parent()
                # Line by line: what the child printed before a crash is not lost in a buffer.
                with contextlib.suppress(AttributeError, ValueError):
                    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
                config.stash[CHILD] = Child(write_fd, resume, dump)
                if resume.crashes:
                    config.option.no_header = True  # the first child's output shows it
                return None
            os.close(write_fd)
            finished, last = _follow(pid, read_fd, resume)
            status = _wait(pid)
            if finished is not None:
                return max(finished, 1) if resume.crashes else finished
            if status == pytest.ExitCode.USAGE_ERROR and not last and not resume.reports:
                return status  # the child's configure refused the options, and said why
            crash = _crash(config, last, status, dump)
            if crash is None:
                return int(pytest.ExitCode.INTERNAL_ERROR)
            resume.crashes.append(crash)
            doing = f"in {crash.nodeid.split('::', 1)[-1]}" if crash.nodeid else "while importing"
            print(
                f"\ntorch-katas: {crash.kata[:3]}: {crash.place()} {crash.how} {doing}; "
                "the other katas go on in a new process",
                flush=True,
            )
        return int(pytest.ExitCode.INTERNAL_ERROR)
    finally:
        with contextlib.suppress(OSError):
            dump.unlink()


def _die_with_parent() -> None:
    """On Linux, the child dies with the supervisor (killed by a time-out, say)."""
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _follow(pid: int, fd: int, resume: Resume) -> tuple[int | None, dict[str, Any]]:
    """Read the child's events until it closes the pipe: its exit status if it finished the
    session, and the last test or import it had started and not finished."""
    forwarded = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGHUP)}

    def forward(signum: int, frame: object) -> None:
        with contextlib.suppress(OSError):
            os.kill(pid, signum)

    for sig in forwarded:
        signal.signal(sig, forward)
    # Ctrl-C reaches the whole terminal's process group: the child stops its run and reports.
    interrupt = signal.signal(signal.SIGINT, signal.SIG_IGN)
    finished: int | None = None
    last: dict[str, Any] = {}
    buffer = b""
    try:
        with os.fdopen(fd, "rb") as pipe:
            for line in pipe:
                buffer = line
                if not line.endswith(b"\n"):
                    break  # cut off by the crash
                event = json.loads(line)
                if "report" in event:
                    resume.reports.append(event["report"])
                    if event["report"].get("when") == "teardown":
                        resume.done.add(event["report"]["nodeid"])
                        last = {}
                elif "start" in event or "import" in event:
                    last = event
                elif "imported" in event:
                    last = {}
                elif "finished" in event:
                    finished = int(event["finished"])
    finally:
        signal.signal(signal.SIGINT, interrupt)
        for sig, handler in forwarded.items():
            signal.signal(sig, handler)
    del buffer
    return finished, last


def _wait(pid: int) -> int:
    while True:
        try:
            _, status = os.waitpid(pid, 0)
        except InterruptedError:
            continue
        return os.waitstatus_to_exitcode(status)


def _how(status: int) -> str:
    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        return f"crashed the test process ({name})"
    return f"ended the test process (exit status {status}, as os._exit does)"


def _crash(config: pytest.Config, last: dict[str, Any], status: int, dump: Path) -> Crash | None:
    """The crash the child's last event points at, or None if it died outside kata code."""
    module = None
    if "import" in last:
        module = str(last["import"])
    elif "start" in last:
        module = catalog.module_of(Path(str(last["start"]).split("::")[0]))
    if module is None:
        sys.stderr.write(dump.read_text(errors="replace") if dump.exists() else "")
        print(f"torch-katas: code outside any kata {_how(status)}")
        return None
    crash = Crash(module, _how(status), *_where(config, module, dump))
    if "start" in last:
        crash.nodeid = str(last["start"])
        location = last.get("location")
        if isinstance(location, list) and len(location) == 3:
            crash.location = (str(location[0]), location[1], str(location[2]))
    return crash


def _where(config: pytest.Config, module: str, dump: Path) -> tuple[str, int | None]:
    """The answer's file, and its innermost line in faulthandler's dump (if there)."""
    from torch_katas.runtime import answers

    try:
        files = answers.answer_files(
            config.rootpath, config.getoption("solutions"), config.getoption("answer_file")
        )
    except ValueError:
        files = {}
    answer = files.get(module, config.rootpath / "katas" / f"{module}.py").resolve()
    try:
        shown = answer.relative_to(config.rootpath.resolve()).as_posix()
    except ValueError:
        shown = str(answer)
    try:
        text = dump.read_text(errors="replace")
    except OSError:
        text = ""
    for line in text.splitlines():
        found = FRAME.match(line)
        if found and Path(found["path"]).resolve() == answer:
            return shown, int(found["line"])
    return shown, None


class ChildReporter:
    """The child's plugin: tells the supervisor what it does, and replays an earlier child's
    reports so that this session's summary covers the whole run."""

    def __init__(self, config: pytest.Config, child: Child):
        self.config = config
        self.child = child
        self.exitstatus = 0

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        import faulthandler

        # After pytest's own faulthandler is set up: the stack of a fatal error goes to the
        # file the supervisor reads, which turns it into one line.
        self._dump = open(self.child.dump, "w")  # noqa: SIM115  # open until the process ends
        faulthandler.enable(self._dump, all_threads=False)

    def announce(self, module: str, done: bool) -> None:
        if done:
            self.child.send(imported=module)
        else:
            self.child.send(**{"import": module})

    def pytest_runtest_logstart(self, nodeid: str, location: tuple[str, int | None, str]) -> None:
        self.child.send(start=nodeid, location=list(location))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        data = self.config.hook.pytest_report_to_serializable(config=self.config, report=report)
        self.child.send(report=data)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        # What an earlier child finished is not run again; its reports are replayed.
        done = self.child.resume.done
        if done:
            selection = config.pluginmanager.get_plugin("torch-katas-selection")
            if selection is not None:
                selection.count([item for item in items if item.nodeid in done])
            items[:] = [item for item in items if item.nodeid not in done]

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, object, object]:
        # After the tests of this child: before them, pytest would take the failures
        # replayed for errors of its collection.
        result = yield
        self.replay()
        return result

    def replay(self) -> None:
        """Every report of the earlier children, and of the tests they crashed in, for this
        session's summary, progress and exit status; the terminal counts them without
        printing their letters again."""
        config, resume = self.config, self.child.resume
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        log = config.pluginmanager.subset_hook_caller(
            "pytest_runtest_logreport", remove_plugins=[reporter] if reporter else []
        )

        def replayed(report: pytest.TestReport) -> None:
            log(report=report)
            if reporter is not None:
                category = config.hook.pytest_report_teststatus(report=report, config=config)[0]
                reporter.stats.setdefault(category, []).append(report)

        for data in resume.reports:
            replayed(config.hook.pytest_report_from_serializable(config=config, data=data))
        katas = config.stash[RUN].katas
        for crash in resume.crashes:
            if crash.nodeid is None or crash.nodeid in resume.done or crash.kata not in katas:
                continue
            kata = katas[crash.kata]
            message = (
                f"{crash.place()} {crash.how} during this test; "
                "the other katas ran on in a new process"
            )
            shown = f"{kata.label} {kata.title}: {message}"
            location = crash.location or (crash.nodeid.split("::")[0], None, crash.nodeid)
            for when, outcome in (("call", "failed"), ("teardown", "passed")):
                crashed = pytest.TestReport(
                    nodeid=crash.nodeid,
                    location=location,
                    keywords={},
                    outcome=outcome,  # type: ignore[arg-type]
                    longrepr=shown if outcome == "failed" else None,
                    when=when,  # type: ignore[arg-type]
                    user_properties=[(CRASHED, crash.how), (MESSAGE, message)]
                    if outcome == "failed"
                    else [],
                )
                replayed(crashed)

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self.exitstatus = int(exitstatus)

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        self.child.send(finished=self.exitstatus)
