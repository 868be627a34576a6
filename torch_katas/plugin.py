"""The pytest plugin behind the katas: options, the `device` fixture, markers, messages
for unimplemented stubs, hints, state isolation and the progress summary."""

from __future__ import annotations

import atexit
import gc
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import torch

from torch_katas import answers, catalog, devices, isolation, progress
from torch_katas.answers import Imports
from torch_katas.progress import AFTER_TIMEOUT, DOES_NOT_IMPORT, NOT_IMPLEMENTED, TIMED_OUT

# Topic markers come from katas.toml; these are the plugin's own.
MARKERS = {
    "cuda": "the test needs CUDA; it runs only on CUDA devices and is skipped without one",
    "slow": "the test takes seconds (inductor compiles, exports); deselect with -m 'not slow'",
    "not_on_sim": "not_on_sim(reason): the test needs what the simulated device cannot give "
    "(a CUDA-only API, torch.export); it skips on sim with the reason",
}


@dataclass
class KataRun:
    """What the plugin knows about this run; kept in the pytest config's stash."""

    root: Path
    katas: dict[str, catalog.Kata]
    devices: list[str]
    answers: str
    learner: bool  # the learner's own stubs are under test (no --solutions, no --answer-file)
    imports: Imports
    undo_imports: Callable[[], None] = lambda: None
    threads: int = 1  # torch's thread count before the run, restored after it
    gc_threshold: tuple[int, ...] = ()  # the cycle collector's thresholds, restored after it
    random_state: isolation.RandomState | None = None  # restored after the run
    timed_out: dict[str, str] = field(default_factory=dict)  # kata -> its test that timed out
    # Katas whose "not implemented yet" letter the progress line has shown already.
    shown_unwritten: set[str] = field(default_factory=set)
    kata_of_file: dict[Path, catalog.Kata | None] = field(default_factory=dict)

    def answer_path(self, kata: catalog.Kata) -> Path:
        """The file this run imports for `kata`."""
        return self.imports.files.get(kata.module, kata.stub_path(self.root))


# Python's last garbage collections at exit walk every object torch and the run have made,
# for a second or two; the process is ending, so they are skipped. (Objects are still freed;
# only reference cycles are left to the operating system.) Handlers registered later, such as
# torch's worker pools', run before this one.
atexit.register(gc.freeze)

RUN = pytest.StashKey[KataRun]()
TIME_LIMIT = pytest.StashKey[isolation.TimeLimit]()
STOPPED_EARLY = pytest.StashKey[str]()  # on a test not run because an earlier one timed out


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("torch-katas")
    group.addoption(
        "--solutions",
        action="store_true",
        help="test the reference answers in solutions/ instead of your stubs in katas/",
    )
    group.addoption(
        "--answer-file",
        action="append",
        default=[],
        metavar="PATH",
        help="test PATH (named like q06_autograd.py) in place of that kata's stub; repeatable",
    )
    group.addoption(
        "--device",
        metavar="LIST",
        help=f"devices to run on, comma-separated ({', '.join(devices.KINDS)}, cuda:N); "
        "default: cpu and every accelerator present, else cpu and sim (simulated)",
    )
    group.addoption(
        "--hints",
        action="store_true",
        help="show the kata's hints under each failing test",
    )


def pytest_configure(config: pytest.Config) -> None:
    for name, text in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {text}")
    root = config.rootpath
    katas = catalog.load(root) if (root / catalog.CATALOG).is_file() else {}
    for topic in sorted({kata.topic for kata in katas.values()}):
        config.addinivalue_line("markers", f"{topic}: katas on {topic.replace('_', ' ')}")
    for arg in config.args:
        stub = katas.get(Path(arg.split("::")[0]).stem)
        if stub is not None and arg.endswith(".py"):
            raise pytest.UsageError(
                f"{arg} is the stub of kata {stub.number}, not its tests: run "
                f"pytest katas/{stub.module}_test.py (or katas run {stub.number})"
            )
    try:
        chosen = devices.parse(config.getoption("device"))
        files = answers.answer_files(
            root, config.getoption("solutions"), config.getoption("answer_file")
        )
    except ValueError as error:
        raise pytest.UsageError(str(error)) from None
    if config.getoption("solutions"):
        source = "reference answers (solutions/)"
    elif files:
        source = "answer files: " + ", ".join(str(path) for path in files.values())
    else:
        source = "your answers (katas/)"
    devices.set_up(chosen)
    imports = Imports(root, files, time_limit=time_limit(config))
    run = KataRun(
        root=root, katas=katas, devices=chosen, answers=source, learner=not files, imports=imports
    )
    run.undo_imports = answers.install(imports, set(katas))
    config.stash[RUN] = run
    selection = Selection(config)
    config.pluginmanager.register(selection, "torch-katas-selection")
    # On xdist workers the reports go to the controller, which keeps the progress.
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(ProgressRecorder(config, selection), "torch-katas-progress")
    skip_dtensor_checks()
    # Kata tensors are small: extra threads only add start-up and contention, and xdist
    # workers, each a process of its own, would oversubscribe the cores.
    run.threads = torch.get_num_threads()
    torch.set_num_threads(1)
    run.random_state = isolation.RandomState()
    # A full collection walks every object torch has made, millions once torch.compile and
    # torch.export have been imported, and took a tenth of the run: make them rarer.
    run.gc_threshold = gc.get_threshold()
    young, middle, full = run.gc_threshold
    gc.set_threshold(young, middle, full * 10)


def time_limit(config: pytest.Config) -> float:
    """pytest-timeout's limit per test (0: none), which also bounds each kata's import."""
    plugin = config.pluginmanager.getplugin("timeout")
    if plugin is None:
        return 0
    return plugin.get_env_settings(config).timeout or 0


def skip_dtensor_checks() -> None:
    """Spare every run two seconds that no kata needs.

    In recent torch releases the first torch.testing.assert_close imports torch.distributed.tensor
    (and with it sympy) to handle DTensor inputs: about as long as `import torch` itself.
    No kata compares DTensors, so the suite turns that branch off.
    """
    from torch.testing import _comparison

    if hasattr(_comparison, "_HAS_DTENSOR"):
        _comparison._HAS_DTENSOR = False


def pytest_unconfigure(config: pytest.Config) -> None:
    run = config.stash.get(RUN, None)
    if run is not None:
        run.undo_imports()
        torch.set_num_threads(run.threads)
        gc.set_threshold(*run.gc_threshold)
        if run.random_state is not None:
            run.random_state.restore()


def pytest_report_header(config: pytest.Config) -> list[str]:
    run = config.stash[RUN]
    missing = [devices.describe_missing(kind) for kind in devices.missing()]
    lines = [
        f"torch-katas: testing {run.answers}",
        f"torch-katas: devices {', '.join(devices.describe(name) for name in run.devices)}"
        + (f" (not found: {', '.join(missing)})" if missing else ""),
    ]
    return lines


def kata_of(item: pytest.Item) -> catalog.Kata | None:
    # Asked several times for every test: worked out once per test file.
    run = item.config.stash[RUN]
    if item.path not in run.kata_of_file:
        module = catalog.module_of(item.path)
        in_katas = module is not None and item.path.parent == run.root / "katas"
        run.kata_of_file[item.path] = run.katas.get(module) if module and in_katas else None
    return run.kata_of_file[item.path]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "device" not in metafunc.fixturenames:
        return
    chosen: list = metafunc.config.stash[RUN].devices
    if metafunc.definition.get_closest_marker("cuda"):
        cuda = [name for name in chosen if name.startswith("cuda")]
        if not cuda:
            reason = "needs CUDA: " + (
                "not selected by --device" if devices.available("cuda") else "none found"
            )
            metafunc.parametrize(
                "device",
                [pytest.param("cuda", marks=pytest.mark.skip(reason=reason))],
                indirect=True,
            )
            return
        chosen = cuda
    not_on_sim = metafunc.definition.get_closest_marker("not_on_sim")
    if not_on_sim:
        reason = "not on the simulated device: " + " ".join(map(str, not_on_sim.args))
        chosen = [
            pytest.param(name, marks=pytest.mark.skip(reason=reason))
            if devices.kind_of(name) == "sim"
            else name
            for name in chosen
        ]
    metafunc.parametrize("device", chosen, indirect=True)


def pytest_make_parametrize_id(config: pytest.Config, val: object, argname: str) -> str | None:
    """Readable test ids for dtypes and devices: `[float32]`, `[cuda:0]`, not `[dtype0]`."""
    if isinstance(val, torch.dtype):
        return str(val).removeprefix("torch.")
    if isinstance(val, torch.device):
        return str(val)
    return None


@pytest.fixture
def device(request: pytest.FixtureRequest) -> torch.device:
    """The device this test runs on: each kata test runs once per selected device."""
    return torch.device(request.param)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        kata = kata_of(item)
        if kata is not None:
            item.add_marker(kata.topic)
        if item.get_closest_marker("cuda") and not devices.available("cuda"):
            item.add_marker(pytest.mark.skip(reason="needs CUDA: none found"))


@pytest.fixture(autouse=True)
def _isolate_torch_state():
    """Start each test from the same torch state and undo whatever it changes.

    Every random generator is seeded with 0 before each test, so random inputs, and so any
    statistical check, are the same whatever ran before it, and again after it; the run
    puts back their state from before it when it ends.
    """
    # The same guard as each kata module's import: settings and replaced torch functions.
    state = isolation.GlobalState()
    isolation.seed_everything()
    try:
        yield
    finally:
        state.restore()
        isolation.seed_everything()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    """Once a test of a kata has timed out, fail its other tests at once instead of
    letting each wait for its own time limit."""
    kata = kata_of(item)
    run = item.config.stash[RUN]
    if kata is not None and kata.module in run.timed_out:
        item.stash[STOPPED_EARLY] = run.timed_out[kata.module]
        pytest.fail(
            f"not run, because an earlier test of this kata timed out "
            f"({run.timed_out[kata.module]}); fix that one and run again",
            pytrace=False,
        )


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_timeout_set_timer(item: pytest.Item, settings) -> bool | None:
    """pytest-timeout's signal method, plus a note of where the time ran out.

    A long C++ operation delays the signal until it returns, and by then the learner's line
    that started it may have returned too; the note keeps it for the failure message.
    """
    if settings.method != "signal" or not hasattr(signal, "SIGALRM"):
        return None  # the thread method ends the run on a timeout; nothing to add
    if threading.current_thread() is not threading.main_thread():
        return None
    import pytest_timeout  # type: ignore[import-untyped]

    def expire() -> None:
        __tracebackhide__ = True
        if settings.disable_debugger_detection or not pytest_timeout.is_debugging():
            pytest.fail(pytest_timeout.PYTEST_FAILURE_MESSAGE % settings.timeout)

    limit = isolation.TimeLimit(settings.timeout, expire)
    item.stash[TIME_LIMIT] = limit.__enter__()
    item.cancel_timeout = lambda: limit.__exit__(None, None, None)  # type: ignore[attr-defined]
    return True


def _no_traceback(excinfo: pytest.ExceptionInfo, style: object = None) -> str:
    return ""


UNWRITTEN = pytest.StashKey[str]()  # on a test an unwritten stub stopped: the function's name


@pytest.hookimpl(tryfirst=True, specname="pytest_runtest_makereport")
def pytest_runtest_makereport_unwritten(
    item: pytest.Item, call: pytest.CallInfo
) -> pytest.TestReport | None:
    """The report of a test an unwritten stub stopped, without pytest's formatted traceback.

    explain_failure replaces it with one line anyway, and formatting thousands of them took
    most of the time of a run on the untouched stubs.
    """
    if call.when != "call" or call.excinfo is None or (kata := kata_of(item)) is None:
        return None
    function = unimplemented_function(call.excinfo, kata.stub_path(item.config.stash[RUN].root))
    if function is None:
        return None
    item.stash[UNWRITTEN] = function
    item.repr_failure = _no_traceback  # type: ignore[method-assign]
    try:
        return pytest.TestReport.from_item_and_call(item, call)
    finally:
        del item.repr_failure


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    if call.excinfo is None:
        return report
    kata = kata_of(item)
    if kata is None:
        return report
    run = item.config.stash[RUN]
    if report.skipped:
        skipped_by_answer(report, call.excinfo, kata, run)
    if report.failed:
        explain_failure(item, report, call.excinfo, kata, run)
    return report


def skipped_by_answer(
    report: pytest.TestReport, excinfo: pytest.ExceptionInfo, kata: catalog.Kata, run: KataRun
) -> None:
    """A skip (or xfail) raised by the answer under test is its failure, not a skip.

    Only the harness may skip a kata test (a device or dtype the machine lacks); an answer
    that skips the cases it cannot handle must not look as if it handled them.
    """
    if not excinfo.errisinstance((pytest.skip.Exception, pytest.xfail.Exception)):
        return  # an xfail marker turned a failure into this skip: not the answer's doing
    answer = run.answer_path(kata)
    entry = last_entry_in(excinfo, answer)
    if entry is None:
        return
    if hasattr(report, "wasxfail"):
        del report.wasxfail
    reason = str(excinfo.value) or type(excinfo.value).__name__
    report.outcome = "failed"
    report.longrepr = (
        f"{kata.label} {kata.title}: {run.imports.shown(answer)} line {entry.lineno + 1} "
        f"skipped this test ({reason}); an answer must not skip its kata's tests, "
        "so this counts as a failure"
    )


def explain_failure(
    item: pytest.Item,
    report: pytest.TestReport,
    excinfo: pytest.ExceptionInfo,
    kata: catalog.Kata,
    run: KataRun,
) -> None:
    """Replace the traceback with one line where one line says it all."""
    prefix = f"{kata.label} {kata.title}: "
    if excinfo.errisinstance(answers.StubUnavailable):
        report.longrepr = prefix + str(excinfo.value)
        report.user_properties.append((DOES_NOT_IMPORT, str(excinfo.value)))
    elif STOPPED_EARLY in item.stash:
        report.longrepr = prefix + str(excinfo.value)
        report.user_properties.append((AFTER_TIMEOUT, item.stash[STOPPED_EARLY]))
    elif is_timeout(excinfo):
        run.timed_out.setdefault(kata.module, item.nodeid)
        where = timeout_location(item, run.answer_path(kata), run)
        if where is not None:
            report.longrepr = prefix + where
        report.user_properties.append((TIMED_OUT, where or str(excinfo.value)))
    elif (function := item.stash.get(UNWRITTEN, None)) is not None:
        report.longrepr = (
            prefix + f"{function}() is not implemented yet; "
            f"open katas/{kata.module}.py and replace its NotImplementedError"
        )
        report.user_properties.append((NOT_IMPLEMENTED, function))


def is_timeout(excinfo: pytest.ExceptionInfo) -> bool:
    return excinfo.errisinstance(pytest.fail.Exception) and str(excinfo.value).startswith(
        "Timeout (>"
    )


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


def last_entry_in(excinfo: pytest.ExceptionInfo, path: Path):
    """The innermost traceback entry in `path`, or None."""
    for entry in reversed(excinfo.traceback):
        if Path(entry.path) == path:
            return entry
    return None


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config):
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


def unimplemented_function(excinfo: pytest.ExceptionInfo, stub: Path) -> str | None:
    """The stub function that raised NotImplementedError, or None if it was not a stub.

    Only a `raise` in the stub counts: torch raises NotImplementedError too ("not
    implemented for 'ComplexFloat'"), and that is a mistake in written code, not a stub.
    """
    if not excinfo.errisinstance(NotImplementedError):
        return None
    entry = excinfo.traceback[-1]
    if Path(entry.path) != stub or not str(entry.statement).lstrip().startswith("raise"):
        return None
    code = entry.frame.code.raw
    return getattr(code, "co_qualname", code.co_name)


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
        for item in items:
            if kata := kata_of(item):
                self.deselected.setdefault(kata.module, set()).add(item.nodeid)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        whole = whole_paths(self.config)
        # --lf leaves out the tests that passed last time while collecting, unannounced.
        last_failed = bool(self.config.getoption("lf", False))
        for item in session.items:
            kata = kata_of(item)
            if kata is None:
                continue
            self.selected.setdefault(kata.module, set()).add(item.nodeid)
            path = item.path.resolve()
            if last_failed or not any(root == path or root in path.parents for root in whole):
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
        self.results: dict[str, progress.KataResult] = {}
        self.tests: dict[str, set[str] | None] = {}
        self.selected: dict[str, set[str]] = {}
        self.changes: dict[str, list[str]] = {}
        self.digests: dict[str, str | None] = {}
        self.summary: progress.Summary | None = None
        self.kata_of_file: dict[str, str | None] = {}  # test file (as in node ids) -> kata

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        # Taken before any test runs: an edit during the run gives a new digest next time,
        # so passes of the old stub are never credited to the new one.
        self.digests = {
            kata.module: progress.digest(
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
            self.results.setdefault(module, progress.KataResult()).add(report)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error) -> None:
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
        remembered = progress.remember(
            self.config,
            self.results,
            self.tests,
            self.selected,
            self.digests,
            learner=self.run.learner,
            interrupted=interrupted,
        )
        failing = [
            kata
            for module, kata in self.run.katas.items()
            if module in self.results and self.results[module].failed
        ]
        hints = progress.take_hints(self.config, failing) if self.config.getoption("hints") else {}
        files = self.run.imports
        self.summary = progress.Summary(
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
            damaged=remembered.damaged,
            interrupted=interrupted,
        )

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_terminal_summary(self, terminalreporter):
        """Show the failures worth reading, then the progress summary."""
        stats = terminalreporter.stats
        failed = stats.get("failed")
        if failed:
            stats["failed"] = self.failures_to_show(failed)
        try:
            result = yield
        finally:
            if failed:
                stats["failed"] = failed
        if self.summary is not None:
            progress.write_summary(terminalreporter, self.summary)
        return result

    def failures_to_show(self, reports: list) -> list:
        """Kata failures first failing kata first, without the ones the summary sums up.

        "Not implemented yet" failures become the summary's list of functions to write,
        a stub that does not import is shown once, and tests stopped after a timeout not
        at all.
        """
        others, shown, broken = [], [], set()
        for report in reports:
            properties = dict(getattr(report, "user_properties", ()))
            module = self.kata_module(report.nodeid)
            if module is None:
                others.append(report)
            elif NOT_IMPLEMENTED in properties or AFTER_TIMEOUT in properties:
                continue
            elif DOES_NOT_IMPORT not in properties or module not in broken:
                broken.update([module] if DOES_NOT_IMPORT in properties else [])
                shown.append((self.run.katas[module].number, report))
        shown.sort(key=lambda pair: pair[0])
        return others + [report for _, report in shown]

    def kata_module(self, nodeid: str) -> str | None:
        """The kata a test belongs to (by its node id), or None for other tests."""
        file = nodeid.split("::")[0]
        if file not in self.kata_of_file:
            path = Path(file)
            module = catalog.module_of(path)
            in_katas = path.parent == Path("katas") and module in self.run.katas
            self.kata_of_file[file] = module if in_katas else None
        return self.kata_of_file[file]
