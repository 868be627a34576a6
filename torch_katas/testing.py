"""Helpers for kata tests: clear checks of results, and the rules a kata can impose.

Every helper fails with a message that tells the learner what to change.
"""

from __future__ import annotations

import ast
import functools
import inspect
import linecache
import operator
import random
import sys
import textwrap
import threading
import types
import warnings
import weakref
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
import pytest
import torch
from torch.overrides import TorchFunctionMode, _get_current_function_mode_stack
from torch.utils._device import DeviceContext
from torch.utils._python_dispatch import TorchDispatchMode

from torch_katas import devices
from torch_katas.devices import sim
from torch_katas.runtime import isolation
from torch_katas.runtime.timelimit import WATCHDOG
from torch_katas.source_names import (
    constant_tables,
    dtype_name_start,
    literal_strings,
    loop_literals,
    methods_selves,
    public_start,
)
from torch_katas.text import plural  # messages with counts: "1 sample", "2 samples"

__all__ = [
    "assert_all_close",
    "assert_close",
    "assert_downloads_block",
    "assert_no_python_loops",
    "assert_no_torch_internals",
    "assert_work_does_not_grow",
    "built_from",
    "check_array",
    "check_tensor",
    "collect_garbage",
    "compiled_deterministic",
    "computations_reading",
    "copies_seen",
    "deepest_nesting",
    "default_dtype",
    "dispatch_mode",
    "dyadic",
    "every_dtype",
    "forbidden_calls",
    "forbidden_modules",
    "forbidden_ops",
    "harness_reads_source",
    "hooks_left",
    "largest_result",
    "marked_graph",
    "own_methods",
    "plural",
    "raises",
    "reading_source",
    "same_device",
    "saved_tensors_hooks_left",
    "seed_for",
    "settings_kept",
    "settings_put_back",
    "settings_switched",
    "skip_control_flow_on_sim",
    "skip_unless_supported",
    "skip_without_float64",
    "storage_freed",
    "written_arguments",
]


def check_tensor(
    actual: object,
    *,
    shape: tuple[int, ...] | torch.Size | None = None,
    dtype: torch.dtype | None = None,
    device: torch.device | str | None = None,
    name: str = "the result",
    subclasses: tuple[type, ...] = (),
) -> None:
    """Assert that `actual` is a tensor with the given shape, dtype and device.

    It must be a plain tensor (or an nn.Parameter): a subclass of torch.Tensor can make any
    check agree with it, so one is refused unless the kata's contract names it in
    `subclasses`.
    """
    assert isinstance(actual, torch.Tensor), (
        f"{name} should be a torch.Tensor, got {type(actual).__name__}"
    )
    _refuse_subclass(actual, name, subclasses)
    if shape is not None:
        assert tuple(actual.shape) == tuple(shape), (
            f"{name} should have shape {tuple(shape)}, got {tuple(actual.shape)}"
        )
    if dtype is not None:
        assert actual.dtype == dtype, f"{name} should have dtype {dtype}, got {actual.dtype}"
    if device is not None:
        assert same_device(actual.device, device), (
            f"{name} should be on {torch.device(device)} (where the inputs are), "
            f"got {actual.device}; create new tensors with device=... or .to(...)"
        )


def check_array(actual: object, *, name: str = "the result") -> None:
    """Assert that `actual` is a plain NumPy array (np.ndarray itself, not a subclass).

    A subclass of np.ndarray changes what comparisons see: np.testing skips the masked
    elements of a masked array (`np.ma`), so one with every element masked equals any array.
    """
    assert isinstance(actual, np.ndarray), (
        f"{name} should be a NumPy array, got {type(actual).__name__}"
    )
    _refuse_array_subclass(actual, name)


def _refuse_array_subclass(value: np.ndarray, name: str) -> None:
    kind = type(value)
    if kind is not np.ndarray:
        raise AssertionError(
            f"{name} is a {kind.__module__}.{kind.__qualname__}, a subclass of numpy.ndarray; "
            "return a plain array (np.ndarray): a subclass such as a masked array changes how "
            "every comparison of it turns out"
        )


# What a tensor result may be: a tensor, a parameter, or a tensor on the simulated device
# (whose tensors are a wrapper class of the harness).
_PLAIN_TYPES = (torch.Tensor, torch.nn.Parameter, sim.SimTensor)


def _refuse_subclass(value: object, name: str, allowed: tuple[type, ...] = ()) -> None:
    # nn.Parameter is a metaclass check: a parameter of a simulated tensor is a SimTensor.
    kind = type(value)
    if kind in _PLAIN_TYPES or kind in allowed:
        return
    raise AssertionError(
        f"{name} is a {kind.__module__}.{kind.__qualname__}, a subclass of torch.Tensor; "
        "return plain tensors (torch.Tensor, or nn.Parameter where the kata returns "
        "parameters): a subclass can change how every comparison of it turns out"
    )


def _refuse_subclasses(value: object, name: str, depth: int = 0) -> None:
    """Refuse a tensor or array subclass in `value` or in the lists, tuples and dicts it holds."""
    if isinstance(value, torch.Tensor):
        _refuse_subclass(value, name)
    elif isinstance(value, np.ndarray):
        _refuse_array_subclass(value, name)
    elif depth < 4 and isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _refuse_subclasses(item, f"{name}[{index}]", depth + 1)
    elif depth < 4 and isinstance(value, dict):
        for key, item in value.items():
            _refuse_subclasses(item, f"{name}[{key!r}]", depth + 1)


def same_device(actual: torch.device | str, expected: torch.device | str) -> bool:
    """True when both name the same device; `cuda` and `cuda:0` count as the same."""
    actual, expected = torch.device(actual), torch.device(expected)
    if actual.type != expected.type:
        return False
    return actual.index is None or expected.index is None or actual.index == expected.index


def assert_close(
    actual: object, expected: object, advice: str | None = None, **options: Any
) -> None:
    """`torch.testing.assert_close` with advice for the learner above torch's own report.

    The advice says what to change; torch's report (which elements differ, by how much)
    always follows it, so the numbers are never lost. `options` go to torch as they are
    (rtol, atol, check_dtype, ...). Tensor subclasses are refused (as by check_tensor).
    """
    _refuse_subclasses(actual, "the result")
    _refuse_subclasses(expected, "the expected value")
    if (
        isinstance(actual, torch.Tensor)
        and isinstance(expected, torch.Tensor)
        and _on_one_accelerator(actual, expected)
        and not options.keys() & _CHANGE_CHECKS
    ):
        # The values compare the same anywhere, and the comparison's dozen small ops run
        # fastest on the CPU (on the simulated device each pays the wrapper's cost).
        actual, expected = actual.cpu(), expected.cpu()
    if advice is None:
        torch.testing.assert_close(actual, expected, **options)
    else:
        torch.testing.assert_close(
            actual, expected, msg=lambda report: f"{advice}\n{report}", **options
        )


# Options whose checks would see the copies rather than the tensors given.
_CHANGE_CHECKS = {"check_device", "allow_subclasses"}


def assert_all_close(checks: Iterable[tuple[object, object, str]], **options: Any) -> None:
    """`assert_close` of many (actual, expected, advice) at about the cost of one.

    The values are compared in one go; only when something differs are they compared one by
    one, so that the first that differs fails with its own advice. `options` go to each
    comparison (rtol, atol).

    >>> assert_all_close((p, q, f"{name} differs") for name, p, q in triples)
    """
    checks = list(checks)
    if not _close_in_one_go(checks, options):
        for actual, expected, advice in checks:
            assert_close(actual, expected, advice, **options)


def _close_in_one_go(checks: list[tuple[object, object, str]], options: dict[str, Any]) -> bool:
    """True when every pair is of plain tensors alike in shape, dtype (one for all) and
    device, and all their values are close: then each comparison alone passes too."""
    if not checks or options.keys() - {"rtol", "atol"}:
        return False
    dtype = getattr(checks[0][0], "dtype", None)
    actuals, expecteds = [], []
    for actual, expected, _ in checks:
        if not (
            type(actual) in _PLAIN_TYPES
            and type(expected) in _PLAIN_TYPES
            and isinstance(actual, torch.Tensor)
            and isinstance(expected, torch.Tensor)
            and actual.layout == expected.layout == torch.strided
            and actual.dtype == expected.dtype == dtype
            and actual.shape == expected.shape
            and actual.device == expected.device
        ):
            return False
        actuals.append(actual.detach().reshape(-1).cpu())
        expecteds.append(expected.detach().reshape(-1).cpu())
    try:
        torch.testing.assert_close(torch.cat(actuals), torch.cat(expecteds), **options)
    except AssertionError:
        return False
    return True


def _on_one_accelerator(actual: torch.Tensor, expected: torch.Tensor) -> bool:
    return actual.device == expected.device and actual.device.type not in ("cpu", "meta")


def skip_unless_supported(device: torch.device | str, dtype: torch.dtype) -> None:
    """Skip the test when `device` has no `dtype` (MPS has no float64)."""
    if dtype in devices.missing_dtypes(device):
        kind = torch.device(device).type
        pytest.skip(f"{kind} has no {dtype}; this check runs on the other devices")


def skip_without_float64(device: torch.device | str) -> None:
    """Skip a float64 check on a device without float64 (MPS)."""
    skip_unless_supported(device, torch.float64)


# torch's control-flow operators: even called eagerly they trace their branches with
# Dynamo, whose fake tensors cannot stand for a tensor subclass such as `sim`'s tensors.
_CONTROL_FLOW = tuple((torch, name) for name in ("cond", "while_loop", "scan", "map"))
_USES_CONTROL_FLOW: dict[Callable, bool] = {}


def skip_control_flow_on_sim(device: torch.device | str, func: Callable, *cpu_args: Any) -> None:
    """Skip the test on the simulated device when `func(*cpu_args)`, run once on the CPU,
    calls torch.cond (or torch.while_loop): the simulated device cannot run them, so such
    an answer is checked on the CPU and CUDA only."""
    if torch.device(device).type != sim.NAME:
        return
    if func not in _USES_CONTROL_FLOW:
        refused = "torch's control flow, which the simulated device cannot run"
        try:
            with forbidden_calls(*_CONTROL_FLOW, reason=refused):
                func(*cpu_args)
            _USES_CONTROL_FLOW[func] = False
        except AssertionError as error:
            _USES_CONTROL_FLOW[func] = refused in str(error)
        except Exception:  # the test itself shows the answer's error
            _USES_CONTROL_FLOW[func] = False
    if _USES_CONTROL_FLOW[func]:
        pytest.skip(
            "the answer calls torch.cond or torch.while_loop, which trace their branches with "
            "Dynamo even eagerly, and its fake tensors cannot stand for the simulated "
            "device's tensors: checked on the CPU and CUDA only"
        )


# Where torch's builtins are spelled in its public API (their __module__ is internal).
_PUBLIC_MODULES = {
    "torch._C._nn": "torch.nn.functional",
    "torch._C._special": "torch.special",
    "torch._C._linalg": "torch.linalg",
    "torch._C._fft": "torch.fft",
    "torch._C._VariableFunctions": "torch",
    "torch.functional": "torch",
}


def _public_name(func: Callable) -> str:
    """`torch.nn.functional.gelu`, `Tensor.logsumexp`: the name a learner would write.

    (torch.overrides.resolve_name builds a table of all of torch on first use: seconds.)
    """
    name = getattr(func, "__name__", repr(func))
    owner = getattr(func, "__qualname__", name).rpartition(".")[0]
    if owner in ("Tensor", "TensorBase", "_TensorBase"):
        return f"Tensor.{name}"
    module = getattr(func, "__module__", None) or "torch"
    public = _PUBLIC_MODULES.get(module, module)
    if public == "torch.special":
        name = name.removeprefix("special_")
    return f"{public}.{name}"


class _ForbidOps(TorchFunctionMode):
    """The friendly layer: sees the Python spelling (`F.cross_entropy`, `x.logsumexp()`)."""

    def __init__(self, names: set[str], reason: str, refused: list[str]):
        super().__init__()
        self.names = names
        self.reason = reason
        self.refused = refused

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        name = getattr(func, "__name__", None)
        if name in self.names:
            called = _public_name(func)
            _refuse(
                self.refused, f"your code called {called}, which this kata forbids: {self.reason}"
            )
        if name in _LEAVING_TORCH:
            _refuse(
                self.refused,
                f"your code took a tensor's data out of torch (Tensor.{name}), which this kata "
                "forbids while its rule is checked: a forbidden op has twins outside torch "
                f"(np.logaddexp, scipy.special), and those are forbidden too: {self.reason}",
            )
        return func(*args, **(kwargs or {}))


def _refuse(refused: list[str], message: str) -> NoReturn:
    """Fail the call, and keep the failure for the end of the rule's block: code that catches
    the AssertionError (`try: F.batch_norm(...) except AssertionError: ...`) and goes on
    still fails the rule, as forbidden_calls' watchers do."""
    refused.append(message)
    raise AssertionError(message)


# The ways tensor data leaves torch for another library (`.numpy()`, `np.asarray(t)`,
# `np.from_dlpack(t)`), where a forbidden op's twin would compute it out of the rule's sight.
_LEAVING_TORCH = {"numpy", "__array__", "__dlpack__"}


class _ForbidAtenOps(TorchDispatchMode):
    """The layer below: sees every aten op however Python reached it (`torch._C`, `torch.ops`,
    private aliases, with torch function modes disabled)."""

    def __init__(self, names: set[str], spelled: str, reason: str, refused: list[str]):
        super().__init__()
        self.names = names
        self.spelled = spelled
        self.reason = reason
        self.refused = refused

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        # Otherwise torch wraps __torch_dispatch__ in torch._dynamo.disable, which imports
        # torch._dynamo on first use (seconds); what Dynamo does under it is forgotten at the
        # block's end (_compiled_code_forgotten).
        return False

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        if func.overloadpacket.__name__ in self.names:
            _refuse(
                self.refused,
                f"your code computed aten.{func.overloadpacket.__name__}, the operator behind "
                f"{self.spelled}, which this kata forbids however it is reached: {self.reason}",
            )
        return func(*args, **(kwargs or {}))


# The constructors that read Python data (numbers, nested lists) with the argument that
# holds it; the class of torch's internal assert below.
_DATA_CREATIONS = {"tensor": "data", "as_tensor": "data", "asarray": "obj", "new_tensor": "data"}


class _DataOntoPythonDevice(TorchFunctionMode):
    """Under a TorchDispatchMode, `torch.tensor(data, device=...)` (and torch.as_tensor,
    torch.asarray, Tensor.new_tensor: every constructor that reads Python data) onto a
    device written in Python (the simulated one) fails inside torch's C++ (an internal
    assert): such tensors are built on the CPU and moved, as torch itself does for a CUDA
    device. Entered outside every dispatch mode here, so correct code that builds tensors
    from data passes. Without device=, the device is torch's current default (`with
    torch.device(...)`), which may be the simulated one too."""

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = dict(kwargs or {})
        name = getattr(func, "__name__", None)
        if name in _DATA_CREATIONS:
            target = kwargs.get("device")
            if name == "new_tensor" and target is None and args:
                target = getattr(args[0], "device", None)
            elif target is None:
                target = _default_device()
            position = 1 if name == "new_tensor" else 0  # new_tensor's self comes first
            data = args[position] if len(args) > position else kwargs.get(_DATA_CREATIONS[name])
            # A tensor passed to as_tensor/asarray is moved by .to, which works; asarray's
            # copy=False forbids the copy a move makes, so torch gives its own verdict there.
            moved = not (
                name in ("as_tensor", "asarray") and isinstance(data, torch.Tensor)
            ) and not (name == "asarray" and kwargs.get("copy") is False)
            if moved and _on_python_device(target):
                requires_grad = kwargs.pop("requires_grad", False)
                kwargs["device"] = "cpu"
                out = func(*args, **kwargs).to(target)
                return out.requires_grad_() if requires_grad else out
        return func(*args, **kwargs)


def _default_device() -> torch.device | None:
    """The device of the innermost `with torch.device(...)`, if any. Not
    torch.get_default_device(), which builds a tensor to learn the index and so meets the
    very assert it is asked about."""
    for mode in reversed(_get_current_function_mode_stack()):
        if isinstance(mode, DeviceContext):
            return mode.device
    return None


def _on_python_device(device: object) -> bool:
    if device is None:
        return False
    try:
        kind = torch.device(device).type  # type: ignore[call-overload]
    except (RuntimeError, TypeError):
        return False
    return kind == torch._C._get_privateuse1_backend_name() != "privateuseone"


@contextmanager
def _dispatch_mode(mode: TorchDispatchMode) -> Iterator[Any]:
    with _compiled_code_forgotten(), _DataOntoPythonDevice(), mode as entered:
        yield entered


@contextmanager
def _compiled_code_forgotten() -> Iterator[None]:
    """Dynamo skips a compiled function called under a dispatch mode (torch.cond and its
    kin compile even when run eagerly) and remembers that skip with no guard on the mode:
    every later call would run the function unwatched and uncompiled, or break. So what it
    cached is dropped at the block's end (Dynamo imported, something compiled or not)."""
    try:
        yield
    finally:
        if "torch._dynamo" in sys.modules:
            torch.compiler.reset()


def _cpu_time(native_id: int | None) -> int | None:
    """Nanoseconds a thread of this process has run (Linux), or None where unknown."""
    if native_id is None:
        return None
    try:
        with open(f"/proc/self/task/{native_id}/schedstat", encoding="ascii") as file:
            return int(file.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


@contextmanager
def _this_thread_only(reason: str) -> Iterator[None]:
    """The rules watch the calling thread: inside the block, code that runs on any other
    thread (one started in the block, or one that already existed and did any work) fails
    the rule, once the block ends without an error of its own."""
    me = threading.get_ident()
    # The time limits' watchdog is the harness's own: it wakes now and then to look at its
    # deadlines, whatever code runs.
    others = [
        thread
        for thread in threading.enumerate()
        if thread.ident != me and thread is not WATCHDOG.thread
    ]
    before = {thread: _cpu_time(thread.native_id) for thread in others}
    started: list[str] = []
    hook = threading.getprofile()

    def first_event(frame: types.FrameType, event: str, arg: object) -> None:
        started.append(threading.current_thread().name)
        sys.setprofile(hook)  # the thread goes on as it would have

    threading.setprofile(first_event)
    try:
        yield
    finally:
        threading.setprofile(hook)
    worked = [
        thread.name
        for thread, then in before.items()
        if then is not None and (now := _cpu_time(thread.native_id)) is not None and now > then
    ]
    if started or worked:
        names = ", ".join(dict.fromkeys([*started, *worked]))
        raise AssertionError(
            f"your code ran on another thread ({names}) while this kata's rule was checked: "
            "the rule is checked on the thread that calls your code, so an answer that runs "
            f"code on other threads fails it; compute on the calling thread ({reason})"
        )


def seed_for(seed: int) -> int:
    """The seed to use where a test (or a facet) would write `seed`: `seed` itself on a plain
    run; under grading's held-out run (--katas-seed) another one, drawn from both. So what a
    test draws from a generator it seeds itself, and the seeds it hands to the code under
    test, are held out as the global generators' draws are; a self-check holds every seed
    in the kata tests and facets to this.

    >>> torch.manual_seed(seed_for(0))
    >>> split_dataset(dataset, [0.5, 0.5], seed=seed_for(7))
    """
    run = isolation.run_seed()
    return seed if not run else random.Random(f"{run}:{seed}").randrange(1, 2**31)


def dyadic(rng: random.Random | None = None, bits: tuple[int, int] = (3, 10)) -> float:
    """A value in (0, 1) for a boundary, drawn from the test's seeded generator (`random`,
    which the plugin seeds for each test; grading's held-out run seeds it otherwise): an odd
    multiple of 2**-m, m drawn from `bits`, so exact in binary (in float32 too, for m <= 24).

    A boundary tested with one fixed value (a threshold of 0.5, a slope of 0.25) lets an
    answer keep its mistake for every value that lacks a property of it (a whole quarter);
    test the fixed value and a drawn one beside it. Sums and products of a few such values
    with powers of two are exact, so a drawn value can sit exactly on a bar.

    >>> threshold = dyadic()  # e.g. 0.3671875 = 47 / 2**7
    """
    randint, randrange = (rng.randint, rng.randrange) if rng else (random.randint, random.randrange)
    m = randint(*bits)
    return randrange(1, 2**m, 2) / 2**m


@contextmanager
def forbidden_ops(*funcs: Callable, reason: str, aten: Iterable[str] = ()) -> Iterator[None]:
    """Inside the block, calling any of `funcs` fails, however it is reached.

    Ops are matched by name, so forbidding `torch.logsumexp` also forbids the method
    `Tensor.logsumexp`, and forbidding `F.gelu` also forbids `nn.GELU`, which calls it.
    `aten` names the aten operators those builtins compute (`"_log_softmax"`,
    `"nll_loss_forward"`): they are refused at the dispatcher too, which also sees
    `torch._C._nn.cross_entropy_loss` or `torch.ops.aten.log_softmax`. Name only
    operators that a correct answer never reaches. Taking tensor data out of torch
    (`.numpy()`, `np.asarray`, DLPack) fails too: NumPy and SciPy have twins of the
    forbidden ops. The modes watch the calling thread: code that runs on another thread
    inside the block fails the rule, saying so. A refusal the learner's code catches fails
    the block when it ends all the same.

    >>> with forbidden_ops(F.gelu, reason="write GELU yourself", aten=["gelu"]):
    ...     my_gelu(x)
    """
    spelled = " / ".join(_public_name(func) for func in funcs)
    refused: list[str] = []
    with (
        _this_thread_only(reason),
        _compiled_code_forgotten(),
        _DataOntoPythonDevice(),  # below the friendly layer, which a learner may pop
        _ForbidOps({func.__name__ for func in funcs}, reason, refused),
        _ForbidAtenOps(set(aten), spelled, reason, refused),
    ):
        yield
    # The learner's code may have caught a refusal and gone on with something else.
    if refused:
        raise AssertionError(refused[0])


def _owner_name(owner: object) -> str:
    if isinstance(owner, types.ModuleType):
        return owner.__name__
    if owner is torch.default_generator:  # an object, named as the caller reaches it
        return "torch.default_generator"
    cuda = [index for index, g in enumerate(torch.cuda.default_generators) if g is owner]
    if cuda:
        return f"torch.cuda.default_generators[{cuda[0]}]"
    return f"{getattr(owner, '__module__', '?')}.{getattr(owner, '__qualname__', owner)}"


@contextmanager
def forbidden_calls(*targets: tuple[object, str], reason: str) -> Iterator[None]:
    """Inside the block, calling any `owner.name` in `targets` fails.

    For Python-level APIs that `forbidden_ops` cannot see: classes and their methods
    (optimizers, schedulers, DataLoader), `Tensor.backward`, helpers in torch.nn.utils.
    Calls are matched by the function's code (or, for a builtin, the function itself), not
    by the name it is looked up under, so a reference saved at import time
    (`from torch.autograd.functional import hvp`) is refused as well; a builtin method of an
    object (`(torch.default_generator, "manual_seed")`) by that object and the name.
    Names the owner lacks are skipped, so one list serves several torch versions. As for
    forbidden_ops, code that runs on another thread inside the block fails the rule.

    >>> with forbidden_calls((torch.optim.SGD, "step"), reason="write the update by hand"):
    ...     my_sgd_step(params)
    """
    codes: dict[types.CodeType, str] = {}
    builtins: dict[int, str] = {}
    # A builtin method of an object (`torch.default_generator.manual_seed`) is a new object at
    # each lookup: it is matched by its object and its name, never by its own id, which a
    # later object may take once it is freed.
    methods: dict[tuple[int, str], str] = {}
    kept: list[object] = []  # what is matched by id stays alive, so no other object has it
    for owner, name in targets:
        # On a class, the attribute as defined (a staticmethod stays one); on a module,
        # getattr, which also reaches names a module provides lazily.
        if isinstance(owner, type):
            target = inspect.getattr_static(owner, name, None)
        else:
            target = getattr(owner, name, None)
        if target is None:
            continue
        if isinstance(target, (staticmethod, classmethod)):
            target = target.__func__
        elif isinstance(target, property):  # reading the property runs its getter
            target = target.fget
        if target is None:
            continue
        called = f"{_owner_name(owner)}.{name}"
        code = getattr(inspect.unwrap(target), "__code__", None)
        if code is not None:
            codes[code] = called
            continue
        bound_to = getattr(target, "__self__", None)
        if bound_to is not None and not isinstance(bound_to, types.ModuleType | type):
            methods[id(bound_to), name] = called
            kept.append(bound_to)
        else:
            builtins[id(target)] = called
            kept.append(target)
    refused: list[str] = []
    outer, returns = _outer_watcher()

    def watch(frame: types.FrameType, event: str, arg: object) -> None:
        if event == "call":
            if outer is not None:  # an enclosing rule's watcher keeps watching
                outer(frame, event, arg)
            called = codes.get(frame.f_code)
        elif event == "c_call":
            if outer is not None:
                outer(frame, event, arg)
            if not builtins and not methods:
                return
            called = builtins.get(id(arg))
            if called is None and methods:
                bound_to = getattr(arg, "__self__", None)
                called = methods.get((id(bound_to), getattr(arg, "__name__", "")))
        else:
            if returns is not None:
                returns(frame, event, arg)
            return
        if called is not None:
            refused.append(called)
            raise AssertionError(f"your code called {called}, which this kata forbids: {reason}")

    with _watching(watch, outer, returns, refused, reason):
        yield


# Calls that look names up by string, which a static check cannot follow.
_DYNAMIC_LOOKUPS = {"__import__", "eval", "exec", "compile", "vars", "globals"}
# What reaches modules by name, and what switches off the watchers the rules rely on
# (forbidden_calls and forbidden_modules profile calls; the loop check traces lines).
_WATCHERS_ROOTS = {"sys": "sys", "importlib": "importlib", "threading": "threading"}
_WATCHERS = {
    "sys.modules",
    "importlib.import_module",
    "sys.setprofile",
    "sys.settrace",
    "threading.setprofile",
    "threading.settrace",
}


def _torch_internal(dotted: str) -> bool:
    """True for a dotted name inside torch that is private or below its Python API
    (`torch._C...`, `torch.ops...`, `torch._log_softmax`, `torch.overrides._pop_mode...`)."""
    parts = dotted.split(".")
    if parts[0] != "torch":
        return False
    if parts[1:2] == ["ops"] or {"__dict__", "__getattribute__", "__getattr__"} & set(parts):
        return True
    return any(part.startswith("_") and not part.startswith("__") for part in parts[1:])


def _dotted(node: ast.expr, aliases: dict[str, str]) -> str | None:
    """`torch._C._nn` for an attribute chain rooted at a name bound to torch, else None."""
    chain = []
    while isinstance(node, ast.Attribute):
        chain.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and node.id in aliases:
        return ".".join([aliases[node.id], *reversed(chain)])
    return None


def _internals_used(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """(line, spelling) of every reference to torch's internals in a module."""
    aliases: dict[str, str] = {}  # local name -> the dotted torch name it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                if top == "torch":  # `import torch.nn` binds torch; `... as nn` binds torch.nn
                    aliases[alias.asname or top] = alias.name if alias.asname else top
                if top == "importlib" or _torch_internal(alias.name):
                    yield node.lineno, f"import {alias.name}"
        elif isinstance(node, ast.ImportFrom) and node.module:
            top = node.module.split(".")[0]
            for alias in node.names:
                dotted = f"{node.module}.{alias.name}"
                if top == "torch":
                    aliases[alias.asname or alias.name] = dotted
                if top == "importlib" or _torch_internal(dotted):
                    yield node.lineno, f"from {node.module} import {alias.name}"
    # `t = torch` or `f = torch.nn.functional` binds another name to torch.
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and (bound := _dotted(node.value, aliases)):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    aliases[target.id] = bound
    inner = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    # Names the policy for returned code reads where a string shows them (a table of
    # literal names, a loop over one, a choice between literals), and the answer's own objects.
    # Computed on first need: most answers call neither getattr nor vars.
    tables = functools.cache(lambda: constant_tables(tree))
    loops = functools.cache(lambda: loop_literals(tree, tables()))
    selves = functools.cache(lambda: methods_selves(tree))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and id(node) not in inner:
            spelled = _dotted(node, aliases)
            if spelled and _torch_internal(spelled):
                yield node.lineno, spelled
            chain = _dotted(node, _WATCHERS_ROOTS)
            if chain in _WATCHERS:
                yield node.lineno, chain
        elif isinstance(node, ast.ImportFrom) and node.module in ("sys", "threading"):
            for alias in node.names:
                if f"{node.module}.{alias.name}" in _WATCHERS:
                    yield node.lineno, f"from {node.module} import {alias.name}"
        elif (
            isinstance(node, ast.Name)
            and isinstance(node.ctx, ast.Load)
            and node.id in _DYNAMIC_LOOKUPS | {"getattr", "setattr"}
            and id(node) not in called
        ):
            yield node.lineno, f"{node.id} passed on as a value"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in _DYNAMIC_LOOKUPS and not _own_namespace(node, selves()):
                yield node.lineno, f"{node.func.id}(...)"
            elif node.func.id in ("getattr", "setattr") and len(node.args) >= 2:
                owner, name = node.args[:2]
                names = literal_strings(name, tables(), loops())
                # `getattr(self, f"fc{i}")`: a name no private one has, on no part of torch;
                # `getattr(torch, f"float{bits}")`: a dtype's name, never an internal one.
                built = public_start(name) and (
                    _dotted(owner, aliases) is None or dtype_name_start(name) is not None
                )
                if (names is None and not built) or any(
                    _torch_internal(f"torch.{each}") for each in names or ()
                ):
                    yield node.lineno, f"{node.func.id}(...) with a computed or private name"


def _own_namespace(call: ast.Call, selves: set[str]) -> bool:
    """`vars(self)` in a method: the answer's own object, as `self.__dict__` is."""
    return (
        isinstance(call.func, ast.Name)
        and call.func.id == "vars"
        and len(call.args) == 1
        and not call.keywords
        and isinstance(call.args[0], ast.Name)
        and call.args[0].id in selves
    )


@functools.lru_cache(maxsize=64)
def _internals_in_file(path: str, mtime_ns: int, size: int) -> list[tuple[int, str]]:
    """The internals a source file uses; parsed once per version of the file."""
    tree = ast.parse(Path(path).read_text(encoding="utf-8"), filename=path)
    return sorted(set(_internals_used(tree)))


def _learner_modules(module: types.ModuleType) -> list[types.ModuleType]:
    """`module` and every module of the answer's own that it reaches through its names
    (`import helpers`, `from helpers import f`), and so on from those."""
    found = {module.__name__: module}
    todo = [module]
    while todo:
        for value in vars(todo.pop()).values():
            if not isinstance(value, types.ModuleType):
                name = getattr(value, "__module__", None)
                value = sys.modules.get(name) if isinstance(name, str) else None
            path = getattr(value, "__file__", None)
            if value is None or path is None or value.__name__ in found:
                continue
            if _is_learner_code(str(path)):
                found[value.__name__] = value
                todo.append(value)
    return list(found.values())


def assert_no_torch_internals(code: object, *, reason: str) -> None:
    """Fail when the module that defines `code` reaches torch's internals.

    A static check of the learner's whole module (its source, parsed), and of every module
    of the learner's own it uses, for the katas with rules: `torch._C...`, `torch.ops...`,
    private names such as `torch._log_softmax` or `torch.overrides._pop_mode_temporarily`,
    and names looked up by strings (`getattr`, `importlib`, `eval`) compute a forbidden
    builtin, or switch the checks off, unseen. `reason` says what the kata asks instead.
    """
    while isinstance(code, functools.partial):
        code = code.func
    if inspect.isbuiltin(code):
        return  # no source to read: a builtin or C extension
    module = code if isinstance(code, types.ModuleType) else inspect.getmodule(code)
    if module is None:
        return
    for each in _learner_modules(module):
        path = getattr(each, "__file__", None)
        if path is None:
            continue
        stat = Path(path).stat()
        used = _internals_in_file(path, stat.st_mtime_ns, stat.st_size)
        if used:
            where = "; ".join(f"line {line}: {spelling}" for line, spelling in used)
            raise AssertionError(
                f"{Path(path).name} reaches torch's internals ({where}). These get around "
                f"the kata's rule; use torch's public API only, as the kata asks: {reason}"
            )


@contextmanager
def raises(expected: type[BaseException]) -> Iterator[pytest.ExceptionInfo]:
    """`pytest.raises(expected)` that lets an unwritten stub's NotImplementedError through.

    NotImplementedError is a RuntimeError, so `pytest.raises(RuntimeError)` alone would take
    a stub's "not implemented yet" for the error the contract promises.
    """
    with pytest.raises(expected) as info:
        yield info
    if isinstance(info.value, NotImplementedError):
        raise info.value


# ---- rules on loops: a fast look at the source, then the behaviour

_LOOPS = {
    ast.For: "a for loop",
    ast.AsyncFor: "an async for loop",
    ast.While: "a while loop",
    ast.ListComp: "a list comprehension",
    ast.SetComp: "a set comprehension",
    ast.DictComp: "a dict comprehension",
    ast.GeneratorExp: "a generator expression",
}
# Calls that loop over their arguments out of sight of a for statement: by the name they
# are called by, by the name they are imported as, and by the attribute they are called as.
_LOOPING_NAMES = {"map": "map", "filter": "filter", "reduce": "functools.reduce"}
_LOOPING_IMPORTS = {
    "builtins.map": "map",
    "builtins.filter": "filter",
    "functools.reduce": "functools.reduce",
    "itertools.starmap": "itertools.starmap",
    "itertools.accumulate": "itertools.accumulate",
}
# What _names_bound gives a name the answer's own def or class binds.
_OWN = "<defined by the answer>"
_LOOPING_METHODS = {
    "reduce": "functools.reduce",
    "starmap": "itertools.starmap",
    "accumulate": "itertools.accumulate",
    "map_": "Tensor.map_",
    "apply_": "Tensor.apply_",
}


def _source_code(func: Callable) -> Callable:
    """The function whose source the learner wrote: a module's forward, a partial's func."""
    while isinstance(func, functools.partial):
        func = func.func
    if isinstance(func, torch.nn.Module):
        return func.forward
    return func


@functools.lru_cache(maxsize=256)
def _names_bound(source: str) -> dict[str, str]:
    """Local name -> the dotted name it is bound to, for every name a module (or a function)
    binds by an import or a plain alias: `from itertools import starmap as each` binds each
    to itertools.starmap, `import functools as ft` ft to functools, `fold = ft.reduce` fold
    to functools.reduce, `each = map` each to map."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                bound[alias.asname or top] = alias.name if alias.asname else top
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    for node in ast.walk(tree):  # after the imports, whatever their order in the file
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name | ast.Attribute):
            spelled = _dotted(node.value, bound) or (
                node.value.id if isinstance(node.value, ast.Name) else None
            )
            for target in node.targets:
                if spelled and isinstance(target, ast.Name):
                    bound[target.id] = spelled
    # The answer's own functions and classes, whatever their names (a `reduce(loss, how)` of
    # its own is no functools.reduce): their bodies get a look of their own.
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound[node.name] = _OWN
    # So are the values the scope binds itself, other than aliases (`reduce = table[mode]`, a
    # parameter named map): what they hold is looked at where it is defined, if the answer's.
    for name in _values_bound(tree):
        bound.setdefault(name, _OWN)
    return bound


def _values_bound(tree: ast.Module) -> set[str]:
    """Names the top scope of `tree` binds to a value other than an alias of a name: by an
    assignment, a for or with target, a walrus, or (a function's source) as a parameter.
    Nested functions, classes, lambdas and comprehensions are scopes of their own."""
    statements: list[ast.AST] = list(tree.body)
    if len(tree.body) == 1 and isinstance(tree.body[0], ast.FunctionDef | ast.AsyncFunctionDef):
        function = tree.body[0]
        args = function.args
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
        names = {a.arg for a in every if a is not None}
        statements = list(function.body)
    else:
        names = set()
    targets: list[ast.AST] = []
    while statements:
        node = statements.pop()
        if isinstance(
            node,
            ast.FunctionDef
            | ast.AsyncFunctionDef
            | ast.ClassDef
            | ast.Lambda
            | ast.ListComp
            | ast.SetComp
            | ast.DictComp
            | ast.GeneratorExp,
        ):
            continue
        if isinstance(node, ast.Assign) and not isinstance(node.value, ast.Name | ast.Attribute):
            targets.extend(node.targets)
        elif isinstance(node, ast.For | ast.AsyncFor | ast.AnnAssign | ast.NamedExpr):
            targets.append(node.target)  # an annotation alone (`x: int`) binds nothing
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            targets.append(node.optional_vars)
        statements.extend(ast.iter_child_nodes(node))
    for target in targets:
        names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return names


def _looping_call(called: ast.expr, bound: dict[str, str]) -> str | None:
    """What loops in a call of `called` (map, functools.reduce...), however it is named, or
    None."""
    if isinstance(called, ast.Name):
        spelled = bound.get(called.id, called.id)
        if spelled == _OWN:
            return None
        return (
            _LOOPING_NAMES.get(called.id)
            or _LOOPING_IMPORTS.get(spelled)
            or (_LOOPING_NAMES.get(spelled))
        )
    if isinstance(called, ast.Attribute):
        spelled = _dotted(called, bound) or ""
        return _LOOPING_IMPORTS.get(spelled) or _LOOPING_METHODS.get(called.attr)
    return None


def _loop_in_source(func: Callable) -> tuple[str, int] | None:
    """(what, line) of the first loop written in the source of `func`, or None."""
    code = getattr(func, "__code__", None)
    return None if code is None else _loop_in_code(code)


_COMPREHENSIONS = {
    "<listcomp>": "a list comprehension",
    "<setcomp>": "a set comprehension",
    "<dictcomp>": "a dict comprehension",
    "<genexpr>": "a generator expression",
}


def _named_value(node: ast.expr) -> bool:
    """A value spelled by name in the source: a variable, an attribute, a string, True, False,
    None, or a tuple of such (`("mean", mean)`). Not a number or a subscript, which can stand
    for a position in the data (`for c in (0, 1, 2)` walks three channels)."""
    if isinstance(node, ast.Tuple):
        return all(_named_value(e) for e in node.elts)
    if isinstance(node, ast.Attribute):
        return _named_value(node.value)
    if isinstance(node, ast.Constant):
        return node.value is None or isinstance(node.value, str | bytes | bool)
    return isinstance(node, ast.Name)


def _over_named_values(node: ast.AST) -> bool:
    """A for loop or comprehension over a literal tuple, list or set of named values only
    (`for stat in (mean, std)`): as many steps as the source spells, whatever the data's size,
    so it is no loop over the data. Its body is still looked at."""
    if isinstance(node, ast.For | ast.AsyncFor):
        iterables = [node.iter]
    elif isinstance(node, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
        iterables = [generator.iter for generator in node.generators]
    else:
        return False
    return all(
        isinstance(it, ast.Tuple | ast.List | ast.Set) and all(map(_named_value, it.elts))
        for it in iterables
    )


# Above 0 while the harness reads the source of the code under test: where a returned test
# module is scored, the answers' lines are shown to no other reader (hide_locations in
# practice/testwrite.py), since torch writes them into its exceptions.
_SOURCE_READS = [0]


@contextmanager
def reading_source() -> Iterator[None]:
    """Inside the block, the harness reads the source of the code under test."""
    _SOURCE_READS[0] += 1
    try:
        yield
    finally:
        _SOURCE_READS[0] -= 1


def harness_reads_source() -> bool:
    """Whether the harness is reading the source of the code under test (reading_source)."""
    return _SOURCE_READS[0] > 0


def _comprehension_over_named_values(code: types.CodeType) -> bool:
    """A comprehension's own code (before Python 3.12) whose comprehensions on its line in
    its file all go over named values (_over_named_values)."""
    try:
        with reading_source():
            tree = ast.parse("".join(linecache.getlines(code.co_filename)))
    except SyntaxError:
        return False
    kinds = {
        "<listcomp>": ast.ListComp,
        "<setcomp>": ast.SetComp,
        "<dictcomp>": ast.DictComp,
        "<genexpr>": ast.GeneratorExp,
    }
    found = [
        node
        for node in ast.walk(tree)
        if isinstance(node, kinds[code.co_name])
        and getattr(node, "lineno", None) == code.co_firstlineno
    ]
    return bool(found) and all(map(_over_named_values, found))


@functools.lru_cache(maxsize=1024)
def _loop_in_code(code: types.CodeType) -> tuple[str, int] | None:
    """(what, line) of the first loop in the source of a function's code, or None: its
    own statements for a def, the expression alone for a lambda. A loop over a literal
    display of named values (`for stat in (mean, std)`) takes as many steps for any data:
    not one (_over_named_values)."""
    if code.co_name in _COMPREHENSIONS:  # a comprehension's own code (before Python 3.12)
        if _comprehension_over_named_values(code):
            return None
        return _COMPREHENSIONS[code.co_name], code.co_firstlineno
    try:
        with reading_source():
            source = textwrap.dedent(inspect.getsource(code))
            module_source = "".join(linecache.getlines(code.co_filename))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        return None  # no source to read (a builtin, a C extension, a notebook cell)
    first = code.co_firstlineno
    own_name = code.co_name
    # Names its module binds, then its own imports and aliases over them.
    bound = {**_names_bound(module_source), **_names_bound(source)}
    roots: list[ast.AST] = [tree]
    if own_name == "<lambda>":  # getsource gives the whole statement: read its lambdas alone
        roots = [node.body for node in ast.walk(tree) if isinstance(node, ast.Lambda)]
    for root in roots:
        for node in ast.walk(root):
            kind = None if _over_named_values(node) else _LOOPS.get(type(node))
            if kind is None and isinstance(node, ast.Call):
                called = node.func
                kind = _looping_call(called, bound)
                if (isinstance(called, ast.Name) and called.id == own_name) or (
                    isinstance(called, ast.Attribute)
                    and called.attr == own_name
                    and isinstance(called.value, ast.Name)
                    and called.value.id in ("self", "cls")
                ):
                    kind = kind or "recursion (it calls itself)"
            if kind and isinstance(node, (ast.stmt, ast.expr)):
                return kind, first + node.lineno - 1
    return None


class _Work:
    """What one call did that grows with a Python loop."""

    def __init__(self) -> None:
        self.ops = 0  # aten operators dispatched
        self.lines = 0  # lines of Python run outside torch, the harness and the libraries
        self.to_python = 0  # tensor elements copied out into Python objects or NumPy
        # The learner's functions that ran (helpers, lambdas, methods), first call first.
        self.codes: dict[types.CodeType, None] = {}
        self.recursion: types.CodeType | None = None  # one that called itself, directly or not


class _CountOps(TorchDispatchMode):
    def __init__(self, work: _Work):
        super().__init__()
        self.work = work

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        return False  # as _ForbidAtenOps

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        # Modes run before a tensor subclass's own __torch_dispatch__ (the simulated
        # device's), so each operator is counted once, on the CPU and on `sim` alike.
        self.work.ops += 1
        return func(*args, **(kwargs or {}))


_TO_PYTHON = {"tolist", "numpy", "__array__"}


class _CountToPython(TorchFunctionMode):
    def __init__(self, work: _Work):
        super().__init__()
        self.work = work

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        copied = getattr(func, "__name__", None) in _TO_PYTHON
        if copied and args and isinstance(args[0], torch.Tensor):
            self.work.to_python += args[0].numel()
        return func(*args, **(kwargs or {}))


def _library_roots() -> tuple[str, ...]:
    import site
    import sysconfig

    paths = sysconfig.get_paths()
    roots = {paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths}
    roots |= {str(Path(torch.__file__).parent), str(Path(__file__).parent)}
    roots.add(site.getusersitepackages())
    return tuple(sorted(root.rstrip("/\\") + ("/" if "/" in root else "\\") for root in roots))


_LIBRARY_ROOTS = _library_roots()


@functools.lru_cache(maxsize=4096)
def _is_library(filename: str) -> bool:
    """True for code of torch, of this harness, of the standard library or installed packages."""
    if filename.startswith("<frozen"):
        return True
    return filename.startswith(_LIBRARY_ROOTS)


def _is_learner_code(filename: str) -> bool:
    """True for code the answer brings: neither a library nor a kata test file."""
    return not (_is_library(filename) or filename.endswith(("_test.py", "conftest.py")))


def _measure(func: Callable, args: tuple) -> _Work:
    work = _Work()
    active: list[types.CodeType] = []  # the learner's frames on the stack, innermost last

    def line(frame: types.FrameType, event: str, arg: object) -> Callable | None:
        if event == "line":
            work.lines += 1
        elif event == "return" and active:
            active.pop()
        return line

    def call(frame: types.FrameType, event: str, arg: object) -> Callable | None:
        code = frame.f_code
        if _is_library(code.co_filename):
            return None  # torch's own Python: its work shows as operators
        work.lines += 1
        if _is_learner_code(code.co_filename):
            work.codes.setdefault(code)
            generator = code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE)
            if code in active and not generator and work.recursion is None:
                work.recursion = code
        active.append(code)
        return line

    outer = sys.gettrace()
    sys.settrace(call)
    try:
        with _CountToPython(work), _dispatch_mode(_CountOps(work)):
            func(*args)
        switched = sys.gettrace() is not call
    finally:
        sys.settrace(outer)
    if switched:
        raise AssertionError(
            "your code changed sys.settrace while it ran, which switches off the check of "
            "this kata's rule; leave the tracer alone"
        )
    return work


def deepest_nesting(func: Callable, *args: Any) -> tuple[Any, int]:
    """(what `func(*args)` returns, how deep the answer's own Python calls nested in it).

    Every function of the answer counts, in whichever of its modules it is written (a
    helper, a method, a lambda); torch, the harness, the standard library and the kata
    tests do not. A walk with a stack of its own stays a few calls deep; recursion nests
    once per level, however it is spelled.
    """
    depth = deepest = 0

    def watch(frame: types.FrameType, event: str, arg: object) -> None:
        nonlocal depth, deepest
        if event in ("call", "return") and _is_learner_code(frame.f_code.co_filename):
            depth += 1 if event == "call" else -1
            deepest = max(deepest, depth)

    outer = sys.getprofile()
    sys.setprofile(watch)
    try:
        result = func(*args)
    finally:
        sys.setprofile(outer)
    return result, deepest


_NO_LOOPS = (
    "This kata's rule is no Python loops: whole-tensor operations (or arithmetic), as many "
    "for any size, run as a few kernels on any device instead of one Python step per element"
)
_GROWTH = {
    "ops": "ran {} torch operations",
    "lines": "ran {} lines of Python",
    "to_python": "copied {} tensor elements into Python objects (tolist, numpy)",
}


def assert_work_does_not_grow(
    func: Callable,
    inputs: Callable[[int], Any],
    *,
    sizes: tuple[int, int] = (3, 10),
    over: str = "rows",
    advice: str = _NO_LOOPS,
) -> None:
    """Fail when calling `func` on bigger inputs runs more Python steps or torch operations.

    `inputs(n)` builds the arguments (a tuple, or one argument) for size n: every dimension
    the rule covers should grow with n. `func` runs once per size in `sizes`, counting the
    aten operators it dispatches (on any device, the simulated one included), the lines of
    Python it runs outside torch and the standard library, and the tensor elements it copies
    into Python (tolist, numpy). Vectorised code does the same number of each whatever the
    size; a loop over the data, however it is written (for, a comprehension, map,
    functools.reduce, recursion, a helper that loops), does more for more data. `over`
    names what grows, for the message ("rows", "epochs"); `advice` ends it (by default,
    what the no-loops rule asks).

    >>> assert_work_does_not_grow(pairwise_sq_dists, lambda n: (randn(n, n), randn(n + 1, n)))
    """
    counts = [_measure_at(func, inputs, n) for n in sizes]
    _assert_same_work(func, counts, sizes, over, advice)


def _measure_at(func: Callable, inputs: Callable[[int], Any], n: int) -> _Work:
    args = inputs(n)
    return _measure(func, args if isinstance(args, tuple) else (args,))


def _assert_same_work(
    func: Callable, counts: list[_Work], sizes: tuple[int, int], over: str, advice: str
) -> None:
    target = _source_code(func)
    name = getattr(target, "__qualname__", repr(target))
    small, large = sizes
    for field, did in _GROWTH.items():
        before, after = getattr(counts[0], field), getattr(counts[1], field)
        if after > before:
            raise AssertionError(
                f"{name} {did.format(before)} for {small} {over} and {after} for {large}: a "
                f"Python loop over the {over} (for, while, a comprehension, map, "
                "functools.reduce, recursion, or a helper that loops) does work for each of "
                f"them. {advice}"
            )


def _qualname(code: types.CodeType) -> str:
    return getattr(code, "co_qualname", code.co_name)  # Python 3.11 on


def _helpers_named(func: Callable) -> list[Callable]:
    """The functions of `func`'s own file that it names as globals, and those they name, in
    turn: whatever branch calls them."""
    code = getattr(func, "__code__", None)
    if code is None:
        return []
    found: dict[types.CodeType, Callable] = {}
    pending = [func]
    while pending:
        current = pending.pop()
        codes = [current.__code__]
        names: set[str] = set()
        while codes:  # nested functions, lambdas and comprehensions name helpers too
            inner = codes.pop()
            names.update(inner.co_names)
            codes += [c for c in inner.co_consts if isinstance(c, types.CodeType)]
        for name in sorted(names):
            helper = getattr(current, "__globals__", {}).get(name)
            helper_code = getattr(helper, "__code__", None)
            if (
                isinstance(helper, types.FunctionType)
                and helper_code is not None
                and helper_code.co_filename == code.co_filename
                and helper_code not in found
                and helper_code is not code
            ):
                found[helper_code] = helper
                pending.append(helper)
    return list(found.values())


def assert_no_python_loops(
    func: Callable,
    inputs: Callable[[int], Any] | None = None,
    *,
    sizes: tuple[int, int] = (3, 10),
    over: str = "rows",
) -> None:
    """Fail when `func` loops in Python.

    First a fast look at its source: a for or while loop, a comprehension, map, filter,
    functools.reduce, or a call to itself (not a loop over a literal display of named values,
    `for stat in (mean, std)`, whose steps the source fixes). Then, given `inputs`, its
    behaviour: every function of the answer that runs in the call (a helper, a lambda, a
    method, in any of its modules) gets the same look, a function that calls itself directly
    or through others fails, and then `assert_work_does_not_grow` (`inputs`, `sizes`, `over`)
    sees any other spelling. Kata tests pass `inputs`; without them, call it after the function
    has run, so an unimplemented stub fails first with its NotImplementedError.
    """
    target = _source_code(func)
    found = _loop_in_source(target)
    if found:
        kind, line = found
        raise AssertionError(f"{target.__qualname__} uses {kind} (line {line}). {_NO_LOOPS}")
    # Helpers it names, also those on a branch the inputs below never take.
    for helper in _helpers_named(target):
        found = _loop_in_source(helper)
        if found:
            kind, line = found
            raise AssertionError(
                f"{target.__qualname__} calls {helper.__qualname__}, which uses {kind} "
                f"(line {line}): the rule covers every function your answer runs. {_NO_LOOPS}"
            )
    if inputs is None:
        return
    first = _measure_at(func, inputs, sizes[0])
    for code in first.codes:
        found = _loop_in_code(code)
        if found:
            kind, line = found
            raise AssertionError(
                f"{target.__qualname__} calls {_qualname(code)}, which uses {kind} "
                f"({Path(code.co_filename).name}, line {line}): the rule covers every "
                f"function your answer runs. {_NO_LOOPS}"
            )
    if first.recursion is not None:
        raise AssertionError(
            f"{target.__qualname__} runs {_qualname(first.recursion)} inside itself "
            f"(recursion, directly or through other functions). {_NO_LOOPS}"
        )
    counts = [first, _measure_at(func, inputs, sizes[1])]
    _assert_same_work(func, counts, sizes, over, _NO_LOOPS)


# ---- rules on memory


def _storage_key(tensor: torch.Tensor) -> int | None:
    try:
        return tensor.untyped_storage().data_ptr()
    except (RuntimeError, NotImplementedError, TypeError):
        return None  # sparse and other tensors without one storage


def _new_elements(tensor: torch.Tensor, inputs: set[int]) -> int:
    """Elements of the memory an operator's result holds, 0 for a view of its inputs."""
    key = _storage_key(tensor)
    if key is None:
        return tensor.numel()
    if key in inputs and key != 0:
        return 0  # a view of (or an in-place change to) an argument: no new memory
    return max(tensor.untyped_storage().nbytes() // max(tensor.element_size(), 1), 0)


def _borrowed(tensor: torch.Tensor) -> tuple[int, int] | None:
    """(storage key, elements) of memory torch did not allocate (torch.frombuffer over a
    Python buffer, torch.from_numpy): its storage cannot be resized. None for torch's own."""
    try:
        storage = tensor.untyped_storage()
        if storage.resizable():
            return None
        return storage.data_ptr(), storage.nbytes() // max(tensor.element_size(), 1)
    except (RuntimeError, NotImplementedError, TypeError):
        return None


class _CopiesSeen(TorchFunctionMode):
    """Records each copy the code under it asks for as (function name, non_blocking, source
    device, whether the source is pinned, destination device), and each pin_memory call."""

    def __init__(self) -> None:
        super().__init__()
        self.copies: list[tuple[str, bool, torch.device, bool, torch.device]] = []
        self.pins = 0

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        result = func(*args, **kwargs)
        if name == "pin_memory":
            self.pins += 1
        elif name in ("to", "cuda", "copy_", "_to_copy") and isinstance(result, torch.Tensor):
            source = args[1] if name == "copy_" else args[0]
            # non_blocking by keyword, or as the first bool among the positional arguments
            flags = [arg for arg in args[1:] if isinstance(arg, bool)]
            non_blocking = bool(kwargs.get("non_blocking", flags[0] if flags else False))
            pinned = source.device.type == "cpu" and source.is_pinned()
            self.copies.append((name, non_blocking, source.device, pinned, result.device))
        return result


def copies_seen() -> _CopiesSeen:
    """A block that records the copies asked for in it: `with copies_seen() as seen:`, then
    `seen.copies` lists (function name, non_blocking, source device, whether the source is
    pinned, destination device) for each `to`, `cuda`, `copy_` and `_to_copy`, and
    `seen.pins` counts the pin_memory calls."""
    return _CopiesSeen()


def assert_downloads_block(seen: _CopiesSeen, what: str) -> None:
    """Fail for a copy from a device to the CPU that `seen` recorded as non_blocking.

    For every function that hands CPU values (a tensor, an array) read from an accelerator
    back to its caller: a non-blocking copy to the CPU returns before its values have
    arrived, and nothing synchronizes before the caller reads them. (Only the copies asked
    for in Python show: answers that block inside one call, as numpy(force=True), pass.)
    """
    for name, non_blocking, source, _, destination in seen.copies:
        assert not (non_blocking and source.type != "cpu" and destination.type == "cpu"), (
            f"the copy from {source} to the CPU in {what} ({name}) should block "
            "(non_blocking=False): a non-blocking copy to the CPU returns before its values "
            "have arrived, and nothing here synchronizes before the caller reads them"
        )


class _LargestResult(TorchDispatchMode):
    """Sees what each aten operator allocates, however it is reached: torch.func.vmap and
    other transforms hand the operators their whole batched tensors here. Memory made
    outside torch's allocator counts when an operator first reads or writes it (out= too)."""

    def __init__(self) -> None:
        super().__init__()
        self.largest = 0
        self.allocated: list[tuple[int, torch.dtype]] = []  # (elements, dtype), in order
        self.borrowed: set[int] = set()  # the storage keys of such memory, counted once

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        return False  # as _ForbidAtenOps

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        out = func(*args, **(kwargs or {}))
        tensors = [
            value
            for value in (*args, *(kwargs or {}).values())
            for value in (value if isinstance(value, tuple | list) else (value,))
            if isinstance(value, torch.Tensor)
        ]
        inputs = {key for key in map(_storage_key, tensors) if key is not None}
        outputs = list(out) if isinstance(out, tuple | list) else [out]
        for value in tensors + [value for value in outputs if isinstance(value, torch.Tensor)]:
            found = _borrowed(value)
            if found is not None and found[0] not in self.borrowed:
                self.borrowed.add(found[0])
                self.largest = max(self.largest, found[1])
                self.allocated.append((found[1], value.dtype))
        for value in outputs:
            if isinstance(value, torch.Tensor):
                elements = _new_elements(value, inputs)
                self.largest = max(self.largest, elements)
                if elements:
                    self.allocated.append((elements, value.dtype))
        return out


@contextmanager
def largest_result() -> Iterator[_LargestResult]:
    """Inside the block, record the most elements of memory any torch operation allocates.

    For rules on memory ("never build the [N, M, D] tensor of all differences"): check
    `record.largest` after the block. Counted at the dispatcher, in elements of each result's
    storage: a view of an argument allocates nothing (x.expand(n, m, d) is free), while a
    tensor built under torch.func.vmap counts with its whole batch. `record.allocated` lists
    (elements, dtype) of every result that holds new memory, in order, for rules that count
    them ("the ReLU works in place: no second tensor of that size"). Memory torch did not
    allocate (torch.frombuffer, torch.from_numpy) counts once, when an operator first reads
    or writes it: make the caller's inputs with torch.

    >>> with largest_result() as record:
    ...     dists(x, y)
    >>> assert record.largest < n * m * d
    """
    with _dispatch_mode(_LargestResult()) as record:
        yield record


# ---- rules on how a result is made


# aten operators that copy values as they are (another layout, device or dtype): what they
# make from a tensor still holds it, for `built_from(..., reading=...)`.
_COPIES = frozenset({"clone", "contiguous", "_to_copy", "copy_", "_unsafe_view"})


class _BuiltFrom(TorchDispatchMode):
    """Marks the memory each of the named aten operators writes, and the memory of every
    result computed from marked memory: what a rule's result must be built from."""

    def __init__(
        self, names: set[str], spelled: str, reason: str, reading: torch.Tensor | None
    ) -> None:
        super().__init__()
        self.names = names
        self.spelled = spelled
        self.reason = reason
        self.marked: dict[int, torch.UntypedStorage] = {}  # kept alive: no address reused
        # For each marked memory, the elements the named operators that built it took in (each
        # call's largest tensor argument after the one it writes): how many inputs went
        # through them on the way to it, for check(..., each_of=...).
        self.taken: dict[int, int] = {}
        # `reading`'s memory and copies of it; the marked memory built by a named operator
        # that took one of them as the tensor it works on (its first argument).
        self.reading = reading is not None
        self.held: dict[int, torch.UntypedStorage] = {}
        if reading is not None and (key := _storage_key(reading)):
            self.held[key] = reading.untyped_storage()
        self.picked: set[int] = set()
        # The values each marked memory would hold had every named operator computed other
        # ones (each memory as a flat copy, by storage): what the result depends on shows
        # where its own differs (a decoy passed through torch.where unpicked, or times 0,
        # leaves it as it is). Memory whose other values could not be computed is `unknown`.
        self.shadows: dict[int, torch.Tensor] = {}
        self.unknown: set[int] = set()

    # torch.cond and the like (higher-order operators) pass through, run as they are.
    supports_higher_order_operators = True

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        return False  # as _ForbidAtenOps

    def _keys(self, values: Iterable[Any]) -> Iterator[tuple[int, torch.Tensor]]:
        for value in values:
            for one in value if isinstance(value, tuple | list) else (value,):
                if isinstance(one, torch.Tensor) and (key := _storage_key(one)):
                    yield key, one

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        if torch.compiler.is_compiling():  # torch.cond traces its branches under the mode
            return func(*args, **(kwargs or {}))
        before = self._before_writes(func, args, kwargs or {})
        out = func(*args, **(kwargs or {}))
        inputs = dict(self._keys((*args, *(kwargs or {}).values())))
        name = getattr(func, "overloadpacket", func).__name__
        # copy_(dst, src) holds src: its other arguments are what it reads
        source = dict(self._keys(args[1:2])) if name == "copy_" else inputs
        if name in _COPIES and source.keys() & self.held.keys():
            for key, tensor in self._keys(out if isinstance(out, tuple | list) else (out,)):
                self.held[key] = tensor.untyped_storage()
        marked = self.marked.keys() & inputs.keys()
        if name in self.names or marked:
            taken = max((self.taken[key] for key in marked), default=0)
            picked = bool(marked & self.picked)
            if name in self.names:
                rest = (*args[1:], *(kwargs or {}).values())
                taken += max((one.numel() for _, one in self._keys(rest)), default=0)
                picked = picked or bool(dict(self._keys(args[:1])).keys() & self.held.keys())
            # An in-place operator returns its self, so what it writes is marked too.
            for key, tensor in self._keys(out if isinstance(out, tuple | list) else (out,)):
                self.marked[key] = tensor.untyped_storage()
                self.taken[key] = taken
                if picked:
                    self.picked.add(key)
        self._shadow(func, name, args, kwargs or {}, out, inputs, before)
        return out

    # ---- the other values: what a result computed from the named operators depends on

    def _before_writes(
        self, func: Any, args: Any, kwargs: dict[str, Any]
    ) -> dict[int, torch.Tensor]:
        """Flat copies of the memory an operator is about to write, where it has no other
        values yet and reads memory that has: they start from what it held."""
        keys = dict(self._keys((*args, *kwargs.values())))
        if not (keys.keys() & self.shadows.keys()):
            return {}
        return {
            key: _flat(tensor).clone()
            for key, tensor in self._keys(_written(func, args, kwargs))
            if key not in self.shadows
        }

    def _shadow(
        self,
        func: Any,
        name: str,
        args: Any,
        kwargs: dict[str, Any],
        out: Any,
        inputs: dict[int, torch.Tensor],
        before: dict[int, torch.Tensor],
    ) -> None:
        outputs = dict(self._keys(out if isinstance(out, tuple | list) else (out,)))
        if name in self.names:  # other values for all it wrote
            for key, tensor in outputs.items():
                self._set_shadow(key, tensor, _other_values(tensor))
            return
        if inputs.keys() & self.unknown:
            self.unknown |= outputs.keys()
            return
        if not inputs.keys() & self.shadows.keys() or getattr(func, "is_view", False):
            return  # nothing to follow, or a view: its memory's other values are its input's
        self.shadows.update(before)
        try:
            other = func(*self._others(args), **self._others(kwargs))
        except Exception:  # an index made of other values may be out of range
            self.unknown |= outputs.keys()
            return
        others = other if isinstance(other, tuple | list) else (other,)
        reals = out if isinstance(out, tuple | list) else (out,)
        for real, value in zip(reals, others, strict=False):
            if isinstance(real, torch.Tensor) and (where := _storage_key(real)):
                if isinstance(value, torch.Tensor) and value.shape == real.shape:
                    self._set_shadow(where, real, value)
                else:
                    self.unknown.add(where)

    def _others(self, value: Any) -> Any:
        """`value` with each tensor in memory that has other values replaced by those."""
        if isinstance(value, torch.Tensor):
            key = _storage_key(value)
            flat = self.shadows.get(key) if key else None
            if flat is None or flat.dtype != value.dtype:
                return value
            return flat.as_strided(value.size(), value.stride(), value.storage_offset())
        if isinstance(value, tuple | list):
            return type(value)(self._others(one) for one in value)
        if isinstance(value, dict):
            return {key: self._others(one) for key, one in value.items()}
        return value

    def _set_shadow(self, key: int, real: torch.Tensor, value: torch.Tensor) -> None:
        flat = self.shadows.get(key)
        if flat is None or flat.dtype != real.dtype:
            flat = self.shadows[key] = _flat(real).clone()
        view = flat.as_strided(real.size(), real.stride(), real.storage_offset())
        if _storage_key(view) != _storage_key(value):
            view.copy_(value)
        self.unknown.discard(key)

    def check(self, result: object, each_of: torch.Tensor | None = None) -> None:
        """Fail unless `result` (a tensor) was computed from what one of the operators wrote
        (with `reading`: one that worked on that input), each of its values depends on it
        (where the operators' results take other values, so does each of its), and
        (`each_of`) the operators on the way to it took in as many elements as that tensor
        holds: each of its elements went through them, not totals computed another way
        first."""
        assert isinstance(result, torch.Tensor), f"expected a tensor, got {type(result).__name__}"
        key = _storage_key(result)
        if not result.numel() or key is None:
            return  # nothing to tell apart
        assert key in self.marked, (
            f"your result was not built from {self.spelled}, which this kata asks for; "
            f"another way to the same values does not meet the rule: {self.reason}"
        )
        assert not self.reading or key in self.picked, (
            f"your {self.spelled} did not work on the input itself (or a copy of it) but on "
            f"something computed from it another way, which does not meet the rule: {self.reason}"
        )
        flat = self.shadows.get(key)
        if key not in self.unknown and flat is not None and flat.dtype == result.dtype:
            other = flat.as_strided(result.size(), result.stride(), result.storage_offset())
            kept = int((other == result).sum())
            assert not kept, (
                f"{kept} of your result's {result.numel()} values stay as they are when "
                f"{self.spelled} gives other values: your {self.spelled} is a decoy, the "
                f"values come another way (a torch.where that never picks its result, a "
                f"term times 0, a gradient lent to values computed by hand), which does not "
                f"meet the rule: {self.reason}"
            )
        if each_of is not None:
            assert self.taken[key] >= each_of.numel(), (
                f"{self.spelled} took in {self.taken[key]} elements for {each_of.numel()} "
                f"inputs: each input must go through {self.spelled} itself (totals computed "
                f"another way and then added do not meet the rule): {self.reason}"
            )


def _flat(tensor: torch.Tensor) -> torch.Tensor:
    """The whole memory `tensor` views, as one flat tensor of its dtype."""
    size = tensor.untyped_storage().nbytes() // max(tensor.element_size(), 1)
    return tensor.as_strided((size,), (1,), 0)


def written_arguments(func: Any, args: Any, kwargs: dict[str, Any]) -> list[Any]:
    """The arguments an aten operator writes (its self in place, out=): for modes that watch
    writes."""
    return _written(func, args, kwargs)


def dispatch_mode(mode: TorchDispatchMode) -> Any:
    """Enter a TorchDispatchMode the way the rules here do (data made onto the simulated
    device works under it)."""
    return _dispatch_mode(mode)


def _written(func: Any, args: Any, kwargs: dict[str, Any]) -> list[Any]:
    """The arguments an aten operator writes (its self in place, out=)."""
    schema = getattr(func, "_schema", None)
    if schema is None:
        return []
    found, position = [], 0
    for argument in schema.arguments:
        if argument.kwarg_only:
            value = kwargs.get(argument.name)
        else:
            value = args[position] if position < len(args) else kwargs.get(argument.name)
            position += 1
        if argument.alias_info is not None and argument.alias_info.is_write:
            found.append(value)
    return found


def _other_values(tensor: torch.Tensor) -> torch.Tensor:
    """Values that differ from `tensor`'s at every element (of any dtype)."""
    if tensor.dtype == torch.bool:
        return ~tensor
    if tensor.is_floating_point() or tensor.is_complex():
        # Doubled, or 1 where 0 and 0 where inf or NaN: never the value it was.
        doubled = torch.where(tensor == 0, torch.ones_like(tensor), tensor * 2)
        return torch.where(torch.isfinite(tensor), doubled, torch.zeros_like(tensor))
    return tensor + 1  # integers wrap around at their bounds: another value still


@contextmanager
def built_from(
    *aten: str, spelled: str, reason: str, reading: torch.Tensor | None = None
) -> Iterator[_BuiltFrom]:
    """Inside the block, follow what the aten operators named in `aten` write; after it,
    `record.check(result)` fails unless the result holds memory one of them wrote, or
    memory computed from it (a copy, a view, a conversion). For rules on the method
    ("count with a scatter-add"), where a list of forbidden ops would miss some other way
    to the same values. Seen at the dispatcher, however the operators are reached.
    `record.check(result, each_of=labels)` also fails when the operators took in fewer
    elements than `labels` holds: the work done elsewhere, only its totals passed through.
    With `reading=x`, it fails unless one of them worked on x itself (its first argument: x,
    a view or a copy of x), not on a tensor computed from x another way ("pick the step":
    a masked reduction over time, then a pick of every row, picks nothing).
    Every check also fails unless each value of the result depends on what the operators
    computed: other values are given to their results and followed to the result (run a
    second time, beside the first), which must then differ at every element; a decoy whose
    result a torch.where never picks, or that is added times 0, leaves it as it was.

    >>> with built_from("scatter_add_", spelled="scatter_add_", reason="...") as record:
    ...     counts = histogram(labels, 3)
    >>> record.check(counts)
    """
    with _dispatch_mode(_BuiltFrom(set(aten), spelled, reason, reading)) as record:
        yield record


class _Reads(TorchDispatchMode):
    """Counts the aten operators that compute from a tensor's memory (views of it excluded)."""

    def __init__(self, tensor: torch.Tensor) -> None:
        super().__init__()
        self.key = _storage_key(tensor)
        self.count = 0

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        return False  # as _ForbidAtenOps

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        if not func.is_view and any(
            isinstance(one, torch.Tensor) and _storage_key(one) == self.key
            for value in (*args, *(kwargs or {}).values())
            for one in (value if isinstance(value, tuple | list) else (value,))
        ):
            self.count += 1
        return func(*args, **(kwargs or {}))


@contextmanager
def computations_reading(tensor: torch.Tensor) -> Iterator[_Reads]:
    """Inside the block, count the torch operations that compute from `tensor` (a weight):
    `record.count` after it. For rules on how often a layer computes ("the trunk runs once"),
    whether its module is called, its forward, or F.linear / `x @ w.T` on its weight: seen
    at the dispatcher, where a view of the tensor (w.T) is no computation and a matmul that
    reads it is one.

    >>> with computations_reading(model.trunk[0].weight) as record:
    ...     model(x)
    >>> assert record.count == 1
    """
    with _dispatch_mode(_Reads(tensor)) as record:
        yield record


# ---- rules on libraries: nothing from a whole module or package


def _module_of(value: types.ModuleType | str) -> types.ModuleType:
    if isinstance(value, str):
        import importlib

        return importlib.import_module(value)
    return value


def _places(modules: Iterable[types.ModuleType | str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(path prefixes of their files, dotted-name prefixes) for modules and packages."""
    paths, names = [], []
    for value in modules:
        module = _module_of(value)
        names.append(module.__name__)
        if hasattr(module, "__path__"):  # a package: every file under it
            paths += [str(Path(p)) + ("/" if "/" in str(p) else "\\") for p in module.__path__]
        elif module.__file__:
            paths.append(str(Path(module.__file__)))
    return tuple(paths), tuple(names)


def _in_names(module: str, names: tuple[str, ...]) -> bool:
    return any(module == name or module.startswith(name + ".") for name in names)


def _builtin_module(func: object) -> str:
    """The module that defines a builtin function or method (`numpy`, `torch._C`)."""
    owner = getattr(func, "__self__", None)
    if isinstance(owner, types.ModuleType):
        return owner.__name__
    defined_by = getattr(func, "__objclass__", None)
    if defined_by is None and owner is not None:
        name = getattr(func, "__name__", "")
        kind = owner if isinstance(owner, type) else type(owner)
        defined_by = next((k for k in kind.__mro__ if name in vars(k)), kind)
    if defined_by is not None:
        return getattr(defined_by, "__module__", "") or ""
    return getattr(func, "__module__", "") or ""


@contextmanager
def forbidden_modules(
    *modules: types.ModuleType | str,
    allow: Iterable[types.ModuleType | str] = (),
    reason: str,
) -> Iterator[None]:
    """Inside the block, calling any function of `modules` fails, whatever its name.

    A package covers every module under it (`torch.optim`: each optimizer's class, step and
    functional form, present and future). Python functions are matched by the file their
    code comes from, so a reference saved at import time or a subclass's super() call is
    refused too; builtins by the module that defines them (`numpy.zeros`,
    `torch._C._infer_size`). `allow` names modules inside them that stay allowed (the
    Optimizer base class in `torch.optim.optimizer`). Importing a module runs its top level,
    which is not refused.

    >>> with forbidden_modules(torch.optim, allow=[torch.optim.optimizer], reason="by hand"):
    ...     my_sgd.step()
    """
    paths, names = _places(modules)
    allowed_paths, allowed_names = _places(allow)
    refused: list[str] = []
    outer, returns = _outer_watcher()
    # Verdicts worked out once: per file for Python code, per function for builtins.
    files: dict[str, bool] = {}
    verdicts: dict[tuple[object, ...], bool] = {}
    owners = (types.ModuleType, type)

    def refuse(called: str) -> None:
        refused.append(called)
        raise AssertionError(f"your code called {called}, which this kata forbids: {reason}")

    def watch(frame: types.FrameType, event: str, arg: object) -> None:
        if event == "call":
            if outer is not None:
                outer(frame, event, arg)
            code = frame.f_code
            filename = code.co_filename
            inside = files.get(filename)
            if inside is None:
                inside = files[filename] = filename.startswith(paths) and not filename.startswith(
                    allowed_paths
                )
            if inside and code.co_name != "<module>":
                module = frame.f_globals.get("__name__", "?")
                refuse(f"{module}.{getattr(code, 'co_qualname', code.co_name)}")
        elif event == "c_call":
            if outer is not None:
                outer(frame, event, arg)
            # Every builtin call passes here: its verdict is worked out once per function.
            owner = getattr(arg, "__self__", None)
            name = getattr(arg, "__name__", None)
            if owner is None:
                key: tuple[object, ...] = (None, getattr(arg, "__module__", None), name)
            else:
                key = (owner if isinstance(owner, owners) else type(owner), name)
            forbidden = verdicts.get(key)
            if forbidden is None:
                module = _builtin_module(arg)
                forbidden = _in_names(module, names) and not _in_names(module, allowed_names)
                verdicts[key] = forbidden
            if forbidden:
                public = getattr(arg, "__module__", None) or _builtin_module(arg)  # numpy
                refuse(f"{public}.{getattr(arg, '__qualname__', name or arg)}")
        elif returns is not None:
            returns(frame, event, arg)

    with _watching(watch, outer, returns, refused, reason):
        yield


_PROFILER_CHANGED = (
    "your code changed sys.setprofile while it ran, which switches off the check of this "
    "kata's rule; leave the profiler alone"
)


# The rules' own watchers by id, each with the watcher it passes return events on to (None
# where no profile function below it wants them): a rule inside another then costs one
# Python call per return event, not one per rule.
_RETURNS: dict[int, tuple[Callable[..., Any], Any]] = {}


def _outer_watcher() -> tuple[Any, Any]:
    """The profile function a new rule's watcher replaces and calls on for calls (an
    enclosing rule's watcher, or another profiler), and what it passes return events to."""
    outer = sys.getprofile()
    watch, returns = _RETURNS.get(id(outer), (None, outer))
    return outer, returns if watch is outer else outer


@contextmanager
def _watching(
    watch: Callable[[types.FrameType, str, object], None],
    outer: Any,
    returns: Any,
    refused: list[str],
    reason: str,
) -> Iterator[None]:
    """The block with `watch` as the profile function (it calls on `outer`, the one it
    replaces), on the calling thread alone; afterwards, a failure for what `watch` refused
    (the learner's code may have caught the refusal and gone on) or for a profile function
    switched off."""
    _RETURNS[id(watch)] = (watch, returns)
    setattr(watch, sim.PAUSED_DURING_OPS, True)  # what runs inside an op is no learner's code
    try:
        with _this_thread_only(reason):
            sys.setprofile(watch)
            try:
                yield
                switched = sys.getprofile() is not watch
            finally:
                # An exception from the watcher switches it off; it is never left behind.
                sys.setprofile(outer)
    finally:
        del _RETURNS[id(watch)]
    if refused:
        raise AssertionError(f"your code called {refused[0]}, which this kata forbids: {reason}")
    if switched:
        raise AssertionError(_PROFILER_CHANGED)


@contextmanager
def default_dtype(dtype: torch.dtype) -> Iterator[None]:
    """Inside the block, `dtype` is torch's default dtype; the test puts it back itself.

    (The harness would put it back after the test too, but in a grading run whatever it has
    to put back counts against the answer.)
    """
    previous = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_dtype(previous)


@contextmanager
def settings_kept(what: str) -> Iterator[None]:
    """Fail when the block changes one of torch's global settings (grad mode, the default
    dtype, the attention fast path...) or registries (a global hook, autocast left entered):
    `what` (the call, for the message) must leave them to the caller, also when it raises
    (the failure then replaces the error). What changed is put back first."""
    before = isolation.record()
    # Drawing random numbers moves the generator on, which a function may do; reseeding it
    # (manual_seed, set_rng_state) restarts the caller's stream. A reseed sets the seed the
    # generator reports, so it is tagged with one no code would pick, its stream untouched.
    tag = seed_for(_SEED_TAG)
    seed = _tag_seed(tag)
    cuda_seed = torch.cuda.initial_seed() if torch.cuda.is_initialized() else None
    libraries = _library_random_states(tag)
    filters = _warnings_filters()
    raised, checked = "", True
    try:
        yield
    except BaseException as error:
        raised = f" when it raised {type(error).__name__}"
        checked = isinstance(error, Exception)  # not for an interrupt or a pytest skip
        raise
    finally:
        changed = isolation.put_back(before)
        reseeded = torch.initial_seed() != tag or (
            cuda_seed is not None and torch.cuda.initial_seed() != cuda_seed
        )
        _tag_seed(seed)
        moved = _library_random_states_put_back(libraries)
        silenced = _warnings_filters_put_back(filters)
        # Checked here, so that a call that raises is held to it too (a setting restored on
        # success only stays changed for the rest of the process after an error).
        assert not (checked and changed), (
            f"{what} changed {', '.join(changed)} for the whole process{raised}; leave global "
            "settings as the caller set them (restore them in a finally block)"
        )
        assert not (checked and reseeded), (
            f"{what} reseeded torch's random number generator (manual_seed, set_rng_state): "
            "the caller's random stream restarts, the same numbers at every call; draw from "
            "it, and leave its seed to the caller"
        )
        assert not (checked and moved), (
            f"{what} reseeded or drew from {' and '.join(moved)}, which belong to the "
            "caller: no kata function draws from them, so a call leaves them as it found "
            "them (torch's generators, or a generator of the function's own, draw its "
            "random numbers)"
        )
        assert not (checked and silenced), (
            f"{what} changed the warnings filters (or how warnings are shown) for the whole "
            "process: a warnings.filterwarnings/simplefilter call, or a catch_warnings block "
            "entered and never left, hides the warnings torch (and the caller's own code) "
            "gives from then on; filter inside `with warnings.catch_warnings():` only"
        )


_SEED_TAG = 0x5EED_7A6_0D1C_E5


def _library_random_states(tag: int) -> tuple[object, dict[str, Any], object, dict[str, Any]]:
    """The caller's global generators of Python's `random` and of NumPy (np.random.seed's),
    then the same generators seeded with the tag, which no code would pick: the harness
    seeds them with 0 before each test, and a reseed with 0 would leave them as they were."""
    python, numpy_state = random.getstate(), np.random.get_state(legacy=False)
    random.seed(tag)
    np.random.seed(tag % 2**32)
    return python, numpy_state, random.getstate(), np.random.get_state(legacy=False)


def _library_random_states_put_back(
    recorded: tuple[object, dict[str, Any], object, dict[str, Any]],
) -> list[str]:
    """Put back the caller's generators `_library_random_states` recorded; which of the
    tagged ones had moved (a reseed, or a draw)."""
    python, numpy_state, tagged_python, tagged_numpy = recorded
    moved = []
    if random.getstate() != tagged_python:
        moved.append("Python's random module")
    now = np.random.get_state(legacy=False)
    same = now["state"]["pos"] == tagged_numpy["state"]["pos"] and np.array_equal(
        now["state"]["key"], tagged_numpy["state"]["key"]
    )
    if not (same and now["has_gauss"] == tagged_numpy["has_gauss"]):
        moved.append("NumPy's global generator (np.random)")
    random.setstate(python)  # type: ignore[arg-type]
    np.random.set_state(numpy_state)
    return moved


def _warnings_filters() -> tuple[list[Any], list[Any], tuple[object, object], frozenset[str]]:
    """The warnings filters (the list object and what it holds), how warnings are shown and
    the modules imported so far, for `_warnings_filters_put_back`. Not among the harness's
    settings: pytest sets filters per test (`filterwarnings` marks), and a test may set its
    own around a call."""
    filters: list[Any] = warnings.filters  # type: ignore[assignment]
    return filters, list(filters), _shown(), frozenset(sys.modules)


def _shown() -> tuple[object, object]:
    # catch_warnings(record=True) swaps the second (where the messages go).
    return warnings.showwarning, getattr(warnings, "_showwarnmsg_impl", None)


def _warnings_filters_put_back(
    recorded: tuple[list[Any], list[Any], tuple[object, object], frozenset[str]],
) -> bool:
    """Put back the filters `_warnings_filters` recorded; whether they (or the function that
    shows warnings) had changed. A filter for a warning class of a module first imported
    in the block is that library's own, set as it is imported (torch imports sympy on an
    optimizer's first use, which asks for its deprecation warnings once): it stays, and
    is no change."""
    filters, held, shown, imported = recorded
    libraries = [
        f
        for f in filters
        if f not in held and getattr(f[2], "__module__", None) not in imported | {None}
    ]
    changed = warnings.filters is not filters or [f for f in filters if f not in libraries] != held
    changed = changed or any(map(operator.is_not, _shown(), shown))
    if changed:
        warnings.filters = filters  # catch_warnings swaps the list too
        filters[:] = held
        warnings.showwarning, impl = shown  # type: ignore[assignment]
        if impl is not None:
            warnings._showwarnmsg_impl = impl  # type: ignore[attr-defined]
        warnings._filters_mutated()  # type: ignore[attr-defined]
    return changed


def _tag_seed(seed: int) -> int:
    """Make the CPU generator report `seed` as its seed, its stream unmoved; the seed it
    reported. (The state starts with the seed, a little-endian uint64.)"""
    state = torch.get_rng_state()
    before = int.from_bytes(bytes(state[:8].tolist()), "little")
    state[:8] = torch.tensor(list(seed.to_bytes(8, "little")), dtype=torch.uint8, device="cpu")
    torch.set_rng_state(state)
    return before


def _compiled_flag() -> bool | None:
    value = getattr(sys.modules.get("torch._inductor.config"), "deterministic", None)
    return value if isinstance(value, bool) else None


@functools.cache
def _switch_sets_compiled() -> bool:
    """Whether this torch's use_deterministic_algorithms sets inductor's `deterministic` config
    too (newer versions do); every state it touches is put back as it was."""
    eager = torch.are_deterministic_algorithms_enabled()
    warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    before = _compiled_flag()
    try:
        torch.use_deterministic_algorithms(True)
        on = _compiled_flag()
        torch.use_deterministic_algorithms(False)
        off = _compiled_flag()
    finally:
        torch.use_deterministic_algorithms(eager, warn_only=warn_only)
        config = sys.modules.get("torch._inductor.config")
        if before is not None and config is not None:
            config.deterministic = before  # type: ignore[attr-defined]
    return on is True and off is False


def compiled_deterministic() -> bool | None:
    """torch.compile's deterministic setting (inductor's `deterministic` config), which
    torch.use_deterministic_algorithms sets along with eager's switch and
    torch.set_deterministic_debug_mode leaves as it was; None where this torch's
    use_deterministic_algorithms does not set it (older versions) or inductor is not imported
    yet (nothing has set it)."""
    value = _compiled_flag()  # read before the probe, which may import inductor
    return value if value is not None and _switch_sets_compiled() else None


@contextmanager
def settings_put_back(allowed: Iterable[str] | None = None) -> Iterator[None]:
    """Inside the block the answer may change torch's global settings (deterministic
    algorithms, the cuDNN flags, the default dtype...) as its kata asks; the test puts them
    back itself when the block ends, so the harness has nothing to undo or to warn about.
    `allowed` names the settings the kata asks for (as the state guard names them:
    "deterministic algorithms", "cuDNN flags"); given, a change to any other fails."""
    names = {setting.name for setting in isolation.SETTINGS}
    allowed = None if allowed is None else set(allowed)
    if allowed is not None and not allowed <= names:
        raise ValueError(f"no such setting: {sorted(allowed - names)}; the settings: {names}")
    before = isolation.record()
    try:
        yield
    finally:  # registries are no setting: left changed, the harness flags them after the test
        changed = isolation.put_back(before, registries=False)
    others = [name for name in changed if allowed is not None and name not in allowed]
    assert not others, (
        f"the call changed {', '.join(others)} too, for the whole process; it should change "
        f"only {', '.join(sorted(allowed or ())) or 'no global setting'}"
    )


@contextmanager
def settings_switched(names: Iterable[str]) -> Iterator[None]:
    """Inside the block each flag setting named (as the state guard names them: "TF32 and
    reduced-precision flags", "backends switched on or off"...) is flipped from the value it
    had. An answer that also sets one "to be safe" (cuDNN on, TF32 off) writes the value
    torch's defaults already hold, unseen by `settings_put_back` unless the block starts
    elsewhere. All are put back when it ends. Flags only: the float32 matmul precision is
    tied to the TF32 flags (TF32 on reads as "high"), and torch refuses to read it at all
    once a precision set by name meets a TF32 flag set by hand."""
    settings = {setting.name: setting for setting in isolation.SETTINGS}
    names = list(names)
    if not set(names) <= settings.keys():
        raise ValueError(f"no such setting: {sorted(set(names) - settings.keys())}")
    before = isolation.record()
    switched = [(settings[name], _flipped(settings[name].get())) for name in names]
    try:
        for setting, value in switched:
            setting.put(value)
        yield
    finally:
        isolation.put_back(before, registries=False)


def _flipped(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, tuple) and all(isinstance(item, bool) for item in value):
        return tuple(not item for item in value)
    raise ValueError(f"settings_switched flips flags only, not a setting of {value!r}")


# -- the caller's state, read for tests that may not reach torch's internals themselves ------

_MODULE_HOOKS = (
    "_forward_hooks",
    "_forward_hooks_with_kwargs",
    "_forward_pre_hooks",
    "_backward_hooks",
    "_backward_pre_hooks",
)


def hooks_left(model: torch.nn.Module | None = None) -> list[str]:
    """Where module hooks are still registered: on `model`'s modules (`"0._forward_hooks"`,
    `"the model._backward_hooks"`) and globally (`"_global_forward_hooks"`). An answer that
    adds hooks for its own work must remove them before it returns."""
    import torch.nn.modules.module as module_internals

    left = [
        f"{name or 'the model'}.{kind}"
        for name, module in (model.named_modules() if model is not None else ())
        for kind in _MODULE_HOOKS
        if getattr(module, kind, None)
    ]
    # The global ones: the state guard's list (torch_katas/runtime/isolation.py).
    global_hooks = isolation.GLOBAL_MODULE_HOOKS
    return left + [kind for kind in global_hooks if getattr(module_internals, kind, None)]


def saved_tensors_hooks_left() -> int:
    """How many default saved-tensors hooks (`torch.autograd.graph.saved_tensors_hooks`) were
    still installed; they are removed, so the next tests start without them."""
    count = 0
    while torch._C._autograd._top_saved_tensors_default_hooks(False) is not None:
        torch._C._autograd._pop_saved_tensors_default_hooks()
        count += 1
    return count


def storage_freed(tensor: torch.Tensor) -> Callable[[], bool]:
    """A watch on `tensor`'s storage, which holds no reference to it: calling the watch
    later says whether that memory has been freed (after a garbage collection, so a
    reference cycle already dropped does not count as holding it)."""
    from torch.multiprocessing.reductions import StorageWeakRef

    watched = StorageWeakRef(tensor.untyped_storage())

    def freed() -> bool:
        collect_garbage()
        return bool(watched.expired())

    return freed


def every_dtype() -> list[torch.dtype]:
    """Every dtype torch defines, by name."""
    return sorted({v for v in vars(torch).values() if isinstance(v, torch.dtype)}, key=str)


def own_methods(cls: type) -> list[tuple[type, str]]:
    """The methods and properties `cls` itself defines, as `forbidden_calls` takes them."""
    return [
        (cls, name)
        for name, value in vars(cls).items()
        if callable(value) or isinstance(value, property)
    ]


class _GraphMarker:
    """Lives as long as the autograd graph node it is stored in."""


class _CarryMarker(torch.autograd.Function):
    """The identity, keeping a marker in its graph node."""

    @staticmethod
    def forward(ctx: Any, tensor: torch.Tensor, marker: _GraphMarker) -> torch.Tensor:
        ctx.marker = marker
        return tensor.clone()

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
        return grad, None


def marked_graph(tensor: torch.Tensor) -> tuple[torch.Tensor, weakref.ref[Any]]:
    """`tensor` (which requires grad) through an identity node of autograd's graph, and a weak
    reference that lives as long as that node: whatever keeps the result's graph (a running
    loss summed without detach, outputs kept in a list) keeps it alive. Backward frees a
    graph's saved tensors, not its nodes, so this sees what saved-tensor hooks cannot."""
    marker = _GraphMarker()
    return _CarryMarker.apply(tensor, marker), weakref.ref(marker)


def collect_garbage() -> None:
    """Free the objects no longer referenced (in cycles too), before a test asks whether one
    is gone."""
    import gc

    gc.collect()
