"""The pytest plugin behind the katas: options, the `device` fixture, markers, messages
for unimplemented stubs, hints, state isolation and the progress summary."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy
import pytest
import torch

from torch_katas import answers, catalog, devices, progress

# Topic markers come from katas.toml; these are the plugin's own.
MARKERS = {
    "cuda": "the test needs CUDA; it runs only on CUDA devices and is skipped without one",
    "slow": "the test takes seconds (inductor compiles, exports); deselect with -m 'not slow'",
    "not_on_sim": "not_on_sim(reason): the test needs what the simulated device cannot give "
    "(a CUDA-only API, torch.export); it skips on sim with the reason",
}
NOT_IMPLEMENTED = "torch_katas_not_implemented"


@dataclass
class KataRun:
    """What the plugin knows about this run; kept in the pytest config's stash."""

    root: Path
    katas: dict[str, catalog.Kata]
    devices: list[str]
    answers: str
    learner: bool  # the learner's own stubs are under test (no --solutions, no --answer-file)
    undo_imports: Callable[[], None] = lambda: None
    threads: int = 1  # torch's thread count before the run, restored after it
    results: dict[str, progress.Tally] = field(default_factory=dict)


RUN = pytest.StashKey[KataRun]()


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
    run = KataRun(root=root, katas=katas, devices=chosen, answers=source, learner=not files)
    run.undo_imports = answers.install(files)
    config.stash[RUN] = run
    config.pluginmanager.register(ProgressRecorder(config), "torch-katas-progress")
    skip_dtensor_checks()
    # Kata tensors are small: extra threads only add start-up and contention, and xdist
    # workers, each a process of its own, would oversubscribe the cores.
    run.threads = torch.get_num_threads()
    torch.set_num_threads(1)


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
    run = item.config.stash[RUN]
    module = catalog.module_of(item.path)
    if module is None or item.path.parent != run.root / "katas":
        return None
    return run.katas.get(module)


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
def _isolate_torch_state(request: pytest.FixtureRequest):
    """Start each test from the same torch state and undo whatever it changes.

    Seeding every test makes random inputs, and so any statistical check, the same
    whatever ran before it.
    """
    dtype = torch.get_default_dtype()
    grad = torch.is_grad_enabled()
    deterministic = (
        torch.are_deterministic_algorithms_enabled(),
        torch.is_deterministic_algorithms_warn_only_enabled(),
    )
    cudnn = (torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark)
    matmul_precision = torch.get_float32_matmul_precision()
    python_rng = random.getstate()
    numpy_rng = numpy.random.get_state()
    with contextlib.ExitStack() as rng_states:
        # The CPU's generator always; each device kind's own generators where it has some.
        rng_states.enter_context(torch.random.fork_rng(devices=[], device_type="cpu"))
        for kind, indices in devices.rng_devices().items():
            rng_states.enter_context(torch.random.fork_rng(devices=indices, device_type=kind))
        torch.manual_seed(0)
        random.seed(0)
        numpy.random.seed(0)
        try:
            yield
        finally:
            torch.set_default_dtype(dtype)
            torch.set_grad_enabled(grad)
            # Only when changed: setting it imports torch._inductor, which takes seconds.
            now = (
                torch.are_deterministic_algorithms_enabled(),
                torch.is_deterministic_algorithms_warn_only_enabled(),
            )
            if now != deterministic:
                torch.use_deterministic_algorithms(deterministic[0], warn_only=deterministic[1])
            torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = cudnn
            torch.set_float32_matmul_precision(matmul_precision)
            random.setstate(python_rng)
            numpy.random.set_state(numpy_rng)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    kata = kata_of(item)
    if kata is None or not report.failed or call.excinfo is None:
        return report
    run = item.config.stash[RUN]
    hints = progress.format_hints(kata) if item.config.getoption("hints") else ""
    function = unimplemented_function(call.excinfo, kata.stub_path(run.root))
    if function is not None:
        report.longrepr = (
            f"{kata.label} {kata.title}: {function}() is not implemented yet; "
            f"open katas/{kata.module}.py and replace its NotImplementedError" + hints
        )
        report.user_properties.append((NOT_IMPLEMENTED, function))
    elif hints:
        report.sections.append((f"hints for {kata.label}", hints.strip()))
    return report


def unimplemented_function(excinfo: pytest.ExceptionInfo, stub: Path) -> str | None:
    """The stub function that raised NotImplementedError, or None if it was not a stub."""
    if not excinfo.errisinstance(NotImplementedError):
        return None
    for entry in reversed(excinfo.traceback):
        if Path(entry.path) == stub:
            code = entry.frame.code.raw
            return getattr(code, "co_qualname", code.co_name)
    return None


class ProgressRecorder:
    """Collects each kata test's outcome for the summary; on the xdist controller it sees
    the reports of every worker."""

    def __init__(self, config: pytest.Config):
        self.config = config
        self.run = config.stash[RUN]

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        path = Path(report.nodeid.split("::")[0])
        module = catalog.module_of(path)
        if path.parent != Path("katas") or module not in self.run.katas:
            return
        tally = self.run.results.setdefault(module, progress.Tally())
        tally.add(report, any(name == NOT_IMPLEMENTED for name, _ in report.user_properties))

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if not self.run.results:
            return
        statuses = {module: tally.status for module, tally in self.run.results.items()}
        # Only the learner's own answers count as progress; --solutions runs leave it alone.
        remembered = progress.remember(self.config, statuses, learner=self.run.learner)
        progress.write_summary(terminalreporter, self.run.katas, self.run.results, remembered)
