"""The grading child: runs one kata's tests and writes what happened for the grader.

`katas grade` starts this module in a process of its own for each kata (see grading.py):

    python -I -S -c "...; from torch_katas.grading.child import main; main()" PATHS FD KATA -- ARGS

It reads a token and the paths it may not read from stdin, watches what the tests rely on,
runs pytest with ARGS and a plugin that sends each test's report (with the outcome it can
vouch for: `Results`), each tamper check that trips and each refused action (the audit hooks:
`Guard`, `ProcessGuard`, `CodeGuard`) to the grader as it happens: one JSON line each (schema.py),
with the token, on the pipe FD the grader reads. No table of outcomes is kept here for the
candidate's code to swap: the grader merges the reports and checks their order. It leaves
with os._exit, so no exit handler the candidate registered runs after it.

None of this can stop code in the same process from undoing it; it makes tampering visible
(the kata is flagged) instead of silent. The sandbox, not this module, protects the machine.
"""

from __future__ import annotations

import _json
import ast
import contextlib
import copy
import copyreg
import ctypes
import gc
import importlib
import importlib.util
import inspect
import itertools
import json
import keyword
import os
import re
import subprocess
import sys
import sysconfig
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pluggy

from torch_katas import status
from torch_katas.grading.schema import VERSION

try:  # the start of a program that raises no audit event: see audited_starts
    import _posixsubprocess
except ImportError:
    _posixsubprocess = None  # type: ignore[assignment]

__all__ = [
    "BodiesRun",
    "CodeGuard",
    "Guard",
    "Instances",
    "ProcessGuard",
    "main",
    "sender",
]

Send = Callable[..., None]  # send(event, **fields): one message to the grader
hookimpl = pluggy.HookimplMarker("pytest")  # pytest.hookimpl, without importing pytest here

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
    "_pytest.approx",
    "torch.autograd.gradcheck",
    "torch.overrides",
    "copyreg",
    "_posixsubprocess",
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
    ("torch.utils._python_dispatch", "TorchDispatchMode"),
    ("torch_katas.testing", "_ForbidOps"),
    ("torch", "Tensor"),
)
# Class attributes that make comparisons agree or see every torch operation: on a class made
# while the tests run, one the answer's source does not write is tampering (a class built from
# a runtime mapping: make_dataclass's namespace, Enum's functional form, type()).
CLASS_HOOKS = (
    "__eq__",
    "__ne__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__bool__",
    "__torch_function__",
    "__torch_dispatch__",
    "__array__",
    "__array_ufunc__",
    "__array_function__",
)
FAILURE_LINE = 300  # characters of a failure message kept for the report


def comparison_classes() -> dict[str, type]:
    """The comparison classes, attribute by attribute: the pair classes assert_close runs per
    pair of tensors, pytest.approx and its tolerances (isolation.COMPARISONS)."""
    try:
        from torch_katas.runtime import isolation
    except ImportError:  # pragma: no cover - the harness is always there
        return {}
    return isolation.COMPARISONS


def first_line(report: Any) -> str:
    """The line that says what went wrong in a collection error (which carries no report
    properties): the exception, not the traceback around it."""
    crash = getattr(report.longrepr, "reprcrash", None)
    text = getattr(crash, "message", None) or str(report.longrepr or "")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line[1:].strip() for line in lines if line.startswith("E ")]
    found = errors[0] if errors else lines[0] if lines else ""
    return found[:FAILURE_LINE]


def own_code(code: Any, test_file: str) -> bool:
    """Whether a test's code is its test file's own, or the suite's generated facet test
    (`test_facets = FACETS.test`, made in torch_katas/facets.py, read-only like the suite)."""
    filename = os.path.realpath(code.co_filename)
    if filename == os.path.realpath(test_file):
        return True
    from torch_katas import facets

    return code.co_name == "test_facets" and filename == os.path.realpath(inspect.getfile(facets))


def namespace(value: object) -> dict[str, tuple[object, object]]:
    """A module's or class's attributes, each with the code object of a function."""
    return {name: (item, code_of(item)) for name, item in list(vars(value).items())}


def code_of(item: object) -> object:
    return getattr(getattr(item, "__func__", item), "__code__", None)


def cells(function: object) -> list[object]:
    """What a function's closure holds."""
    closure = getattr(function, "__closure__", None) or ()
    return [cell.cell_contents for cell in closure]


def every_class() -> dict[int, type]:
    """Every class in the process, by id (walked down from object)."""
    found: dict[int, type] = {}
    pending: list[type] = [object]
    while pending:
        subclasses: list[type] = type.__subclasses__(pending.pop())
        for sub in subclasses:
            if id(sub) not in found:
                found[id(sub)] = sub
                pending.append(sub)
    return found


def written_functions(stub: str) -> set[str]:
    """The names of the functions the answer's source defines."""
    try:
        tree = ast.parse(Path(stub).read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return set()
    return {
        n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    }


def mode_stacks() -> Callable[[], list[object]]:
    """A function listing the torch function and dispatch modes on the stacks now (the
    infrastructure modes too), bound before the answer is imported."""
    import torch
    from torch.overrides import _get_current_function_mode_stack
    from torch.utils._python_dispatch import _get_current_dispatch_mode_stack

    get_infra = getattr(torch._C, "_get_dispatch_mode", None)
    key_type = getattr(torch._C, "_TorchDispatchModeKey", None)
    keys = list(key_type.__members__.values()) if key_type is not None else []

    def modes() -> list[object]:
        found = [*_get_current_function_mode_stack(), *_get_current_dispatch_mode_stack()]
        if get_infra is not None:
            found += [m for m in (get_infra(k) for k in keys) if m is not None]
        return found

    return modes


# Modules whose functions and classes' methods are compared by content (`Contents`): the
# harness's, pytest's and pluggy's, torch.testing's, and the tests' own (with conftest.py).
CONTENT_PACKAGES = ("torch_katas", "pytest", "_pytest", "pluggy", "torch.testing")
EMPTY = object()  # a closure cell with nothing in it yet


def is_test_module(name: str) -> bool:
    return name.endswith("_test") or name == "conftest" or name.endswith(".conftest")


def contents(function: types.FunctionType) -> tuple[object, ...]:
    """What a function runs besides its identity: its code, its defaults and what its closure
    cells hold (no audit event tells when a cell's contents are set)."""
    held: list[object] = [function.__code__, function.__defaults__, function.__kwdefaults__]
    held += list((function.__kwdefaults__ or {}).values())
    for cell in function.__closure__ or ():
        try:
            held.append(cell.cell_contents)
        except ValueError:
            held.append(EMPTY)
    return tuple(held)


def function_of(value: object) -> types.FunctionType | None:
    """The Python function a namespace's entry runs (a method, static or class method, or a
    property's getter)."""
    if isinstance(value, (staticmethod, classmethod)):
        value = value.__func__
    elif isinstance(value, property):
        value = value.fget
    return value if type(value) is types.FunctionType else None


class Contents:
    """The functions of the modules in CONTENT_PACKAGES and of the test modules, and the
    methods of the classes they define, each with its `contents`: compared by identity, so
    that a function changed in place (its code swapped, a cell set) or rebound is seen however
    it was done."""

    def __init__(self) -> None:
        self.modules: set[str] = set()
        # (label, the namespace, the name, what it held, the contents of its function)
        self.entries: list[tuple[str, Any, str, object, tuple[object, ...]]] = []

    def add_modules(self) -> None:
        """The modules imported since the last call (the test modules once collected)."""
        for name, module in list(sys.modules.items()):
            chosen = name.startswith(CONTENT_PACKAGES) or is_test_module(name)
            if name in self.modules or not chosen or not isinstance(module, types.ModuleType):
                continue
            self.modules.add(name)
            # A test module's every function (its helpers and the oracles it imported); a
            # library module's own: the rest is compared where it is defined.
            everything = is_test_module(name)
            for key, value in list(vars(module).items()):
                if type(value) is types.FunctionType and (everything or value.__module__ == name):
                    self.add(f"{name}.{key}", vars(module), key, value)
                elif isinstance(value, type) and value.__module__ == name:
                    for attribute, member in list(vars(value).items()):
                        self.add(f"{name}.{key}.{attribute}", vars(value), attribute, member)

    def add(self, label: str, namespace: Any, key: str, value: object) -> None:
        function = function_of(value)
        if function is not None:
            self.entries.append((label, namespace, key, value, contents(function)))

    def changes(self) -> list[str]:
        found = []
        for label, namespace, key, value, before in self.entries:
            function = function_of(value)
            if namespace.get(key) is not value:
                found.append(f"{label} was replaced")
            elif function is not None:
                now = contents(function)
                if len(now) != len(before) or any(
                    a is not b for a, b in zip(now, before, strict=False)
                ):
                    found.append(f"the code, defaults or closure of {label} changed")
        return found[:10]


# The recorder's attributes that keep their identity for the whole run.
RECORDER_KEEPS = (
    "send",
    "guard",
    "processes",
    "code",
    "codes",
    "tampering",
    "collect_errors",
    "phases",
    "pytest_types",
)


# Slots of pytest's nodes that say what a test runs through (its session's hooks, its config).
NODE_SLOTS = ("config", "parent", "path", "session", "name")
# Attributes that are no callables but say what runs: config.hook, the recorder's watch.
HELD = ("hook", "pluginmanager", "items", "watch", "_hookimpls")


def shadows(value: object) -> list[str]:
    """Names in an object's own __dict__ that hide a callable of its class (an item's
    `runtest = lambda: None` skips the test body, and pytest still reports it passed)."""
    own = getattr(value, "__dict__", None)
    if not isinstance(own, dict):
        return []
    return [
        name
        for name in list(own)
        if isinstance(name, str) and callable(inspect.getattr_static(type(value), name, None))
    ]


def held_state(value: object) -> dict[str, object]:
    """What an object holds of its own that runs code: its callables (an item's test function,
    a hook caller's `_hookexec`), pytest's node slots and the objects named in HELD."""
    state: dict[str, object] = {"__class__": type(value)}
    slots = [n for k in type(value).__mro__ for n in getattr(k, "__slots__", ()) if n != "__dict__"]
    own = getattr(value, "__dict__", None)
    held = list(own.items()) if isinstance(own, dict) else []
    held += [(n, getattr(value, n)) for n in slots if isinstance(n, str) and hasattr(value, n)]
    for name, item in held:
        if callable(item) or name in NODE_SLOTS or name in HELD:
            state[name] = item
    return state


class Instances:
    """The per-instance state of the objects pytest runs the tests through, as collected: the
    items, the session, the config, its plugin manager and hook callers, and the recorder. A
    value replaced, or an attribute of its own that hides its class's method, is tampering."""

    def __init__(self, session: Any, recorder: Results):
        config = session.config
        relay = config.hook
        callers = [getattr(relay, n) for n in dir(relay) if n.startswith("pytest_")]
        named = [
            ("pytest's session", session),
            ("pytest's config", config),
            ("pytest's plugin manager", config.pluginmanager),
            ("pytest's hook relay", relay),
            ("the grading recorder", recorder),
        ]
        named += [(f"pytest's hook {getattr(c, 'name', '?')}", c) for c in callers]
        self.items = list(session.items)
        self.session = session
        named += [("a test item", item) for item in self.items]  # one message for them all
        self.objects = [(label, value, held_state(value), shadows(value)) for label, value in named]
        self.by_item = {
            id(item): i + len(named) - len(self.items) for i, item in enumerate(self.items)
        }

    def changed(self, label: str, value: object, before: dict, hidden: list[str]) -> list[str]:
        found = [
            f"{name[:60]} of {label} hides its class's method (set on the object itself)"
            for name in shadows(value)
            if name not in hidden
        ]
        now = held_state(value)
        found += [
            f"{name[:60]} of {label} was replaced"
            for name, held in before.items()
            if now.get(name, None) is not held
        ]
        return found

    def item_changes(self, item: object) -> list[str]:
        """One item's, before it runs (cheap: each test's own)."""
        index = self.by_item.get(id(item))
        if index is None or self.objects[index][1] is not item:
            return []
        return self.changed(*self.objects[index])

    def changes(self) -> list[str]:
        found = [c for entry in self.objects for c in self.changed(*entry)]
        if len(self.session.items) != len(self.items) or any(
            a is not b for a, b in zip(self.session.items, self.items, strict=False)
        ):
            found.append("pytest's list of the session's tests was changed")
        return found


class Watch:
    """Identities of everything in the WATCHED lists, of pytest's plugins and hooks, and of
    the recorder's parts (its sender among them, down to what its closure holds)."""

    def __init__(self, config: Any, recorder: Results):
        self.config = config
        self.recorder = recorder
        self.send = recorder.send  # tampering is sent with this one, whatever the recorder holds
        self.parts = {name: getattr(recorder, name) for name in RECORDER_KEEPS}
        self.sender = function_parts(recorder.send)
        self.code = recorder.code
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
        classes = {f"{m}.{c}": getattr(sys.modules.get(m), c, None) for m, c in WATCHED_CLASSES}
        for label, value in {**classes, **comparison_classes()}.items():
            if value is not None:
                self.owners.append((label, value, namespace(value), False))
        self.modules = {
            name: module
            for name, module in list(sys.modules.items())
            if name.split(".")[0] in ("pytest", "_pytest", "pluggy", "torch_katas")
            or name in WATCHED_MODULES
        }
        self.plugins = self.plugin_list()
        self.hooks = self.hook_impls()
        self.contents = Contents()
        self.contents.add_modules()
        # Global registries the tests' objects go through (copy.deepcopy of a model).
        self.tables = {
            "copyreg.dispatch_table": copyreg.dispatch_table,
            "copy's deepcopy table": getattr(copy, "_deepcopy_dispatch", {}),
        }
        self.table_items = {name: dict(table) for name, table in self.tables.items()}
        # torch's modes: one the answer enters and leaves on the stack sees every operation.
        self.modes = mode_stacks()
        self.modes_before = [id(m) for m in self.modes()]
        # The classes made before the answer is imported, and what its source writes.
        self.stub = recorder.processes.stub
        self.written = written_functions(self.stub)
        self.module = f"katas.{recorder.kata}"
        self.classes = every_class()
        self.instances: Instances | None = None  # once the tests are collected

    def tables_changed(self) -> list[str]:
        """An entry replaced or removed, or one added for the answer's code: torch registers
        its own classes as it loads modules (sympy's too), with functions of theirs."""
        found = []
        for name, table in self.tables.items():
            before = self.table_items[name]
            now = dict(table)
            if any(now.get(k) is not v for k, v in before.items()):
                found.append(f"{name} changed (an entry replaced or removed)")
            added = [k for k in now if k not in before and not self.library_code(now[k])]
            if added:
                named = ", ".join(getattr(k, "__name__", "?") for k in added[:5])
                found.append(f"{name} changed (added: {named})")
        return found

    def library_code(self, value: object) -> bool:
        """A Python function whose code is not the answer's."""
        filename = getattr(code_of(value), "co_filename", None)
        return filename is not None and os.path.realpath(filename) != self.stub

    def modes_changed(self) -> list[str]:
        modes = self.modes()
        if [id(m) for m in modes] == self.modes_before:
            return []
        names = ", ".join(type(m).__qualname__ for m in modes)[:100]
        return [f"a torch mode it did not push is on the mode stack ({names})"]

    def class_hooks(self) -> list[str]:
        """Classes made since the answer's import whose comparison or torch hooks are the
        answer's functions, though its source defines no function of that name."""
        found = []
        for key, cls in every_class().items():
            if key in self.classes:
                continue
            own = vars(cls)
            for name in CLASS_HOOKS:
                value = own.get(name)
                if value is None or name in self.written:
                    continue
                for _ in range(10):  # through wrappers (torch wraps __torch_dispatch__)
                    value = getattr(value, "__wrapped__", value)
                code = code_of(value)
                if code is None:
                    code = code_of(getattr(value, "func", None))  # functools.partial
                filename = getattr(code, "co_filename", None)
                from_stub = filename is not None and os.path.realpath(filename) == self.stub
                # A callable that is no Python function (a builtin, a partial of one) on the
                # answer's own class is no function its source defines either.
                if from_stub or (code is None and cls.__module__ == self.module):
                    found.append(f"class {cls.__qualname__[:60]} has {name}, built at run time")
        return found

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
        found = [
            f"the grading recorder's {name} was replaced"
            for name, value in self.parts.items()
            if getattr(self.recorder, name, None) is not value
        ]
        held = function_parts(self.send)
        if len(held) != len(self.sender) or any(
            a is not b for a, b in zip(held, self.sender, strict=True)
        ):
            found.append("the grading recorder's sender, or what it holds, was replaced")
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
        found += self.instances.changes() if self.instances is not None else []
        found += self.code.named_changes() if self.code is not None else []
        return found + self.tables_changed() + self.modes_changed() + self.class_hooks()


class Guard:
    """An audit hook: refuses to open files of a torch-katas checkout or other processes.

    Armed once the harness is loaded, before the candidate's module is imported. Python's
    audit hooks cannot be removed, so the candidate's code cannot simply turn it off.
    """

    def __init__(
        self,
        place: Path,
        forbidden: list[Path],
        allowed: list[Path],
        send: Send,
        read_only: Path | None = None,
    ):
        self.place = place
        self.read_only = read_only  # the kata's copy of the suite, inside `place`
        self.forbidden = forbidden
        self.allowed = allowed
        self.armed = False
        self.send = send
        self.refused = 0
        self.own = {"self", "thread-self", str(os.getpid())}
        # The descriptors grading set up before any candidate code ran (the results pipe,
        # stdin, the log): opened again by number or through /proc/self/fd, one can be
        # closed, read or written behind the sender's back.
        self.descriptors = open_descriptors()

    def __call__(self, event: str, args: tuple) -> None:
        if not self.armed:
            return
        if event in CHANGES_FILES:
            reason = self.why_refused_change(event, args)
            path: object = next((args[i] for i in CHANGES_FILES[event] if i < len(args)), None)
        elif event in ("open", "os.listdir", "os.scandir"):
            path = args[0] if args else None
            flags = args[2] if event == "open" and len(args) > 2 else None
            writes = isinstance(flags, int) and bool(flags & WRITE_FLAGS)
            if isinstance(path, int):
                reason = self.why_refused_descriptor(path)
            elif isinstance(path, (str, bytes, os.PathLike)):
                reason = self.why_refused(os.fsdecode(path), writes)
            else:
                return
        else:
            return
        if reason:
            self.refused += 1
            if self.refused <= 20:
                self.send("refused", text=reason)
            shown = path if isinstance(path, (int, str, bytes, os.PathLike)) else "?"
            shown = shown if isinstance(shown, int) else os.fsdecode(shown)
            raise PermissionError(f"grading does not allow {event} of {shown}")

    def why_refused_change(self, event: str, args: tuple) -> str | None:
        """Why an event that changes the file system without an open (a file removed,
        renamed, linked, made, its mode or times changed) is refused: each path it changes
        is written, so it lies in the kata's own folder, out of its copy of the suite (made
        read-only, which a chmod would undo), or is a descriptor opened since."""
        for index in CHANGES_FILES[event]:
            path = args[index] if index < len(args) else None
            if isinstance(path, int):  # os.fchmod, os.ftruncate: the file it has open
                reason = self.why_refused_descriptor(path)
                if reason:
                    return reason
                try:
                    path = os.readlink(f"/proc/self/fd/{path}")
                except OSError:
                    return f"{event} of descriptor {path}, whose file it cannot name"
                if not path.startswith("/"):
                    continue  # a pipe's or socket's: no file
            if not isinstance(path, (str, bytes, os.PathLike)):
                return f"{event} of a path it did not name ({type(path).__name__[:40]})"
            name = os.fsdecode(path)
            where = DIR_FDS.get(event, {}).get(index)
            at = args[where] if where is not None and -len(args) <= where < len(args) else None
            at = at if isinstance(at, int) and at >= 0 else None  # -1, AT_FDCWD: none
            if at is not None and not os.path.isabs(name):  # relative to a directory's fd
                try:
                    name = os.path.join(os.readlink(f"/proc/self/fd/{at}"), name)
                except OSError:
                    return f"{event} of {name} relative to descriptor {at}"
            reason = self.why_refused(name, writes=True)
            if reason:
                return f"{event}: {reason}"
            real = Path(os.path.realpath(name))
            suite = self.read_only
            if suite is not None and (real == suite or suite in real.parents):
                return f"{event} of {name} (the kata's copy of the suite)"
        return None

    def why_refused_descriptor(self, descriptor: int) -> str | None:
        if descriptor in self.descriptors:
            return f"opened descriptor {descriptor} (one grading set up)"
        return None

    def why_refused(self, name: str, writes: bool = False) -> str | None:
        # Decided on the path as the kernel follows it: `/proc/self/../1/environ` and
        # `/proc/self/root/proc/1` name another process as much as `/proc/1` does.
        followed = followed_path(name)
        for parts in (Path(name).parts, followed.parts):
            other_process = len(parts) > 2 and parts[2].isdigit() and parts[2] not in self.own
            if parts[:2] == ("/", "proc") and other_process:
                return f"read {name} (another process's details)"
        in_fd = followed.parts[:2] == ("/", "proc") and followed.parent.name == "fd"
        if in_fd and followed.name.isdigit() and int(followed.name) in self.descriptors:
            return f"opened {name} (a descriptor grading set up)"
        if followed.parts[:2] == ("/", "proc") and followed.name in PROCESS_MEMORY:
            return f"opened {name} (the process's memory: the secret its results carry)"
        path = Path(os.path.realpath(name))
        inside = path == self.place or self.place in path.parents
        if writes and not inside and str(path) not in WRITABLE_DEVICES:
            return f"wrote {name} (outside the kata's own folder)"
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


# Audit events that change the file system without an open, and which of their arguments
# name what they change (os.symlink's target and a copy's source are only read).
CHANGES_FILES: dict[str, tuple[int, ...]] = {
    **{f"os.{name}": (0,) for name in ("remove", "rmdir", "mkdir", "chmod", "chown", "utime")},
    **{f"os.{name}": (0,) for name in ("truncate", "setxattr", "removexattr", "chflags")},
    **{"os.lchflags": (0,), "os.rename": (0, 1), "os.link": (1,), "os.symlink": (1,)},
    **{f"shutil.{name}": (1,) for name in ("copyfile", "copymode", "copystat", "copytree")},
    **{"shutil.move": (0, 1), "shutil.rmtree": (0,), "shutil.chown": (0,)},
    **{"shutil.unpack_archive": (1,)},
}
# Where an event's path is relative to a directory's descriptor (dir_fd): path -> its place.
DIR_FDS = {
    **{f"os.{name}": {0: -1} for name in ("remove", "rmdir", "mkdir", "chmod", "chown")},
    **{"os.utime": {0: -1}, "os.symlink": {1: -1}},
    **{"os.rename": {0: 2, 1: 3}, "os.link": {1: 3}},
}
# Flags of an open that writes, creates or truncates: only inside the kata's own folder.
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
WRITABLE_DEVICES = {"/dev/null"}
PROCESS_MEMORY = {"mem", "pagemap"}


def open_descriptors() -> set[int]:
    """The process's open file descriptors (none where /proc is not there to list them)."""
    try:
        listed = [int(name) for name in os.listdir("/proc/self/fd") if name.isdigit()]
    except OSError:
        return set()
    found = set()
    for descriptor in listed:  # not the one that listed them, closed by now
        with contextlib.suppress(OSError):
            os.fstat(descriptor)
            found.add(descriptor)
    return found


def followed_path(name: str) -> Path:
    """The path the kernel opens for `name`, up to a link in /proc (`/proc/self/fd/3`, whose
    target is no path): each link followed, `..` taken after the link before it."""
    path = Path(os.getcwd(), name)
    for _ in range(40):
        if path.name in ("", ".", ".."):
            return Path(os.path.realpath(path))
        path = Path(os.path.realpath(path.parent), path.name)
        if path.parts[:2] == ("/", "proc") and path.parent.name == "fd":
            return path
        try:
            target = os.readlink(path)
        except OSError:
            return path
        path = Path(path.parent, target)
    return path


# Audit events that start another program: its process has none of the checks here.
STARTS_PROGRAMS = {
    "_posixsubprocess.fork_exec",
    "subprocess.Popen",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.system",
    "pty.spawn",
}
SIGNALS = {"os.kill", "os.killpg", "signal.pthread_kill"}
# Native libraries loaded by the process (ctypes.CDLL, cdll.LoadLibrary, and every public torch
# name that hands its path to them, torch.cuda.CUDAPluggableAllocator among them): a library's
# code runs as it loads, with none of the audit hooks. A bare name is looked up by the loader
# in the system's folders only (libnvidia-ml.so.1, which torch.cuda.device_count loads); a
# path, which may be a file the answer wrote, is loaded only for torch's compilers.
LOADS_LIBRARIES = {"ctypes.dlopen"}
# Folders of the code allowed to start programs: torch's compilers.
COMPILERS = ("_inductor", "_dynamo", "triton")
LIBRARIES = tuple(
    os.path.realpath(p) for p in {sysconfig.get_path("stdlib"), sysconfig.get_path("platstdlib")}
)


# Programs torch's compilers start (C++ compilers, CUDA's and ROCm's tools, the loader cache
# triton reads), by name; and arguments that make a compiler run another program or load code
# (g++'s -wrapper, a plugin, a tool prefix, specs, a response file of more arguments).
COMPILER_PROGRAMS = re.compile(
    r"([\w.]+-)*"  # a target's prefix: x86_64-linux-gnu-g++-12
    r"(g\+\+|gcc|c\+\+|cc|clang\+\+|clang|icpx|icx|cl|nvcc|hipcc|ptxas|cuobjdump|nvdisasm|"
    r"fatbinary|nvlink|ld|ld\.lld|lld|ar|objcopy|ldconfig|sccache|ccache|as|nvidia-smi|openssl)"
    r"(-[\d.]+)?"
)
COMPILER_REFUSED = (
    *("-wrapper", "-fplugin", "-B", "-specs", "--specs", "@", "-fuse-ld", "--sysroot"),
    *("-engine", "-provider"),  # openssl's, which load a library
)
SHELL_SPECIALS = set(";|&$`<>()\n")


def compiler_arguments(args: tuple) -> str | None:
    """Why a program started by torch's compilers is not one of theirs, or None: a program
    not named as a compiler or its tools, a shell, or an argument in COMPILER_REFUSED."""
    program, argv = (*args, None, None)[:2]
    argv = argv if isinstance(argv, (list, tuple)) else [program]
    words = [os.fsdecode(a) if isinstance(a, (bytes, os.PathLike)) else str(a) for a in argv]
    name = os.path.basename(os.fsdecode(program) if program else (words[:1] or [""])[0])
    cxx = getattr(getattr(sys.modules.get("torch._inductor.config"), "cpp", None), "cxx", None)
    configured = {
        os.path.basename(str(c)) for c in (cxx if isinstance(cxx, (list, tuple)) else [cxx]) if c
    }
    # This Python too: inductor loads each library it built in a `python -c` of its own.
    python = program is not None and os.path.realpath(os.fsdecode(program)) == os.path.realpath(
        sys.executable
    )
    if python:
        return None if words[1:2] == ["-c"] and len(words) == 3 else f"{name[:40]} (not -c)"
    if not (COMPILER_PROGRAMS.fullmatch(name) or name in configured):
        shell = name in ("sh", "bash", "dash", "zsh") and any(
            set(w) & SHELL_SPECIALS for w in words
        )
        return f"{name[:40]}" + (" (a shell command)" if shell else " (not a compiler)")
    for word in words[1:]:
        if word.startswith(COMPILER_REFUSED):
            return f"{word[:60]} (it runs or loads another program)"
    return None


_FORK_EXEC: Callable[..., int] | None = getattr(_posixsubprocess, "fork_exec", None)


def _audited_fork_exec(*args: Any, fork_exec: Callable[..., int] | None = _FORK_EXEC) -> int:
    """_posixsubprocess.fork_exec, which starts a program without an audit event of its own,
    with one: multiprocessing's spawn and forkserver start their Python through it directly
    (a DataLoader's workers given either context), where subprocess.Popen raises its event
    before the call. (Its default, the function it relays to, is watched as every harness
    function's is.)"""
    caller = os.path.realpath(sys._getframe(1).f_code.co_filename)
    if caller != os.path.realpath(subprocess.__file__):  # Popen raised subprocess.Popen
        argv, programs, cwd, env = (*args[:2], *args[4:6], None, None, None, None)[:4]
        program = programs[0] if isinstance(programs, (list, tuple)) and programs else None
        sys.audit("_posixsubprocess.fork_exec", program, argv, cwd, env)
    assert fork_exec is not None
    return fork_exec(*args)


def audited_starts() -> None:
    """Every program the process starts raises an audit event ProcessGuard sees: the one
    start the standard library makes without one, `_posixsubprocess.fork_exec` called by
    anything but subprocess.Popen, is given its own (the module's namespace is watched)."""
    if _posixsubprocess is not None:  # elsewhere Popen and os's functions raise their events
        _posixsubprocess.fork_exec = _audited_fork_exec


class ProcessGuard:
    """An audit hook: the candidate's code may not start programs (a program it started would
    run without the audit hook above, and could read what the test process may not).

    Programs that torch starts for the tests (a C++ compiler for torch.compile) are allowed:
    the innermost caller outside the standard library decides, and only the answer's own file
    is refused. Forked processes keep both hooks.
    """

    def __init__(self, stub: Path, send: Send):
        self.stub = os.path.realpath(stub)
        self.armed = False
        self.send = send

    def __call__(self, event: str, args: tuple) -> None:
        if not self.armed:
            return
        if event in SIGNALS:
            self.signal(event, args)
        if event in LOADS_LIBRARIES:
            self.library(args, sys._getframe(1))
        if event not in STARTS_PROGRAMS:
            return
        frame = self.caller(sys._getframe(1))
        # Only torch's compiler may start a program (a C++ compiler); a program that torch
        # starts for any other reason was handed to it (os.system as a DataLoader's collate_fn).
        filename = os.path.realpath(frame.f_code.co_filename) if frame is not None else ""
        if self.compiler(filename):
            reason = compiler_arguments(args)
            if reason is None:
                return
            self.send("refused", text=f"started a compiler with {reason[:120]}")
            raise PermissionError("grading does not allow these compiler arguments")
        program = next((a for a in args[:2] if a), "") if args else ""
        parts = program if isinstance(program, (list, tuple)) else [program]
        shown = " ".join(os.fsdecode(p) if isinstance(p, bytes) else str(p) for p in parts)
        where = f"{Path(filename).name} line {frame.f_lineno}" if frame is not None else "?"
        self.send("refused", text=f"started a program ({shown[:80]}) from {where}")
        raise PermissionError("grading does not allow a kata answer to start programs")

    def caller(self, frame: types.FrameType | None) -> types.FrameType | None:
        """The innermost caller outside the standard library, from the audited call's frame."""
        while frame is not None:
            if frame.f_code is _audited_fork_exec.__code__:  # the event's relay: its caller
                frame = frame.f_back
                continue
            filename = os.path.realpath(frame.f_code.co_filename)
            if not filename.startswith(LIBRARIES) or "-packages" in filename:
                break
            frame = frame.f_back
        return frame

    def compiler(self, filename: str) -> bool:
        """Is `filename` the code of one of torch's compilers (and not the answer's)?"""
        return any(part in Path(filename).parts for part in COMPILERS) and filename != self.stub

    def library(self, args: tuple, origin: types.FrameType) -> None:
        """A library loaded by path (one the answer may have written) only for torch's
        compilers, which load those they built; a bare name, or the program itself, is
        looked up by the loader where the system keeps its libraries."""
        name = args[0] if args else None
        if name is None or not isinstance(name, (str, bytes, os.PathLike)):
            return
        path = os.fsdecode(name)
        if "/" not in path:
            return
        frame = self.caller(origin)
        filename = os.path.realpath(frame.f_code.co_filename) if frame is not None else ""
        if self.compiler(filename):
            return
        where = f"{Path(filename).name} line {frame.f_lineno}" if frame is not None else "?"
        self.send("refused", text=f"loaded a native library ({path[:80]}) from {where}")
        raise PermissionError("grading does not allow a kata answer to load native libraries")

    def signal(self, event: str, args: tuple) -> None:
        """Signals go only to the test process and the processes it forked (its process
        group), never to its parent or to any other process."""
        target, number = (*args, None, None)[:2]
        if event == "signal.pthread_kill" or not isinstance(target, int):
            return
        own, group = os.getpid(), os.getpgrp()
        if event == "os.killpg":
            allowed = target == group
        else:
            try:
                allowed = target == own or (
                    target > 0 and target != group and os.getpgid(target) == group
                )
            except OSError:
                allowed = True  # no such process: nothing to protect
        if allowed or number == 0:
            return
        self.send("refused", text=f"sent signal {number} to process {target} (not its own)")
        raise PermissionError("grading does not allow a kata answer to signal other processes")


class BodiesRun:
    """A pytest plugin: a test that pytest's own `runtest` runs reaches pytest_pyfunc_call
    (which calls its body) before it can pass. An item whose `runtest` was replaced, on the
    item or its class, reports "passed" without it."""

    def __init__(self, note: Callable[[str], None], before: Callable[[Any], None] | None = None):
        self.note = note
        self.before = before  # the item's own checks, before its call
        self.called: object = None
        self.noted: set[str] = set()

    @hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_call(self, item: Any) -> Any:
        if self.before is not None:
            self.before(item)
        self.called = None
        result = yield  # an exception (a failure, a skip) ends the call here: nothing passed
        function = getattr(sys.modules.get("_pytest.python"), "Function", None)
        runs_body = getattr(function, "runtest", None)
        # Only pytest's own Function.runtest calls pytest_pyfunc_call (unittest's does not).
        plain = runs_body is not None and getattr(type(item), "runtest", None) is runs_body
        if plain and self.called is not item:
            text = "a test ran without its body (pytest_pyfunc_call was not reached)"
            if text not in self.noted:
                self.noted.add(text)
                self.note(text)
        return result

    @hookimpl(tryfirst=True)
    def pytest_pyfunc_call(self, pyfuncitem: Any) -> None:
        self.called = pyfuncitem


# A function's parts that say what it runs: assigning one keeps the function itself, and so
# every reference to it (pytest's hook lists, a test's helper, the recorder's methods).
FUNCTION_PARTS = ("__code__", "__defaults__", "__kwdefaults__")
# Audit events that make code from text or bytes.
MAKES_CODE = ("compile", "exec", "code.__new__", "marshal.loads")
# The evaluators of annotations given as strings (typing's ForwardRef and get_type_hints,
# inspect.get_annotations(eval_str=True), annotationlib on newer Pythons, typing_extensions'
# get_annotations): what they compile is an annotation, which an allowed API may take from an
# object's run-time `__annotations__` (singledispatch's register): it must be a type expression.
EVALUATORS = tuple(
    os.path.join(lib, name)
    for lib in LIBRARIES
    for name in ("typing.py", "inspect.py", "annotationlib.py")
) + tuple(
    os.path.realpath(spec.origin)
    for spec in [importlib.util.find_spec("typing_extensions")]
    if spec is not None and spec.origin
)
# dataclasses writes each field's name into the code of the methods it makes: the names must be
# identifiers (a class's `__annotations__` can be changed at run time).
DATACLASSES = tuple(os.path.join(lib, "dataclasses.py") for lib in LIBRARIES)
# What a pickle may name in the test process (pickle.find_class), beyond torch's own list for
# torch.load's weights_only mode: the functions torch rebuilds tensors and storages with
# (through a multiprocessing queue, or the plain pickle module), and the class protocol 0
# rebuilds objects with. Anything else a pickle names runs as a call the policy never read:
# `builtins.exec`, a launcher, a file store; reached from bytes handed to torch.load's full
# mode or to a library that unpickles.
UNPICKLED = {
    "copyreg._reconstructor",
    "torch.storage._load_from_bytes",
    # A DataLoader worker's batches, errors and messages.
    "multiprocessing.resource_sharer.DupFd",
    "torch._utils.ExceptionWrapper",
    "torch.utils.data._utils.worker._ResumeIteration",
}
UNPICKLED_MODULES = ("torch.multiprocessing.reductions",)


def allowed_globals() -> frozenset[str]:
    """torch's own list of what torch.load may unpickle in its weights_only mode."""
    try:
        from torch import _weights_only_unpickler

        return frozenset(_weights_only_unpickler._get_allowed_globals())
    except (ImportError, AttributeError):  # another torch: its list is not there
        return frozenset()


def unpickled(module: object, name: object, suite: str) -> str | None:
    """Why a pickle may not name `module.name` here, or None: torch's rebuild functions (its
    weights_only list, UNPICKLED), exceptions, and classes of torch.nn (a whole model) or of
    the suite's own modules (the tests' and the answer's, passed between a test and a process
    it forked), in modules already imported (unpickling imports nothing)."""
    if type(module) is not str or type(name) is not str:
        return "a name that is no text"
    dotted = f"{module}.{name}"
    if "." not in name and (dotted in UNPICKLED or dotted in allowed_globals()):
        return None
    if module not in sys.modules:
        return "a module not imported (unpickling would import it)"
    value = named_object(module, name)
    if value is None:
        return "no such name"
    # A dotted name is followed attribute by attribute (`torch.builtins.exec` from any module
    # that imports torch): it is only ever the own name of what it names, a class nested in
    # one of that module's (`Outer.Inner`), or a function a module of UNPICKLED_MODULES defines.
    own = (
        getattr(value, "__module__", None) == module
        and getattr(value, "__qualname__", None) == name
    )
    if "." in name and not own:
        return "a name reached through another object, not its own name in its module"
    if module in UNPICKLED_MODULES:
        return None if own and isinstance(value, types.FunctionType) else "not a rebuild function"
    if dotted in UNPICKLED or dotted in allowed_globals():
        return None
    if not isinstance(value, type):
        return "not a class nor one of torch's rebuild functions"
    if issubclass(value, BaseException):  # an error a forked process sends back
        return None
    nn = sys.modules.get("torch.nn")
    if nn is not None and issubclass(value, nn.Module) and value.__module__.startswith("torch.nn."):
        return None
    home = getattr(sys.modules.get(value.__module__), "__file__", None)
    if isinstance(home, str) and os.path.realpath(home).startswith(suite):
        return None
    return "a class of neither torch.nn nor the suite's own modules"


def named_object(module: str, name: str) -> object:
    """What a pickle's global `module.name` names, each part read as the namespace holds it
    (no property or __getattr__ runs), or None."""
    value: object = sys.modules.get(module)
    for part in name.split("."):
        try:
            value = inspect.getattr_static(value, part)
        except AttributeError:
            return None
    return value


def build_writable(value: object) -> bool:
    """Whether a pickle's BUILD writes into `value` itself: it has a namespace and no
    __setstate__, so BUILD's state sets its attributes (a class's, with setattr: no audit
    event says so). A class or function a pickle names is that object, not a new one."""
    try:
        vars(value)
    except TypeError:
        return False
    try:
        return getattr(value, "__setstate__", None) is None
    except Exception:
        return True


# What a type expression is made of: names, attributes, subscripts, constants, tuples and lists
# (Callable's arguments, *Ts), `|`, and a sign on a number (Literal[-1]).
TYPE_NODES = (
    ast.Expression,
    ast.Name,
    ast.Attribute,
    ast.Subscript,
    ast.Constant,
    ast.Tuple,
    ast.List,
    ast.Starred,
    ast.Load,
    ast.BinOp,
    ast.BitOr,
    ast.UnaryOp,
    ast.USub,
    ast.UAdd,
)


def type_expression(source: object) -> bool:
    """Whether `source` (text, bytes or an AST) is a type expression, or does not parse (then
    compiling it fails anyway)."""
    if isinstance(source, ast.AST):
        tree = source
    else:
        try:
            text = source if isinstance(source, str) else bytes(memoryview(source))  # type: ignore[arg-type]
            tree = ast.parse(text, mode="eval")
        except (SyntaxError, ValueError, TypeError):
            return True  # compile refuses it too
    for node in ast.walk(tree):
        if not isinstance(node, TYPE_NODES):
            return False
        if isinstance(node, ast.BinOp) and not isinstance(node.op, ast.BitOr):
            return False
        if isinstance(node, ast.UnaryOp) and not (
            isinstance(node.op, (ast.USub, ast.UAdd)) and isinstance(node.operand, ast.Constant)
        ):
            return False
    return True


def dataclass_fields(frame: types.FrameType | None) -> list[str]:
    """The field names of the class dataclasses is processing that are not identifiers."""
    while frame is not None:
        code = frame.f_code
        if code.co_name == "_process_class" and os.path.realpath(code.co_filename) in DATACLASSES:
            fields = frame.f_locals.get("fields")
            if not isinstance(fields, dict):
                return []
            names = list(
                dict.fromkeys([*fields, *(getattr(f, "name", "") for f in fields.values())])
            )
            return [
                ascii(n)[:40]
                for n in names
                if type(n) is not str or not str.isidentifier(n) or keyword.iskeyword(n)
            ]
        frame = frame.f_back
    return []


class CodeGuard:
    """An audit hook: functions keep what they run, and code is made only where the source
    says so.

    - An assignment to the code or defaults of a function made before the answer was
      imported, or before the collection ended (`protect`), is refused. torch._dynamo sets
      these on functions it makes while it compiles, which come later.
    - Code made (compile, exec, a code object built) from the candidate's files, or from code
      that has no file (made from a string at run time: torch.fx's generated code running an
      injected expression, an annotation typing evaluates), is refused: the policy reads the
      source, and such code is not in it. Python's importer (`<frozen ...>`) has no file either.
    - An annotation the standard library compiles (EVALUATORS) that is not a type expression
      (a call, a lambda, a comprehension...) is refused, and so are the methods dataclasses
      makes for a field whose name is not an identifier: both take strings an answer can set
      at run time, and the code is made from a library's file.
    - A pickle names only torch's rebuild functions and the classes of a model or of the
      suite's own modules (`unpickled`): what else it names, it calls with arguments no policy
      read, from bytes the answer may have chosen.
    """

    def __init__(self, folder: Path, send: Send):
        self.folder = os.path.realpath(folder) + os.sep
        self.suite = os.path.realpath(Path(folder).parent) + os.sep
        self.functions: dict[int, types.FunctionType] = {}  # by id, kept: no id is reused
        self.places: dict[str, bool] = {}  # file name -> whether it makes no code
        self.armed = False
        self.send = send
        self.refused = 0
        # What a pickle named that BUILD could write into (a class or a function: the object
        # itself, not a new one), with its namespace then, by id: kept, so no id is reused.
        self.named: dict[int, tuple[str, object, dict]] = {}

    def protect(self) -> None:
        """Every function there is now."""
        function = types.FunctionType
        self.functions.update({id(f): f for f in gc.get_objects() if type(f) is function})

    def __call__(self, event: str, args: tuple) -> None:
        if not self.armed:
            return
        if event == "object.__setattr__":
            target = args[0] if args else None
            if len(args) > 1 and args[1] in FUNCTION_PARTS and self.protected(target):
                module = getattr(target, "__module__", None)
                qualname = getattr(target, "__qualname__", "?")
                name = f"{module}.{qualname}" if type(module) is str else "?"
                self.refuse(f"changed the {args[1]} of {name[:100]}, a function it did not make")
        elif event in MAKES_CODE:
            frame = sys._getframe(1)
            filename = frame.f_code.co_filename
            where = f"{Path(filename).name[:60]} line {frame.f_lineno}"
            if self.makes_no_code(filename):
                self.refuse(f"made code at run time ({event} from {where})")
            if event != "compile":
                return
            place = os.path.realpath(filename)
            if place in EVALUATORS and not type_expression(args[0] if args else None):
                shown = ascii(args[0])[:80]
                self.refuse(f"evaluated an annotation that is not a type ({shown} from {where})")
            elif place in DATACLASSES:
                names = dataclass_fields(frame)
                if names:
                    shown = ", ".join(names[:3])
                    self.refuse(f"made a dataclass with fields that are not names ({shown})")
        elif event == "pickle.find_class":
            module, name = (*args, None, None)[:2]
            why = unpickled(module, name, self.suite)
            if why is not None:
                self.refuse(f"unpickled {ascii(module)[:60]}.{ascii(name)[:60]} ({why})")
            self.name(f"{module}.{name}", named_object(module, name))

    def name(self, label: str, value: object) -> None:
        """Keep the namespace of what a pickle named, where its BUILD could write into it."""
        if id(value) not in self.named and build_writable(value):
            self.named[id(value)] = (label, value, dict(vars(value)))

    def named_changes(self) -> list[str]:
        """What a pickle named whose attributes were since added, replaced or deleted: a
        BUILD of the bytes (its state set on the class or function itself), which no audit
        event reports and no policy read."""
        found = []
        for label, value, before in self.named.values():
            now = vars(value)
            changed = sorted(
                {k for k in before.keys() ^ now.keys()}
                | {k for k in before.keys() & now.keys() if before[k] is not now[k]},
                key=str,
            )
            if changed:
                shown = ", ".join(ascii(k)[:40] for k in changed[:3])
                found.append(f"{label[:100]}, which a pickle named, was changed ({shown})")
        return found[:10]

    def protected(self, function: object) -> bool:
        return self.functions.get(id(function)) is function

    def makes_no_code(self, filename: str) -> bool:
        known = self.places.get(filename)
        if known is None:
            if filename.startswith("<"):
                known = not filename.startswith("<frozen ")
            else:
                known = os.path.realpath(filename).startswith(self.folder)
            self.places[filename] = known
        return known

    def refuse(self, text: str) -> None:
        self.refused += 1
        if self.refused <= 20:
            self.send("refused", text=text)
        raise PermissionError("grading does not allow this: " + text)


# What the state guard reports as restored that is a setting (the tests themselves change
# the default dtype, for one), not a replaced function.
def settings_names() -> set[str]:
    try:
        from torch_katas.runtime import isolation
    except ImportError:  # pragma: no cover - the harness is always there
        return set()
    return {setting.name for setting in isolation.SETTINGS}


def how_changed(name: str) -> str:
    """A registry (global hooks, autocast, a mode stack) is left changed; a name, replaced."""
    from torch_katas.runtime import isolation

    registry = any(name == registry.name for registry in isolation.REGISTRIES)
    return f"{name[:100]} {'was left changed' if registry else 'was replaced'}"


@dataclass(frozen=True)
class Phase:
    """A phase's report as pytest's runner made it: which test and phase, what it raised."""

    report: Any
    nodeid: str
    when: str
    raised: type | None


class Results:
    """The pytest plugin of the grading child: sends each test's report, and tamper checks.

    A report's outcome is sent only where the recorder can vouch for it: a makereport wrapper
    that runs before every other (pytest's skipping plugin and the kata plugin rewrite reports
    after it) records each phase's test, phase and what its call raised, with the report
    made; the report's own fields are read from its instance dict through pytest's class,
    never through attribute lookup on the object (its class can be swapped for one whose
    `outcome` says anything). A report of another class than pytest's TestReport, one that
    says passed where its phase raised, skipped where it raised no skip, or xfail where the
    test has no xfail marker, is tampering, and is sent as failed; one the runner did not make
    is tampering, and is not sent.
    """

    def __init__(
        self,
        kata: str,
        send: Send,
        guard: Guard,
        processes: ProcessGuard,
        code: CodeGuard | None = None,
    ):
        self.kata = kata
        self.send = send
        self.guard = guard
        self.processes = processes
        self.code = code
        self.settings: set[str] = set()
        self.codes: dict[str, object] = {}  # each test's code object, as collected
        self.watch: Watch | None = None
        self.collect_errors: list[str] = []
        self.tampering: list[str] = []
        self.devices: list[str] = []
        self.autoloaded: list[str] = []  # plugins pytest loaded from installed packages
        self.stub_imported = False
        self.finished = False  # the session ended, with its last tamper check
        self.phases: dict[int, Phase] = {}  # the reports made, by id, till they are logged
        self.nodeids: dict[int, str] = {}  # each test item's node id, by id, as collected
        self.xfail_marked: frozenset[str] = frozenset()  # tests with an xfail marker
        # pytest's report class, the instance dict's descriptor, the exceptions that skip
        self.pytest_types: tuple[type, Any, tuple[type, ...]] | None = None

    def pytest_collection(self, session: Any) -> None:
        # The harness is loaded and the candidate's module not yet imported.
        from torch_katas import devices

        self.devices = devices.from_config(session.config)
        manager = session.config.pluginmanager
        self.autoloaded = sorted({dist.project_name for _, dist in manager.list_plugin_distinfo()})
        self.pytest_types = pytest_types()
        self.watch = Watch(session.config, self)
        self.settings = settings_names()
        self.guard.armed = True
        self.processes.armed = True
        if self.code is not None:
            self.code.protect()
            self.code.armed = True

    def check(self, contents: bool = False) -> None:
        """The tamper checks; with `contents`, the functions' contents too (tens of
        milliseconds: after the collection and at the end, not after each test)."""
        if self.watch is None:
            return
        for change in self.watch.changes():
            self.note(change)
        for change in self.watch.contents.changes() if contents else ():
            self.note(change)

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            self.collect_errors.append(first_line(report) or "collection failed")

    def pytest_internalerror(self, excrepr: Any, excinfo: Any) -> None:
        # A SystemExit raised while the stub is imported ends pytest's run here.
        self.collect_errors.append(f"{excinfo.typename}: {excinfo.value}"[:FAILURE_LINE])

    def pytest_collection_finish(self, session: Any) -> None:
        self.stub_imported = f"katas.{self.kata}" in sys.modules
        self.nodeids = {id(item): item.nodeid for item in session.items}
        self.xfail_marked = frozenset(
            item.nodeid for item in session.items if item.get_closest_marker("xfail")
        )
        # The functions made while collecting (the tests' helpers, torch's modules imported
        # since) keep what they run too; and what the checks compare by content.
        if self.code is not None:
            self.code.protect()
        if self.watch is not None:
            self.watch.contents.add_modules()
        # What the stub changed at import: the state guard put it back, which hid it from
        # the checks below; a replaced function or class attribute is tampering all the same.
        from torch_katas.runtime.answers import import_changes

        for name in import_changes(self.kata):
            if name not in self.settings:
                self.note(f"{how_changed(name)} while the stub was imported (put back)")
        # Each test's code, as collected: it must be the test file's own, and stay the same.
        for item in session.items:
            code = getattr(getattr(item, "obj", None), "__code__", None)
            if code is None:
                continue
            self.codes[item.nodeid] = code
            if not own_code(code, str(item.path)):
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
            if not own_code(code, path):
                self.note(
                    f"the code of {name} is not its test file's "
                    f"(it comes from {Path(code.co_filename).name})"
                )
        if self.watch is not None:
            self.watch.instances = Instances(session, self)
        self.check(contents=True)

    def pytest_runtest_setup(self, item: Any) -> None:
        code = getattr(getattr(item, "obj", None), "__code__", None)
        if item.nodeid in self.codes and code is not self.codes[item.nodeid]:
            self.note(f"the code of {item.originalname} was replaced after collection")

    def item_changes(self, item: Any) -> None:
        """The item's own state, as collected, before its test runs (BodiesRun)."""
        instances = self.watch.instances if self.watch is not None else None
        for change in instances.item_changes(item) if instances is not None else []:
            self.note(change)

    def note(self, change: str) -> None:
        """Tampering, sent to the grader at once (each change once, at most 50)."""
        if change not in self.tampering and len(self.tampering) < 50:
            self.tampering.append(change)
            (self.watch.send if self.watch is not None else self.send)("tampering", text=change)

    @hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_makereport(self, item: Any, call: Any) -> Any:
        # Read before any other implementation runs: which test and phase, what it raised.
        nodeid = self.nodeids.get(id(item), item.nodeid)
        when, excinfo = call.when, call.excinfo
        raised = None if excinfo is None else type(excinfo.value)
        report = yield
        self.phases[id(report)] = Phase(report, str(nodeid), str(when), raised)
        return report

    def pytest_runtest_logreport(self, report: Any) -> None:
        # Each phase's report goes to the grader as it is made; the grader merges them.
        phase = self.phases.pop(id(report), None)
        if phase is None or phase.report is not report:
            self.note("a test report that pytest's runner did not make was logged")
            return
        outcome, state = self.vouched(phase)
        properties = dict(state.get("user_properties") or ())
        try:
            duration = round(float(state.get("duration", 0.0)), 3)
        except (TypeError, ValueError):
            duration = 0.0
        self.send(
            "report",
            nodeid=phase.nodeid,
            when=phase.when,
            outcome=outcome,
            # The failure's one line as the plugin recorded it (status.MESSAGE), not its text.
            message=status.message_of(report, properties)[:FAILURE_LINE]
            if outcome != "passed"
            else "",
            not_implemented=status.NOT_IMPLEMENTED in properties,
            # The harness stood in for a stub that failed to import: the kata is an error.
            does_not_import=str(properties.get(status.DOES_NOT_IMPORT, ""))[:FAILURE_LINE],
            duration=duration,
        )
        if phase.when == "teardown":
            self.restored(phase.nodeid, properties.get(status.RESTORED))
            self.check()

    def vouched(self, phase: Phase) -> tuple[str, dict]:
        """The outcome the recorder sends for a phase's report, and the report's own fields
        (its instance dict, read through pytest's class)."""
        if self.pytest_types is None:
            self.pytest_types = pytest_types()
        report_type, instance_dict, skips = self.pytest_types
        report, raised = phase.report, phase.raised
        try:
            state = instance_dict.__get__(report)
        except TypeError:  # not a report at all
            state = {}
        outcome = state.get("outcome")
        which = f"the report of {phase.nodeid.split('::', 1)[-1][:80]} ({phase.when[:10]})"
        if type(report) is not report_type:
            kind = f"{type(report).__module__}.{type(report).__qualname__}"[-80:]
            self.note(f"{which} is a {kind}, not pytest's TestReport")
            outcome = "failed"
        marked = phase.nodeid in self.xfail_marked
        skip = raised is not None and (issubclass(raised, skips) or marked)
        xfail = marked or (raised is not None and issubclass(raised, skips[1]))
        if "wasxfail" in state and not xfail:
            self.note(f"{which} says xfail, but the test has no xfail marker")
            outcome = "failed"
        if outcome == "passed" and raised is not None:
            self.note(f"{which} says passed, but its phase raised {raised.__name__[:60]}")
            outcome = "failed"
        elif outcome == "skipped" and not skip:
            self.note(f"{which} says skipped, but its phase raised no skip")
            outcome = "failed"
        elif outcome not in ("passed", "failed", "skipped"):
            self.note(f"{which} has the outcome {ascii(outcome)[:40]}")
            outcome = "failed"
        return str(outcome), state

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
            self.note(f"{how_changed(str(name))} during {test[:100]} (the state guard put it back)")

    def pytest_sessionfinish(self, session: Any) -> None:
        # The last look, before the harness puts back the settings it changed for the run.
        self.check(contents=True)
        self.finished = True

    def end(self, exit_code: int) -> None:
        """The last message: how the run ended."""
        if not self.finished:
            self.check(contents=True)
        self.send(
            "end",
            version=VERSION,
            kata=self.kata,
            exit_code=exit_code,
            devices=self.devices,
            stub_imported=self.stub_imported,
            collect_errors=self.collect_errors,
            autoloaded_plugins=self.autoloaded,
        )


def pytest_types() -> tuple[type, Any, tuple[type, ...]]:
    """pytest's TestReport, the descriptor of its instances' dict (BaseReport's), and the
    exceptions that skip a phase (XFailed second): taken before the candidate's code runs."""
    import unittest

    from _pytest import outcomes, reports

    owner = next(c for c in reports.TestReport.__mro__ if "__dict__" in vars(c))
    skips = (outcomes.Skipped, outcomes.XFailed, unittest.SkipTest)
    return reports.TestReport, vars(owner)["__dict__"], skips


def sender(descriptor: int, token: str) -> Send:
    """send(event, **fields): one JSON line with the token and the message's number, written
    whole to `descriptor`.

    Made, like its encoder, of C functions taken here, before the candidate's code runs
    (os.write, json's C string quoting, int's and float's repr): a module global rebound or
    the code of a Python function replaced later (json.dumps's) changes nothing it calls. Its
    own parts are watched (`Watch`), and the grader numbers the messages it reads: one left
    out is missed. A forked process's messages go unnumbered (null), outside the count.
    """
    write, getpid, numbers, step = os.write, os.getpid, itertools.count(), next
    quote, comma, text, kind_of = _json.encode_basestring_ascii, ", ".join, str, type
    number_repr, float_repr, items = int.__repr__, float.__repr__, dict.items
    pid = getpid()

    def encode(value: Any) -> str:
        kind = kind_of(value)
        if kind is str:
            return quote(value)
        if value is None or kind is bool:
            return "null" if value is None else "true" if value else "false"
        if kind is int:
            return number_repr(value)
        if kind is float:  # not finite: null, as the schema has no such number
            return float_repr(value) if value - value == 0 else "null"
        if kind is dict:
            return "{" + comma([quote(text(k)) + ": " + encode(v) for k, v in items(value)]) + "}"
        if kind is list or kind is tuple:
            return "[" + comma([encode(v) for v in value]) + "]"
        return quote(text(value))

    def send(event: str, **fields: object) -> None:
        seq = step(numbers) if getpid() == pid else None
        message = {"token": token, "seq": seq, "event": event, **fields}
        data = (encode(message) + "\n").encode()
        while data:
            data = data[write(descriptor, data) :]

    return send


def function_parts(function: object, depth: int = 0) -> list[object]:
    """What a function runs: its code, defaults and globals, what its closure holds, and the
    same of each function held there (the sender's encoder)."""
    found: list[object] = [
        getattr(function, name, None)
        for name in ("__code__", "__defaults__", "__kwdefaults__", "__globals__")
    ]
    for held in cells(function):
        found.append(held)
        if depth < 3 and isinstance(held, types.FunctionType):
            found += function_parts(held, depth + 1)
    return found


PR_SET_DUMPABLE = 4


def undumpable() -> bool:
    """No other process of the same user may attach to this one (ptrace: gdb -p, reading its
    memory), whether or not the kernel's Yama restricts ptrace: a compiler torch starts, or a
    program it runs, could otherwise rewrite the test process. Forks keep it; a program
    exec'd does not."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def main() -> None:
    # Bound before anything else runs: the candidate's code cannot swap these for us.
    exit_now = os._exit
    undumpable()
    results, kata, *rest = sys.argv[1:]
    args = rest[rest.index("--") + 1 :]
    # On stdin, so that neither shows in this process's command line: the secret that marks
    # genuine results, and the paths the candidate's code may not read.
    token = sys.stdin.readline().strip()
    send = sender(int(results), token)
    forbidden = sys.stdin.readline()
    allowed = [Path(p).resolve() for p in {sys.prefix, sys.base_prefix, sys.exec_prefix}]
    allowed += [Path(p).resolve() for p in sys.path if p and "site-packages" in p]
    # The kata's own folder: its copy of the suite (the working directory) and scratch space.
    place = Path.cwd().resolve().parent
    forbidden_paths = [Path(p) for p in json.loads(forbidden)]
    guard = Guard(place, forbidden_paths, allowed, send, read_only=Path.cwd().resolve())
    sys.addaudithook(guard)
    processes = ProcessGuard(Path.cwd() / "katas" / f"{kata}.py", send)
    audited_starts()
    sys.addaudithook(processes)
    code_guard = CodeGuard(Path.cwd() / "katas", send)
    sys.addaudithook(code_guard)
    recorder = Results(kata, send, guard, processes, code_guard)
    end = Results.end  # the class's, not whatever the instance holds by then
    import pytest

    try:
        bodies = BodiesRun(recorder.note, before=recorder.item_changes)
        code = int(pytest.main(args, plugins=[recorder, bodies]))
    except BaseException as error:  # a SystemExit or worse that escaped pytest itself
        code = 3
        recorder.collect_errors.append(f"the run ended with {type(error).__name__}: {error}")
    end(recorder, code)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    exit_now(0)
