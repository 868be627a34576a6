"""Helpers for kata tests: clear checks of results, and the rules a kata can impose.

Every helper fails with a message that tells the learner what to change.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
import torch
from torch.overrides import TorchFunctionMode, resolve_name

from torch_katas import devices


def check_tensor(
    actual: object,
    *,
    shape: tuple[int, ...] | torch.Size | None = None,
    dtype: torch.dtype | None = None,
    device: torch.device | str | None = None,
    name: str = "the result",
) -> None:
    """Assert that `actual` is a tensor with the given shape, dtype and device."""
    assert isinstance(actual, torch.Tensor), (
        f"{name} should be a torch.Tensor, got {type(actual).__name__}"
    )
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


def same_device(actual: torch.device | str, expected: torch.device | str) -> bool:
    """True when both name the same device; `cuda` and `cuda:0` count as the same."""
    actual, expected = torch.device(actual), torch.device(expected)
    if actual.type != expected.type:
        return False
    return actual.index is None or expected.index is None or actual.index == expected.index


def assert_close(
    actual: object, expected: object, advice: str | None = None, **options: object
) -> None:
    """`torch.testing.assert_close` with advice for the learner above torch's own report.

    The advice says what to change; torch's report (which elements differ, by how much)
    always follows it, so the numbers are never lost. `options` go to torch as they are
    (rtol, atol, check_dtype, ...).
    """
    if advice is None:
        torch.testing.assert_close(actual, expected, **options)
    else:
        torch.testing.assert_close(
            actual, expected, msg=lambda report: f"{advice}\n{report}", **options
        )


def skip_unless_supported(device: torch.device | str, dtype: torch.dtype) -> None:
    """Skip the test when `device` has no `dtype` (MPS has no float64)."""
    if dtype in devices.missing_dtypes(device):
        kind = torch.device(device).type
        pytest.skip(f"{kind} has no {dtype}; this check runs on the other devices")


def skip_without_float64(device: torch.device | str) -> None:
    """Skip a float64 check on a device without float64 (MPS)."""
    skip_unless_supported(device, torch.float64)


class _ForbidOps(TorchFunctionMode):
    def __init__(self, names: set[str], reason: str):
        super().__init__()
        self.names = names
        self.reason = reason

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if getattr(func, "__name__", None) in self.names:
            called = resolve_name(func) or func.__name__
            raise AssertionError(
                f"your code called {called}, which this kata forbids: {self.reason}"
            )
        return func(*args, **(kwargs or {}))


@contextmanager
def forbidden_ops(*funcs: Callable, reason: str) -> Iterator[None]:
    """Inside the block, calling any of `funcs` fails, however it is reached.

    Ops are matched by name, so forbidding `torch.logsumexp` also forbids the method
    `Tensor.logsumexp`, and forbidding `F.gelu` also forbids `nn.GELU`, which calls it.

    >>> with forbidden_ops(torch.nn.functional.gelu, reason="write GELU yourself"):
    ...     my_gelu(x)
    """
    with _ForbidOps({func.__name__ for func in funcs}, reason):
        yield


@contextmanager
def forbidden_calls(*targets: tuple[object, str], reason: str) -> Iterator[None]:
    """Inside the block, calling any `owner.name` in `targets` fails; restored afterwards.

    For Python-level APIs that `forbidden_ops` cannot see: classes and their methods
    (optimizers, schedulers, DataLoader), `Tensor.backward`, helpers in torch.nn.utils.
    Names the owner lacks are skipped, so one list serves several torch versions.

    >>> with forbidden_calls((torch.optim.SGD, "step"), reason="write the update by hand"):
    ...     my_sgd_step(params)
    """

    def refusal(called: str):
        def refuse(*args, **kwargs):
            raise AssertionError(f"your code called {called}, which this kata forbids: {reason}")

        return refuse

    with pytest.MonkeyPatch.context() as patch:
        for owner, name in targets:
            if hasattr(owner, name):
                where = (
                    owner.__name__
                    if isinstance(owner, types.ModuleType)
                    else f"{owner.__module__}.{owner.__qualname__}"
                )
                patch.setattr(owner, name, refusal(f"{where}.{name}"))
        yield


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


_LOOPS = {
    ast.For: "a for loop",
    ast.AsyncFor: "an async for loop",
    ast.While: "a while loop",
    ast.ListComp: "a list comprehension",
    ast.SetComp: "a set comprehension",
    ast.DictComp: "a dict comprehension",
    ast.GeneratorExp: "a generator expression",
}


def assert_no_python_loops(func: Callable) -> None:
    """Fail when the source of `func` loops in Python (for, while, comprehensions).

    Call it after the function has been run, so an unimplemented stub fails first with
    its NotImplementedError.
    """
    try:
        source = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError):
        return  # no source to read (a builtin or a C extension): nothing loops in Python
    for node in ast.walk(ast.parse(source)):
        kind = _LOOPS.get(type(node))
        if kind:
            line = func.__code__.co_firstlineno + node.lineno - 1
            raise AssertionError(
                f"{func.__qualname__} uses {kind} (line {line}); this kata asks for "
                "tensor operations only, which run as a few kernels on any device "
                "instead of one Python step per element"
            )
