"""The grading child: runs one kata's tests and writes what happened for the grader.

`katas grade` starts this module in a process of its own for each kata (see grading.py):

    python -S -c "from torch_katas.grading.child import main; main()" RESULTS KATA -- ARGS

It reads a token and the paths it may not read from stdin, watches what the tests rely on,
runs pytest with ARGS and a plugin that records each test's outcome, writes RESULTS (JSON of
the schema in schema.py, with the token) and leaves with os._exit, so no exit handler the
candidate registered runs after it.

None of this can stop code in the same process from undoing it; it makes tampering visible
(the kata is flagged) instead of silent. The sandbox, not this module, protects the machine.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys
import sysconfig
import types
from pathlib import Path
from typing import Any

from torch_katas import status
from torch_katas.grading.schema import VERSION, ChildResults, TestRecord

__all__ = [
    "main",
]

# What kata tests and pytest's reporting rely on: replacing any of these (or a function's code)
# once the candidate's module may have run is tampering. Modules are watched whole.
WATCHED_MODULES = (
    "builtins",
    "pytest",
    "_pytest.reports",
    "_pytest.runner",
    "_pytest.outcomes",
    "_pytest.raises",
    "_pytest.python_api",
    "pluggy._callers",
    "pluggy._hooks",
    "pluggy._manager",
    "torch.testing",
    "torch.testing._comparison",
    "torch.autograd.gradcheck",
    "torch.overrides",
    "torch_katas.testing",
    "torch_katas.plugin",
    "torch_katas.plugin.messages",
    "torch_katas.plugin.summary",
    "torch_katas.status",
    "torch_katas.runtime.answers",
    "torch_katas.devices",
    "torch_katas.grading.child",
)
WATCHED_NAMES = {
    "torch": ("equal", "allclose", "isclose", "all", "any", "testing", "autograd"),
    "torch.autograd": ("gradcheck", "gradgradcheck", "grad", "backward"),
}
WATCHED_CLASSES = (
    ("_pytest.reports", "BaseReport"),
    ("_pytest.reports", "TestReport"),
    ("_pytest.reports", "CollectReport"),
    ("_pytest.runner", "CallInfo"),
    ("_pytest.python", "Function"),
    ("pluggy._hooks", "HookCaller"),
    ("pluggy._hooks", "HookImpl"),
    ("pluggy._manager", "PluginManager"),
    ("torch.overrides", "TorchFunctionMode"),
    ("torch_katas.testing", "_ForbidOps"),
    ("torch", "Tensor"),
)
FAILURE_LINE = 300  # characters of a failure message kept for the report


def first_line(report: Any) -> str:
    """The line that says what went wrong: the exception, not the traceback around it."""
    crash = getattr(report.longrepr, "reprcrash", None)
    text = getattr(crash, "message", None) or str(report.longrepr or "")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line[1:].strip() for line in lines if line.startswith("E ")]
    found = errors[0] if errors else lines[0] if lines else ""
    return found[:FAILURE_LINE]


def record(test: status.TestOutcome) -> TestRecord:
    """A test's merged outcome as the results schema has it."""
    return {
        "outcome": test.outcome,
        "called": test.called,
        "message": test.message[:FAILURE_LINE],
        "not_implemented": test.unwritten is not None,
        "seconds": round(test.seconds, 3),
    }


def namespace(value: object) -> dict[str, tuple[object, object]]:
    """A module's or class's attributes, each with the code object of a function."""
    return {name: (item, code_of(item)) for name, item in list(vars(value).items())}


def code_of(item: object) -> object:
    return getattr(getattr(item, "__func__", item), "__code__", None)


class Watch:
    """Identities of everything in the WATCHED lists and of pytest's plugins and hooks."""

    def __init__(self, config: Any):
        self.config = config
        # (label, the module or class, its attributes then); whole namespaces for modules
        # and classes, chosen attributes (looked up with getattr) for the WATCHED_NAMES.
        self.owners: list[tuple[str, object, dict, bool]] = []
        for name in WATCHED_MODULES:
            try:
                module = importlib.import_module(name)
            except ImportError:
                continue
            self.owners.append((name, module, namespace(module), False))
        for name, attributes in WATCHED_NAMES.items():
            module = importlib.import_module(name)
            chosen = {a: (getattr(module, a), code_of(getattr(module, a))) for a in attributes}
            self.owners.append((name, module, chosen, True))
        for module_name, cls in WATCHED_CLASSES:
            value = getattr(sys.modules.get(module_name), cls, None)
            if value is not None:
                self.owners.append((f"{module_name}.{cls}", value, namespace(value), False))
        self.modules = {
            name: module
            for name, module in list(sys.modules.items())
            if name.split(".")[0] in ("pytest", "_pytest", "pluggy", "torch_katas")
            or name in WATCHED_MODULES
        }
        self.plugins = self.plugin_list()
        self.hooks = self.hook_impls()

    def plugin_list(self) -> list[tuple[str, int]]:
        return [(name, id(plugin)) for name, plugin in self.config.pluginmanager.list_name_plugin()]

    def hook_impls(self) -> dict[str, list]:
        hooks = {}
        for name in dir(self.config.hook):
            caller = getattr(self.config.hook, name)
            if hasattr(caller, "get_hookimpls"):
                hooks[name] = [(i.plugin_name, i.function) for i in caller.get_hookimpls()]
        return hooks

    def changes(self) -> list[str]:
        found = []
        for label, owner, before, by_getattr in self.owners:
            now = vars(owner)
            for name, (value, code) in before.items():
                if not by_getattr and name not in now:
                    found.append(f"{label}.{name} was deleted")
                    continue
                item = getattr(owner, name, None) if by_getattr else now[name]
                if item is not value:
                    found.append(f"{label}.{name} was replaced")
                elif code is not None and code_of(item) is not code:
                    found.append(f"the code of {label}.{name} was replaced")
        for name, module in self.modules.items():
            if sys.modules.get(name) is not module:
                found.append(f"sys.modules[{name!r}] was replaced")
        plugins = self.plugin_list()
        if plugins != self.plugins:
            names_before = {name for name, _ in self.plugins}
            added = [name for name, _ in plugins if name not in names_before]
            found.append(
                "pytest's plugins changed" + (f" (added: {', '.join(added)})" if added else "")
            )
        if self.hook_impls() != self.hooks:
            found.append("pytest's hook implementations changed")
        return found


class Guard:
    """An audit hook: refuses to open files of a torch-katas checkout or other processes.

    Armed once the harness is loaded, before the candidate's module is imported. Python's
    audit hooks cannot be removed, so the candidate's code cannot simply turn it off.
    """

    def __init__(self, place: Path, forbidden: list[Path], allowed: list[Path]):
        self.place = place
        self.forbidden = forbidden
        self.allowed = allowed
        self.armed = False
        self.refused: list[str] = []
        self.own = {"self", "thread-self", str(os.getpid())}

    def __call__(self, event: str, args: tuple) -> None:
        if not self.armed or event not in ("open", "os.listdir", "os.scandir"):
            return
        path = args[0] if args else None
        if not isinstance(path, (str, bytes, os.PathLike)):
            return
        reason = self.why_refused(os.fsdecode(path))
        if reason:
            if len(self.refused) < 20:
                self.refused.append(reason)
            raise PermissionError(f"grading does not allow reading {os.fsdecode(path)}")

    def why_refused(self, name: str) -> str | None:
        parts = Path(name).parts
        other_process = len(parts) > 2 and parts[2].isdigit() and parts[2] not in self.own
        if parts[:2] == ("/", "proc") and other_process:
            return f"read {name} (another process's details)"
        path = Path(os.path.realpath(name))
        if path == self.place or self.place in path.parents:
            return None
        if any(path == a or a in path.parents for a in self.allowed):
            return None
        for root in self.forbidden:
            if path == root or root in path.parents:
                return f"read {name} (outside the take-home)"
        for folder in (path, *path.parents):
            if (folder / "katas" / "katas.toml").is_file() or folder.name == "solutions":
                return f"read {name} (a torch-katas checkout)"
        return None


# Audit events that start another program: its process has none of the checks here.
STARTS_PROGRAMS = {
    "subprocess.Popen",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.system",
    "pty.spawn",
}
LIBRARIES = tuple(
    os.path.realpath(p) for p in {sysconfig.get_path("stdlib"), sysconfig.get_path("platstdlib")}
)


class ProcessGuard:
    """An audit hook: the candidate's code may not start programs (a program it started would
    run without the audit hook above, and could read what the test process may not).

    Programs that torch starts for the tests (a C++ compiler for torch.compile) are allowed:
    the innermost caller outside the standard library decides, and only the answer's own file
    is refused. Forked processes keep both hooks.
    """

    def __init__(self, stub: Path):
        self.stub = os.path.realpath(stub)
        self.armed = False
        self.refused: list[str] = []

    def __call__(self, event: str, args: tuple) -> None:
        if not self.armed or event not in STARTS_PROGRAMS:
            return
        frame: types.FrameType | None = sys._getframe(1)
        while frame is not None:
            filename = os.path.realpath(frame.f_code.co_filename)
            if not filename.startswith(LIBRARIES) or "-packages" in filename:
                break
            frame = frame.f_back
        if frame is None or os.path.realpath(frame.f_code.co_filename) != self.stub:
            return
        program = next((a for a in args[:2] if a), "") if args else ""
        shown = " ".join(map(str, program)) if isinstance(program, (list, tuple)) else str(program)
        reason = (
            f"started a program ({shown[:80]}) from {Path(self.stub).name} line {frame.f_lineno}"
        )
        if len(self.refused) < 20:
            self.refused.append(reason)
        raise PermissionError("grading does not allow a kata answer to start programs")


# What the state guard reports as restored that is a setting (the tests themselves change
# the default dtype, for one), not a replaced function.
def settings_names() -> set[str]:
    try:
        from torch_katas.runtime import isolation
    except ImportError:  # pragma: no cover - the harness is always there
        return set()
    return {setting.name for setting in isolation.SETTINGS}


class Results:
    """The pytest plugin of the grading child: each test's outcome, and tamper checks."""

    def __init__(self, kata: str, token: str, guard: Guard, processes: ProcessGuard):
        self.kata = kata
        self.token = token
        self.guard = guard
        self.processes = processes
        self.settings: set[str] = set()
        self.codes: dict[str, object] = {}  # each test's code object, as collected
        self.watch: Watch | None = None
        self.result = status.KataResult()
        self.collect_errors: list[str] = []
        self.tampering: list[str] = []
        self.devices: list[str] = []
        self.autoloaded: list[str] = []  # plugins pytest loaded from installed packages
        self.stub_imported = False
        self.finished = False  # the session ended, with its last tamper check

    def pytest_collection(self, session: Any) -> None:
        # The harness is loaded and the candidate's module not yet imported.
        from torch_katas import devices

        self.devices = devices.from_config(session.config)
        manager = session.config.pluginmanager
        self.autoloaded = sorted({dist.project_name for _, dist in manager.list_plugin_distinfo()})
        self.watch = Watch(session.config)
        self.settings = settings_names()
        self.guard.armed = True
        self.processes.armed = True

    def check(self) -> None:
        if self.watch is None:
            return
        for change in self.watch.changes():
            if change not in self.tampering:
                self.tampering.append(change)

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            self.collect_errors.append(first_line(report) or "collection failed")

    def pytest_internalerror(self, excrepr: Any, excinfo: Any) -> None:
        # A SystemExit raised while the stub is imported ends pytest's run here.
        self.collect_errors.append(f"{excinfo.typename}: {excinfo.value}"[:FAILURE_LINE])

    def pytest_collection_finish(self, session: Any) -> None:
        self.stub_imported = f"katas.{self.kata}" in sys.modules
        # Each test's code, as collected: it must be the test file's own, and stay the same.
        for item in session.items:
            code = getattr(getattr(item, "obj", None), "__code__", None)
            if code is None:
                continue
            self.codes[item.nodeid] = code
            if os.path.realpath(code.co_filename) != os.path.realpath(str(item.path)):
                self.note(
                    f"the code of {item.originalname} is not its test file's "
                    f"(it comes from {Path(code.co_filename).name})"
                )
        # The test module's functions too: a module whose collection failed has no items.
        module = next(
            (m for name, m in list(sys.modules.items()) if name.endswith(f"{self.kata}_test")),
            None,
        )
        for name, value in list(vars(module).items()) if module is not None else []:
            code = getattr(value, "__code__", None)
            path = getattr(module, "__file__", None) or ""
            if not name.startswith("test") or code is None:
                continue
            if os.path.realpath(code.co_filename) != os.path.realpath(path):
                self.note(
                    f"the code of {name} is not its test file's "
                    f"(it comes from {Path(code.co_filename).name})"
                )
        self.check()

    def pytest_runtest_setup(self, item: Any) -> None:
        code = getattr(getattr(item, "obj", None), "__code__", None)
        if item.nodeid in self.codes and code is not self.codes[item.nodeid]:
            self.note(f"the code of {item.originalname} was replaced after collection")

    def note(self, change: str) -> None:
        if change not in self.tampering and len(self.tampering) < 50:
            self.tampering.append(change)

    def pytest_runtest_logreport(self, report: Any) -> None:
        self.result.add(report)  # the one merge of a test's reports (status.py)
        properties = dict(report.user_properties)
        if status.DOES_NOT_IMPORT in properties:
            # The harness stood in for a stub that failed to import: the kata is an error.
            self.stub_imported = False
            reason = str(properties[status.DOES_NOT_IMPORT])
            if reason not in self.collect_errors:
                self.collect_errors.append(reason[:FAILURE_LINE])
        if report.when == "teardown":
            self.restored(report.nodeid, properties.get(status.RESTORED))
            self.check()

    def restored(self, nodeid: str, put_back: object) -> None:
        """What the per-test state guard put back: a replaced function is tampering (the
        guard's repair hid it from the checks after the test); a setting is not (tests set
        the default dtype themselves, and the guard is there to undo it)."""
        if not isinstance(put_back, (list, tuple)):
            return
        test = nodeid.split("::", 1)[-1]
        for name in put_back:
            if str(name) in self.settings:
                continue
            self.note(
                f"{str(name)[:100]} was replaced during {test[:100]} (the state guard put it back)"
            )

    def pytest_sessionfinish(self, session: Any) -> None:
        # The last look, before the harness puts back the settings it changed for the run.
        self.check()
        self.finished = True

    def summary(self, exit_code: int) -> ChildResults:
        if not self.finished:
            self.check()
        return {
            "version": VERSION,
            "token": self.token,
            "kata": self.kata,
            "exit_code": exit_code,
            "devices": self.devices,
            "stub_imported": self.stub_imported,
            "collect_errors": self.collect_errors,
            "tests": {nodeid: record(test) for nodeid, test in self.result.tests.items()},
            "tampering": self.tampering,
            "refused_reads": self.guard.refused + self.processes.refused,
            "autoloaded_plugins": self.autoloaded,
        }


def main() -> None:
    # Bound before anything else runs: the candidate's code cannot swap these for us.
    exit_now, write, dumps = os._exit, os.write, json.dumps
    results, kata, *rest = sys.argv[1:]
    args = rest[rest.index("--") + 1 :]
    # On stdin, so that neither shows in this process's command line: the secret that marks
    # genuine results, and the paths the candidate's code may not read.
    token = sys.stdin.readline().strip()
    forbidden = sys.stdin.readline()
    allowed = [Path(p).resolve() for p in {sys.prefix, sys.base_prefix, sys.exec_prefix}]
    allowed += [Path(p).resolve() for p in sys.path if p and "site-packages" in p]
    # The kata's own folder: its copy of the suite (the working directory) and scratch space.
    place = Path.cwd().resolve().parent
    guard = Guard(place, [Path(p) for p in json.loads(forbidden)], allowed)
    sys.addaudithook(guard)
    processes = ProcessGuard(Path.cwd() / "katas" / f"{kata}.py")
    sys.addaudithook(processes)
    recorder = Results(kata, token, guard, processes)
    summary = Results.summary  # the class's, not whatever the instance holds by then
    import pytest

    try:
        code = int(pytest.main(args, plugins=[recorder]))
    except BaseException as error:  # a SystemExit or worse that escaped pytest itself
        code = 3
        recorder.collect_errors.append(f"the run ended with {type(error).__name__}: {error}")
    data = dumps(summary(recorder, code)).encode()
    descriptor = os.open(results, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    write(descriptor, data)
    os.close(descriptor)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    exit_now(0)
