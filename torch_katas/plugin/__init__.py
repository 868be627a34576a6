"""The pytest plugin behind the katas: its hooks, each handing over to the module of its concern.

- run.py: what the plugin knows about the run (the stash); session.py: starting a run
  (devices, answers, process settings); params.py: markers and the device parametrisation;
- messages.py: one-line failures (unwritten stubs, imports, time-outs), skips by the answer;
- summary.py: which tests ran, the learner's progress and the summary at the end.

This file imports no torch: the modules that need it are imported when the run is configured.
"""

from __future__ import annotations

import random
import tempfile
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from torch_katas import catalog
from torch_katas.plugin import messages
from torch_katas.plugin.run import RUN
from torch_katas.plugin.summary import ProgressRecorder, Selection

__all__ = [
    "device",
    "pytest_addoption",
    "pytest_cmdline_main",
    "pytest_collection_modifyitems",
    "pytest_configure",
    "pytest_generate_tests",
    "pytest_make_parametrize_id",
    "pytest_report_header",
    "pytest_report_header_quiet",
    "pytest_report_teststatus",
    "pytest_runtest_call",
    "pytest_runtest_makereport",
    "pytest_runtest_makereport_briefly",
    "pytest_runtest_setup",
    "pytest_runtest_teardown",
    "pytest_sessionstart",
    "pytest_timeout_cancel_timer",
    "pytest_timeout_set_timer",
    "pytest_unconfigure",
]


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
    device_help = (
        "devices to run on, comma-separated (cpu, cuda, mps, sim, cuda:N); "
        "default: cpu and every accelerator present, else cpu and sim (simulated)"
    )
    group.addoption("--device", metavar="LIST", help=device_help + "; overrides the ini setting")
    parser.addini("device", device_help + "; --device overrides it", type="string", default="")
    group.addoption(
        "--hints",
        action="store_true",
        help="show the kata's hints under each failing test",
    )
    group.addoption(
        "--katas-seed",
        type=int,
        default=0,
        metavar="N",
        help="seed every random generator with N before each test (default 0), and, where N "
        "is not 0, run each file's tests in an order drawn at random (not from N, which the "
        "code under test can read back); grading runs the tests again with another N, so that "
        "their random inputs and their order are held out",
    )
    group.addoption(
        "--digest-height",
        type=int,
        metavar="N",
        help="fit the digest of failures in N lines, first failures first (katas watch)",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> int | None:
    """Run the session in a supervised child process where that can be (supervisor.py)."""
    from torch_katas.plugin import supervisor

    return supervisor.supervise(config) if supervisor.should_supervise(config) else None


OUTER_SEED = pytest.StashKey[int]()
ORDER = pytest.StashKey[int]()
ORDER_SEED = "torch_katas_order_seed"  # the key in an xdist worker's workerinput


def pytest_configure(config: pytest.Config) -> None:
    from torch_katas.plugin import params, session, supervisor
    from torch_katas.runtime import isolation

    root = config.rootpath
    try:
        katas = catalog.load(root) if (root / catalog.CATALOG).is_file() else {}
    except catalog.CatalogError as error:
        raise pytest.UsageError(str(error)) from None
    params.register_markers(config, katas)
    refuse_stub_arguments(config, katas)
    # The system's temp folder, fixed for the run (as pytest's tmp_path fixes it where no
    # --basetemp is given, and grading gives one): a test that points TMPDIR at a folder it
    # watches must not move where torch puts what it makes on first use (Dynamo's cache
    # folder, made when the first optimizer is built), whichever test that is.
    tempfile.gettempdir()
    # Put back when the run ends: a run nested in another (a self-check's) keeps its own.
    config.stash[OUTER_SEED] = isolation.set_run_seed(config.getoption("katas_seed", 0))
    run = config.stash[RUN] = session.start(config, katas, messages.time_limit(config))
    child = config.stash.get(supervisor.CHILD, None)
    if child is not None:
        reporter = supervisor.ChildReporter(config, child)
        config.pluginmanager.register(reporter, "torch-katas-child")
        run.imports.announce = reporter.announce
        run.imports.broken.update(child.resume.broken_imports())
        run.stopped.update(child.resume.stopped())
    selection = Selection(config)
    config.pluginmanager.register(selection, "torch-katas-selection")
    # On xdist workers the reports go to the controller, which keeps the progress.
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(ProgressRecorder(config, selection), "torch-katas-progress")


def pytest_sessionstart(session: pytest.Session) -> None:
    from torch_katas.plugin import session as kata_session

    if RUN in session.config.stash:
        kata_session.skip_the_last_collection(session.config)


def refuse_stub_arguments(config: pytest.Config, katas: dict[str, catalog.Kata]) -> None:
    """`pytest katas/q06_gradients.py` names the stub, which holds no tests: say what to run."""
    for arg in config.args:
        stub = katas.get(Path(arg.split("::")[0]).stem)
        if stub is not None and arg.endswith(".py"):
            raise pytest.UsageError(
                f"{arg} is the stub of kata {stub.number}, not its tests: run "
                f"pytest katas/{stub.module}_test.py (or katas run {stub.number})"
            )


def pytest_unconfigure(config: pytest.Config) -> None:
    run = config.stash.get(RUN, None)
    if run is not None:
        run.finish()
    if OUTER_SEED in config.stash:
        from torch_katas.runtime import isolation

        isolation.set_run_seed(config.stash[OUTER_SEED])


def pytest_report_header(config: pytest.Config) -> list[str]:
    from torch_katas import devices

    run = config.stash[RUN]
    verbose = config.get_verbosity() > 0
    missing = [devices.describe_missing(kind) for kind in devices.missing()]
    chosen = [devices.describe(name, short=not verbose) for name in run.devices]
    return [
        f"torch-katas: testing {run.answers}",
        f"torch-katas: devices {', '.join(chosen)}"
        + (f"; not found: {', '.join(missing)}" if missing else ""),
    ]


# Other plugins' lines in the report header, shown with -v only.
QUIET_HEADER = ("plugins:", "timeout:", "timeout method:", "timeout func_only:")


@pytest.hookimpl(wrapper=True, specname="pytest_report_header")
def pytest_report_header_quiet(
    config: pytest.Config,
) -> Generator[None, list[object], list[object]]:
    found = yield
    if config.get_verbosity() > 0:
        return found
    kept: list[object] = []
    for lines in found:
        lines = [lines] if isinstance(lines, str) else list(lines)  # type: ignore[call-overload]
        kept.append([line for line in lines if not str(line).startswith(QUIET_HEADER)])
    return kept


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    from torch_katas.plugin import params

    params.parametrize(metafunc)


def pytest_make_parametrize_id(config: pytest.Config, val: object, argname: str) -> str | None:
    from torch_katas.plugin import params

    return params.parameter_id(val)


@pytest.fixture
def device(request: pytest.FixtureRequest) -> Any:
    """The device this test runs on: each kata test runs once per selected device."""
    import torch

    return torch.device(request.param)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    from torch_katas.plugin import params

    params.mark_items(config, items)
    if config.getoption("katas_seed", 0):
        shuffled(items, random.Random(order_seed(config)))


def order_seed(config: pytest.Config) -> int:
    """What the tests' order is drawn from: not from the seed, which the answer reads back
    (torch.initial_seed()), but drawn once per run, and handed to xdist's workers, which must
    all collect the same order."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and ORDER_SEED in workerinput:
        return int(workerinput[ORDER_SEED])
    if ORDER not in config.stash:
        config.stash[ORDER] = random.SystemRandom().randrange(2**63)
    return config.stash[ORDER]


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist, on the controller: each worker shuffles with the controller's order seed."""
    node.workerinput[ORDER_SEED] = order_seed(node.config)


def shuffled(items: list[pytest.Item], rng: random.Random) -> None:
    """Each test file's tests in an order drawn by `rng`, the files as they were: under a seed
    of its own (grading's held-out run) an answer that counts its calls, or keeps anything
    from one test to the next, cannot tell which test calls it."""
    files: dict[Path, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(item.path, []).append(item)
    for tests in files.values():
        rng.shuffle(tests)
    items[:] = [item for tests in files.values() for item in tests]


def pytest_report_collectionfinish(config: pytest.Config) -> list[str]:
    from torch_katas.plugin import params

    return params.thinned_line(config)


# Each test starts from the same torch state, and whatever it changes is undone: hooks
# around setup and teardown rather than an autouse fixture, which costs every test pytest's
# fixture machinery. Every random generator is seeded with 0 before each test (before any
# fixture), so random inputs, and so any statistical check, are the same whatever ran
# before it, and again after it (after every fixture's teardown); the run puts back their
# state from before it when it ends. What was put back is noted on the test's teardown
# report (status.RESTORED). A thread the answer left running is stopped, and fails the test:
# it could change that state during another kata's tests.


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    from torch_katas.runtime import isolation

    # The same guard as each kata module's import: settings and replaced torch functions.
    run = item.config.stash[RUN]
    run.guard = run.guard or isolation.GlobalState()
    isolation.seed_everything(item.config.getoption("katas_seed", 0))


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_teardown(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, None, None]:
    from torch_katas.runtime import isolation

    try:
        yield
    finally:  # after every fixture's teardown, even one that failed
        guard = item.config.stash[RUN].guard
        # Every name is compared after a test file's last test; the modules written to,
        # after each test.
        last_of_file = nextitem is None or nextitem.path != item.path
        changed = guard.restore(everything=last_of_file) if guard is not None else []
        isolation.seed_everything(item.config.getoption("katas_seed", 0))
        if changed:
            item.stash[messages.RESTORED_BY_GUARD] = changed
        messages.stop_threads_left_running(item)
        messages.fail_on_state_left_changed(item, changed)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    messages.stop_early(item)


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_timeout_set_timer(item: pytest.Item, settings: Any) -> bool | None:
    return messages.set_timer(item, settings)


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_timeout_cancel_timer(item: pytest.Item) -> bool | None:
    return messages.cancel_timer(item)


@pytest.hookimpl(tryfirst=True, specname="pytest_runtest_makereport")
def pytest_runtest_makereport_briefly(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> pytest.TestReport | None:
    return messages.report_briefly(item, call)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    # pytest's unittest plugin turns a unittest.SkipTest into a skip of its own, raised from
    # its own code: keep the exception as raised, to tell who skipped.
    raised = call.excinfo
    report = yield
    messages.explain(item, report, call.when, raised)
    return report


def pytest_report_teststatus(
    report: pytest.TestReport, config: pytest.Config
) -> tuple[str, str, str] | None:
    return messages.test_status(report, config)
