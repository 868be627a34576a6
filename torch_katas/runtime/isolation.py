"""Keep one kata's code from changing the run for the others.

`GlobalState` is the guard around every kata test and every import of a kata's answer
module: it records the global settings of torch, NumPy and Python that code can change for
everyone (the default dtype, grad mode, a torch function replaced by hand...), torch's
process-wide registries and stacks (global hooks, autocast, the mode stacks), and puts back
whatever changed. `seed_everything` gives every test the same random streams, and
`RandomState` keeps the generators' state of the process around a whole run.
"""

from __future__ import annotations

import builtins
import collections
import copy
import ctypes
import dataclasses
import decimal
import functools
import gc
import itertools
import logging
import math
import numbers
import operator
import os
import pathlib
import random
import statistics
import sys
import tempfile
import threading
import types
import typing
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy
import pytest
import torch
import torch.nn.functional as F
import torch.nn.modules.module
import torch.optim.optimizer
import torch.testing._comparison
import torch.utils._config_module

from torch_katas import devices
from torch_katas.runtime.timelimit import WATCHDOG

__all__ = [
    "COMPARISONS",
    "GLOBAL_MODULE_HOOKS",
    "REGISTRIES",
    "SETTINGS",
    "GlobalState",
    "RandomState",
    "put_back",
    "record",
    "run_seed",
    "seed_everything",
    "set_run_seed",
    "stop_threads_in",
]


@dataclass(frozen=True)
class Setting:
    """A global setting, named as the learner would look it up."""

    name: str
    get: Callable[[], Any]
    put: Callable[[Any], object]


def _put_deterministic(value: tuple[bool, bool]) -> None:
    torch.use_deterministic_algorithms(value[0], warn_only=value[1])


def _put_cudnn(value: tuple[bool, bool]) -> None:
    torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = value


def _attention_backends() -> tuple[bool, ...]:
    # Which kernels scaled_dot_product_attention may pick: each a process-wide switch.
    cuda = torch.backends.cuda
    return (
        cuda.flash_sdp_enabled(),
        cuda.mem_efficient_sdp_enabled(),
        cuda.math_sdp_enabled(),
        cuda.cudnn_sdp_enabled(),
    )


def _put_attention_backends(value: tuple[bool, ...]) -> None:
    cuda = torch.backends.cuda
    cuda.enable_flash_sdp(value[0])
    cuda.enable_mem_efficient_sdp(value[1])
    cuda.enable_math_sdp(value[2])
    cuda.enable_cudnn_sdp(value[3])


def _put_reduced_precision(value: tuple[bool, bool, bool, bool]) -> None:
    matmul = torch.backends.cuda.matmul
    matmul.allow_tf32 = value[0]
    matmul.allow_fp16_reduced_precision_reduction = value[1]
    matmul.allow_bf16_reduced_precision_reduction = value[2]
    torch.backends.cudnn.allow_tf32 = value[3]


def _put_mkldnn_deterministic(value: bool) -> None:
    torch.backends.mkldnn.deterministic = value  # type: ignore[assignment]  # a ContextProp


def _put_backends(value: tuple[bool, bool]) -> None:
    torch.backends.cudnn.enabled = value[0]
    torch.backends.mkldnn.enabled = value[1]  # type: ignore[assignment]  # a ContextProp


def _put_default_device(device: torch.device) -> None:
    # No default device at all is the same as the CPU, and keeps ops off the slow mode path.
    torch.set_default_device(None if device == torch.device("cpu") else device)


def _decimal_context() -> tuple:
    """Python's decimal context (this thread's): its precision, rounding, exponent limits and
    traps decide what every later Decimal computation of the process gives. The flags its
    arithmetic raises are a record of what happened, no setting: left out."""
    context = decimal.getcontext()
    traps = tuple(sorted(signal.__name__ for signal, on in context.traps.items() if on))
    return (
        context.prec,
        context.rounding,
        context.Emin,
        context.Emax,
        context.capitals,
        context.clamp,
        traps,
    )


def _put_decimal_context(value: tuple) -> None:
    context = decimal.getcontext()
    prec, rounding, emin, emax, capitals, clamp, traps = value
    context.prec, context.rounding, context.Emin, context.Emax = prec, rounding, emin, emax
    context.capitals, context.clamp = capitals, clamp
    for signal in list(context.traps):
        context.traps[signal] = signal.__name__ in traps


# torch's configuration modules (torch.compiler.config and those of Dynamo, Inductor, AOTAutograd,
# export and symbolic shapes), each read only once something has imported it.
CONFIG_MODULES = (
    "torch.compiler.config",
    "torch._dynamo.config",
    "torch._inductor.config",
    "torch._functorch.config",
    "torch._export.config",
    "torch.fx.experimental._config",
)


def _fresh(entry: Any) -> object:
    """A configuration entry's value with nothing assigned to it (the environment's, else the
    default), in the order torch.utils._config_module reads them."""
    unset = torch.utils._config_module._UNSET_SENTINEL
    for value in (entry.env_value_force, entry.env_value_default):
        if value is not unset:
            return value
    return entry.default


def _compiler_config() -> dict[tuple[str, str], object]:
    """Every configuration value that differs from its fresh value, by (module, name); a
    module imported meanwhile adds nothing until one of its values is changed."""
    changed = {}
    for module_name in CONFIG_MODULES:
        module = sys.modules.get(module_name)
        if module is None:
            continue
        # Only entries assigned since the import can differ; torch caches this dictionary.
        values = module._get_dict(skip_default=True, readonly_values=True)
        for name, value in values.items():
            if value != _fresh(module._config[name]):
                changed[module_name, name] = value
    return changed


def _put_compiler_config(value: dict[tuple[str, str], object]) -> None:
    for key in _compiler_config().keys() | value.keys():
        module = sys.modules[key[0]]
        setattr(module, key[1], value.get(key, _fresh(module._config[key[1]])))


SETTINGS = (
    Setting("the default dtype", torch.get_default_dtype, torch.set_default_dtype),
    Setting("grad mode", torch.is_grad_enabled, torch.set_grad_enabled),
    # Put back only when changed, like every setting: setting this one imports torch._inductor.
    Setting(
        "deterministic algorithms",
        lambda: (
            torch.are_deterministic_algorithms_enabled(),
            torch.is_deterministic_algorithms_warn_only_enabled(),
        ),
        _put_deterministic,
    ),
    Setting(
        "cuDNN flags",
        lambda: (torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark),
        _put_cudnn,
    ),
    # Read by the deterministic kernels: whether torch.empty and the like fill what they
    # allocate (NaN, the largest integer) so that no run reads leftover memory.
    Setting(
        "the filling of uninitialized memory",
        torch._C._get_deterministic_fill_uninitialized_memory,
        torch._C._set_deterministic_fill_uninitialized_memory,
    ),
    Setting(
        "float32 matmul precision",
        torch.get_float32_matmul_precision,
        torch.set_float32_matmul_precision,
    ),
    Setting("the default device", torch.get_default_device, _put_default_device),
    Setting(
        "anomaly detection",
        lambda: (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()),
        lambda value: torch.set_anomaly_enabled(value[0], value[1]),
    ),
    Setting("torch's thread count", torch.get_num_threads, torch.set_num_threads),
    # nn.MultiheadAttention's and nn.TransformerEncoderLayer's fast path (eval, no autograd).
    Setting(
        "the attention fast path",
        torch.backends.mha.get_fastpath_enabled,
        torch.backends.mha.set_fastpath_enabled,
    ),
    Setting("the attention kernels", _attention_backends, _put_attention_backends),
    Setting(
        "TF32 and reduced-precision flags",
        lambda: (
            torch.backends.cuda.matmul.allow_tf32,
            torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
            torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction,
            torch.backends.cudnn.allow_tf32,
        ),
        _put_reduced_precision,
    ),
    # oneDNN's (the CPU's) deterministic mode, beside cuDNN's: a switch for deterministic
    # kernels that asks for cuDNN's and torch's leaves it as it is.
    Setting(
        "oneDNN's deterministic flag",
        lambda: torch.backends.mkldnn.deterministic,
        _put_mkldnn_deterministic,
    ),
    Setting(
        "backends switched on or off",
        lambda: (torch.backends.cudnn.enabled, torch.backends.mkldnn.enabled),
        _put_backends,
    ),
    Setting("warn-always mode", torch.is_warn_always_enabled, torch.set_warn_always),
    Setting(
        "autograd's multithreading",
        torch.autograd.is_multithreading_enabled,
        torch.autograd.set_multithreading_enabled,
    ),
    Setting("NumPy's error handling", numpy.geterr, lambda value: numpy.seterr(**value)),
    # A precision raised by hand (decimal.getcontext().prec = 100) changes every later
    # Decimal result in the process; decimal.localcontext() keeps it to a block.
    Setting("Python's decimal context", _decimal_context, _put_decimal_context),
    Setting("torch.compiler's configuration", _compiler_config, _put_compiler_config),
)


# -- process-wide registries and stacks ------------------------------------------------------
# What changes torch's own code for everyone once registered or entered: a global optimizer
# step hook (the tests' reference optimizer runs it too), a global module hook, saved-tensor
# hooks or autocast entered and never left, a torch mode left on its stack, inference mode.
# Unlike a setting, no test leaves one changed: after a kata's code ran, a change is put back
# and named, and grading flags it. Compared by identity (`unchanged`): no value's __eq__ runs.

GLOBAL_MODULE_HOOKS = (
    "_global_buffer_registration_hooks",
    "_global_module_registration_hooks",
    "_global_parameter_registration_hooks",
    "_global_backward_pre_hooks",
    "_global_backward_hooks",
    "_global_forward_pre_hooks",
    "_global_forward_hooks",
    "_global_forward_hooks_always_called",
    "_global_forward_hooks_with_kwargs",
)


def _hook_tables(module: types.ModuleType, names: tuple[str, ...]) -> Setting:
    """The module's hook dictionaries: each the same object (a module global its code reads)
    with the same entries; a plain value among them (the backward hooks' kind) compared too."""

    def get() -> tuple:
        found = []
        for name in names:
            table = getattr(module, name, None)
            items = tuple(table.items()) if isinstance(table, dict) else table
            found.append((table, items))
        return tuple(found)

    def put(value: tuple) -> None:
        for name, (table, items) in zip(names, value, strict=True):
            setattr(module, name, table)
            if isinstance(table, dict):
                table.clear()
                table.update(items)

    label = module.__name__.removeprefix("torch.").split(".")[0]
    return Setting(f"the global {label} hooks ({module.__name__})", get, put)


def _saved_tensors_hooks() -> tuple:
    autograd: Any = torch._C._autograd  # its stubs lack some of these
    return (
        autograd._top_saved_tensors_default_hooks(True),
        autograd._saved_tensors_hooks_is_enabled(),
        autograd._saved_tensors_hooks_get_disabled_error_message(),
    )


def _put_saved_tensors_hooks(value: tuple) -> None:
    autograd: Any = torch._C._autograd  # its stubs lack some of these
    top, enabled, message = value
    for _ in range(1000):  # pop what was pushed since (no API gives the stack's depth)
        now = autograd._top_saved_tensors_default_hooks(True)
        if now is None or unchanged(now, top):
            break
        autograd._pop_saved_tensors_default_hooks()
    if top is not None and not unchanged(autograd._top_saved_tensors_default_hooks(True), top):
        autograd._push_saved_tensors_default_hooks(*top)  # popped below where it was
    if enabled:
        autograd._saved_tensors_hooks_enable()
    else:
        autograd._saved_tensors_hooks_disable(message or "")


_AUTOCAST_DEVICES = tuple(torch._C._autocast_supported_devices())


def _autocast_nesting() -> int:
    depth = torch.autocast_increment_nesting() - 1
    torch.autocast_decrement_nesting()
    return depth


def _autocast() -> tuple:
    # Entered with enabled=False, autocast changes only its nesting: left so, the cache is
    # never cleared on the outermost exit.
    return (
        tuple(
            (torch.is_autocast_enabled(d), torch.get_autocast_dtype(d)) for d in _AUTOCAST_DEVICES
        ),
        torch.is_autocast_cache_enabled(),
        _autocast_nesting(),
    )


def _put_autocast(value: tuple) -> None:
    kinds, cache, nesting = value
    for device, (enabled, dtype) in zip(_AUTOCAST_DEVICES, kinds, strict=True):
        torch.set_autocast_enabled(device, enabled)
        torch.set_autocast_dtype(device, dtype)
    torch.set_autocast_cache_enabled(cache)
    depth = _autocast_nesting()
    while depth < nesting:
        depth = torch.autocast_increment_nesting()
    while depth > nesting:
        depth = torch.autocast_decrement_nesting()


def _mode_stacks() -> tuple:
    from torch.overrides import _get_current_function_mode_stack
    from torch.utils._python_dispatch import _get_current_dispatch_mode_stack

    return tuple(_get_current_function_mode_stack()), tuple(_get_current_dispatch_mode_stack())


def _put_mode_stacks(value: tuple) -> None:
    functions, dispatch = value
    while torch._C._len_torch_function_stack():
        torch._C._pop_torch_function_stack()
    for mode in functions:
        torch._C._push_on_torch_function_stack(mode)
    while torch._C._len_torch_dispatch_stack():
        torch._C._pop_torch_dispatch_stack()
    for mode in dispatch:
        torch._C._push_on_torch_dispatch_stack(mode)


def _flush_denormal() -> bool:
    # No getter: a subnormal float times one is zero only while denormals are flushed (the
    # CPU's flag, which NumPy's arithmetic sees as torch's does).
    return bool(numpy.float32(1e-39) * numpy.float32(1) == 0)


def _print_formatters() -> tuple:
    """NumPy's print formatter functions: they run whenever an array is printed (a failure
    message), so each is compared by identity. Plain print options (precision, width) change
    how a message looks only: an answer's basicConfig-like setup is no one's concern."""
    return tuple((numpy.get_printoptions().get("formatter") or {}).items())


def _put_print_formatters(value: tuple) -> None:
    numpy.set_printoptions(formatter=dict(value) or None)  # type: ignore[arg-type]


def _from_pytest(handler: logging.Handler) -> bool:
    # pytest's logging plugin adds its capture handlers to the root logger for each phase of a
    # test and takes them off again: they are no answer's.
    return type(handler).__module__.startswith("_pytest.")


def _runs_code_of_its_own(handler: logging.Handler) -> bool:
    """A handler of a class defined outside logging and pytest (an answer's): its emit runs
    on every record of the process. logging's own (basicConfig's StreamHandler) only write."""
    return not type(handler).__module__.startswith(("logging", "_pytest."))


def _root_handlers() -> tuple:
    return tuple(h for h in logging.getLogger().handlers if _runs_code_of_its_own(h))


def _put_root_handlers(value: tuple) -> None:
    root = logging.getLogger()
    root.handlers[:] = [h for h in root.handlers if not _runs_code_of_its_own(h)] + list(value)


def _constraint_registries() -> tuple:
    """torch.distributions' biject_to and transform_to: constraint -> transform factory, for
    every distribution of the process."""
    registry = sys.modules.get("torch.distributions.constraint_registry")
    if registry is None:
        return ()
    return tuple(
        (r, tuple(r._registry.items())) for r in (registry.biject_to, registry.transform_to)
    )


def _put_constraint_registries(value: tuple) -> None:
    for registry, items in value:
        registry._registry.clear()
        registry._registry.update(items)


# Inference mode has no setter, only a guard object: one is kept for each put-back.
_INFERENCE_GUARDS: list[object] = []

REGISTRIES = (
    _hook_tables(
        sys.modules["torch.optim.optimizer"],
        ("_global_optimizer_pre_hooks", "_global_optimizer_post_hooks"),
    ),
    _hook_tables(
        sys.modules["torch.nn.modules.module"],
        (*GLOBAL_MODULE_HOOKS, "_global_is_full_backward_hook"),
    ),
    Setting("the saved-tensor hooks", _saved_tensors_hooks, _put_saved_tensors_hooks),
    Setting("autocast", _autocast, _put_autocast),
    Setting("torch's mode stacks", _mode_stacks, _put_mode_stacks),
    Setting(
        "inference mode",
        torch.is_inference_mode_enabled,
        lambda value: _INFERENCE_GUARDS.append(torch._C._InferenceMode(value)),
    ),
    Setting("forward-mode AD", torch._C._is_fwd_grad_enabled, torch._C._set_fwd_grad_enabled),
    Setting("flushing denormals", _flush_denormal, torch.set_flush_denormal),
    Setting("NumPy's print formatters", _print_formatters, _put_print_formatters),
    Setting("the root logger's handlers of other classes", _root_handlers, _put_root_handlers),
    Setting(
        "torch.distributions' constraint registries",
        _constraint_registries,
        _put_constraint_registries,
    ),
)


def unchanged(before: object, now: object) -> bool:
    """The same objects, tuple by tuple; plain values (flags, dtypes, counts) by equality."""
    if isinstance(before, tuple) and isinstance(now, tuple):
        return len(before) == len(now) and all(map(unchanged, before, now))
    plain = (bool, int, float, str, torch.dtype)
    return before is now or (type(before) is type(now) and type(now) in plain and before == now)


def record() -> list[Any]:
    """The settings and registries now, for `put_back`."""
    return [setting.get() for setting in SETTINGS] + [registry.get() for registry in REGISTRIES]


def put_back(before: list[Any], registries: bool = True) -> list[str]:
    """Put back each setting (and registry) that differs from `before`; the names of those.
    The registries first: a torch mode left on its stack sees the settings being read."""
    changed = []
    settings = len(SETTINGS)
    for registry, value in zip(REGISTRIES, before[settings:], strict=True):
        if registries and not unchanged(value, registry.get()):
            registry.put(value)
            changed.append(registry.name)
    for setting, value in zip(SETTINGS, before[:settings], strict=True):
        if setting.get() != value:
            setting.put(value)
            changed.append(setting.name)
    return changed


def classes_of(module: types.ModuleType) -> dict[str, type]:
    """The classes a module defines, and the bases they have from outside the standard library
    (pytest.approx's classes share one from `pytest`), by their qualified names."""
    found: dict[str, type] = {}
    for value in list(vars(module).values()):
        if isinstance(value, type) and value.__module__ == module.__name__:
            for cls in value.__mro__:
                if cls.__module__ not in ("builtins", "abc", "typing"):
                    found[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return dict(sorted(found.items()))


# The comparisons tests rely on, class by class: the pair classes assert_close runs for each
# pair of inputs, and pytest.approx with its tolerances (class attributes).
COMPARISONS = {
    **classes_of(torch.testing._comparison),
    **classes_of(sys.modules[type(pytest.approx(0)).__module__]),  # _pytest.approx in pytest 9
}

# Namespaces that code could change for everyone, by any rebinding: torch and the parts of it
# kata answers use, NumPy, the standard library modules a kata answer may import, and the
# comparison classes.
NAMESPACES = {
    "torch": torch,
    "torch.Tensor": torch.Tensor,
    "torch.nn": torch.nn,
    "torch.nn.functional": F,
    "torch.nn.init": torch.nn.init,
    "torch.nn.utils": torch.nn.utils,
    "torch.nn.Module": torch.nn.Module,
    "torch.linalg": torch.linalg,
    "torch.special": torch.special,
    "torch.fft": torch.fft,
    "torch.autograd": torch.autograd,
    "torch.amp": torch.amp,
    "torch.optim": torch.optim,
    "torch.optim.Optimizer": torch.optim.Optimizer,
    "torch.optim.lr_scheduler": torch.optim.lr_scheduler,
    "torch.utils.data": torch.utils.data,
    "numpy": numpy,
    "numpy.random": numpy.random,
    "numpy.linalg": numpy.linalg,
    "builtins": builtins,
    **{module.__name__: module for module in (math, random, collections, itertools, functools)},
    **{module.__name__: module for module in (operator, copy, dataclasses, typing, numbers)},
    **{module.__name__: module for module in (statistics, os, os.path, pathlib, tempfile)},
    **COMPARISONS,
}

# The attributes in those namespaces that torch writes itself, as (namespace, name): each is
# left alone when the new value is torch's own code (or, for the flag, plain data).
LIBRARY_WRITES = {
    # torch._dynamo wraps it when it is imported, so that compiled code does not trace it.
    ("torch", "manual_seed"),
    # torch._dynamo wraps both on its first compile, to tag the modules it compiled, and
    # marks the class as done.
    ("torch.nn.Module", "__init__"),
    ("torch.nn.Module", "__setstate__"),
    ("torch.nn.Module", "___needs_generation_tag_patch"),
}
LIBRARIES = tuple(Path(str(module.__file__)).parent for module in (torch, numpy))
MISSING = object()


def by_a_library(label: str, owner: object, name: str, old: object, new: object) -> bool:
    """True for the changes that torch and Python make themselves; every other rebinding,
    plain data (math.pi = 3) included, is put back.

    Besides LIBRARY_WRITES: importing a submodule binds it in its package (torch.fft),
    copyreg caches a class's slot names on it (`__slotnames__`) when an instance is first
    copied or pickled, and tempfile makes its name generator on first use.
    """
    if new is MISSING:
        return False
    if old is MISSING:
        if isinstance(owner, types.ModuleType) and isinstance(new, types.ModuleType):
            return sys.modules.get(f"{owner.__name__}.{name}") is new
        if isinstance(owner, type) and name == "__slotnames__":
            return True
    if owner is tempfile and name == "_name_sequence":  # made on the first temporary name
        return old is None and type(new) is getattr(tempfile, "_RandomNameSequence", None)
    if (label, name) not in LIBRARY_WRITES:
        return False
    code = getattr(new, "__code__", None)
    return in_a_library(code.co_filename) if code is not None else isinstance(new, bool)


def in_a_library(filename: str) -> bool:
    return any(Path(filename).is_relative_to(root) for root in LIBRARIES)


class _WatchedModule(types.ModuleType):
    """The class of each guarded module: it counts the names assigned or deleted on it, so
    that a restore after each test compares only the modules written to (reading a module's
    names costs nothing more). Comparing every guarded name, about 4,700, costs most of a
    millisecond once a test has filled the caches with its own data."""

    def __setattr__(self, name: str, value: object) -> None:
        _WRITES[id(self)] = _WRITES.get(id(self), 0) + 1
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        _WRITES[id(self)] = _WRITES.get(id(self), 0) + 1
        super().__delattr__(name)


# Guarded module (by id: modules live as long as the process) -> names it had assigned or
# deleted so far.
_WRITES: dict[int, int] = {}


def _watch(module: types.ModuleType) -> None:
    if type(module) is types.ModuleType:
        module.__class__ = _WatchedModule


class GlobalState:
    """A record of the global state; `restore()` puts back what changed since.

    One record serves any number of restores: after each, the state is the record again,
    with the names torch and Python bound themselves meanwhile added to it.
    """

    def __init__(self) -> None:
        for owner in NAMESPACES.values():
            if isinstance(owner, types.ModuleType):
                _watch(owner)
        self.settings = record()
        self.namespaces = {name: vars(owner).copy() for name, owner in NAMESPACES.items()}
        self.writes = dict(_WRITES)

    def restore(self, everything: bool = False) -> list[str]:
        """Put back every setting and replaced name; return what had changed, for the learner.

        A guarded module is compared name by name only when something was assigned on it
        (or its class was put back); `everything` compares every namespace, which also finds
        a name written into a module's dictionary directly (`vars(torch)[name] = ...`).
        Classes, whose names nothing counts, are always compared.
        """
        changed = put_back(self.settings)
        for name, owner in NAMESPACES.items():
            if (
                not everything
                and type(owner) is _WatchedModule
                and _WRITES.get(id(owner), 0) == self.writes.get(id(owner), 0)
            ):
                continue
            if isinstance(owner, types.ModuleType):
                _watch(owner)
            if not _same(self.namespaces[name], vars(owner)):
                changed += _restore_names(name, owner, self.namespaces[name])
                self.namespaces[name] = vars(owner).copy()
        self.writes = dict(_WRITES)
        return changed


def _same(before: dict[str, object], now: Any) -> bool:
    """A quick check: dict equality compares identical values without calling __eq__."""
    try:
        return bool(before == now)
    except Exception:  # a value replaced by one whose == is elementwise, such as a tensor
        return False


def _restore_names(label: str, owner: object, before: dict[str, object]) -> list[str]:
    now = dict(vars(owner))
    changed = []
    for name in sorted(before.keys() | now.keys()):
        old, new = before.get(name, MISSING), now.get(name, MISSING)
        if old is new or by_a_library(label, owner, name, old, new):
            continue
        if old is MISSING:
            delattr(owner, name)
        else:
            setattr(owner, name, old)
        changed.append(f"{label}.{name}")
    return changed


class ThreadStopped(SystemExit):
    """Raised in a thread the harness stops; it ends the thread without a report."""


def stop_threads_in(path: Path) -> list[str]:
    """Stop every other thread that is running code of `path`; return their names.

    A thread that a kata's code started and left running could change the global state
    (the default dtype, the random generators) while another kata's tests run. Idle threads
    (a thread pool waiting for work) run no code of `path` and are left alone. A thread is
    stopped by raising ThreadStopped in it, which takes effect at its next Python
    instruction; one stuck in a single C call stops once that returns.
    """
    harness = {threading.main_thread(), WATCHDOG.thread}
    others = [thread for thread in threading.enumerate() if thread not in harness]
    if not others:
        return []
    frames = sys._current_frames()
    running = []
    for thread in others:
        frame = frames.get(thread.ident or -1)
        if thread is threading.current_thread() or frame is None:
            continue
        while frame is not None and Path(frame.f_code.co_filename) != path:
            frame = frame.f_back
        if frame is not None:
            running.append(thread)
    if not running:
        return []
    hook = threading.excepthook

    def quietly(args: threading.ExceptHookArgs) -> object:
        # The stopped thread's end is no error of its own (pytest would report it as one).
        return None if args.exc_type is ThreadStopped else hook(args)

    threading.excepthook = quietly
    for thread in running:
        ident = ctypes.c_ulong(thread.ident or 0)
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ident, ctypes.py_object(ThreadStopped))
    # A thread stopped while it had a file open (one stopped inside torch.manual_seed left
    # torch/random.py open for reading) leaves the file to be collected: its ResourceWarning
    # comes of the stopping and is no error of the next test's.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        for thread in running:
            thread.join(timeout=1)
        gc.collect()
    if not any(thread.is_alive() for thread in running):
        threading.excepthook = hook  # else kept until the thread ends: it is still to stop
    return [thread.name for thread in running]


_RUN_SEED = [0]  # the run's --katas-seed, set when the plugin configures a run


def set_run_seed(seed: int) -> int:
    """Set the run's seed (0 on a plain run, another under grading's held-out run,
    --katas-seed); the one it replaces."""
    previous, _RUN_SEED[0] = _RUN_SEED[0], seed
    return previous


def run_seed() -> int:
    return _RUN_SEED[0]


def seed_everything(seed: int = 0) -> None:
    """Seed Python's, NumPy's and torch's generators (each device kind's own too)."""
    random.seed(seed)
    numpy.random.seed(seed)
    devices.seed_all(seed)


class RandomState:
    """The state of every random generator `seed_everything` seeds; `restore()` puts it back."""

    def __init__(self) -> None:
        self.python = random.getstate()
        self.numpy = numpy.random.get_state()
        self.cpu = torch.get_rng_state()
        self.kinds = devices.rng_states()

    def restore(self) -> None:
        random.setstate(self.python)
        numpy.random.set_state(self.numpy)
        torch.set_rng_state(self.cpu)
        devices.set_rng_states(self.kinds)
