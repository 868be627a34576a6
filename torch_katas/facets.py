"""Facets: the dimensions a kata function's contract names, declared as data beside its tests,
and one generic check per facet, so that a class of mistakes is closed for every kata at once.

A kata's test file declares, for each public function (or class) of its stub, the facets its
contract names, and binds the generated tests to a test name:

    FACETS = facets.declare(
        facets.of(safe_mean, facets.Dtypes(make, oracle=mean64), facets.Unmodified(make)),
        facets.of(nbytes, facets.Number(lambda device: facets.args((2, 3), torch.int8), int)),
    )
    test_facets = FACETS.test

Each facet is a small frozen dataclass (what the contract says); CHECKERS holds the one check
of each facet kind (how it is tested). Every case calls the kata function before it checks
anything, so a stub fails each case by its NotImplementedError. Oracles are torch builtins,
float64 computations and naive loops written in the declaration, never a reference answer.

A case the reference answer itself gets wrong is named in the facet's `defects` (case label ->
the defect): run against the reference, that case must fail (a strict expected failure), so
fixing the reference fails the case until the entry is removed. Any other answer is checked
as usual.
"""

from __future__ import annotations

import copy
import functools
import inspect
import itertools
import math
import random
import types
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, MutableSequence, MutableSet
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode

from torch_katas import devices
from torch_katas.testing import (
    default_dtype,
    dispatch_mode,
    dyadic,
    forbidden_calls,
    reading_source,
    same_device,
    seed_for,
    settings_kept,
    written_arguments,
)

__all__ = [
    "CHECKERS",
    "EDGE_MODELS",
    "FLOATING",
    "HALF",
    "INTEGER",
    "NARROWED",
    "SHAPES",
    "TOLERANCE",
    "Args",
    "BadShapes",
    "Case",
    "Changed",
    "Classes",
    "Declaration",
    "DefaultDevice",
    "Defaults",
    "Dtypes",
    "Edges",
    "Facet",
    "ForwardModes",
    "FreshGrads",
    "Function",
    "GradModeKept",
    "Gradients",
    "Modes",
    "NoGraph",
    "Number",
    "OwnGenerator",
    "Propagates",
    "Refused",
    "Registered",
    "Returns",
    "Runs",
    "Seeded",
    "Setting",
    "Shapes",
    "Trains",
    "Unmodified",
    "UpdatesAll",
    "args",
    "check_bad_shapes",
    "check_changed",
    "check_classes",
    "check_default_device",
    "check_defaults",
    "check_dtypes",
    "check_edges",
    "check_forward_modes",
    "check_fresh_grads",
    "check_grad_mode_kept",
    "check_gradients",
    "check_modes",
    "check_no_graph",
    "check_number",
    "check_own_generator",
    "check_propagates",
    "check_refused",
    "check_registered",
    "check_returns",
    "check_runs",
    "check_seeded",
    "check_setting",
    "check_shapes",
    "check_trains",
    "check_unmodified",
    "check_updates_all",
    "copy_module",
    "declare",
    "edge_models",
    "none",
    "of",
    "past_float32",
    "past_square_overflow",
    "regions",
    "rounded_once_excess",
    "rounds_once",
    "run",
]

# The reference answers, where the suite has them (a take-home folder does not).
_SOLUTIONS = Path(__file__).resolve().parents[1] / "solutions"

FLOATING = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
# "any integer dtype": the unsigned wide dtypes included.
INTEGER = (
    torch.int64,
    torch.int32,
    torch.int16,
    torch.int8,
    torch.uint8,
    torch.uint16,
    torch.uint32,
    torch.uint64,
)
# One rounding of the float64 value to the dtype, and a little more for float32's longer sums.
TOLERANCE = {
    torch.float16: (2.0**-10, 1e-5),
    torch.bfloat16: (2.0**-7, 1e-5),
    torch.float32: (1e-5, 1e-7),
    torch.float64: (1e-10, 1e-12),
}


def past_square_overflow(dtype: torch.dtype) -> float:
    """For test values: a magnitude whose square overflows float16 (max 65504), for float16,
    whose builtin reductions (sum, norm, std) accumulate in float32, so a hand-written
    `x ** 2` in the dtype is caught; 1.0 for other dtypes (bfloat16 has float32's range, so
    its squares overflow the builtins' float32 too)."""
    if dtype == torch.float16:
        return 2.0 * math.sqrt(torch.finfo(dtype).max)
    return 1.0


# The regions a Dtypes facet's cases of a dtype must reach, where a computation in a narrower
# or native dtype gives another result than the exact one rounded once.
NARROWED = {
    torch.float16: ("square", "sum"),
    torch.float64: ("float32",),
    # An integer moved or computed through float32 (x.float() ... .to(x.dtype)) is rounded
    # past 2**24.
    **dict.fromkeys((torch.int64, torch.int32, torch.uint32, torch.uint64), ("float32",)),
}


def past_float32(values: torch.Tensor) -> torch.Tensor:
    """For test values: `values` moved where float32 no longer holds them, in a dtype that
    does: 2**-30 added to float64 ones, 2**24 + 1 to those of a 32 or 64-bit integer dtype
    (other dtypes as they are). A float64 or integer input that goes through float32 and
    back then comes back other than it was."""
    if values.dtype == torch.float64:
        return values + 2.0**-30
    if values.dtype in (torch.int64, torch.int32):
        return values + (2**24 + 1)
    if values.dtype in (torch.uint32, torch.uint64):  # (torch has no addition for them)
        return (values.to(torch.int64) + (2**24 + 1)).to(values.dtype)
    return values


def regions(facet: Dtypes, dtype: torch.dtype) -> set[str]:
    """Which of NARROWED[dtype] the facet's case of `dtype` reaches (made on the CPU):
    "square", an input value whose square overflows float16 (a native x ** 2 or g * g is
    inf); "sum", input magnitudes that add up past float16's largest value in one tensor (a
    native x.sum() / n is inf where the mean is not); "float32", an exact (float64) result
    that float32 does not hold, so that a float64 input computed in float32 is off in its
    8th digit; for a 32 or 64-bit integer dtype, an input of that dtype or a result that
    float32 does not hold (past 2**24), so that one moved through float32 is rounded. Modules'
    state and the .grad of tensors count as inputs."""
    arguments = facet.make(dtype, torch.device("cpu"))
    found: set[str] = set()
    if "float32" in NARROWED.get(dtype, ()):
        exact = _oracle_args(arguments)
        result = facet.oracle(*exact.args, **exact.kwargs)
        held = list(_tensors(result))
        if not dtype.is_floating_point:
            held += [(p, t) for p, t in _tensors(arguments) if getattr(t, "dtype", None) == dtype]
        for _, tensor in held:
            values = torch.as_tensor(tensor)
            if values.is_complex() or values.dtype == torch.bool or not values.numel():
                continue
            if values.is_floating_point():
                values = values[values.isfinite()].double()  # NaN is equal to no float32 either
                if not torch.equal(values.float().double(), values):
                    found.add("float32")
            else:
                wide = values.long()
                if not torch.equal(wide.float().long(), wide):
                    found.add("float32")
        return found
    inputs = [t for _, t in _tensors(arguments) if isinstance(t, torch.Tensor)]
    # Gradients held in .grad are inputs too (a norm or an optimizer step reads them).
    inputs += [t.grad for t in inputs if t.is_leaf and t.grad is not None]
    for tensor in inputs:
        if tensor.dtype != dtype or not tensor.numel():
            continue
        values = tensor.detach().double().abs()
        values = values[values.isfinite()]
        top = torch.finfo(dtype).max
        if values.numel() and values.max() ** 2 > top:
            found.add("square")
        if values.sum() > top:
            found.add("sum")
    return found


# Shapes by name, for the Shapes facet; "non-contiguous..." take strided copies of the inputs,
# whose dimensions no view can merge (a `view(-1, F)` of a 3-D one fails).
SHAPES = {
    "0-dim": (),
    "1-D": (7,),
    "empty": (0, 3),
    "empty inside": (2, 0, 3),  # a size 0 that is not the batch's: no time steps, no rows
    "2-D": (3, 5),
    "size 1": (1, 1),  # a batch of one with one feature: .squeeze() drops both
    "non-contiguous": (4, 3),
    "non-contiguous 3-D": (2, 4, 3),
    # Opt-in (not a default): for "[..., F]" contracts whose code reduces or reshapes the
    # leading dims, where a shortcut that merges only two of them passes at 3-D.
    "4-D": (2, 3, 2, 3),
}
# Shapes checked when a Shapes facet names none.
DEFAULT_SHAPES = tuple(name for name in SHAPES if name != "4-D")


@dataclass(frozen=True)
class Args:
    """The arguments of one call."""

    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    def replace(self, **kwargs: Any) -> Args:
        return Args(self.args, {**self.kwargs, **kwargs})

    def at(self, index: int, value: Any) -> Args:
        """The same arguments with the positional one at `index` replaced by `value`."""
        return Args((*self.args[:index], value, *self.args[index + 1 :]), self.kwargs)

    def through(self, key: int | str, wrap: Callable[[Any], Any]) -> Args:
        """The same arguments with the one at `key` (a position or a keyword) passed through
        `wrap` (Runs counts the calls of the caller's code that way)."""
        if isinstance(key, int):
            return self.at(key, wrap(self.args[key]))
        return self.replace(**{key: wrap(self.kwargs[key])})


def args(*positional: Any, **keywords: Any) -> Args:
    return Args(positional, keywords)


# Models at the edges of what a model holds: nothing, no parameters, buffers only, every
# parameter frozen. Each takes an input of shape (N, 3) and returns one of that shape.
EDGE_MODELS: Mapping[str, Callable[[], nn.Module]] = {
    "nothing": nn.Sequential,
    "no parameters": nn.ReLU,
    "buffers only": lambda: nn.BatchNorm1d(3, affine=False),
    "parameters frozen": lambda: nn.Linear(3, 3).requires_grad_(False),
}


def edge_models(
    make: Callable[[nn.Module, torch.device], Args],
) -> dict[str, Callable[[torch.device], Args]]:
    """Edges calls, one per edge model (labelled "edge model (...)"): make(model, device) ->
    Args, the model new and already on the device."""

    def call(build: Callable[[], nn.Module]) -> Callable[[torch.device], Args]:
        return lambda device: make(build().to(device), device)

    return {f"edge model ({label})": call(build) for label, build in EDGE_MODELS.items()}


# ---------------------------------------------------------------- the facets (data)


@dataclass(frozen=True)
class Facet:
    """One dimension of a contract. `label` tells two facets of one kind apart in test ids;
    `defects` names the cases the reference answer gets wrong (case label -> why; a label
    followed by " on cpu" for one device kind only)."""

    label: str = field(default="", kw_only=True)
    defects: Mapping[str, str] = field(default_factory=dict, kw_only=True)

    def cases(self) -> list[tuple[str, torch.dtype | None]]:
        """(case label, dtype) of every generated test."""
        return [("", None)]


@dataclass(frozen=True)
class Dtypes(Facet):
    """The result keeps the input dtype (or `result(dtype)`), with values of a float64 oracle
    rounded once to it, whatever torch's default dtype: each call runs under the other one
    (float64, as a caller may set it; float32 for float64 input), so a tensor made without
    dtype= shows, and again, on arguments made anew, under the remaining one, so that the
    default tells none of the checks' calls from a caller's. make(dtype, device) -> Args;
    oracle(*args on the CPU, floating ones in float64) -> the exact result; `atol` where
    values near 0 are computed by cancellation. Each case runs again with every optional
    tensor argument (default None) left None: the result's dtype must not change (its
    values are not checked there).
    The first dtype's case also passes strided copies of the tensors (in lists and dicts too),
    whose dimensions no view merges: any layout, unless `strided=False` says why not; and
    calls twice, on make's values and on others of the same shapes (the first tensor's rows
    reversed), the first result checked after the second call: a result cached by shape or
    id, a tensor kept and overwritten by the next call, and results (or parts of one) that
    share memory show (parts of one result clash where they share elements: two rows of one
    tensor, each a result of its own, are written into apart). The float64 case runs again
    with every float64 input scaled off the values float32 holds, so one input moved through
    float32 and promoted back shows."""

    make: Callable[[torch.dtype, torch.device], Args]
    oracle: Callable[..., Any]
    dtypes: tuple[torch.dtype, ...] = FLOATING
    result: Callable[[torch.dtype], torch.dtype] | None = None
    # Absolute tolerance (one for all, or by dtype) where values near 0 come from cancellation.
    atol: float | Mapping[torch.dtype, float] | None = None
    # In ulps of the dtype, where the contract allows more than one rounding (a native sum).
    ulps: float = 1.0
    # The first dtype's case runs on strided copies of the inputs too; False where the
    # contract asks for a layout.
    strided: bool = True
    # Where the contract computes float16/bfloat16 inputs in float32 and rounds once: each
    # 16-bit value is the exact one rounded to nearest (within float32's own rounding), in
    # place of `ulps` and `atol`, so a step done in the 16-bit dtype (statistics, a sum, an
    # affine step after the cast, a second rounding) shows.
    once: bool = False
    # True where the contract makes the results views of the inputs (which may then share
    # memory with each other): the second call checks their values alone.
    views: bool = False
    # The float64 case also runs with every float64 input scaled off float32's values;
    # False where the contract's inputs must hold exact values (say why).
    inputs_past_float32: bool = True

    def cases(self) -> list[tuple[str, torch.dtype | None]]:
        return [(str(dtype).removeprefix("torch."), dtype) for dtype in self.dtypes]


@dataclass(frozen=True)
class Gradients(Facet):
    """Gradients of the result with respect to an argument are finite wherever the float64
    oracle's are, and close to them rounded to the dtype (`ulps` apart): no NaN from an
    intermediate value that overflows, or from the unselected branch of a where. The
    incoming gradient is not all ones but of mixed signs and sizes (a scalar gets -1.5), as
    a weighted or scaled loss sends: a backward that drops or misplaces grad_output shows.
    Called with no argument that requires grad, the result requires none either (no leaf
    created with requires_grad=True inside). make(dtype, device) -> Args; oracle as for
    Dtypes, differentiable."""

    make: Callable[[torch.dtype, torch.device], Args]
    oracle: Callable[..., Any]
    dtypes: tuple[torch.dtype, ...] = FLOATING
    ulps: float = 8.0
    atol: float | Mapping[torch.dtype, float] | None = None
    wrt: int | str = 0  # the argument to differentiate with respect to: position or keyword

    def cases(self) -> list[tuple[str, torch.dtype | None]]:
        return [(str(dtype).removeprefix("torch."), dtype) for dtype in self.dtypes]


@dataclass(frozen=True)
class Shapes(Facet):
    """Every named shape the contract allows works, with the oracle's values (float32).
    make(shape, device) -> Args; "non-contiguous" passes strided copies of the tensors. A
    function that declares Gradients passes them at every shape too: each argument a
    Gradients facet names (`wrt`) made to require grad, the result is differentiable and the
    gradient is the oracle's (a shortcut that returns a constant, or one input as given, for
    an empty or a one-element input cuts the graph). Each call runs under torch's other
    default dtype, then under the remaining one, as Dtypes' do, and the result has the dtype
    a Dtypes facet of the function keeps for the inputs' (a zero made by torch.tensor(0.0)
    promotes a 0-dim input)."""

    make: Callable[[tuple[int, ...], torch.device], Args]
    oracle: Callable[..., Any]
    shapes: tuple[str, ...] = DEFAULT_SHAPES
    atol: float = 1e-6

    def cases(self) -> list[tuple[str, torch.dtype | None]]:
        return [(name, None) for name in self.shapes]


@dataclass(frozen=True)
class Edges(Facet):
    """The edge inputs the contract names give the oracle's result: an empty batch, every
    sample ignored or masked, a single sample or class, tied values, a zero variance or norm,
    values at the dtype's limits. For each label of `calls`, make(device) -> Args; the result
    has the oracle's structure (tensors, Python numbers, tuples, dicts), each tensor its shape, its
    values with NaN and ±inf where the oracle's are, and the dtype the contract keeps: a
    floating result the dtype of the first floating tensor argument (an integer one the
    oracle's), on the test's device. The oracle gets CPU copies, floating ones in float64.
    `wrt`: that argument made to require grad, the result is differentiable and the gradient
    is the oracle's (0 where nothing counts, not NaN): a shortcut that returns a constant for
    the edge case cuts the graph. Where the function declares `Returns` (a new result), the
    result at each edge shares no memory with the inputs either (no view handed back by a
    shortcut for one position or one row)."""

    calls: Mapping[str, Callable[[torch.device], Args]]
    oracle: Callable[..., Any]
    wrt: int | str | None = None
    atol: float = 1e-6

    def cases(self) -> list[tuple[str, torch.dtype | None]]:
        return [(label, None) for label in self.calls]


@dataclass(frozen=True)
class BadShapes(Facet):
    """The contract fixes the shape of each named tensor argument (by the other arguments'):
    any other shape raises `error`, those that would broadcast included. From valid arguments
    (make(device) -> Args, each pinned dimension of size > 1), each named argument (position
    or keyword) is given in turn: a dimension of size 1 added in front and at the end, each
    pinned dimension cut to size 1 and made one longer, the leading dimension dropped, a
    0-dim value, the last two dimensions swapped and all flattened (the same size in another
    shape); also in an empty batch where the function declares an empty Shapes (a shortcut
    for nothing to do comes after the checks). `dims`: the pinned dimensions where the others
    are free (x's last, [..., F]); then only those are changed (and the last two swapped);
    `dims=()`: the number of dimensions alone ("logits is not 2-D"). A refused call changes
    nothing."""

    make: Callable[[torch.device], Args]
    names: tuple[int | str, ...]
    dims: tuple[int, ...] | None = None
    error: type[BaseException] = ValueError

    def cases(self) -> list[tuple[str, torch.dtype | None]]:
        return [(_argument_name(name), None) for name in self.names]


@dataclass(frozen=True)
class Number(Facet):
    """The result is a Python number of exactly this type (float stays float, not a tensor,
    not a NumPy scalar, not an int). A list or dict, or a tuple holding them, is the
    caller's own: the next call returns new ones (not a cached one handed out again).
    make(device) -> Args."""

    make: Callable[[torch.device], Args]
    type: type


@dataclass(frozen=True)
class Setting(Facet):
    """A numeric argument with a valid range: NaN, ±inf and just outside each bound raise
    `error`; the bounds and just inside them work. make(device) -> Args with valid values,
    `name` among its keywords (`index`: the element probed of a tuple-valued one, as each of
    `betas`). An `integer` setting is probed with ints, and with a fraction half a step
    beyond a closed bound (`n < 1` rejects 0.5, `n <= 0` does not) and one drawn nearer the
    bound (`round(n) < 1` rejects 0.5, not 0.75); with NaN where declared,
    and with inf where it must raise (`high_open` at an infinite high: a finite count).
    Each value that must raise is also tried with every other Setting of the function at its
    bounds (0 samples, 0 epochs), and with an empty input where the function declares an
    empty shape, where a shortcut could return before the checks, and changes nothing before
    raising: the arguments' tensors and optimizers' param groups stay."""

    make: Callable[[torch.device], Args]
    name: str
    low: float = -math.inf
    high: float = math.inf
    low_open: bool = False
    high_open: bool = False
    error: type[BaseException] = ValueError
    integer: bool = False
    # Whether NaN is probed (must raise). Default: yes for a float setting, unless the
    # contract names the bound alone ("if lr is negative", as torch's optimizers check it,
    # then nan=False); no for an integer one, unless its contract says NaN raises (nan=True).
    nan: bool | None = None
    index: int | None = None

    def probes(self) -> dict[str, tuple[float, bool]]:
        """label -> (value, valid)."""
        found: dict[str, tuple[float, bool]] = {}
        if self.probes_nan:
            found["nan"] = (math.nan, False)
        if not self.integer:
            found["inf"] = (math.inf, self.high == math.inf and not self.high_open)
            found["-inf"] = (-math.inf, self.low == -math.inf and not self.low_open)
        elif self.high == math.inf and self.high_open:
            found["inf"] = (math.inf, False)
        for side, bound, opened, outward in (
            ("low", self.low, self.low_open, -math.inf),
            ("high", self.high, self.high_open, math.inf),
        ):
            if math.isinf(bound):
                continue
            inward = -outward
            if self.integer:
                step = 1 if outward > 0 else -1
                at, beyond = int(bound), int(bound) + step
                inside = at - step if opened else at
                found[f"{side} {inside} works"] = (inside, True)
                found[f"{side} {at if opened else beyond} raises"] = (
                    at if opened else beyond,
                    False,
                )
                if not opened:
                    found[f"{side} {at + step / 2} raises"] = (at + step / 2, False)
                    # And one nearer the bound, drawn from the test's seeded generator:
                    # `round(n) < 1` rejects 0.5 (rounded to even) but takes 0.75.
                    found[f"{side} a drawn fraction raises"] = (at + step * dyadic() / 2, False)
            else:
                if opened:
                    found[f"{side} {bound!r} raises"] = (bound, False)
                    found[f"{side} just inside works"] = (math.nextafter(bound, inward), True)
                else:
                    found[f"{side} {bound!r} works"] = (bound, True)
                    found[f"{side} just outside raises"] = (math.nextafter(bound, outward), False)
        return found

    @property
    def probes_nan(self) -> bool:
        return not self.integer if self.nan is None else self.nan

    @property
    def what(self) -> str:
        return self.name if self.index is None else f"{self.name}[{self.index}]"

    def cases(self) -> list[tuple[str, torch.dtype | None]]:
        return [(f"{self.what} {label}", None) for label in self.probes()]


@dataclass(frozen=True)
class Refused(Facet):
    """Calls the contract refuses raise `error` and change nothing, however far they got: a
    refused call leaves every state as it was (the checks come before the first write). For
    each label of `calls`, make(device) -> Args that the contract names as an error (a shape
    that merely broadcasts, an empty batch, a wrong dtype); after the call raises, the
    arguments are as they were: their tensors (values, dtype, device, requires_grad, .grad,
    not written in place), each module's parameters and buffers in the same tensors, with
    their .grad, none added, each submodule's train/eval mode, hooks and settings, each
    optimizer's state, param groups and attributes, every list and dict with its keys; and
    every global setting (grad mode, RNG seed, ...), as for any call."""

    calls: Mapping[str, Callable[[torch.device], Args]]
    error: type[BaseException] = ValueError

    def cases(self) -> list[tuple[str, torch.dtype | None]]:
        return [(label, None) for label in self.calls]


@dataclass(frozen=True)
class DefaultDevice(Facet):
    """`device=None` (left out by make) means torch's current default device; or the CPU
    (`where="cpu"`); or the inputs' device, made on the test's device (`where="input"`):
    under `torch.device(...)` (meta on the CPU's run, the test's device on an
    accelerator's), every tensor of the result is there. make(device) -> Args. A function
    that needs values (data-dependent ops) gives `meta=False`: its CPU run then checks the CPU.
    A function with a `device` parameter is also called with device= the test's device under
    the default device meta: an explicit device wins, and what is made is made there, not
    made on the default device and moved (`nn.Linear(...).to(device)`,
    `torch.tensor(data).to(device)` cannot copy out of meta)."""

    make: Callable[[torch.device], Args]
    where: str = "default"
    meta: bool = True


@dataclass(frozen=True)
class Unmodified(Facet):
    """The caller's inputs are left as they were: every tensor, array and module state in the
    arguments equal (values, dtype, device, requires_grad, attributes set on it) after the
    call, every list and dict with its keys and the attributes set on it (a state_dict's
    `_metadata`), and a module's state held in the same tensors (values put back into them,
    not into new ones, and into their own memory: not by set_ or .data =), with the hooks it
    had (none added, none removed) and each submodule in its own train/eval mode. An input
    tensor that does not require grad gets no .grad; one that requires grad keeps its .grad,
    checked twice: None stays None, and a .grad the caller had set stays (the call runs
    again on inputs made anew with one set); with `module_grads`, so does the .grad of every
    trainable parameter of a module given. Where the modules given hold several trainable
    parameters, the call runs once more with every other one frozen (requires_grad=False),
    as a caller's frozen layers are."""

    make: Callable[..., Args]
    # What must stay as it was (default: every argument), where the function updates others.
    inputs: Callable[[Args], Any] | None = None
    # Where a dtype may change the path taken (`.to(dtype)` returns the caller's own tensor
    # when it already has that dtype): one case per dtype, make(dtype, device) -> Args.
    dtypes: tuple[torch.dtype, ...] = ()

    def cases(self) -> list[tuple[str, torch.dtype | None]]:
        if not self.dtypes:
            return [("", None)]
        return [(str(dtype).removeprefix("torch."), dtype) for dtype in self.dtypes]

    # False where the contract lets backward fill the inputs' .grad (a training step).
    grads: bool = True
    # True where the contract leaves the given modules' .grad alone too (an evaluation, which
    # may run between a caller's backward and its step): none cleared, zeroed or added to.
    # By default a module's .grad is its own to fill, as its state is.
    module_grads: bool = False


@dataclass(frozen=True)
class NoGraph(Facet):
    """State updated from inputs that carry a graph records none: every tensor state(args,
    result) names has no grad_fn after the call, and one the call returns (not the caller's
    own) does not require grad either: detached, not a leaf made to require grad (the point
    an optimizer moved, returned as it is). make(device) -> Args."""

    make: Callable[[torch.device], Args]
    state: Callable[[Args, Any], Any]


@dataclass(frozen=True)
class Trains(Facet):
    """A returned module still trains: a backward pass from forward(module, device) reaches
    every parameter that requires grad, with finite gradients, in the mode it is returned in
    and in eval mode (a model evaluated, or frozen by .eval(), still passes gradients where
    grad mode is on); the gradients are the true ones: in float64, along a random direction
    of the trained parameters, the gradient agrees with a central difference of the output
    (a path cut by detach, or a backward of its own, that leaves every parameter some
    gradient still shows); and grad mode is the caller's: under torch.no_grad() the forward
    records no graph. make(device) -> Args; module(args, result) picks the module (default:
    the result)."""

    make: Callable[[torch.device], Args]
    forward: Callable[[nn.Module, torch.device], torch.Tensor]
    module: Callable[[Args, Any], nn.Module] | None = None


@dataclass(frozen=True)
class Registered(Facet):
    """A returned module holds its state as every torch module does, so that parameters(),
    state_dict(), .to(...), .train()/.eval() and copies reach all of it:
    - every tensor and module it keeps, in its attributes and in the lists, tuples and dicts
      they hold, is a registered parameter, buffer or submodule (not a plain tensor
      attribute, not layers in a Python list or dict), after a forward too (no output or
      activation kept on the module as a plain tensor);
    - every parameter is trainable (requires_grad), but those `frozen(module)` names;
    - each tensor is saved under one state_dict key: no part registered twice (`shared`
      where the contract ties weights);
    - built under torch's default dtype float64, every floating parameter and buffer is in
      float64 (no dtype=torch.float32 passed to a layer or a tensor);
    - its state_dict() is all of its state: another module built after another seed, loaded
      with it (strictly), computes the same output (both in eval mode);
    - it is its own: changing the parameters and buffers of that other module, or of a
      copy.deepcopy of it, leaves its output as it was (no state shared through a class
      attribute, a global or a closure);
    - .eval() returns the module and puts every submodule in eval mode; .train() returns it.
    make(device) -> Args; forward(module, device) runs it (under a seed the check sets);
    module(args, result) picks the module (default: the result)."""

    make: Callable[[torch.device], Args]
    forward: Callable[[nn.Module, torch.device], Any]
    module: Callable[[Args, Any], nn.Module] | None = None
    # The parameters the contract freezes (requires_grad=False), of the module built.
    frozen: Callable[[nn.Module], Any] | None = None
    # The contract shares a tensor between two registered places (tied weights).
    shared: bool = False


@dataclass(frozen=True)
class UpdatesAll(Facet):
    """An update "of every parameter" changes every one: each tensor params(args) names
    differs after the call, and (`in_place`) the update is written into the tensor's own
    memory, where a view of it (a flat buffer the parameters are views of, an optimizer's
    alias) sees it: not a new tensor bound in its place (`p.data = ...`). A function with a
    `loss_fn` argument calls it as `loss_fn(outputs, targets)`: some call gets a tensor that
    requires grad first (the model's outputs) and none gets one second, which an MSE loss,
    symmetric in its arguments, does not show by its values. make(device) -> Args."""

    make: Callable[[torch.device], Args]
    params: Callable[[Args], Any]
    in_place: bool = True


@dataclass(frozen=True)
class FreshGrads(Facet):
    """Gradients held before the call play no part, whatever they hold: with NaN in the
    .grad of every tensor params(args) names beforehand (left by the caller's overflowed
    step), and with finite values drawn from seed_for, each tensor's own (as a backward
    leaves them: nothing that a function could tell from a caller's by a fill), the call
    returns what it returns with no .grad at all, and leaves those tensors the same: each
    backward starts from nothing (gradients cleared before it, not after the step; set to
    None or zeroed, not multiplied by 0). make(device) -> Args; the calls on arguments made
    anew after the same torch.manual_seed. A third call, with some of the
    trainable tensors params(args) names frozen (requires_grad False, no .grad: a backbone
    the caller froze to fine-tune the rest; which ones is drawn from seed_for, so that a
    held-out run freezes others), leaves the frozen ones frozen, with no .grad, and as they
    were, and the others trainable: a loop that sets requires_grad on the model trains what
    the caller froze. A fourth, with the frozen ones holding a .grad from an earlier
    backward, leaves them frozen and as they were (their .grad cleared or left): zeroing it
    keeps them in the step, where weight decay and momentum still move them."""

    make: Callable[[torch.device], Args]
    params: Callable[[Args], Any]


@dataclass(frozen=True)
class Returns(Facet):
    """`new`: the result is a new object that shares no memory with the tensor and array
    inputs (as made, and in strided copies of them), nor
    between its own elements (no expanded view: it can be written in place, as an
    accumulator is; no inference tensor, made under torch.inference_mode(), which cannot be
    written in place outside it), nor with the result of another call (no cached tensor,
    array, list or dict handed out twice), and each tensor in it with a graph takes an
    in-place write (not one of the views a multi-output op such as split returns, which
    autograd refuses to write into); `same`: it is the first argument itself (in place).
    make(device) -> Args."""

    make: Callable[[torch.device], Args]
    kind: str = "new"


@dataclass(frozen=True)
class Changed(Facet):
    """A second call on the same objects, after the caller changed them in place, gives what
    a call on untouched copies changed the same way gives: nothing is kept between calls
    under an object's id() (a module, an optimizer) or on the object itself, to be handed
    out again once its state has moved on. make(device) -> Args; change(args) changes them
    in place (a step taken, a parameter frozen, gradients refilled; default: 1 added to
    every floating parameter and buffer of every module in the arguments) and must change
    the result."""

    make: Callable[[torch.device], Args]
    change: Callable[[Args], None] = field(default=lambda arguments: _all_perturbed(arguments))


@dataclass(frozen=True)
class Modes(Facet):
    """The module's train/eval mode is left as found, each submodule's own, for a module in
    train mode, one in eval mode and one in train mode holding submodules in eval (frozen
    parts), or the reverse, and a second call gives the same result; modes and global
    settings (grad mode) are left as found also when the module raises (its error may go
    through). make(device) -> Args; module(args) picks the module. `sets`: the function puts
    the module in that mode instead (True: training, as model.train() does), every submodule
    included, whatever mode each was in (the root in train with submodules in eval too)."""

    make: Callable[[torch.device], Args]
    module: Callable[[Args], nn.Module]
    sets: bool | None = None

    def cases(self) -> list[tuple[str, torch.dtype | None]]:
        if self.sets is not None:
            return [(label, None) for label in ("train", "eval", "mixed", "mixed under eval")]
        return [("train", None), ("eval", None), ("mixed", None), ("raises", None)]


@dataclass(frozen=True)
class ForwardModes(Facet):
    """Every forward of the module, each submodule's, runs in the mode the contract names:
    `runs="caller"`, the mode the caller left each one in; "eval" or "train", that mode for
    every submodule. Tried with the module in eval mode, in training holding submodules in
    eval (frozen parts) and the reverse. A mode switched for the call and put back after
    shows here, where the Modes facet sees the flags after the call only. make(device) ->
    Args; module(args) picks the module. `grad`, which every declaration names: each forward
    runs with autograd on (True: a training step), off (False: a measurement or an
    evaluation records no graph, not one recorded and detached after), or None: in the
    caller's grad mode, off under the caller's torch.no_grad() too (a forward pass). The
    module itself is called, module(x), so its hooks run (not module.forward(x), which skips
    forward hooks and the pre-hooks of parametrizations and pruning); `whole=False` where the
    contract runs its submodules one by one instead (a measurement per layer). `calls`: how
    many times the module itself runs, as the contract names it, a number or calls(args) (an
    evaluation runs the model once per batch: not a second forward to look at the output
    first); each submodule then runs at most as often (the modules a test gives call each
    layer once per forward; a fast path may skip some), so a forward that runs one of its
    layers twice fails too. Every facet with whole=True names it (a self-check holds them to
    it). The forward of the module and of each submodule is counted too, however reached
    (module.forward(x), its class's forward handed the module): a run that is no call of the
    module, which its pre-hook would not count, fails."""

    make: Callable[[torch.device], Args]
    module: Callable[[Args], nn.Module]
    runs: str = "caller"
    grad: bool | None = field(kw_only=True)
    whole: bool = field(default=True, kw_only=True)
    calls: int | Callable[[Args], int] | None = field(default=None, kw_only=True)

    def cases(self) -> list[tuple[str, torch.dtype | None]]:
        labels = ["eval", "mixed", "mixed under eval"]
        if self.grad is None:
            labels.append("eval under no_grad")
        return [(label, None) for label in labels]


@dataclass(frozen=True)
class Classes(Facet):
    """A rule that names classes covers exactly those: each class in `covered`, a subclass of
    each defined by the check, and none of `others` (siblings, classes that share a private
    base). make(cls, device) -> Args holding an instance; treated(args, result) says whether
    the call treated it as one of the classes the rule names. `own`: the rule treats the
    module itself, not its children: the subclass then holds a child, a plain instance of the
    class it extends built with the same arguments (an adapter inside a layer), whose state
    must be left as it is."""

    make: Callable[[type, torch.device], Args]
    treated: Callable[[Args, Any], bool]
    covered: tuple[type, ...]
    others: tuple[type, ...] = ()
    own: bool = False

    def cases(self) -> list[tuple[str, torch.dtype | None]]:
        names = [cls.__name__ for cls in self.covered]
        return [
            *((name, None) for name in names),
            *((f"subclass of {name}", None) for name in names),
            *((f"not {cls.__name__}", None) for cls in self.others),
        ]


@dataclass(frozen=True)
class Seeded(Facet):
    """A function that draws random numbers draws them from torch's generator as the caller
    seeded it (not a private one it seeds itself): after the same torch.manual_seed it gives
    the same result, after another seed another one. make(device) -> Args; drawn(args,
    result) picks what was drawn (default: the result). `like` (a function of no arguments,
    built from torch's own layers or functions): what the contract says is drawn, in its
    order ("initialised as nn.Linear creates it"); after the same seed the drawn tensors
    equal its tensors, in order: nothing drawn before, between or after, nothing redrawn.
    Each call moves the caller's stream on: nothing drawn from a copy of it (inside
    torch.random.fork_rng, before a saved state is put back with set_rng_state or the
    default generator's set_state, or from a generator given its state or its seed), nothing
    reseeded."""

    make: Callable[[torch.device], Args]
    drawn: Callable[[Args, Any], Any] | None = None
    like: Callable[[], Any] | None = None


@dataclass(frozen=True)
class OwnGenerator(Facet):
    """A function whose random numbers come from a torch.Generator of its own leaves torch's
    global generators alone while it runs, not only once it returns: it draws nothing from
    them, and neither reseeds them nor saves and restores them around a reseed or a draw
    (torch.random.fork_rng, set_rng_state, torch.default_generator's own methods).
    make(device) -> Args; then(args, result), where the draws come later (a DataLoader or
    its sampler iterated), is watched too."""

    make: Callable[[torch.device], Args]
    then: Callable[[Args, Any], Any] | None = None


@dataclass(frozen=True)
class Propagates(Facet):
    """An error raised by the caller's code that the function runs (a function, a loss, a
    model's forward, a clock) propagates as it was raised: the same exception object, not
    swallowed, not replaced by another, and the caller's code not called again after it
    raised; an Exception, and a KeyboardInterrupt (Ctrl-C) too. make(device, fault) -> Args
    with `fault` where the caller's code goes: a callable that raises, whatever it is given."""

    make: Callable[[torch.device, Callable[..., Any]], Args]

    def cases(self) -> list[tuple[str, torch.dtype | None]]:
        # An Exception, and a KeyboardInterrupt (not an Exception): `except KeyboardInterrupt:`
        # to stop early, a bare `except:` or `except BaseException:` swallow the second.
        return [("", None), ("KeyboardInterrupt", None)]


@dataclass(frozen=True)
class Runs(Facet):
    """The caller's code the function runs (a function, a loss, an activation, a closure)
    runs as many times as the contract names, no more (a second call to log a loss, to
    check a result, to warm up: it may have effects of its own, a BatchNorm's statistics,
    a dropout's draw, a counter) and no fewer, and (`grad`) in the grad mode the contract
    names: True, with grad on also when the caller is under torch.no_grad() (its slope or
    its backward is wanted); False, with grad off (a measurement records no graph).
    make(device, wrap) -> Args with each of the caller's callables passed through wrap,
    which counts its calls; times(args) -> how many calls the contract names for them."""

    make: Callable[[torch.device, Callable[[Callable[..., Any]], Callable[..., Any]]], Args]
    times: Callable[[Args], int]
    grad: bool | None = None

    def cases(self) -> list[tuple[str, torch.dtype | None]]:
        if self.grad is None:
            return [("", None)]
        return [("", None), ("under no_grad", None)]


@dataclass(frozen=True)
class GradModeKept(Facet):
    """Called under the caller's `torch.no_grad()` (an evaluation loop), the function leaves
    grad mode off when it returns or raises (grad turned on for its own work inside `with
    torch.enable_grad():`, not by `torch.set_grad_enabled(True)`). Every function that
    declares facets gets this case: its arguments are those of its first facet (`make`
    given, to declare it alone)."""

    make: Callable[[torch.device], Args] | None = None


@dataclass(frozen=True)
class Defaults(Facet):
    """A parameter left out means its documented default: the call without it gives what the
    call with that value written out gives, so a default changed in the signature (or read
    another way inside) shows. `values`: name -> the default the stub's signature documents
    (a self-check holds them to it, and holds every default of a function with facets to
    one such facet). make(device) -> Args without the parameters named in `values`; None:
    the arguments of the function's first other facet, the case's parameter taken out of
    them (what follows it passed by keyword). key(args, result) picks what is compared, after
    the call (default: the result; a module is compared by its state). Both calls run on
    arguments made anew after the same torch.manual_seed."""

    make: Callable[[torch.device], Args] | None = None
    values: Mapping[str, Any] = field(kw_only=True)
    key: Callable[[Args, Any], Any] | None = None

    def cases(self) -> list[tuple[str, torch.dtype | None]]:
        return [(name, None) for name in self.values]


# ---------------------------------------------------------------- declarations


@dataclass(frozen=True)
class Function:
    """The facets of one public function or class; `call` runs it (default: the function)."""

    target: Callable[..., Any]
    facets: tuple[Facet, ...]
    name: str
    call: Callable[..., Any]
    reason: str = ""  # why a function declares no facet


def of(
    target: Callable[..., Any],
    *declared: Facet,
    name: str | None = None,
    call: Callable[..., Any] | None = None,
) -> Function:
    """The facets of `target` (a kata function or class). For a method, `name` it
    ("EarlyStopping.step") and give `call` (the object first)."""
    return Function(target, declared, name or target.__name__, call or target)


def none(target: Callable[..., Any], reason: str) -> Function:
    """`target`'s contract names no facet, for `reason`."""
    return Function(target, (), target.__name__, target, reason)


@dataclass(frozen=True)
class Case:
    function: Function
    facet: Facet
    label: str
    dtype: torch.dtype | None

    def __str__(self) -> str:
        """The case without its dtype: the plugin runs one dtype of each kind on the simulated
        device for each distinct rest of a test's parameters."""
        kind = _kind(self.facet) + (f"({self.facet.label})" if self.facet.label else "")
        label = "" if self.dtype is not None else self.label
        return "-".join(part for part in (self.function.name, kind, label) if part)

    @property
    def id(self) -> str:
        return f"{self}-{self.label}" if self.dtype is not None else str(self)


@dataclass(frozen=True)
class Declaration:
    functions: tuple[Function, ...]

    def cases(self) -> list[Case]:
        return [
            Case(function, facet, label, dtype)
            for function in self.functions
            for facet in _with_grad_mode_kept(function.facets)
            for label, dtype in facet.cases()
        ]

    @property
    def test(self) -> Callable[..., None] | None:
        """The generated test; None (nothing to collect) where no function has a facet."""
        cases = self.cases()
        if not cases:
            return None

        @pytest.mark.parametrize(
            "case, dtype",
            [pytest.param(case, case.dtype, id=case.id) for case in cases],
        )
        def test_facets(device: torch.device, case: Case, dtype: torch.dtype | None) -> None:
            run(case, device)

        return test_facets


def _with_grad_mode_kept(declared: tuple[Facet, ...]) -> tuple[Facet, ...]:
    """Every function with facets is held to GradModeKept (on its first facet's arguments:
    Propagates alone makes only calls that raise)."""
    if any(isinstance(facet, GradModeKept) for facet in declared) or all(
        isinstance(facet, Propagates) for facet in declared
    ):
        return declared
    return (*declared, GradModeKept())


def declare(*functions: Function) -> Declaration:
    silent = [
        function.name for function in functions if not function.facets and not function.reason
    ]
    if silent:
        raise ValueError(f"{silent} declare no facet: say why with facets.none(name, reason)")
    names = [function.name for function in functions]
    duplicated = {name for name in names if names.count(name) > 1}
    if duplicated:
        raise ValueError(f"declared twice: {sorted(duplicated)}")
    return Declaration(functions)


def _kind(facet: Facet) -> str:
    return type(facet).__name__.lower()


# ---------------------------------------------------------------- running a case


def run(case: Case, device: torch.device) -> None:
    """Check one case. A case the reference is known to fail must fail on it."""
    if case.dtype is not None and case.dtype in devices.missing_dtypes(device):
        pytest.skip(f"{device.type} has no {case.dtype}")
    check = CHECKERS[type(case.facet)]
    defects = case.facet.defects
    defect = defects.get(f"{case.label} on {device.type}".lstrip()) or defects.get(case.label)
    if defect is None or not _is_reference(case.function.target):
        check(case, device)
        return
    try:
        check(case, device)
    except (AssertionError, Exception) as error:
        pytest.xfail(f"the reference answer's known defect: {defect} ({error})"[:400])
    pytest.fail(
        f"{case}: the reference answer no longer has the defect named in its facet "
        f"declaration ({defect}): remove the entry from `defects`",
        pytrace=False,
    )


def _is_reference(target: Callable[..., Any]) -> bool:
    """Whether `target` is the reference answer's own: loaded as `katas.*` by --solutions, or
    copied unchanged into a wrong answer (the reference with one mistake applied elsewhere)."""
    try:
        path = Path(inspect.getfile(target))
        if path.parent.name == "solutions":
            return True
        reference = _SOLUTIONS / f"{target.__module__.rpartition('.')[2]}.py"
        with reading_source():
            source = inspect.getsource(target)
        return reference.is_file() and source in reference.read_text("utf-8")
    except (TypeError, OSError):
        return False


def _call(
    case: Case,
    arguments: Args,
    read_only: Any = None,
    inside: Callable[[], AbstractContextManager[Any]] | None = None,
) -> Any:
    """Run the function; it must leave every process-wide setting as it found it (a function
    whose contract is to change one declares no facet). A function whose contract leaves its
    arguments, or some of them, as they were (Unmodified) is held to that in every case of
    every facet, not only its Unmodified case: a change in place can hide behind one dtype, one
    flag or one shape. `inside`: a watch around the function's own run alone, within the
    harness's own look at the settings (which puts the seed back itself)."""
    kept = None if isinstance(case.facet, Unmodified) else _kept_part(case, arguments)
    watched = kept is not None
    before = _snapshot(kept) if watched else []
    held = _state_of_modules(kept) if watched else set()
    objects = {path: tensor for path, tensor in _tensors(kept) if id(tensor) in held}
    modules = _modules_kept(kept) if watched else {}
    # Written through an alias, even if put back: every tensor the contract leaves alone.
    read_only = kept if watched else read_only
    writes = _WritesInto(read_only, _state_of_modules(read_only))
    shared = _shared_state(case.function.target, before=True)
    try:
        with (
            settings_kept(case.function.name),
            writes.watching(),
            inside() if inside is not None else nullcontext(),
        ):
            result = case.function.call(*arguments.args, **arguments.kwargs)
    except NotImplementedError:
        raise
    except (Exception, KeyboardInterrupt):
        _assert_shared_state_kept(case.function, shared)
        # Raising is no licence to leave the caller's inputs changed (a flag switched on
        # for the call and switched off on the success path only), nor is the caller's Ctrl-C
        # (put back in `except Exception:`, which a KeyboardInterrupt passes).
        if watched:
            name = f"{case.function.name}, when it raised,"
            _assert_unchanged(name, before, objects, dict(_tensors(kept)))
            _assert_modules_kept(name, modules, _modules_kept(kept))
        raise
    writes.check(case.function.name)
    _assert_shared_state_kept(case.function, shared)
    if watched:
        _assert_unchanged(case.function.name, before, objects, dict(_tensors(kept)))
        _assert_modules_kept(case.function.name, modules, _modules_kept(kept))
    return result


def _owners(target: Callable[..., Any]) -> dict[str, Any]:
    """Where state outlives a call: the class of a class or a method (its own attributes),
    and the module the answer is written in (its globals)."""
    owners: dict[str, Any] = {}
    module = inspect.getmodule(target)
    if inspect.isclass(target):
        owners[f"the class {target.__name__}"] = target
    elif module is not None and "." in getattr(target, "__qualname__", ""):
        owner = getattr(module, target.__qualname__.partition(".")[0], None)
        if inspect.isclass(owner):
            owners[f"the class {owner.__name__}"] = owner
    if module is not None and module.__name__.partition(".")[0] not in ("torch", "torch_katas"):
        owners[f"the module {module.__name__}"] = module
    return owners


def _contents(value: Any, home: str = "", depth: int = 0) -> Any:
    """What a call could change in one attribute: which object it is, and for a plain
    container (a cache, a counter list) what it holds, each item looked into in turn (a list
    kept in a dict, `{"seen": []}`); for a random generator, its state (one kept by the module
    and reseeded or drawn from by every call is shared by two callers, two threads among
    them); for a tensor, its writes (a buffer kept and filled by every call). What the answer's
    own module (`home`) defines is looked into too, wherever it is kept: a function's mutable
    defaults (`def f(x, seen=[])`), what its closure and its attributes hold, an lru_cache's
    or cache's counts, the attributes of an instance of one of its classes and of the class
    itself, so that no state a call leaves for the next escapes by where it is kept."""
    if _kept_generator(value):
        return id(value), bytes(value.get_state().tolist())  # tagged by _tag_generators
    if isinstance(value, torch.Tensor) and not value.is_inference():
        return id(value), value._version
    if depth > 4 or isinstance(value, (str, bytes, int, float, complex, bool, type(None))):
        return id(value)

    def inner(item: Any) -> Any:
        return _contents(item, home, depth + 1)

    if isinstance(value, dict):
        items = list(value.items())[:1000]
        return id(value), tuple((repr(key)[:200], inner(item)) for key, item in items)
    if isinstance(value, (list, tuple, set, frozenset, bytearray)):
        return id(value), len(value), tuple(inner(item) for item in list(value)[:1000])
    # The other containers a cache is kept in: a WeakSet of the modules seen, a
    # WeakKeyDictionary keyed by them, a deque of recent results.
    if isinstance(value, Mapping | MutableSet | MutableSequence):
        if isinstance(value, Mapping):
            pairs = list(value.items())[:1000]
            return id(value), len(value), tuple((inner(k), inner(v)) for k, v in pairs)
        return id(value), len(value), tuple(inner(item) for item in list(value)[:1000])
    mine = home and home in (
        getattr(value, "__module__", None),
        getattr(type(value), "__module__", None),
    )
    if not mine:
        return id(value)
    # The answer's own functions, classes and instances.
    found: list[Any] = [id(value)] if not callable(value) else []
    cache_info = getattr(value, "cache_info", None)
    if callable(cache_info) and hasattr(value, "cache_clear"):  # functools.lru_cache, cache
        found.append(tuple(cache_info()))
    found.append(_function_state(value, inner))
    attributes = getattr(value, "__dict__", None)
    if isinstance(attributes, Mapping):
        found.append(
            tuple(
                # A class's methods are looked into for what they hold alone: torch's
                # Optimizer wraps its subclass's step on the class when the first one is
                # built, marking the wrapper. Dunders are not state a call keeps.
                (name, _function_state(item, inner) if method else inner(item))
                for name, item in list(attributes.items())[:1000]
                if not name.startswith("__")
                for method in (inspect.isclass(value) and callable(item),)
            )
        )
    return tuple(found)


def _function_state(value: Any, inner: Callable[[Any], Any]) -> tuple[Any, ...]:
    """What a Python function (unwrapped) holds from call to call: its mutable defaults and
    what its closure holds, each looked into (made afresh here, so item by item)."""
    function = inspect.unwrap(value) if callable(value) else value
    if isinstance(function, (staticmethod, classmethod)):
        function = function.__func__
    if not isinstance(function, types.FunctionType):
        return ()
    found: list[Any] = [tuple(map(inner, function.__defaults__ or ()))]
    keywords = function.__kwdefaults__ or {}
    found.append(tuple((name, inner(item)) for name, item in keywords.items()))
    for cell in function.__closure__ or ():
        try:
            found.append(inner(cell.cell_contents))
        except ValueError:  # a cell not filled yet
            found.append(None)
    return tuple(found)


# Seeds no call chooses: each call starts a kept generator from another one.
_GENERATOR_TAGS = itertools.count(0x5EED_0000_0001, 7919)


def _tag_generators(target: Callable[..., Any]) -> None:
    """Seed every random generator the class or the module keeps with a tag before a call,
    so that a call reseeding it (with the same seed as the call before) or drawing from it
    leaves another state than the tag's. Not torch's own (default) generators, which a module
    may import: the checks of the global random state watch those."""
    for owner in _owners(target).values():
        for value in list(vars(owner).values()):
            if _kept_generator(value):
                value.manual_seed(next(_GENERATOR_TAGS))


def _kept_generator(value: Any) -> bool:
    """A generator of the answer's own, not one of torch's default (global) ones."""
    defaults = (torch.default_generator, *torch.cuda.default_generators)
    return isinstance(value, torch.Generator) and not any(value is g for g in defaults)


def _shared_state(target: Callable[..., Any], before: bool = False) -> dict[str, dict[str, Any]]:
    """What the class and the module hold; `before` a call, their generators tagged first."""
    if before:
        _tag_generators(target)
    home = getattr(inspect.getmodule(target), "__name__", "")
    return {
        where: {
            name: _contents(value, home)
            for name, value in list(vars(owner).items())
            # Dunders (the warnings registry, torch.compile's frames) and methods (torch's
            # Optimizer wraps its subclass's step on the class when the first one is built)
            # are not state a call keeps; what the answer's own functions and classes hold
            # (defaults, closures, caches, class attributes) is.
            if not name.startswith("__")
            and (not callable(value) or (not inspect.isclass(owner) and _own(value, home)))
        }
        for where, owner in _owners(target).items()
    }


def _own(value: Any, home: str) -> bool:
    """Whether a function (an lru_cache's too) or a class is the answer's own: defined in its
    module `home`."""
    if not home or getattr(value, "__module__", None) != home:
        return False
    return inspect.isclass(value) or isinstance(
        getattr(value, "__wrapped__", value), types.FunctionType
    )


def _assert_shared_state_kept(function: Function, before: dict[str, dict[str, Any]]) -> None:
    """No call leaves state where every instance and every later call sees it: settings
    written on the class (type(self).gamma = ...) are shared by two instances built side by
    side, and a module-level cache or counter makes one call depend on the calls before."""
    after = _shared_state(function.target)
    for where, names in before.items():
        now = after.get(where, {})
        changed = sorted(
            name for name in names.keys() | now.keys() if names.get(name) != now.get(name)
        )
        assert not changed, (
            f"{function.name} changed {', '.join(changed)} of {where}: keep what a call or an "
            "instance needs on the instance (self.x) or in local variables, so that two "
            "instances and two calls do not share it"
        )


def _kept_part(case: Case, arguments: Args) -> Any:
    """What of `arguments` the function's Unmodified facet says a call leaves as it was (None:
    it declares none). Its `inputs` picks by position from arguments laid out as its own make
    lays them out (positional), so other facets' arguments are bound to the call's signature
    first; where they cannot be, nothing is watched."""
    facet = next((f for f in case.function.facets if isinstance(f, Unmodified)), None)
    if facet is None or facet.inputs is None:
        return arguments if facet is not None else None
    try:
        bound = inspect.signature(case.function.call).bind(*arguments.args, **arguments.kwargs)
        return facet.inputs(Args(tuple(bound.args), dict(bound.kwargs)))
    except (TypeError, ValueError, IndexError, KeyError, AttributeError):
        return None


# NumPy 2 moved it.
_byte_bounds = getattr(np, "byte_bounds", None) or np.lib.array_utils.byte_bounds


def _span(value: torch.Tensor | np.ndarray) -> tuple[int, int] | None:
    """The bytes of memory a tensor's storage (an array's data) spans: [start, end)."""
    if isinstance(value, np.ndarray):
        low, high = _byte_bounds(value)
        return (low, high) if high > low else None
    try:
        storage = value.untyped_storage()
        start = storage.data_ptr()
    except (RuntimeError, NotImplementedError, TypeError):
        return None  # sparse and other tensors without one storage
    return (start, start + storage.nbytes()) if start and storage.nbytes() else None


class _WritesInto(TorchDispatchMode):
    """Sees every aten write (in place, out=) into the memory of the caller's tensors and
    arrays in `value` (not the state modules hold, theirs to update and put back), through
    whatever alias reaches it: a view, `.data`, `torch.from_numpy(x.numpy())`, whose writes
    the version counter misses; a write undone before returning is still one (the caller's
    expanded or shared tensor, or one read meanwhile, sees it)."""

    def __init__(self, value: Any, held: set[int]) -> None:
        super().__init__()
        found = [
            (path, _span(tensor))
            for path, tensor in (_tensors(value) if value is not None else ())
            if id(tensor) not in held
        ]
        self.spans = [(path, span) for path, span in found if span is not None]
        self.found: tuple[str, str] | None = None

    # An infra mode passing higher-order operators (torch.cond) through, as torch's own
    # tracing modes are: the eager torch.cond a non-infra mode breaks works under this one.
    supports_higher_order_operators = True

    @classmethod
    def is_infra_mode(cls) -> bool:
        return True

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        return False  # as testing's modes: nothing is compiled under this mode

    @contextmanager
    def watching(self) -> Iterator[None]:
        if not self.spans:
            yield
            return
        with dispatch_mode(self):
            yield

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        if self.found is None:
            for value in written_arguments(func, args, kwargs):
                for tensor in value if isinstance(value, (list, tuple)) else (value,):
                    span = _span(tensor) if isinstance(tensor, torch.Tensor) else None
                    if span is None:
                        continue
                    for path, (start, end) in self.spans:
                        if span[0] < end and start < span[1]:
                            self.found = (path, str(func))
        return func(*args, **kwargs)

    def check(self, name: str) -> None:
        if self.found is None:
            return
        path, op = self.found
        raise AssertionError(
            f"{name} wrote into the caller's {path} ({op}), through a view or an alias "
            "(.data, .numpy(), from_numpy), even if it put the values back: the caller's "
            "tensor may be expanded or shared, or read meanwhile; work on a copy"
        )


def _tensors(value: Any, depth: int = 0) -> Iterator[tuple[str, Any]]:
    """(path, tensor or array) of everything a value holds: containers, modules' state."""
    if isinstance(value, (torch.Tensor, np.ndarray)):
        yield "", value
    elif depth > 4:
        return
    elif isinstance(value, Args):
        for index, item in enumerate(value.args):
            yield from ((f"argument {index}{path}", t) for path, t in _tensors(item, depth + 1))
        for key, item in value.kwargs.items():
            yield from ((f"{key}{path}", t) for path, t in _tensors(item, depth + 1))
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from ((f"[{index}]{path}", t) for path, t in _tensors(item, depth + 1))
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from ((f"[{key!r}]{path}", t) for path, t in _tensors(item, depth + 1))
    elif isinstance(value, nn.Module):
        state = value.state_dict(keep_vars=True)
        yield from ((f".{key}", item) for key, item in state.items())
        # Non-persistent buffers are the module's state too, though not in its state_dict.
        for key, item in value.named_buffers(remove_duplicate=False):
            if key not in state:
                yield f".{key}", item
    elif isinstance(value, torch.optim.Optimizer):
        yield from ((f".state{path}", t) for path, t in _tensors(value.state_dict(), depth + 1))


def _state_of_modules(value: Any, depth: int = 0) -> set[int]:
    """The ids of the tensors in `value` that modules and optimizers hold as their state."""
    if isinstance(value, (nn.Module, torch.optim.Optimizer)):
        return {id(tensor) for _, tensor in _tensors(value)}
    if isinstance(value, Args):
        items: Any = [*value.args, *value.kwargs.values()]
    elif isinstance(value, (list, tuple)):
        items = value
    elif isinstance(value, dict):
        items = value.values()
    else:
        return set()
    return (
        set().union(*(_state_of_modules(item, depth + 1) for item in items)) if depth < 5 else set()
    )


def _modules(value: Any, path: str = "", depth: int = 0) -> Iterator[tuple[str, nn.Module]]:
    """(path, module) of every module a value holds, submodules included."""
    if isinstance(value, nn.Module):
        for name, module in value.named_modules(remove_duplicate=False):
            yield f"{path}.{name}" if name else path, module
        return
    if depth > 4:
        return
    if isinstance(value, Args):
        items: Any = [*enumerate(value.args), *value.kwargs.items()]
    elif isinstance(value, (list, tuple)):
        items = enumerate(value)
    elif isinstance(value, dict):
        items = value.items()
    else:
        return
    for key, item in items:
        yield from _modules(item, f"{path}[{key!r}]" if path else f"argument {key}", depth + 1)


# The hooks a module keeps (torch.nn.Module's own dicts), keyed by handle id.
_HOOK_DICTS = (
    "_forward_hooks",
    "_forward_hooks_with_kwargs",
    "_forward_hooks_always_called",
    "_forward_pre_hooks",
    "_forward_pre_hooks_with_kwargs",
    "_backward_hooks",
    "_backward_pre_hooks",
    "_state_dict_hooks",
    "_state_dict_pre_hooks",
    "_load_state_dict_pre_hooks",
    "_load_state_dict_post_hooks",
)


_PLAIN = (bool, int, float, str, type(None))


def _configuration(module: nn.Module) -> dict[str, Any]:
    """A module's configuration: its public attributes of plain values (batch_first, p,
    momentum, eps)."""
    return {
        key: value
        for key, value in vars(module).items()
        if not key.startswith("_")
        and key != "training"
        and (
            isinstance(value, _PLAIN)
            or (isinstance(value, tuple) and all(isinstance(item, _PLAIN) for item in value))
        )
    }


_Kept = dict[str, tuple[bool, dict[str, dict[int, Any]], dict[str, Any]]]


def _modules_kept(value: Any) -> _Kept:
    """What a caller's module keeps besides its state's tensors: its train/eval mode, its
    hooks and its configuration (its parameters' .grad: Unmodified.module_grads)."""
    return {
        path: (
            module.training,
            {kind: dict(getattr(module, kind, {})) for kind in _HOOK_DICTS},
            _configuration(module),
        )
        for path, module in _modules(value)
    }


def _assert_modules_kept(name: str, before: _Kept, after: _Kept) -> None:
    for path, (training, hooks, configuration) in before.items():
        now_training, now_hooks, now_configuration = after[path]
        where = f"{name} changed the caller's module" + (f" {path}" if path else "")
        assert now_training == training, (
            f"{where}: it was in {'train' if training else 'eval'} mode and is in "
            f"{'train' if now_training else 'eval'} mode now; put each module's own mode back"
        )
        changed = sorted(
            key
            for key, value in configuration.items()
            if key not in now_configuration or not _same(now_configuration[key], value)
        )
        assert not changed, (
            f"{where}: its settings {changed}, which were "
            f"{[configuration[key] for key in changed]}; leave them as they are (adapt the "
            "input instead, or put them back in a finally)"
        )
        for kind, found in hooks.items():
            now = now_hooks[kind]
            assert now.keys() == found.keys() and all(now[k] is v for k, v in found.items()), (
                f"{where}: its {kind} ({len(found)} before, {len(now)} after); remove every "
                "hook you add (handle.remove() in a finally), and leave the caller's own"
            )


def _snapshot(value: Any) -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    for path, item in _tensors(value):
        if isinstance(item, np.ndarray):
            found.append((path, item.copy()))
        elif not nn.parameter.is_lazy(item):  # a lazy module's parameters hold no values yet
            saved = (item.detach().clone(), item.dtype, item.device, item.requires_grad)
            # .grad read only where it cannot warn (a tensor that does not require grad is a leaf).
            no_grad = item.requires_grad or item.grad is None
            found.append((path, (*saved, item._version, dict(vars(item)), no_grad)))
    return found


def _to_oracle(value: Any) -> Any:
    """The CPU copy an oracle gets: floating tensors in float64."""
    if isinstance(value, torch.Tensor):
        dtype = torch.float64 if value.is_floating_point() else value.dtype
        return value.detach().to("cpu", dtype, copy=True)  # never the caller's own storage
    if isinstance(value, (list, tuple)):
        return type(value)(_to_oracle(item) for item in value)
    if isinstance(value, dict):
        return {key: _to_oracle(item) for key, item in value.items()}
    return value


def _oracle_args(arguments: Args) -> Args:
    return Args(_to_oracle(arguments.args), _to_oracle(dict(arguments.kwargs)))


def _strided(value: Any) -> Any:
    """The same values in a non-contiguous tensor: every stride is more than one element and
    the dimensions lie in memory in reverse order, so that no two of them merge into one view
    (`x.view(-1, x.shape[-1])` fails where `reshape` copies). Tuples, lists and dicts: each
    tensor they hold."""
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(_strided(item) for item in value)
    if isinstance(value, dict):
        return {key: _strided(item) for key, item in value.items()}
    if isinstance(value, torch.Tensor) and value.dim() > 0 and value.numel() > 1:
        order = tuple(reversed(range(value.dim())))
        reversed_ = value.permute(order)
        return torch.stack([reversed_] * _spread(), dim=-1)[..., 0].permute(order)
    return value


def _spread() -> int:
    """How many elements apart a strided copy's neighbours lie: 2 on a plain run, an odd 3,
    5 or 7 on a held-out one (seed_for), so that a function that tells the checks' strided
    copies by their layout (an even stride) from the layouts a caller has meets another."""
    seed = seed_for(0)
    return 2 if seed == 0 else (3, 5, 7)[seed % 3]


# ---------------------------------------------------------------- the checkers


def _compare(
    actual: Any,
    expected: Any,
    dtype: torch.dtype,
    device: torch.device,
    what: str,
    atol: float | Mapping[torch.dtype, float] | None,
    ulps: float = 1.0,
) -> None:
    assert isinstance(actual, torch.Tensor), (
        f"{what}: expected a tensor, got {type(actual).__name__}"
    )
    assert actual.dtype == dtype, (
        f"{what}: the result should have dtype {dtype}, got {actual.dtype}; keep the input's "
        "dtype (compute in float32 where the contract says so, and convert back once)"
    )
    assert same_device(actual.device, device), (
        f"{what}: the result should be on {device}, got {actual.device}"
    )
    expected = torch.as_tensor(expected)
    if dtype.is_floating_point:
        rtol, default_atol = TOLERANCE.get(dtype, (1e-5, 1e-7))
        if isinstance(atol, Mapping):
            atol = atol.get(dtype)
        rounded = expected.to(dtype).double()
        torch.testing.assert_close(
            actual.detach().cpu().double(),
            rounded,
            rtol=rtol * ulps,
            atol=default_atol if atol is None else atol,
            equal_nan=True,
            msg=lambda report: (
                f"{what}: values differ from the exact result rounded once to {dtype}\n{report}"
            ),
        )
    else:
        assert torch.equal(actual.detach().cpu(), expected.to(actual.dtype)), (
            f"{what}: values differ from the exact result\n"
            f"got      {actual.detach().cpu().tolist()}\nexpected {expected.tolist()}"
        )


# The 16-bit dtypes a computation in float32 rounds once to (Dtypes' `once`).
HALF = (torch.float16, torch.bfloat16)
# float32's own rounding in a computation of a few steps, relative to the largest value.
WORKING = 2.0**-20


def rounded_once_excess(actual: torch.Tensor, exact: torch.Tensor) -> torch.Tensor:
    """How far each 16-bit value lies beyond the exact (float64) one rounded to nearest, in
    units of the dtype's spacing there: 0 where `actual` is that rounding, or the other
    neighbour of a value within float32's rounding (WORKING, of the largest value) of
    halfway between the two; positive where a second rounding, or a step in the 16-bit
    dtype, moved it."""
    dtype = actual.dtype
    finfo = torch.finfo(dtype)
    got = actual.detach().cpu().double()
    exact = exact.detach().cpu().double().expand_as(got)
    rounded = exact.to(dtype).double()
    # The spacing of the dtype at |exact| (subnormals: the smallest one).
    magnitude = exact.abs().clamp_min(finfo.smallest_normal)
    spacing = torch.exp2(torch.floor(torch.log2(magnitude))) * finfo.eps
    # float32's error is relative to the largest values (x - mean near 0 loses the rest).
    finite = exact[exact.isfinite()].abs()
    bound = 0.5 * spacing + WORKING * (finite.max() if finite.numel() else 0.0)
    excess = ((got - exact).abs() - bound) / spacing
    # Past the dtype's range (or inf and NaN): exactly the rounded value.
    special = ~rounded.isfinite() | ~exact.isfinite()
    same = (got == rounded) | (got.isnan() & rounded.isnan())
    excess = torch.where(special, torch.where(same, 0.0, math.inf), excess.clamp_min(0))
    return torch.where(excess.isnan(), math.inf, excess)


def _compare_rounded_once(
    actual: torch.Tensor, expected: Any, dtype: torch.dtype, device: torch.device, what: str
) -> None:
    exact = torch.as_tensor(expected).double()
    # A first look (dtype, device, shape, values) that allows float32's working error of the
    # largest value, as the check below does: a value near 0 got by cancellation in float32
    # (x * scale + shift, as F.batch_norm computes on the CPU) is a rounding of a float32
    # computation too.
    finite = exact[exact.isfinite()].abs()
    working = WORKING * float(finite.max()) if finite.numel() else 0.0
    _compare(actual, expected, dtype, device, what, TOLERANCE[dtype][1] + working)
    excess = rounded_once_excess(actual, exact)
    worst = int(excess.argmax()) if excess.numel() else 0
    assert not excess.numel() or excess.max() == 0, (
        f"{what}: values are not the exact result rounded once to {dtype}: compute in float32 "
        "throughout (the statistics, sums and every step after them) and convert once, at "
        f"the end; at index {worst}: got {actual.detach().cpu().flatten()[worst].item()!r}, "
        f"exact {exact.expand_as(excess).flatten()[worst].item()!r}, rounded once "
        f"{exact.expand_as(excess).flatten()[worst].to(dtype).item()!r}"
    )


def rounds_once(function: Function, facet: Dtypes, dtype: torch.dtype) -> bool:
    """Whether `function` (the reference, say) gives the exact result of the facet's case of
    the 16-bit `dtype` rounded once, on the CPU: then a tolerance of more than that lets an
    answer that computes in the dtype pass where the reference shows it need not."""
    cpu = torch.device("cpu")
    arguments = facet.make(dtype, cpu)
    exact = _oracle_args(arguments)
    with default_dtype(_other_default(dtype)):
        result = function.call(*arguments.args, **arguments.kwargs)
    expected = facet.oracle(*exact.args, **exact.kwargs)
    pairs = (
        zip(result, expected, strict=True) if isinstance(expected, tuple) else [(result, expected)]
    )
    for one, value in pairs:
        if not isinstance(one, torch.Tensor) or one.dtype != dtype:
            return False
        excess = rounded_once_excess(one, torch.as_tensor(value))
        if excess.numel() and excess.max() > 0:
            return False
    return True


def _other_default(dtype: torch.dtype) -> torch.dtype:
    """The default dtype a case runs under: float64 (a caller may set it) for every input but
    float64, which runs under torch's usual float32. A tensor made without `dtype=` (in the
    default dtype) then shows in the result's dtype or precision, whatever the input's."""
    return torch.float32 if dtype == torch.float64 else torch.float64


def _defaults(dtype: torch.dtype) -> tuple[torch.dtype, torch.dtype]:
    """The default dtypes each Dtypes and Shapes call runs under, one after the other: the
    other one (_other_default), then the one left of float32 and float64. A caller may have
    either default whatever its inputs' dtype, so the default tells no facet's call from a
    caller's: a function that reads torch.get_default_dtype() to take another path where
    the checks are not (float16 input computed and returned in float32 under float32, the
    default every caller starts with) meets that default too."""
    other = _other_default(dtype)
    return other, torch.float64 if other == torch.float32 else torch.float32


def _under(default: torch.dtype, dtype: torch.dtype) -> str:
    """How a message names the default a call ran under: nothing for the other one (the
    first), else the default itself."""
    return "" if default == _other_default(dtype) else f"under the default dtype {default}, "


def check_dtypes(case: Case, device: torch.device) -> None:
    facet: Dtypes = case.facet  # type: ignore[assignment]
    assert case.dtype is not None
    dtype = case.dtype
    _check_dtype(case, device, lambda: facet.make(dtype, device), "")
    if facet.strided and case.dtype == facet.dtypes[0]:
        # The same inputs in strided copies: a flat .view() or a layout read as contiguous
        # fails there (one dtype is enough: the layout does not depend on it).
        def strided() -> Args:
            arguments = facet.make(dtype, device)
            return Args(_strided(arguments.args), _strided(dict(arguments.kwargs)))

        _check_dtype(case, device, strided, "non-contiguous ")
    if case.dtype == facet.dtypes[0]:
        for default in _defaults(case.dtype):
            _check_called_again(case, device, default)
    _check_optional_left_out(case, device)
    if case.dtype == torch.float64 and facet.inputs_past_float32:
        # Every float64 input moved off the values float32 holds: one input moved through
        # float32 (a statistic cast down, then promoted back) is rounded, whichever it is.
        arguments = facet.make(case.dtype, device)
        if not any(
            isinstance(tensor, torch.Tensor) and tensor.grad_fn is not None
            for _, tensor in _tensors(arguments)
        ):  # (tensors joined by a graph cannot be moved one by one)

            def moved() -> Args:
                arguments = facet.make(dtype, device)
                return Args(_past_float32(arguments.args), _past_float32(dict(arguments.kwargs)))

            _check_dtype(case, device, moved, "inputs past float32, ")


def _check_optional_left_out(case: Case, device: torch.device) -> None:
    """The call again with the optional tensor arguments (those whose default is None) left
    None, each set of them in turn, under the other default dtype: each floating tensor of
    the result keeps the dtype. A stand-in made for the missing tensor without dtype= (zeros
    for a bias, ones for a weight) is made in the default dtype and promotes the result. (Its
    values are the other cases' concern: an oracle need not take None.)"""
    facet: Dtypes = case.facet  # type: ignore[assignment]
    assert case.dtype is not None
    arguments = facet.make(case.dtype, device)
    try:
        signature = inspect.signature(case.function.call)
        bound = signature.bind(*arguments.args, **arguments.kwargs)
    except (TypeError, ValueError):
        return  # not a signature this can bind: the other cases still run
    optional = [
        name
        for name, parameter in signature.parameters.items()
        if parameter.default is None and isinstance(bound.arguments.get(name), torch.Tensor)
    ]
    expected = facet.result(case.dtype) if facet.result else case.dtype
    # Each set of them left None, not only all at once: a function may make the stand-in
    # only where another is given (ones for a weight beside a given bias), and take a
    # path of its own where none is.
    left_out = (
        names
        for count in range(1, len(optional) + 1)
        for names in itertools.combinations(optional, count)
    )
    for names in left_out:
        arguments = facet.make(case.dtype, device)  # anew: a call may work in place
        bound = signature.bind(*arguments.args, **arguments.kwargs)
        for name in names:
            bound.arguments[name] = None
        with default_dtype(_other_default(case.dtype)):
            result = _call(case, Args(bound.args, bound.kwargs))
        for path, tensor in _tensors(result):
            if isinstance(tensor, torch.Tensor) and tensor.is_floating_point():
                assert tensor.dtype == expected, (
                    f"{case.function.name} of {case.dtype} input with {', '.join(names)} left "
                    f"None returns{path} in {tensor.dtype}, not {expected}: a stand-in made "
                    "for a missing tensor takes the inputs' dtype (dtype=), not the default one"
                )


def _past_float32(value: Any) -> Any:
    """The float64 tensors of `value` (in tuples, lists and dicts too, and their .grad)
    scaled by 1 + 2**-26, where float32 holds none of their non-zero values; zeros and signs
    kept. (Under half a float32 step, so one moved through float32 is off by about 1.5e-8 of
    itself: far past float64's tolerance also where that input makes a small part of the
    result, as pos_weight beside a large loss; 2**-30 was within it there.)"""
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(_past_float32(item) for item in value)
    if isinstance(value, dict):
        return {key: _past_float32(item) for key, item in value.items()}
    if isinstance(value, torch.Tensor) and value.dtype == torch.float64 and value.numel():
        moved = (value.detach() * (1 + 2.0**-26)).requires_grad_(value.requires_grad)
        if value.grad is not None:
            moved.grad = _past_float32(value.grad)
        return moved
    return value


def _check_dtype(case: Case, device: torch.device, make: Callable[[], Args], layout: str) -> None:
    """The call on make()'s arguments, made anew under each of the two default dtypes."""
    facet: Dtypes = case.facet  # type: ignore[assignment]
    assert case.dtype is not None
    for default in _defaults(case.dtype):
        arguments = make()
        exact = _oracle_args(arguments)  # before the call, which may work in place
        with default_dtype(default):
            result = _call(case, arguments)
        expected = facet.oracle(*exact.args, **exact.kwargs)
        what = f"{case.function.name} {_under(default, case.dtype)}of {layout}"
        _compare_results(case, device, result, expected, what)


def _compare_results(
    case: Case, device: torch.device, result: Any, expected: Any, what: str
) -> None:
    """A Dtypes case's result against its oracle's, each of several in the dtype."""
    facet: Dtypes = case.facet  # type: ignore[assignment]
    assert case.dtype is not None
    expected_dtype = facet.result(case.dtype) if facet.result else case.dtype
    what = f"{what}{case.dtype} input"

    def compare(one: Any, exact: Any, what: str) -> None:
        if facet.once and expected_dtype in HALF and isinstance(one, torch.Tensor):
            _compare_rounded_once(one, exact, expected_dtype, device, what)
        else:
            _compare(one, exact, expected_dtype, device, what, facet.atol, facet.ulps)

    if isinstance(expected, tuple):  # several results, each in the dtype
        assert isinstance(result, tuple) and len(result) == len(expected), (
            f"{what}: expected a tuple of {len(expected)} results, got {result!r:.80}"
        )
        for index, (one, exact) in enumerate(zip(result, expected, strict=True)):
            compare(one, exact, f"{what}, result {index}")
        return
    compare(result, expected, what)


def _check_called_again(case: Case, device: torch.device, default: torch.dtype) -> None:
    """Two calls, on values of the same shapes that differ, the first result checked after
    the second call: a result cached by shape (or by id) and handed out for other values, a
    tensor the function keeps and overwrites on its next call, and memory shared between
    the two results or between the parts of one (each a result of its own) all show. Then
    a third call, on the first tensors given new values in place, every one of them (each
    one's rows reversed): a result kept under any tensor's id() (functools.lru_cache hashes
    a tensor by it) or address shows. Every call under the default dtype `default`."""
    facet: Dtypes = case.facet  # type: ignore[assignment]
    assert case.dtype is not None
    first = facet.make(case.dtype, device)
    second = _other_values(facet.make(case.dtype, device))
    exact = [_oracle_args(first), _oracle_args(second)]
    values = _rows_reversed(
        Args(tuple(map(_cloned, first.args)), {k: _cloned(v) for k, v in first.kwargs.items()})
    )
    with default_dtype(default):
        results = [_call(case, first), _call(case, second)]
    name, under = case.function.name, _under(default, case.dtype)
    for which, result, arguments in zip(("first", "second"), results, exact, strict=True):
        expected = facet.oracle(*arguments.args, **arguments.kwargs)
        _compare_results(
            case, device, result, expected, f"{name}, {which} of two calls, {under}of "
        )
    # The first arguments given the second's values in place, and called again: a result
    # kept under the tensor's id() (functools.lru_cache hashes tensors by id) shows.
    if _rewritten(first, values):
        again = _oracle_args(values)  # an oracle may work in place on the copies it is given
        with default_dtype(default):
            result = _call(case, first)
        _compare_results(
            case,
            device,
            result,
            facet.oracle(*again.args, **again.kwargs),
            f"{name}, called again on the same tensors after the caller changed their values, "
            f"{under}of ",
        )
    if facet.views:
        return
    parts = [[tensor for _, tensor in _tensors(result)] for result in results]
    for index, tensor in enumerate(parts[0]):
        assert not any(_shares(tensor, other) for other in parts[1]), (
            f"{name} returned memory it had returned before (a tensor kept between calls): "
            "the next call changed the caller's first result; return a new tensor each call"
        )
        assert not any(_writes_reach(tensor, other) for other in parts[0][index + 1 :]), (
            f"{name} returned two results that share memory: writing into one changes the "
            "other; give each its own tensor"
        )


def _cloned(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    return value.copy() if isinstance(value, np.ndarray) else value


def _rewritten(first: Args, second: Args) -> bool:
    """Copy, in place, the values of second's tensors (and arrays) into first's, where both
    hold only tensors, arrays and equal plain values at the top level (a module, a list or
    any other object may differ between two makes): whether it was done."""
    pairs = [
        *zip(first.args, second.args, strict=True),
        *((first.kwargs.get(k), v) for k, v in second.kwargs.items()),
    ]
    arrays = (torch.Tensor, np.ndarray)
    for old, new in pairs:
        if isinstance(old, arrays) and isinstance(new, arrays):
            if type(old) is not type(new) or old.shape != new.shape:
                return False
            if isinstance(old, torch.Tensor) and 0 in old.stride() and old.numel() > 1:
                return False
            if isinstance(old, np.ndarray) and not old.flags.writeable:
                return False
        elif not (isinstance(old, _PLAIN) and type(old) is type(new) and _same(old, new)):
            return False
    for old, new in pairs:
        if isinstance(old, torch.Tensor):
            with torch.no_grad():
                old.detach().copy_(new)
        elif isinstance(old, np.ndarray):
            np.copyto(old, new)
    return True


def _other_values(arguments: Args) -> Args:
    """The arguments with the rows of the first tensor (or array) of more than one row in
    reverse order: the same shapes, dtypes and domain, other values (and, where there are
    several, other pairings between the arguments)."""
    done = False

    def flip(value: Any) -> Any:
        nonlocal done
        if done:
            return value
        if isinstance(value, torch.Tensor) and value.dim() and value.shape[0] > 1:
            done = True
            return value.detach().flip(0).requires_grad_(value.requires_grad)
        if isinstance(value, np.ndarray) and value.ndim and value.shape[0] > 1:
            done = True
            return np.flip(value, 0).copy()
        return value

    return Args(
        tuple(flip(item) for item in arguments.args),
        {key: flip(item) for key, item in arguments.kwargs.items()},
    )


def _rows_reversed(arguments: Args) -> Args:
    """The arguments with the rows of every tensor (and array) of more than one row in
    reverse order, all alike: each argument's values change, and the rows that belong
    together (a sample's logits, target and mask) stay together, within the domain."""

    def flip(value: Any) -> Any:
        if isinstance(value, torch.Tensor) and value.dim() and value.shape[0] > 1:
            return value.detach().flip(0).requires_grad_(value.requires_grad)
        if isinstance(value, np.ndarray) and value.ndim and value.shape[0] > 1:
            return np.flip(value, 0).copy()
        return value

    return Args(
        tuple(flip(item) for item in arguments.args),
        {key: flip(item) for key, item in arguments.kwargs.items()},
    )


def _shares(a: torch.Tensor | np.ndarray, b: torch.Tensor | np.ndarray) -> bool:
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return np.shares_memory(a, b)
    if isinstance(b, np.ndarray):
        a, b = b, a
    assert isinstance(b, torch.Tensor)
    return _overlaps(a, b)


def check_gradients(case: Case, device: torch.device) -> None:
    facet: Gradients = case.facet  # type: ignore[assignment]
    assert case.dtype is not None
    calls = [facet.make(case.dtype, device)]
    if case.dtype == facet.dtypes[0]:
        # A second forward, on other values, before the first backward (two losses made,
        # then backpropagated): each backward works from its own forward's values and
        # settings, kept on ctx, not where the next forward writes.
        calls.append(_other_values(facet.make(case.dtype, device)))
    forwards = [_forward(case, arguments) for arguments in calls]
    for index, (first, result, exact_arguments) in enumerate(forwards):
        (grad,) = torch.autograd.grad(result, first, _upstream(result))
        exact = _chosen(facet, exact_arguments).requires_grad_()
        exact_result = facet.oracle(*exact_arguments.args, **exact_arguments.kwargs)
        (expected,) = torch.autograd.grad(exact_result, exact, _upstream(exact_result))
        finite = torch.isfinite(expected)
        bad = finite & ~torch.isfinite(grad.detach().cpu())
        assert not bad.any(), (
            f"{case.function.name} of {case.dtype} input gives non-finite gradients where the "
            f"exact ones are finite, at inputs {first.detach().cpu()[bad][:5].tolist()}: an "
            "intermediate value overflows, or an unselected branch of torch.where is inf or NaN"
        )
        what = f"{case.function.name}'s gradient for {case.dtype} input (incoming: {_UPSTREAM})"
        if index:
            what += (
                ", of the second of two forwards made before either backward (each backward "
                "works from its own forward: keep what it needs on ctx)"
            )
        elif len(forwards) > 1:
            what += ", with a second forward made before this backward"
        _compare(grad, expected, case.dtype, device, what, facet.atol, facet.ulps)
    detached = _call(case, _detached(facet.make(case.dtype, device)))
    assert not detached.requires_grad, (
        f"{case.function.name}: no argument requires grad, yet its result does: a tensor "
        "created with requires_grad=True inside (an accumulator, a constant) makes a graph "
        "nobody asked for"
    )


def _chosen(facet: Gradients, arguments: Args) -> Any:
    if isinstance(facet.wrt, str):
        return arguments.kwargs[facet.wrt]
    return arguments.args[facet.wrt]


def _forward(case: Case, arguments: Args) -> tuple[torch.Tensor, torch.Tensor, Args]:
    """A Gradients case's forward: (the tensor differentiated, the result, the oracle's
    arguments)."""
    facet: Gradients = case.facet  # type: ignore[assignment]
    first = _chosen(facet, arguments).detach().requires_grad_()
    if isinstance(facet.wrt, str):
        arguments = arguments.replace(**{facet.wrt: first})
    else:
        positional = list(arguments.args)
        positional[facet.wrt] = first
        arguments = Args(tuple(positional), arguments.kwargs)
    exact_arguments = _oracle_args(arguments)
    result = _call(case, arguments)
    assert isinstance(result, torch.Tensor) and result.requires_grad, (
        f"{case.function.name}: the result should be differentiable with respect to "
        + (f"{facet.wrt}" if isinstance(facet.wrt, str) else f"its argument {facet.wrt}")
    )
    return first, result, exact_arguments


# Incoming gradients of mixed signs and sizes, exact in every floating dtype.
_UPSTREAM = (-1.5, 0.5, 2.0, -0.75, 1.25)


def _upstream(result: torch.Tensor) -> torch.Tensor:
    """The gradient sent into `result` by a weighted loss: not all ones, so that a backward
    that ignores grad_output (or sends each element's share to another) shows."""
    pattern = torch.tensor(_UPSTREAM, dtype=result.dtype, device=result.device)
    return pattern.repeat(result.numel() // len(_UPSTREAM) + 1)[: result.numel()].view_as(result)


def _detached(arguments: Args) -> Args:
    """The same arguments, every tensor among them cut from autograd (no grad wanted)."""

    def cut(value: Any) -> Any:
        if isinstance(value, torch.Tensor):
            return value.detach()
        if isinstance(value, (list, tuple)):
            return type(value)(cut(item) for item in value)
        return value

    return Args(cut(arguments.args), {key: cut(value) for key, value in arguments.kwargs.items()})


def check_shapes(case: Case, device: torch.device) -> None:
    facet: Shapes = case.facet  # type: ignore[assignment]

    def make() -> Args:
        arguments = facet.make(SHAPES[case.label], device)
        if case.label.startswith("non-contiguous"):
            arguments = Args(
                tuple(_strided(a) for a in arguments.args),
                {key: _strided(a) for key, a in arguments.kwargs.items()},
            )
        return arguments

    arguments = make()
    # The inputs' dtypes, not a module's state (a float64 buffer of a module whose inputs
    # are float32 sets no dtype for its result).
    state = _state_of_modules(arguments)
    floating = [
        t.dtype
        for _, t in _tensors(arguments)
        if isinstance(t, torch.Tensor) and t.is_floating_point() and id(t) not in state
    ]
    # Under the other default dtype, as Dtypes runs: a tensor made without dtype= (a zero
    # from torch.tensor(0.0), say) shows in the result's dtype at shapes Dtypes does not
    # try, a 0-dim input's above all, where such a tensor takes part in type promotion.
    # Then under the remaining one, on arguments made anew, so that the default tells no
    # check's call from a caller's (_defaults).
    what = f"{case.function.name} of a {case.label} input"
    for index, default in enumerate(_defaults(floating[0] if floating else torch.float32)):
        if index:
            arguments = make()
        under = f" under the default dtype {default}" if index else ""
        _check_shape(case, arguments, floating, default, what + under, device)
    # Every argument a Gradients facet names, not only the first: a shortcut for an empty
    # batch that returns the images as given keeps their graph and cuts the statistics'.
    wrts = dict.fromkeys(f.wrt for f in case.function.facets if isinstance(f, Gradients))
    for wrt in wrts:
        _assert_gradient(case, arguments, wrt, facet.oracle, what, facet.atol)


def _check_shape(
    case: Case,
    arguments: Args,
    floating: list[torch.dtype],
    default: torch.dtype,
    what: str,
    device: torch.device,
) -> None:
    """One Shapes call under the default dtype `default`, against the oracle."""
    facet: Shapes = case.facet  # type: ignore[assignment]
    exact = _oracle_args(arguments)
    with default_dtype(default):
        result = _call(case, arguments)
    expected = facet.oracle(*exact.args, **exact.kwargs)
    assert isinstance(result, torch.Tensor), (
        f"{what}: expected a tensor, got {type(result).__name__}"
    )
    expected = torch.as_tensor(expected)
    assert tuple(result.shape) == tuple(expected.shape), (
        f"{what}: the result should have shape {tuple(expected.shape)}, got {tuple(result.shape)}"
    )
    kept = _kept_dtype(case, floating)
    assert kept is None or result.dtype == kept, (
        f"{what}: the result should be {kept}, got {result.dtype} (under "
        f"torch.set_default_dtype({default}): make every tensor of your "
        "own with the inputs' dtype, zeros_like(x) or dtype=x.dtype, not in the default dtype)"
    )
    assert same_device(result.device, device), f"{what}: the result is on {result.device}"
    torch.testing.assert_close(
        result.detach().cpu().to(expected.dtype),
        expected,
        rtol=1e-5,
        atol=facet.atol,
        equal_nan=True,
        msg=lambda report: f"{what}: wrong values\n{report}",
    )


def _kept_dtype(case: Case, floating: list[torch.dtype]) -> torch.dtype | None:
    """The dtype a Shapes case's result must have, where a Dtypes facet of the function
    says: of the first floating input (or its `result` dtype), for a dtype it names."""
    if not floating:
        return None
    for facet in case.function.facets:
        if isinstance(facet, Dtypes) and floating[0] in facet.dtypes:
            return facet.result(floating[0]) if facet.result else floating[0]
    return None


def _assert_gradient(
    case: Case, arguments: Args, wrt: int | str, oracle: Callable[..., Any], what: str, atol: float
) -> None:
    """The result of `arguments` with the floating tensor `wrt` made a leaf that requires grad
    is differentiable, with the oracle's gradient (float64 on the CPU) for a mixed incoming one."""
    given = wrt in arguments.kwargs if isinstance(wrt, str) else wrt < len(arguments.args)
    value = _argument(arguments, wrt) if given else None
    if not (isinstance(value, torch.Tensor) and value.is_floating_point()):
        return  # not among these arguments, or not a floating tensor: nothing to differentiate
    leaf = value.detach().requires_grad_()  # the caller's layout kept (strided too)
    arguments = _with_argument(arguments, wrt, leaf)
    exact_arguments = _oracle_args(arguments)
    exact = _argument(exact_arguments, wrt).requires_grad_()
    exact_result = torch.as_tensor(oracle(*exact_arguments.args, **exact_arguments.kwargs))
    assert exact_result.requires_grad, f"{what}: the oracle is not differentiable"
    (expected,) = torch.autograd.grad(exact_result, exact, _upstream(exact_result))
    result = _call(case, arguments)
    assert isinstance(result, torch.Tensor) and result.requires_grad, (
        f"{what}: the result should be differentiable with respect to {_argument_name(wrt)}, "
        "as it is for any other input: a shortcut that returns a new constant for this case "
        "cuts the graph (compute it from the input, or keep the input's graph)"
    )
    (grad,) = torch.autograd.grad(result, leaf, _upstream(result), allow_unused=True)
    grad = torch.zeros_like(leaf) if grad is None else grad
    torch.testing.assert_close(
        grad.detach().cpu().to(expected.dtype),
        expected,
        rtol=1e-5,
        atol=atol,
        equal_nan=True,
        msg=lambda report: (
            f"{what}: wrong gradient with respect to {_argument_name(wrt)} (incoming: "
            f"{_UPSTREAM})\n{report}"
        ),
    )


def check_edges(case: Case, device: torch.device) -> None:
    facet: Edges = case.facet  # type: ignore[assignment]
    arguments = facet.calls[case.label](device)
    exact = _oracle_args(arguments)
    result = _call(case, arguments)
    expected = facet.oracle(*exact.args, **exact.kwargs)
    floating = next(
        (
            t.dtype
            for _, t in _tensors(arguments)
            if isinstance(t, torch.Tensor) and t.is_floating_point()
        ),
        None,
    )
    what = f"{case.function.name} of {case.label}"
    _assert_same_result(result, expected, floating, device, what, facet.atol)
    if any(isinstance(f, Returns) and f.kind == "new" for f in case.function.facets):
        # A new result at the edges too: a shortcut there (one position, one row) that hands
        # back a view of an input (values[:, 0], x.squeeze(1)) escapes a Returns case alone.
        for path, tensor in _tensors(arguments):
            assert result is not tensor, f"{what}: returned its input {path} itself"
            if isinstance(result, (torch.Tensor, np.ndarray)):
                assert not _shares_input(result, tensor), (
                    f"{what}: the result shares memory with the input {path} (a view of it, "
                    "from a shortcut at this edge); return a new tensor here too"
                )
    if facet.wrt is not None:
        _assert_gradient(
            case, facet.calls[case.label](device), facet.wrt, facet.oracle, what, facet.atol
        )


def _assert_same_result(
    actual: Any,
    expected: Any,
    floating: torch.dtype | None,
    device: torch.device,
    what: str,
    atol: float,
) -> None:
    """`actual` has the structure and values of `expected` (NaN where it has NaN); its floating
    tensors have the dtype `floating` (where given), the others the oracle's."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and list(actual) == list(expected), (
            f"{what}: expected a dict with the keys {list(expected)} in that order, got "
            f"{list(actual) if isinstance(actual, dict) else actual!r}"
        )
        for key, e in expected.items():
            _assert_same_result(actual[key], e, floating, device, f"{what} [{key!r}]", atol)
        return
    if isinstance(expected, (tuple, list)):
        assert isinstance(actual, (tuple, list)) and len(actual) == len(expected), (
            f"{what}: expected a {type(expected).__name__} of {len(expected)}, got {actual!r}"
        )
        # A shape handed back as it came in (a shortcut for (), or for equal shapes) is
        # still the caller's torch.Size where the contract asks for a plain tuple.
        assert type(expected) is not tuple or not isinstance(actual, torch.Size), (
            f"{what}: expected a plain tuple, got a torch.Size ({actual!r}): build the "
            "result with tuple(...), also where it is one of the arguments unchanged"
        )
        for index, (a, e) in enumerate(zip(actual, expected, strict=True)):
            _assert_same_result(a, e, floating, device, f"{what} [{index}]", atol)
        return
    if not isinstance(expected, torch.Tensor):
        assert type(actual) is type(expected), (
            f"{what}: expected a Python {type(expected).__name__}, got {actual!r}"
        )
        if isinstance(expected, float):
            close = math.isclose(actual, expected, rel_tol=1e-6, abs_tol=atol)
            assert close or (math.isnan(actual) and math.isnan(expected)), (
                f"{what}: expected {expected!r}, got {actual!r}"
            )
        else:
            assert actual == expected, f"{what}: expected {expected!r}, got {actual!r}"
        return
    assert isinstance(actual, torch.Tensor), f"{what}: expected a tensor, got {actual!r}"
    dtype = floating if expected.is_floating_point() and floating is not None else expected.dtype
    assert actual.dtype == dtype, (
        f"{what}: the result should have dtype {dtype}, got {actual.dtype}"
    )
    assert same_device(actual.device, device), f"{what}: the result is on {actual.device}"
    assert actual.shape == expected.shape, (
        f"{what}: the result should have shape {tuple(expected.shape)}, got {tuple(actual.shape)}"
    )
    rtol, default_atol = TOLERANCE.get(dtype, (0.0, 0.0))
    torch.testing.assert_close(
        actual.detach().cpu().to(expected.dtype),
        expected.to(dtype).to(expected.dtype),
        rtol=rtol,
        atol=max(atol, default_atol) if dtype.is_floating_point else 0,
        equal_nan=True,
        msg=lambda report: f"{what}: wrong values (NaN where the oracle has NaN)\n{report}",
    )


def _argument_name(name: int | str) -> str:
    return f"argument {name}" if isinstance(name, int) else name


def _argument(arguments: Args, name: int | str) -> Any:
    return arguments.args[name] if isinstance(name, int) else arguments.kwargs[name]


def _with_argument(arguments: Args, name: int | str, value: Any) -> Args:
    if isinstance(name, str):
        return arguments.replace(**{name: value})
    positional = list(arguments.args)
    positional[name] = value
    return Args(tuple(positional), arguments.kwargs)


def _misshapen(tensor: torch.Tensor, dims: tuple[int, ...] | None) -> list[tuple[str, Any]]:
    """(what was changed, the tensor in that other shape) of the tensor's own values (valid
    class indices stay valid), each shape once. `dims`: None, the whole shape is pinned; (),
    its number of dimensions alone; else those dimensions alone."""
    shape = tuple(tensor.shape)
    pinned = list(range(tensor.dim())) if dims is None else [d % tensor.dim() for d in dims]
    rank = not dims  # the number of dimensions is pinned
    found: dict[tuple[int, ...], tuple[str, torch.Tensor]] = {}

    def add(label: str, value: torch.Tensor) -> None:
        if tuple(value.shape) != shape:
            found.setdefault(tuple(value.shape), (label, value))

    if rank:
        add("a leading dim of size 1", tensor.unsqueeze(0))
        add("a trailing dim of size 1", tensor.unsqueeze(-1))
    for dim in pinned:
        if shape[dim] > 1:
            add(f"dim {dim} cut to size 1", tensor.narrow(dim, 0, 1))
        if shape[dim] > 0:
            add(f"dim {dim} one longer", torch.cat([tensor, tensor.narrow(dim, 0, 1)], dim))
    if rank and tensor.dim() and shape[0] > 0:
        add("the leading dim dropped", tensor[0])
        add("0-dim", tensor.reshape(-1)[0])
    # Each pair of pinned dims swapped: the same count of elements, so a check that compares
    # the count and some of the dims (the last alone, the rank and the last) misses one of these.
    for first, second in sorted(
        itertools.combinations(pinned, 2), key=lambda pair: (-pair[1], -pair[0])
    ):
        add(f"dims {first} and {second} swapped", tensor.transpose(first, second))
    if rank and tensor.dim() >= 2:
        add("flattened", tensor.flatten())
    return list(found.values())


def check_bad_shapes(case: Case, device: torch.device) -> None:
    facet: BadShapes = case.facet  # type: ignore[assignment]
    name = next(n for n in facet.names if _argument_name(n) == case.label)

    def emptied() -> Args:
        arguments = facet.make(device)
        return Args(_emptied(arguments.args), _emptied(dict(arguments.kwargs)))

    makes: list[Callable[[], Args]] = [lambda: facet.make(device)]
    if any(isinstance(f, Shapes) and "empty" in f.shapes for f in case.function.facets):
        makes.append(emptied)  # an empty batch is checked too: no shortcut before the checks
    accepted = []
    for make in makes:
        for label, value in _misshapen(_argument(make(), name), facet.dims):
            arguments = _with_argument(make(), name, value)
            shapes = ", ".join(
                f"{path or 'argument'} {tuple(t.shape)}"
                for path, t in _tensors(arguments)
                if isinstance(t, torch.Tensor)
            )
            before = _snapshot(arguments)
            try:
                _call(case, arguments)
            except NotImplementedError:
                raise
            except AssertionError:
                raise
            except facet.error:
                _assert_unchanged(
                    f"{case.function.name}, before raising,", before, {}, dict(_tensors(arguments))
                )
                continue
            except Exception as error:
                accepted.append(f"{label} ({shapes}): {type(error).__name__}: {error}"[:300])
                continue
            accepted.append(f"{label} ({shapes}): no error")
    assert not accepted, (
        f"{case.function.name} should raise {facet.error.__name__} for {case.label} of any "
        f"other shape than the contract's, even one that broadcasts; it did not for:\n  "
        + "\n  ".join(accepted)
        + "\ncompare the whole shape (a.shape != expected), before anything else"
    )


def check_number(case: Case, device: torch.device) -> None:
    facet: Number = case.facet  # type: ignore[assignment]
    result = _call(case, facet.make(device))
    assert type(result) is facet.type, (
        f"{case.function.name} should return a Python {facet.type.__name__}, got "
        f"{type(result).__module__}.{type(result).__qualname__} ({result!r})"
    )
    if any(True for _ in _parts(result)):
        _assert_new_each_call(case.function.name, result, _call(case, facet.make(device)))


def check_setting(case: Case, device: torch.device) -> None:
    facet: Setting = case.facet  # type: ignore[assignment]
    value, valid = facet.probes()[case.label.removeprefix(f"{facet.what} ")]
    arguments = _with_setting(facet.make(device), facet, value)
    what = f"{case.function.name}({facet.name}={arguments.kwargs[facet.name]!r})"
    if valid:
        _call(case, arguments)  # raises nothing
        return
    before, groups = _snapshot(arguments), _param_groups(arguments)
    attributes = _optimizer_attributes(arguments)
    objects = {path: t for path, t in _tensors(arguments) if id(t) in _state_of_modules(arguments)}
    kept = _kept(arguments)
    if not _raises(case, arguments, facet.error):
        raise AssertionError(
            f"{what} should raise {facet.error.__name__}: {value!r} is outside the valid range "
            "(write the check so that NaN fails it too: `not (value >= 0)` rejects NaN, "
            "`value < 0` does not)"
        )
    # A refused call changes nothing: the checks come before the first write.
    _assert_unchanged(f"{what}, before raising,", before, objects, dict(_tensors(arguments)))
    assert _param_groups(arguments) == groups, (
        f"{what} changed an optimizer's param groups before raising: check every setting "
        "before anything is written (before super().__init__, which sets lr and initial_lr)"
    )
    changed = [
        sorted(n for n in now.keys() | then.keys() if now.get(n, now) is not then.get(n))
        for now, then in zip(_optimizer_attributes(arguments), attributes, strict=True)
    ]
    assert not any(changed), (
        f"{what} changed an optimizer's attributes {[n for names in changed for n in names]} "
        "before raising (a scheduler's constructor wraps optimizer.step; putting the param "
        "groups back does not undo that): check every setting before creating one"
    )
    _assert_kept(f"{what}, before raising,", arguments, kept)  # modes, hooks, .grad too
    if any(isinstance(f, Shapes) and "empty" in f.shapes for f in case.function.facets):
        # An empty input is a bound too (nothing to do): the checks come before that shortcut.
        emptied = Args(_emptied(arguments.args), _emptied(dict(arguments.kwargs)))
        if not _raises(case, emptied, facet.error):
            raise AssertionError(
                f"{what} should raise {facet.error.__name__} for an empty input too: "
                f"{value!r} is outside the valid range whatever the input holds; check every "
                "argument before a shortcut for an empty input returns"
            )
    for other in case.function.facets:
        if not isinstance(other, Setting) or other.name == facet.name:
            continue
        if other.name not in arguments.kwargs:
            continue
        # Its bounds themselves (an open one: the first value inside it), finite.
        bounds = [
            bound
            for label, (bound, works) in other.probes().items()
            if works and label.startswith(("low ", "high ")) and "just inside" not in label
        ]
        for bound in bounds:
            if not _raises(case, _with_setting(arguments, other, bound), facet.error):
                raise AssertionError(
                    f"{case.function.name}({facet.name}={value!r}, {other.name}={bound!r}) "
                    f"should raise {facet.error.__name__}: {value!r} is outside the valid "
                    f"range whatever {other.name} is; check every argument before a "
                    "shortcut (nothing to count, nothing to do) returns"
                )


def check_refused(case: Case, device: torch.device) -> None:
    facet: Refused = case.facet  # type: ignore[assignment]
    arguments = facet.calls[case.label](device)
    kept = _kept(arguments)
    if not _raises(case, arguments, facet.error):
        raise AssertionError(
            f"{case.function.name} with {case.label} should raise {facet.error.__name__}"
        )
    _assert_kept(f"{case.function.name} with {case.label}, before raising,", arguments, kept)


@dataclass(frozen=True)
class _State:
    """Everything of the caller's a refused call must leave as it was."""

    tensors: list[tuple[str, Any]]
    objects: dict[str, Any]
    grads: dict[str, torch.Tensor | None]
    modules: _Kept
    groups: list[list[dict[str, Any]]]
    attributes: list[dict[str, Any]]
    containers: dict[str, tuple[Any, Any]]


def _kept(arguments: Args) -> _State:
    held = _state_of_modules(arguments)
    found = dict(_tensors(arguments))
    return _State(
        tensors=_snapshot(arguments),
        objects={path: t for path, t in found.items() if id(t) in held},
        grads={
            path: None if t.grad is None else t.grad.detach().clone()
            for path, t in found.items()
            if isinstance(t, torch.Tensor) and t.requires_grad and t.is_leaf
        },
        modules=_modules_kept(arguments),
        groups=_param_groups(arguments),
        attributes=_optimizer_attributes(arguments),
        containers=_containers(arguments),
    )


def _assert_kept(what: str, arguments: Args, kept: _State) -> None:
    """`arguments` as `kept` recorded them: a refused call wrote nothing anywhere."""
    after = dict(_tensors(arguments))
    _assert_unchanged(what, kept.tensors, kept.objects, after)
    added = sorted(path for path, t in after.items() if id(t) in _state_of_modules(arguments))
    assert added == sorted(kept.objects), (
        f"{what} changed the state modules and optimizers hold: "
        f"{sorted(set(added) ^ set(kept.objects))} (created or dropped); check first"
    )
    for path, grad in kept.grads.items():
        now = after[path].grad
        assert (now is None) == (grad is None) and (
            grad is None or (now is not None and _same(now.detach(), grad))
        ), f"{what} changed the .grad of the caller's {path}; check before the first backward"
    _assert_modules_kept(what, kept.modules, _modules_kept(arguments))
    assert _param_groups(arguments) == kept.groups, (
        f"{what} changed an optimizer's param groups: check every argument before anything "
        "is written"
    )
    changed = [
        sorted(n for n in now.keys() | then.keys() if now.get(n, now) is not then.get(n))
        for now, then in zip(_optimizer_attributes(arguments), kept.attributes, strict=True)
    ]
    assert not any(changed), (
        f"{what} changed an optimizer's attributes {[n for names in changed for n in names]}"
    )
    containers = _containers(arguments)
    for path, (keys, attributes) in kept.containers.items():
        assert containers.get(path) == (keys, attributes), (
            f"{what} changed the caller's {path or 'argument'} (its keys, length or "
            "attributes); check every argument before changing anything"
        )


def _param_groups(arguments: Args) -> list[list[dict[str, Any]]]:
    """A copy of the settings (all but the params) of each optimizer among the arguments."""
    return [
        [
            copy.deepcopy({k: v for k, v in group.items() if k != "params"})
            for group in item.param_groups
        ]
        for item in [*arguments.args, *arguments.kwargs.values()]
        if isinstance(item, torch.optim.Optimizer)
    ]


def _optimizer_attributes(arguments: Args) -> list[dict[str, Any]]:
    """What each optimizer among the arguments holds as attributes (the objects themselves)."""
    return [
        dict(vars(item))
        for item in [*arguments.args, *arguments.kwargs.values()]
        if isinstance(item, torch.optim.Optimizer)
    ]


def _with_setting(arguments: Args, facet: Setting, value: float) -> Args:
    """`arguments` with the setting at `value` (for a tuple-valued one, its element at
    `index`, the others as they were)."""
    setting: Any = value
    if facet.index is not None:
        setting = list(arguments.kwargs[facet.name])
        setting[facet.index] = value
        setting = tuple(setting)
    return arguments.replace(**{facet.name: setting})


def _emptied(value: Any) -> Any:
    """The same arguments with every tensor of at least one dimension cut to size 0 along its
    first (an empty batch)."""
    if isinstance(value, torch.Tensor) and value.dim() > 0:
        return value[:0].clone()
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a namedtuple
        return type(value)(*(_emptied(item) for item in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_emptied(item) for item in value)
    if isinstance(value, dict):
        return {key: _emptied(item) for key, item in value.items()}
    return value


def _raises(case: Case, arguments: Args, error: type[BaseException]) -> bool:
    """Whether the call raises `error` (a stub's NotImplementedError propagates)."""
    try:
        _call(case, arguments)
    except NotImplementedError:
        raise
    except error:
        return True
    return False


def check_default_device(case: Case, device: torch.device) -> None:
    facet: DefaultDevice = case.facet  # type: ignore[assignment]
    arguments = facet.make(device)
    default = torch.device("meta" if device.type == "cpu" and facet.meta else device)
    with torch.device(default):
        result = _call(case, arguments)
    expected = {"cpu": torch.device("cpu"), "input": device}.get(facet.where, default)
    found = list(_tensors(result))
    assert found, f"{case.function.name} returned no tensor"
    for path, tensor in found:
        if isinstance(tensor, torch.Tensor):
            assert same_device(tensor.device, expected), (
                f"{case.function.name} with device=None under the default device {default}: "
                f"the result{path} is on {tensor.device}, should be on {expected}"
                + {
                    "default": " (None means torch's current default device)",
                    "cpu": " (None means the CPU here)",
                    "input": " (where the inputs are, whatever the default device)",
                }[facet.where]
            )
    if facet.meta and "device" in inspect.signature(case.function.target).parameters:
        check_explicit_device(case, facet.make(device), device)


def check_explicit_device(case: Case, arguments: Args, device: torch.device) -> None:
    """device= the test's device, under the default device meta: every tensor of the result
    is on that device, made there (meta holds no values, so nothing made on the default
    device can be moved to it)."""
    signature = inspect.signature(case.function.target)
    assert "device" not in signature.bind_partial(*arguments.args, **arguments.kwargs).arguments, (
        "DefaultDevice's make leaves device out"
    )
    with torch.device("meta"):
        try:
            result = _call(case, arguments.replace(device=device))
        except NotImplementedError as error:
            raise AssertionError(
                f"{case.function.name}(..., device={device}) under the default device meta "
                f"failed ({error}): make what it returns on `device` directly "
                "(device=device), not on the default device and moved there with .to(device)"
            ) from error
    found = list(_tensors(result))
    assert found, f"{case.function.name} returned no tensor"
    for path, tensor in found:
        if isinstance(tensor, torch.Tensor):
            assert same_device(tensor.device, device), (
                f"{case.function.name}(..., device={device}) under the default device meta: "
                f"the result{path} is on {tensor.device}, should be on {device} (an explicit "
                "device wins over the default device)"
            )


def check_defaults(case: Case, device: torch.device) -> None:
    facet: Defaults = case.facet  # type: ignore[assignment]
    name, value = case.label, facet.values[case.label]
    seen = []
    with torch.random.fork_rng():  # the seeds set here are the test's, not the caller's
        for written in (False, True):
            torch.manual_seed(seed_for(0))
            if facet.make is not None:
                arguments = facet.make(device)
            else:
                first = next(
                    f
                    for f in case.function.facets
                    if not isinstance(f, (Defaults, GradModeKept, Refused, Propagates))
                )
                arguments = _left_out(case.function, _sample(first, device), name)
            assert name not in arguments.kwargs, f"make gives {name}: leave it out"
            if written:
                arguments = arguments.replace(**{name: value})
            result = _call(case, arguments)
            seen.append(facet.key(arguments, result) if facet.key else result)
    assert _same(*seen), (
        f"{case.function.name} without {name} does not do what {name}={value!r} written out "
        f"does: the documented default is {value!r} (keep the signature's default)"
    )


def _left_out(function: Function, arguments: Args, name: str) -> Args:
    """`arguments` without the parameter `name`: bound to the function's signature, that one
    taken out, the parameters after it (or after any not given) passed by keyword."""
    if function.call is not function.target:
        raise TypeError(
            f"{function.name} is called through `call`: its Defaults facet needs a make that "
            f"leaves {name} out"
        )
    signature = inspect.signature(function.target)
    bound = signature.bind(*arguments.args, **arguments.kwargs)
    parameter = signature.parameters.get(name)
    if parameter is None or parameter.default is inspect.Parameter.empty:
        raise TypeError(f"{function.name} has no parameter {name} with a default to leave out")
    if parameter.kind != inspect.Parameter.POSITIONAL_OR_KEYWORD and (
        parameter.kind != inspect.Parameter.KEYWORD_ONLY
    ):
        raise TypeError(
            f"{function.name}: {name} is positional-only, it cannot be written out by keyword; "
            "give the Defaults facet a make"
        )
    positional: list[Any] = []
    keywords: dict[str, Any] = {}
    by_keyword = False
    kinds = inspect.Parameter
    for key, parameter in signature.parameters.items():
        kind = parameter.kind
        if key == name or key not in bound.arguments:  # what follows a gap goes by keyword
            by_keyword = True
            continue
        given = bound.arguments[key]
        if kind == kinds.VAR_KEYWORD:
            keywords.update(given)
        elif kind == kinds.KEYWORD_ONLY or (by_keyword and kind == kinds.POSITIONAL_OR_KEYWORD):
            keywords[key] = given
        elif by_keyword:  # *args after the parameter left out
            raise TypeError(
                f"{function.name}: {key} cannot be passed without {name} before it; give the "
                "Defaults facet a make"
            )
        elif kind == kinds.VAR_POSITIONAL:
            positional.extend(given)
        else:
            positional.append(given)
    return Args(tuple(positional), keywords)


def _same(a: Any, b: Any) -> bool:
    """Whether two results are equal: tensors in dtype, shape and values (NaN equal to NaN),
    containers item by item, modules in their state."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return False
        if a.dtype != b.dtype or a.shape != b.shape or a.device != b.device:
            return False
        x, y = a.detach().cpu(), b.detach().cpu()
        return torch.equal(x.isnan(), y.isnan()) and torch.equal(x.nan_to_num(), y.nan_to_num())
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, nn.Module):
        return isinstance(b, nn.Module) and _same(dict(_tensors(a)), dict(_tensors(b)))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


def _containers(value: Any, path: str = "", depth: int = 0) -> dict[str, tuple[Any, Any]]:
    """path -> (keys or length, a deep copy of its attributes) of every list, tuple and dict
    the arguments hold."""
    if isinstance(value, Args):
        items: Any = [*((f"argument {i}", v) for i, v in enumerate(value.args))]
        items += [(key, v) for key, v in value.kwargs.items()]
    elif isinstance(value, (list, tuple)):
        items = [(f"{path}[{i}]", v) for i, v in enumerate(value)]
    elif isinstance(value, dict):
        items = [(f"{path}[{k!r}]", v) for k, v in value.items()]
    else:
        return {}
    found = {}
    if not isinstance(value, Args):
        keys = list(value) if isinstance(value, dict) else len(value)
        found[path] = (keys, copy.deepcopy(getattr(value, "__dict__", {})))
    if depth < 4:
        for where, item in items:
            found.update(_containers(item, where, depth + 1))
    return found


def _grad_leaves(value: Any) -> dict[str, torch.Tensor]:
    """The input tensors whose .grad the caller owns: leaves that require grad, outside any
    module or optimizer (whose state is theirs to update)."""
    held = _state_of_modules(value)
    return {
        path: tensor
        for path, tensor in _tensors(value)
        if isinstance(tensor, torch.Tensor)
        and tensor.is_leaf
        and tensor.requires_grad
        and id(tensor) not in held
    }


def _module_parameters(value: Any) -> dict[str, torch.Tensor]:
    """The trainable parameters of the modules a value holds, by path."""
    return {
        f"{path}.{name}": parameter
        for path, module in _modules(value)
        for name, parameter in module.named_parameters(recurse=False)
        if parameter.requires_grad
    }


def check_unmodified(case: Case, device: torch.device) -> None:
    facet: Unmodified = case.facet  # type: ignore[assignment]
    inputs = facet.inputs or (lambda arguments: arguments)

    def make() -> Args:
        return facet.make(device) if case.dtype is None else facet.make(case.dtype, device)

    owned = facet.grads and facet.module_grads
    _check_unmodified(case, make(), inputs, facet.grads, preset=False, module_grads=owned)
    arguments = make()
    if facet.grads and (_grad_leaves(inputs(arguments)) or owned):
        _check_unmodified(case, arguments, inputs, facet.grads, preset=True, module_grads=owned)
    # A module with frozen parameters among trainable ones: requires_grad turned off for the
    # call and "restored" with requires_grad_(True) unfreezes what the caller froze.
    arguments = make()
    trainable = {
        id(p): p
        for _, module in _modules(inputs(arguments))
        for p in module.parameters()
        if p.requires_grad
    }
    if len(trainable) > 1:
        for parameter in list(trainable.values())[::2]:
            parameter.requires_grad_(False)
        _check_unmodified(case, arguments, inputs, facet.grads, preset=False, module_grads=owned)


def _check_unmodified(
    case: Case,
    arguments: Args,
    inputs: Callable[[Args], Any],
    grads: bool,
    preset: bool,
    module_grads: bool = False,
) -> None:
    leaves = _grad_leaves(inputs(arguments)) if grads else {}
    # With `module_grads` (as Unmodified declares it), the trainable parameters of the modules given
    # keep their .grad too: a call between a caller's backward and its step (an evaluation
    # amid gradient accumulation) neither clears nor adds to what the caller accumulated.
    parameters = _module_parameters(inputs(arguments)) if module_grads else {}
    if preset:  # e.g. x is another model's parameter, between its backward and its step
        for tensor in [*leaves.values(), *parameters.values()]:
            tensor.grad = torch.full_like(tensor, 7.0)
    leaves = {**parameters, **leaves}
    kept = {path: None if t.grad is None else t.grad.clone() for path, t in leaves.items()}
    before = _snapshot(inputs(arguments))
    held = _state_of_modules(inputs(arguments))
    objects = {path: tensor for path, tensor in _tensors(inputs(arguments)) if id(tensor) in held}
    # The memory each holds: values put back by swapping it (set_, .data = ...) leave a view
    # of the old memory, or a tensor sharing it, with the changed values.
    memory = {
        path: tensor.data_ptr()
        for path, tensor in objects.items()
        if tensor.layout == torch.strided and not nn.parameter.is_lazy(tensor)
    }
    modules = _modules_kept(inputs(arguments))
    containers = _containers(inputs(arguments))
    _call(case, arguments, read_only=inputs(arguments))
    after = dict(_tensors(inputs(arguments)))
    _assert_unchanged(case.function.name, before, objects, after)
    for path, place in memory.items():
        assert after[path].data_ptr() == place, (
            f"{case.function.name} changed the caller's {path}: its values were put back into "
            "other memory (set_, .data = ...), so a view of it still holds the changed ones; "
            "copy_ them back into its own memory"
        )
    _assert_modules_kept(case.function.name, modules, _modules_kept(inputs(arguments)))
    for path, (keys, attributes) in containers.items():
        now_keys, now_attributes = _containers(inputs(arguments)).get(path, (None, None))
        where = f"{case.function.name} changed the caller's {path or 'argument'}"
        assert now_keys == keys, f"{where}: its keys or length; work on a copy"
        # Attributes a container carries (a state_dict's `_metadata`) are the caller's too.
        assert now_attributes == attributes, (
            f"{where}: its attributes ({', '.join(sorted(attributes or {}))}); leave them as "
            "they are, or work on a copy"
        )
    for path, grad in kept.items():
        now = after[path].grad
        where = f"{case.function.name} changed the caller's {path}.grad"
        assert (now is None) == (grad is None), (
            f"{where}: it was {'None' if grad is None else 'set'} and is "
            f"{'None' if now is None else 'set'} now; differentiate only what the function "
            "owns (torch.autograd.grad(loss, its own tensors), or inputs detached)"
        )
        assert grad is None or torch.equal(now, grad), f"{where}: its values"


def _assert_unchanged(
    name: str, before: list[tuple[str, Any]], objects: dict[str, Any], after: dict[str, Any]
) -> None:
    """Each tensor snapshot in `before` as it was (`objects`: a module's state, which must be
    held in the same tensors)."""
    for path, saved in before:
        now = after.get(path)
        where = f"{name} changed the caller's {path}"
        # A module's state put back as a new tensor leaves whoever holds the old one (the
        # caller, an optimizer) with the changed values.
        assert path not in objects or now is objects[path], (
            f"{where}: it was replaced by another tensor; put the values back into the same "
            "tensor (copy_)"
        )
        if isinstance(saved, np.ndarray):
            assert now is not None and np.array_equal(
                now, saved, equal_nan=saved.dtype.kind in "fc"
            ), where
            continue
        values, dtype, place, requires_grad, version, attributes, no_grad = saved
        assert now is not None, f"{where}: it is gone"
        assert now.dtype == dtype and now.device == place, f"{where}: dtype or device"
        assert now.requires_grad == requires_grad, f"{where}: requires_grad"
        # One that did not require grad gets no .grad either (requires_grad_() on the
        # caller's tensor, a backward, then requires_grad_(False)); the others' .grad is
        # checked by _check_unmodified.
        assert requires_grad or path in objects or (now.grad is None) == no_grad, (
            f"{where}: its .grad; differentiate a detached copy, not the caller's tensor"
        )
        # Attributes set on a tensor (a tag on a parameter) are the caller's to set.
        now_attributes = vars(now)
        assert now_attributes.keys() == attributes.keys() and all(
            now_attributes[key] is value for key, value in attributes.items()
        ), f"{where}: its attributes ({', '.join(now_attributes.keys() ^ attributes.keys())})"
        # An in-place write that puts the same values back is still a write to the caller's
        # tensor (a view of it, or a tensor autograd saved, breaks): the version counter moved.
        # (A module's state is the module's own to update and put back.)
        if path not in objects:
            assert now._version == version, f"{where}: it was written in place; work on a copy"
        # Compared on the CPU, the conjugate bit resolved, NaN equal to NaN.
        a, b = now.detach().cpu().resolve_conj(), values.cpu().resolve_conj()
        same = torch.equal(a.isnan(), b.isnan()) and torch.equal(a.nan_to_num(), b.nan_to_num())
        assert same, f"{where}: its values; work on a copy, or out of place"


def check_no_graph(case: Case, device: torch.device) -> None:
    facet: NoGraph = case.facet  # type: ignore[assignment]
    arguments = facet.make(device)
    own = {id(tensor) for _, tensor in _tensors(arguments)}
    result = _call(case, arguments)
    returned = {id(tensor) for _, tensor in _tensors(result)} - own
    for path, tensor in _tensors(facet.state(arguments, result)):
        assert isinstance(tensor, torch.Tensor) and tensor.grad_fn is None, (
            f"{case.function.name} recorded a graph into the state it updates ({path} has "
            f"grad_fn {tensor.grad_fn}); update state under torch.no_grad() or from .detach()"
        )
        assert id(tensor) not in returned or not tensor.requires_grad, (
            f"{case.function.name} returns a tensor that requires grad ({path or 'the result'}"
            "): return it detached (.detach()), not the leaf it optimised"
        )


def check_trains(case: Case, device: torch.device) -> None:
    facet: Trains = case.facet  # type: ignore[assignment]
    arguments = facet.make(device)
    result = _call(case, arguments)
    module = facet.module(arguments, result) if facet.module else result
    assert isinstance(module, nn.Module), f"expected a module, got {type(module).__name__}"
    trained = [(n, p) for n, p in module.named_parameters() if p.requires_grad]
    assert trained, f"{case.function.name}: the module has no parameter that trains"
    _assert_true_gradients(case, facet, module, device)
    for mode in ("as returned", "in eval mode"):
        if mode == "in eval mode":
            module.eval()
        module.zero_grad(set_to_none=True)
        facet.forward(module, device).float().sum().backward()
        for name, parameter in trained:
            assert parameter.grad is not None, (
                f"{case.function.name}: no gradient reaches {name} in a backward pass, with "
                f"the module {mode}: the mode switches dropout and batch statistics, not "
                "gradients (grad mode is the caller's)"
            )
            assert torch.isfinite(parameter.grad).all(), f"{name} gets a non-finite gradient"
    # An evaluation loop: nothing to backpropagate, so no layer may record a graph.
    graded = []
    hooks = [
        sub.register_forward_pre_hook(
            lambda sub, args, name=name: graded.append(name) if torch.is_grad_enabled() else None
        )
        for name, sub in module.named_modules()
    ]
    try:
        with torch.no_grad():
            output = facet.forward(module, device)
    finally:
        for hook in hooks:
            hook.remove()
    assert not output.requires_grad and not graded, (
        f"{case.function.name}: under the caller's torch.no_grad() the module's forward "
        f"recorded a graph (in {sorted(set(graded)) or 'its output'}): grad mode is the "
        "caller's, so no torch.enable_grad() inside forward"
    )


def _assert_true_gradients(
    case: Case, facet: Trains, module: nn.Module, device: torch.device
) -> None:
    """The module's gradients, in a float64 copy, against a central difference along one
    random direction of its trained parameters (as gradcheck's fast mode does)."""
    if torch.float64 in devices.missing_dtypes(device):
        return
    base = copy_module(module).double()
    drawn = torch.Generator().manual_seed(seed_for(1))
    # On the CPU: the forward may move the module (model.to(device)).
    directions = [
        torch.randn(p.shape, generator=drawn, dtype=p.dtype)
        for p in base.parameters()
        if p.requires_grad
    ]

    def loss(moved: float) -> tuple[torch.Tensor, list[torch.Tensor]]:
        # A fresh copy each time (a forward may update buffers it then uses), moved along the
        # direction; the same input and dropout masks each time, made in float64.
        model = copy_module(base)
        trained: list[torch.Tensor] = [p for p in model.parameters() if p.requires_grad]
        with torch.no_grad():
            for p, v in zip(trained, directions, strict=True):
                p.add_(v.to(p.device), alpha=moved)
        previous = torch.get_default_dtype()
        with torch.random.fork_rng():
            torch.manual_seed(seed_for(0))
            torch.set_default_dtype(torch.float64)
            try:
                output = facet.forward(model, device).double()
            finally:
                torch.set_default_dtype(previous)
        return (output * _upstream(output)).sum(), trained

    value, trained = loss(0.0)
    grads = torch.autograd.grad(value, trained, allow_unused=True, materialize_grads=True)
    along = sum(float((g.cpu() * v).sum()) for g, v in zip(grads, directions, strict=True))
    step = 1e-6
    difference = (float(loss(step)[0]) - float(loss(-step)[0])) / (2 * step)
    assert math.isclose(along, difference, rel_tol=1e-4, abs_tol=1e-6), (
        f"{case.function.name}: along a random direction of the parameters the gradient is "
        f"{along:.6g}, but the output changes at a rate of {difference:.6g}: a path cut "
        "(detach, .data, no_grad) or a backward of its own gives wrong gradients"
    )


# What every nn.Module keeps in its __dict__ (registries, hooks, flags): not the state a
# subclass adds.
_MODULE_INTERNALS = frozenset(vars(nn.Module()))


def _held(value: Any, path: str, depth: int = 0) -> Iterator[tuple[str, Any]]:
    """(path, item) of every tensor and module an attribute holds, in lists, tuples, sets
    and dicts too."""
    if isinstance(value, (torch.Tensor, nn.Module)):
        yield path, value
    elif depth < 3 and isinstance(value, (list, tuple, set, frozenset)):
        for index, item in enumerate(value):
            yield from _held(item, f"{path}[{index}]", depth + 1)
    elif depth < 3 and isinstance(value, dict):
        for key, item in value.items():
            yield from _held(item, f"{path}[{key!r}]", depth + 1)


def _assert_registered(name: str, module: nn.Module) -> None:
    tensors = {id(t) for t in module.parameters()} | {id(t) for t in module.buffers()}
    modules = {id(m) for m in module.modules()}
    for path, sub in module.named_modules(remove_duplicate=False):
        # A tensor or layer set on the class is one object that every instance shares.
        classes = [c for c in type(sub).__mro__ if not c.__module__.startswith("torch.")]
        for cls in classes:
            for where, _ in _held(dict(vars(cls)), cls.__name__):
                raise AssertionError(
                    f"{name}: {where} is set on the class, so every instance shares it; "
                    "create it in __init__ and register it there"
                )
        for key, value in vars(sub).items():
            if key in _MODULE_INTERNALS:
                continue
            for where, item in _held(value, f"{path}.{key}".lstrip(".")):
                if isinstance(item, torch.Tensor):
                    assert id(item) in tensors, (
                        f"{name}: {where} is a plain tensor attribute, which parameters(), "
                        "state_dict() and .to() do not see: make it an nn.Parameter or a "
                        "buffer (register_buffer)"
                    )
                else:
                    assert id(item) in modules, (
                        f"{name}: the module {where} is held in a plain Python container, so "
                        "its parameters are not registered: use nn.ModuleList / nn.ModuleDict "
                        "(or nn.Sequential)"
                    )


def _perturbed(module: nn.Module) -> None:
    """Add 1 to every floating parameter and buffer, in place."""
    with torch.no_grad():
        for tensor in [*module.parameters(), *module.buffers()]:
            if tensor.is_floating_point():
                tensor.add_(1)


def _all_perturbed(arguments: Args) -> None:
    """Add 1, once, to every floating parameter and buffer of the arguments' modules."""
    held = {
        id(tensor): tensor
        for _, module in _modules(arguments)
        for tensor in [*module.parameters(recurse=False), *module.buffers(recurse=False)]
    }
    with torch.no_grad():
        for tensor in held.values():
            if tensor.is_floating_point():
                tensor.add_(1)


def _agree(a: Any, b: Any) -> bool:
    """Whether two outputs (tensors, or containers of them) agree, to a tolerance far below
    what another state gives: an accelerator's kernels need not repeat their last bit."""
    try:
        torch.testing.assert_close(a, b, rtol=1e-6, atol=1e-7, equal_nan=True)
    except AssertionError:
        return False
    return True


def check_registered(case: Case, device: torch.device) -> None:
    facet: Registered = case.facet  # type: ignore[assignment]
    name = case.function.name
    # float64 as the default dtype shows a dtype written out; where the device has no
    # float64, the module is built in float32 and that part is left out.
    dtype = torch.float32 if torch.float64 in devices.missing_dtypes(device) else torch.float64

    def build(seed: int) -> nn.Module:
        torch.manual_seed(seed)
        with default_dtype(dtype):
            arguments = facet.make(device)
            result = _call(case, arguments)
        module = facet.module(arguments, result) if facet.module else result
        assert isinstance(module, nn.Module), f"expected a module, got {type(module).__name__}"
        return module

    def output(module: nn.Module) -> Any:
        torch.manual_seed(seed_for(2))
        # No graph kept: a graph holding the parameters stops a later .to() that swaps them.
        with default_dtype(dtype), torch.no_grad():
            return facet.forward(module, device)

    with torch.random.fork_rng():  # the seeds set here are the test's, not the caller's
        module = build(0)
        _assert_registered(name, module)
        frozen = {id(p) for p in facet.frozen(module)} if facet.frozen else set()
        untrained = [
            key
            for key, p in module.named_parameters()
            if not p.requires_grad and id(p) not in frozen
        ]
        assert not untrained, (
            f"{name}: the parameters {untrained} do not require grad, so no optimizer trains "
            "them: a layer's parameters are trainable as its constructor makes them"
        )
        if dtype == torch.float64:
            narrow = [
                f"{key} ({tensor.dtype})"
                for key, tensor in [*module.named_parameters(), *module.named_buffers()]
                if tensor.is_floating_point() and tensor.dtype != dtype
            ]
            assert not narrow, (
                f"{name}, built under torch.set_default_dtype(torch.float64), holds {narrow}: "
                "create layers and tensors in torch's default dtype (pass no dtype)"
            )
        assert module.eval() is module and module.train() is module, (
            f"{name}: .train() and .eval() return the module itself"
        )
        module.eval()
        training = [key or "the module" for key, m in module.named_modules() if m.training]
        assert not training, f"{name}: after .eval(), {training} are still in training mode"
        # One tensor under two keys: a module registered twice (a second attribute naming
        # it, or a container of parts that are registered already) saves and loads it twice.
        saved: dict[int, list[str]] = {}
        for key, tensor in module.state_dict(keep_vars=True).items():
            saved.setdefault(id(tensor), []).append(key)
        twice = [keys for keys in saved.values() if len(keys) > 1]
        assert facet.shared or not twice, (
            f"{name}: the state_dict holds one tensor under several keys {twice}: a module "
            "is registered twice (another attribute or container naming a part that is "
            "registered already); register each part once"
        )
        expected = output(module)
        # A forward that keeps a tensor on the module (its last output, an activation to
        # look at later) leaves a plain attribute that the state_dict, .to() and a copy do
        # not see right, and under autograd it holds the whole graph until the next call.
        _assert_registered(f"{name} (after a forward)", module)
        other = build(1).eval()
        keys, other_keys = list(module.state_dict()), list(other.state_dict())
        assert keys == other_keys, (
            f"{name}: two modules built alike have other state_dict keys ({keys} and {other_keys})"
        )
        other.load_state_dict(module.state_dict())
        assert _agree(output(other), expected), (
            f"{name}: a module built after another seed and loaded with this one's "
            "state_dict() computes another output: part of the state is not in the "
            "state_dict (a plain tensor attribute, a buffer registered with persistent=False "
            "that is not rebuilt by __init__, a layer in a Python list)"
        )
        _perturbed(other)
        _perturbed(copy.deepcopy(module))
        assert _agree(output(module), expected), (
            f"{name}: changing the parameters of another module, or of a deepcopy of this "
            "one, changed this module's output: they share state (a tensor or a layer kept "
            "at class or module level, in a default argument or a closure)"
        )


def _loss_fn_watched(target: Any, arguments: Args) -> tuple[Args, list[tuple[bool, ...]]]:
    """`arguments` with their `loss_fn` (where `target` has that parameter) wrapped to note,
    at each call, which of its first two arguments require grad."""
    seen: list[tuple[bool, ...]] = []
    try:
        signature = inspect.signature(target)
        bound = signature.bind(*arguments.args, **arguments.kwargs)
    except (TypeError, ValueError):
        return arguments, seen
    # The caller's loss_fn only: a default may be None, read as a loss inside.
    loss_fn = bound.arguments.get("loss_fn")
    if loss_fn is None:
        return arguments, seen

    def watched(*positional: Any, **keywords: Any) -> Any:
        seen.append(tuple(isinstance(t, torch.Tensor) and t.requires_grad for t in positional[:2]))
        return loss_fn(*positional, **keywords)

    bound.arguments["loss_fn"] = watched
    return Args(bound.args, bound.kwargs), seen


def check_updates_all(case: Case, device: torch.device) -> None:
    facet: UpdatesAll = case.facet  # type: ignore[assignment]
    arguments = facet.make(device)
    before = _snapshot(facet.params(arguments))
    # Views of the caller's tensors, as a flat buffer or another holder of them would have.
    views = {
        path: tensor.detach()
        for path, tensor in _tensors(facet.params(arguments))
        if isinstance(tensor, torch.Tensor) and facet.in_place
    }
    called, losses = _loss_fn_watched(case.function.target, arguments)
    _call(case, called)
    if losses:
        assert any(grads[:1] == (True,) for grads in losses) and not any(
            grads[1:2] == (True,) for grads in losses
        ), (
            f"{case.function.name} called loss_fn with the targets first (which of its "
            f"arguments required grad, per call: {losses}): call loss_fn(model(inputs), "
            "targets), the outputs first"
        )
    after = dict(_tensors(facet.params(arguments)))
    for path, saved in before:
        values = saved[0] if isinstance(saved, tuple) else saved
        assert not torch.equal(after[path].detach(), values), (
            f"{case.function.name} left {path} unchanged: it updates every parameter"
        )
        if path in views:
            now, view = after[path].detach(), views[path]
            seen = now.shape == view.shape and bool(
                ((now == view) | (now.isnan() & view.isnan())).all()
            )
            assert seen, (
                f"{case.function.name} did not update {path} in place: a view of it (a flat "
                "buffer it is part of) still holds the old values; write into the tensor "
                "(p.add_, p.copy_ under no_grad), not `p.data = ...` or a new tensor"
            )


def check_fresh_grads(case: Case, device: torch.device) -> None:
    facet: FreshGrads = case.facet  # type: ignore[assignment]
    seen = []
    # What the caller left: NaN (an overflowed step: zeroing by multiplying keeps it), and
    # values as a backward leaves them, each tensor's own, drawn from seed_for (no fill a
    # function could recognise as planted, such as NaN or one value throughout, and clear
    # only then).
    stale_draw = torch.Generator().manual_seed(seed_for(5))
    scale = 10.0 ** float(torch.empty(()).uniform_(-2, 1, generator=stale_draw))
    with torch.random.fork_rng():  # the seeds set here are the test's, not the caller's
        for stale in ("no", "NaN", "finite values"):
            torch.manual_seed(seed_for(0))
            arguments = facet.make(device)
            tensors = [t for _, t in _tensors(facet.params(arguments))]
            for tensor in tensors if stale != "no" else ():
                values = scale * torch.randn(
                    tensor.shape, generator=stale_draw, dtype=torch.float64
                )
                tensor.grad = (
                    torch.full_like(tensor, math.nan)
                    if stale == "NaN"
                    else values.to(tensor.device, tensor.dtype)
                )
            result = _call(case, arguments)
            seen.append((result, [tensor.detach().clone() for tensor in tensors]))
    (result, params), *others = seen
    for stale, (stale_result, stale_params) in zip(("NaN", "finite values"), others, strict=True):
        assert _same(params, stale_params) and _same(result, stale_result), (
            f"{case.function.name} with {stale} left in the parameters' .grad before the call "
            f"gives {'other parameters' if not _same(params, stale_params) else 'another result'}"
            " than with no .grad: gradients from before the call leak into a step; clear them "
            "before each backward, whatever they hold (zero_grad; zeroing by multiplying keeps "
            "NaN)"
        )
    # The caller froze some of them; a frozen one may still hold the .grad of an earlier
    # backward (frozen after training a while): zeroing it keeps it in the step, where weight
    # decay or momentum still move it, and clearing only the trainable ones' steps it with it.
    for held in (False, True):
        with torch.random.fork_rng():
            torch.manual_seed(seed_for(0))
            arguments = facet.make(device)
            trainable = [t for _, t in _tensors(facet.params(arguments)) if t.requires_grad]
            if len(trainable) < 2:
                return
            # Which the caller froze is drawn (a held-out run draws others): a fixed pattern,
            # such as every other one, is one a function could recognise and keep frozen
            # alone. One is left trainable at least: the call still trains.
            draw = random.Random(seed_for(3))
            chosen = set(draw.sample(range(len(trainable)), draw.randrange(1, len(trainable))))
            frozen = [tensor for index, tensor in enumerate(trainable) if index in chosen]
            left = [tensor for index, tensor in enumerate(trainable) if index not in chosen]
            if held:  # the caller's optimizers decay weights: a zero .grad still moves them
                for optimizer in (*arguments.args, *arguments.kwargs.values()):
                    if isinstance(optimizer, torch.optim.Optimizer):
                        for group in optimizer.param_groups:
                            group["weight_decay"] = group.get("weight_decay", 0.0) or 0.1
            for tensor in frozen:
                tensor.requires_grad_(False)
                drawn = scale * torch.randn(tensor.shape, generator=stale_draw, dtype=torch.float64)
                tensor.grad = drawn.to(tensor.device, tensor.dtype) if held else None
            values = [tensor.detach().clone() for tensor in frozen]
            _call(case, arguments)
        for index, (tensor, value) in enumerate(zip(frozen, values, strict=True)):
            # With a .grad held from before, it may be cleared or left: not stepped.
            cleared = tensor.grad is None or held
            assert not tensor.requires_grad and cleared and _same(tensor, value), (
                f"{case.function.name} changed parameter {index} of those the caller froze"
                f"{' (holding a .grad from an earlier backward)' if held else ''} "
                f"(requires_grad {tensor.requires_grad}, .grad "
                f"{'None' if tensor.grad is None else 'set'}, values "
                f"{'kept' if _same(tensor, value) else 'changed'}): leave requires_grad as the "
                "caller set it; a frozen parameter gets no gradient and no step (set a .grad "
                "it holds to None, not to zeros, which an optimizer still steps with its "
                "weight decay or momentum)"
            )
        assert all(tensor.requires_grad for tensor in left), (
            f"{case.function.name} froze parameters the caller left trainable: leave "
            "requires_grad as the caller set it"
        )


def check_returns(case: Case, device: torch.device) -> None:
    facet: Returns = case.facet  # type: ignore[assignment]
    arguments = facet.make(device)
    result = _call(case, arguments)
    if facet.kind == "same":
        assert result is arguments.args[0], (
            f"{case.function.name} should return its first argument itself (in place), "
            "not a new object"
        )
        return
    if isinstance(result, torch.Tensor):
        sizes = zip(result.stride(), result.shape, strict=True)
        assert not any(stride == 0 and size > 1 for stride, size in sizes), (
            f"{case.function.name}'s result is an expanded view (stride 0: its elements share "
            "memory), which cannot be written in place; return a tensor of its own"
        )
    for path, tensor in _tensors(result):
        assert not (isinstance(tensor, torch.Tensor) and tensor.is_inference()), (
            f"{case.function.name}'s result{path} is an inference tensor (made under "
            "torch.inference_mode()), which the caller cannot write in place outside it: "
            "create what you return outside inference_mode (or clone it there)"
        )
    for path, tensor in _tensors(arguments):
        assert result is not tensor, f"{case.function.name} returned its input {path} itself"
        if isinstance(result, (torch.Tensor, np.ndarray)):
            assert not _shares_input(result, tensor), (
                f"{case.function.name}'s result shares memory with the input {path}: "
                "return a new tensor"
            )
    # A second call with equal inputs: a result kept and returned again (a cache) would be
    # changed by the caller who writes into the first one.
    _assert_new_each_call(case.function.name, result, _call(case, facet.make(device)))
    _assert_writable_in_place(case.function.name, result)
    # The inputs in other layouts: a result that shares their memory only there (a copy
    # skipped for a non-contiguous input, taken to have been copied already) shows. Both the
    # layouts a caller makes (a transpose, a slice of a larger buffer: one dimension of
    # stride 1, an offset) and one no two of whose dimensions merge (every stride above
    # one): a function that tells the check's copies by their layout meets the other.
    for layout, laid_out in (("strided", _strided_copies), ("transposed", _transposed)):
        fresh = facet.make(device)
        moved = Args(*(laid_out(part) for part in (fresh.args, dict(fresh.kwargs))))
        result = _call(case, moved)
        for path, tensor in _tensors(moved):
            if isinstance(result, (torch.Tensor, np.ndarray)):
                assert not _shares_input(result, tensor), (
                    f"{case.function.name}'s result shares memory with the {layout} input "
                    f"{path}: return a new tensor (or array) for every layout"
                )


def _strided_copies(value: Any) -> Any:
    return _strided(_strided_arrays(value))


def _transposed(value: Any) -> Any:
    """The same values with their dimensions in reverse order in memory, the first of
    stride 1 (`x.T.contiguous().T`), at an offset in a larger buffer (a slice of it):
    tensors and NumPy arrays, and those that tuples, lists and dicts hold."""
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(_transposed(item) for item in value)
    if isinstance(value, dict):
        return {key: _transposed(item) for key, item in value.items()}
    if isinstance(value, torch.Tensor) and value.dim() > 0 and value.numel() > 1:
        order = tuple(reversed(range(value.dim())))
        flat = value.permute(order).reshape(-1)
        return torch.cat([flat[:1], flat])[1:].view(value.permute(order).shape).permute(order)
    if isinstance(value, np.ndarray) and value.ndim > 0 and value.size > 1:
        line = value.transpose().reshape(-1)
        return np.concatenate([line[:1], line])[1:].reshape(value.transpose().shape).transpose()
    return value


def _strided_arrays(value: Any) -> Any:
    """`_strided` for NumPy arrays: the same values, no two dimensions mergeable into one."""
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(_strided_arrays(item) for item in value)
    if isinstance(value, dict):
        return {key: _strided_arrays(item) for key, item in value.items()}
    if isinstance(value, np.ndarray) and value.ndim > 0 and value.size > 1:
        reversed_ = value.transpose()
        return np.stack([reversed_] * _spread(), axis=-1)[..., 0].transpose()
    return value


def _shares_input(result: torch.Tensor | np.ndarray, value: Any) -> bool:
    """Whether a returned tensor or array shares memory with an input tensor or array."""
    if isinstance(value, torch.Tensor):
        return _overlaps(result, value)
    if not isinstance(value, np.ndarray):
        return False
    if isinstance(result, np.ndarray):
        return bool(np.shares_memory(result, value))
    if result.device.type != "cpu":
        return False
    spans = _span(result), _span(value)
    return (
        spans[0] is not None
        and spans[1] is not None
        and spans[0][0] < spans[1][1]
        and spans[1][0] < spans[0][1]
    )


def _assert_writable_in_place(name: str, result: Any) -> None:
    """Each tensor of a graph in the result takes an in-place write (by 1, values kept):
    the views of one multi-output op (split, chunk, unbind) refuse it under autograd, so a
    caller's `out.clamp_(...)` or `relu_` fails on what should be tensors of their own."""
    for path, tensor in _tensors(result):
        if not isinstance(tensor, torch.Tensor) or tensor.grad_fn is None:
            continue
        try:
            with torch.enable_grad():
                tensor.mul_(1)
        except RuntimeError as error:
            raise AssertionError(
                f"{name}'s result{path} cannot be written in place by the caller ({error}); "
                "it is one of the views that split, chunk or unbind return: give each result "
                "tensor of its own (one op per part, or clone the parts)"
            ) from None


def check_changed(case: Case, device: torch.device) -> None:
    facet: Changed = case.facet  # type: ignore[assignment]
    name = case.function.name
    arguments = facet.make(device)
    # Copied before any call, so that nothing the function keeps on an object travels along.
    untouched = _copied_with_grads(arguments)
    first = _call(case, arguments)
    facet.change(arguments)
    facet.change(untouched)
    again, fresh = _call(case, arguments), _call(case, untouched)
    assert not _same_result(first, fresh), (
        f"{name} gave the same result before the change as a call on a changed copy: "
        "either the declared change does not change the result (then it can catch nothing) "
        "or the result was kept from an earlier call on an object with the same id()"
    )
    assert _same_result(again, fresh), (
        f"{name}, called again on the same objects after they changed, returned {again!r:.80} "
        f"instead of {fresh!r:.80}: a result kept from the first call (cached by id(), or on "
        "the object) was handed out for a state that has moved on; compute it from the "
        "state at each call"
    )


def _same_result(a: Any, b: Any) -> bool:
    """Tensors to _agree's tolerance, anything else (ints, lists of names) equal."""
    if any(True for _ in _tensors(a)) or any(True for _ in _tensors(b)):
        return _agree(a, b)
    return _same(a, b)


def _copied_with_grads(arguments: Args) -> Args:
    """A deep copy in which every leaf keeps its .grad (a Parameter's deepcopy drops it)."""
    memo: dict[int, Any] = {}
    copied = copy.deepcopy(arguments, memo)
    for leaf in _leaves(arguments):
        if leaf.grad is not None and id(leaf) in memo:
            memo[id(leaf)].grad = copy.deepcopy(leaf.grad, memo)
    return copied


def _leaves(value: Any, depth: int = 0) -> Iterator[torch.Tensor]:
    """Every tensor the arguments hold, with the parameters of modules and optimizers."""
    if isinstance(value, torch.Tensor):
        yield value
    elif depth > 4:
        return
    elif isinstance(value, Args):
        for item in (*value.args, *value.kwargs.values()):
            yield from _leaves(item, depth + 1)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _leaves(item, depth + 1)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item, depth + 1)
    elif isinstance(value, nn.Module):
        yield from value.parameters()
    elif isinstance(value, torch.optim.Optimizer):
        for group in value.param_groups:
            yield from group["params"]


def _parts(value: Any, depth: int = 0) -> Iterator[Any]:
    """Every list, dict, tensor and array a result holds: what its caller may change."""
    if isinstance(value, (torch.Tensor, np.ndarray)):
        yield value
        return
    if depth > 4 or not isinstance(value, (list, tuple, dict)):
        return
    if not isinstance(value, tuple):
        yield value
    for item in value.values() if isinstance(value, dict) else value:
        yield from _parts(item, depth + 1)


def _assert_new_each_call(name: str, first: Any, second: Any) -> None:
    """The caller owns what a call returns: nothing of it is handed out again by the next
    call (a cached tensor, array or list, lru_cache's result), which would carry one
    caller's changes into another's result."""
    before = list(_parts(first))
    for part in _parts(second):
        containers = isinstance(part, (list, dict))
        again = any(
            part is old if containers or isinstance(old, (list, dict)) else _shares(part, old)
            for old in before
        )
        assert not again, (
            f"{name} returned {'a ' + type(part).__name__ if containers else 'memory'} it had "
            "returned before (kept between calls): a caller who changes one result changes "
            "the other; return a new one each call"
        )


def _writes_reach(a: torch.Tensor | np.ndarray, b: torch.Tensor | np.ndarray) -> bool:
    """Whether writing into an element of a changes an element of b: they share bytes, not
    merely a storage (w, b = theta.unbind() are two tensors of their own to write into)."""
    if not _shares(a, b):
        return False
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return True  # np.shares_memory is exact already
    a_starts, b_starts = _element_bytes(a), _element_bytes(b)
    if a_starts is None or b_starts is None:
        return True
    a_size, b_size = a.element_size(), b.element_size()
    a_starts = torch.unique(a_starts)  # sorted
    # The last element of a that starts before each element of b ends overlaps it, if any does.
    last = torch.searchsorted(a_starts, b_starts + b_size) - 1
    found = last >= 0
    return bool((a_starts[last.clamp(min=0)][found] + a_size > b_starts[found]).any())


def _element_bytes(tensor: torch.Tensor) -> torch.Tensor | None:
    """The byte offset in its storage of each element of tensor (None past 2**22 elements)."""
    if tensor.numel() > 2**22:
        return None
    offsets = torch.full((), int(tensor.storage_offset()), dtype=torch.int64)
    for dim, (size, stride) in enumerate(zip(tensor.shape, tensor.stride(), strict=True)):
        shape = [1] * tensor.dim()
        shape[dim] = size
        offsets = offsets + torch.arange(size, dtype=torch.int64).reshape(shape) * stride
    return offsets.reshape(-1) * tensor.element_size()


def _overlaps(a: torch.Tensor | np.ndarray, b: torch.Tensor) -> bool:
    if isinstance(a, np.ndarray):
        return b.device.type == "cpu" and np.shares_memory(a, b.detach().numpy(force=True))
    if a.device != b.device or a.numel() == 0 or b.numel() == 0 or a.device.type == "meta":
        return False
    try:
        return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    except (RuntimeError, NotImplementedError):
        return False


def check_modes(case: Case, device: torch.device) -> None:
    facet: Modes = case.facet  # type: ignore[assignment]
    arguments = facet.make(device)
    module = facet.module(arguments)
    if facet.sets is not None:
        _check_modes_set(case, arguments, module, facet.sets)
        return
    module.train(case.label != "eval")
    if case.label in ("mixed", "raises"):  # every other submodule in eval, the module in train
        for index, submodule in enumerate(module.modules()):
            submodule.training = index % 2 == 0
    flags = [m.training for m in module.modules()]
    if case.label == "raises":
        _check_modes_when_the_module_raises(case, arguments, module, flags)
        return
    first = _call(case, arguments)
    assert [m.training for m in module.modules()] == flags, (
        f"{case.function.name} left the model in another mode than it found it in "
        f"({case.label}); put back each module's own mode"
    )
    if case.label == "mixed":  # and the other way round: eval() on a module in eval
        for index, submodule in enumerate(module.modules()):  # switches its children too
            submodule.training = index % 2 == 1
        flags = [m.training for m in module.modules()]
        _call(case, arguments)
        assert [m.training for m in module.modules()] == flags, (
            f"{case.function.name} left the model in another mode than it found it in (the "
            "module in eval, submodules in training among them); put back each module's own "
            "flag (module.training = was): .eval() and .train() set the children's too"
        )
        module.train(True)
        for index, submodule in enumerate(module.modules()):
            submodule.training = index % 2 == 0
    second = _call(case, arguments)
    for (path, a), (_, b) in zip(_tensors(first), _tensors(second), strict=False):
        assert torch.equal(torch.as_tensor(a).cpu(), torch.as_tensor(b).cpu()), (
            f"{case.function.name} gave another result{path} when called a second time"
        )
    if not list(_tensors(first)):
        assert first == second or (first != first and second != second), (
            f"{case.function.name} gave {first!r}, then {second!r} when called again"
        )


def check_forward_modes(case: Case, device: torch.device) -> None:
    facet: ForwardModes = case.facet  # type: ignore[assignment]
    arguments = facet.make(device)
    module = facet.module(arguments)
    module.train(case.label == "mixed")
    if case.label.startswith("mixed"):  # every other submodule in the other mode
        for index, submodule in enumerate(module.modules()):
            if index % 2:
                submodule.training = not module.training
    # Keyed by name, bound in each hook: a deep copy of the module (run in its place) keeps them.
    expected = {
        name or "the model": {"caller": m.training, "eval": False, "train": True}[facet.runs]
        for name, m in module.named_modules()
    }
    ran: list[tuple[str, bool]] = []
    grads: list[tuple[str, bool]] = []

    def seen(m: nn.Module, args: Any, name: str) -> None:
        ran.append((name, m.training))
        grads.append((name, torch.is_grad_enabled()))

    hooks = {
        name or "the model": lambda m, args, name=name or "the model": seen(m, args, name)
        for name, m in module.named_modules()
    }
    handles = [
        m.register_forward_pre_hook(hooks[name or "the model"])
        for name, m in module.named_modules()
    ]
    caller = torch.no_grad() if case.label.endswith("under no_grad") else nullcontext()
    try:
        with caller, _forward_runs(module, hooks) as forwards:
            _call(case, arguments)
    finally:
        for handle in handles:
            handle.remove()
    assert ran, f"{case.function.name} did not run the module"
    assert not facet.whole or "the model" in {name for name, _ in ran}, (
        f"{case.function.name} ran the module's submodules but not the module itself as "
        "module(x): call the module, not module.forward(x), so that its hooks run (forward "
        "hooks, parametrizations' and pruning's pre-hooks)"
    )
    counts = Counter(name for name, _ in ran)
    named = module.named_modules()
    watched = {name or "the model" for name, m in named if "forward" not in vars(m)}
    uncounted = sorted(name for name in watched if forwards[name] != counts[name])
    assert not uncounted, (
        f"{case.function.name} ran the forward of {uncounted} "
        f"{[forwards[name] for name in uncounted]} times but called them "
        f"{[counts[name] for name in uncounted]} times (the module {case.label}): run a "
        "module by calling it, module(x), never through module.forward(x) or its class's "
        "forward, which skip its hooks"
    )
    calls = facet.calls(arguments) if callable(facet.calls) else facet.calls
    assert calls is None or counts["the model"] == calls, (
        f"{case.function.name} ran the module {counts['the model']} times (the module "
        f"{case.label}), not {calls}: each forward costs its time and runs the module's "
        "hooks again"
    )
    again = sorted(name for name, count in counts.items() if calls and count > calls)
    assert not again, (
        f"{case.function.name} ran {again} more than {calls} times (the module "
        f"{case.label}): each layer runs once per forward, not a second time to check or "
        "reuse its output"
    )
    grad = facet.grad if facet.grad is not None else not case.label.endswith("under no_grad")
    off = sorted({name for name, enabled in grads if enabled != grad})
    assert not off, (
        f"{case.function.name} ran {off} with autograd {'off' if grad else 'on'} (the module "
        f"{case.label}): "
        + {
            True: "a training step records its graph: no torch.no_grad() around the forward",
            False: "run the forward inside `with torch.no_grad():` (a graph recorded and "
            "detached after costs its memory all the same)",
            None: "run it in the caller's grad mode: no torch.enable_grad() around it",
        }[facet.grad]
    )
    wrong = sorted({name for name, training in ran if training != expected[name]})
    want = {"caller": "the mode the caller left it in", "eval": "eval", "train": "training"}
    assert not wrong, (
        f"{case.function.name} ran {wrong} in another mode than {want[facet.runs]} (the "
        f"module {case.label}): "
        + (
            "run each submodule in its own mode, as found: no model.train() or .eval() for "
            "the call, even one put back after"
            if facet.runs == "caller"
            else f"call model.{facet.runs}() before the first forward (it sets every submodule)"
        )
    )


@contextmanager
def _forward_runs(module: nn.Module, hooks: dict[str, Callable[..., Any]]) -> Iterator[Counter]:
    """How many times the forward of `module` and of each submodule runs, by name, however it
    is reached: module(x), module.forward(x), type(module).forward(module, x), the class's
    forward named outright, torch's own tracing path. A pre-hook counts only module(x). While
    the body runs, the forward of each of their classes (and of the classes they derive from,
    nn.Module's aside) counts a run where the module it is given holds one of `hooks` (a deep
    copy of it too, which holds the same functions); a forward that goes on up its class's MRO
    (super().forward) is one run, and the forward entered again otherwise while one runs (from
    a parametrization the first reads) is another. Modules with a forward of their own, set on
    the object, are not counted."""
    runs: Counter = Counter()
    tags = {id(hook): name for name, hook in hooks.items()}
    # For each module whose forward runs now: the classes whose forward it entered in this
    # run, in order. A forward entered again while it runs is the same run only where it
    # goes on up the class's MRO (super().forward): the forward of a class after every one
    # entered; any other (its own forward again, from a parametrization, a property or a
    # pre-hook of a submodule that the first run reached) is a run of its own.
    entered: dict[int, list[type]] = {}

    def tag(module: object) -> str | None:
        table = vars(module).get("_forward_pre_hooks", {})
        return next((tags[id(h)] for h in list(table.values()) if id(h) in tags), None)

    def goes_up(module: object, owner: type, chain: list[type]) -> bool:
        mro = type(module).__mro__
        place = mro.index(owner) if owner in mro else -1
        return place >= 0 and all(c in mro and mro.index(c) < place for c in chain)

    def wrap(original: Callable[..., Any], owner: type) -> Callable[..., Any]:
        def forward(self: nn.Module, *args: Any, **kwargs: Any) -> Any:
            name = tag(self)
            if name is None:
                return original(self, *args, **kwargs)
            chain = entered.get(id(self))
            if chain is not None and goes_up(self, owner, chain):
                chain.append(owner)
                return original(self, *args, **kwargs)
            entered[id(self)] = [owner]
            runs[name] += 1
            try:
                return original(self, *args, **kwargs)
            finally:
                if chain is None:
                    del entered[id(self)]
                else:
                    entered[id(self)] = chain

        return functools.wraps(original)(forward)

    saved: dict[type, Any] = {}
    for m in module.modules():
        if "forward" in vars(m):
            continue
        for cls in type(m).__mro__:
            if cls is not nn.Module and "forward" in vars(cls) and cls not in saved:
                saved[cls] = vars(cls)["forward"]
    try:
        for cls, original in saved.items():
            type.__setattr__(cls, "forward", wrap(original, cls))
        yield runs
    finally:
        for cls, original in saved.items():
            type.__setattr__(cls, "forward", original)


def _check_modes_set(case: Case, arguments: Args, module: nn.Module, sets: bool) -> None:
    """The function leaves every submodule in mode `sets`, from the mode named by the case:
    mixed ones alternate between the modes, under a root in train or in eval."""
    module.train(case.label in ("train", "mixed"))
    if case.label.startswith("mixed"):
        for index, submodule in enumerate(module.modules()):
            if index:
                submodule.training = index % 2 == 0
    _call(case, arguments)
    left = [name or "the model" for name, m in module.named_modules() if m.training != sets]
    assert not left, (
        f"{case.function.name} should put the model in {'training' if sets else 'eval'} mode, "
        f"every submodule included; from {case.label} mode, {left} were left in "
        f"{'eval' if sets else 'training'} mode: call model.{'train' if sets else 'eval'}() "
        "whatever mode the model itself is in (it sets every submodule's)"
    )


class _ModuleFails(Exception):
    """What every forward of the module raises in the Modes facet's "raises" case."""


def _check_modes_when_the_module_raises(
    case: Case, arguments: Args, module: nn.Module, flags: list[bool]
) -> None:
    def fail(*_: Any) -> None:
        raise _ModuleFails("the module fails on purpose")

    handles = [submodule.register_forward_pre_hook(fail) for submodule in module.modules()]
    try:
        _call(case, arguments)  # settings_kept fails it if grad mode or another setting stays
    except _ModuleFails:
        pass
    finally:
        for handle in handles:
            handle.remove()
    assert [m.training for m in module.modules()] == flags, (
        f"{case.function.name} left the model in another mode than it found it in when the "
        "model raised; put back each module's own mode in a finally block"
    )


def _sample(facet: Facet, device: torch.device) -> Args:
    """Valid arguments from a facet's `make`, whatever its signature."""
    make: Any = getattr(facet, "make", None)
    if isinstance(facet, (Dtypes, Gradients)) or (isinstance(facet, Unmodified) and facet.dtypes):
        dtypes = facet.dtypes
        return make(torch.float32 if torch.float32 in dtypes else dtypes[0], device)
    if isinstance(facet, Shapes):
        return make(SHAPES[next((s for s in facet.shapes if s != "empty"), "2-D")], device)
    if isinstance(facet, Classes):
        return make(facet.covered[0], device)
    if isinstance(facet, (Refused, Edges)):  # Refused: held to grad mode when it raises
        return next(iter(facet.calls.values()))(device)
    if isinstance(facet, Runs):  # the caller's code as it is, uncounted
        return make(device, lambda fn: fn)
    return make(device)


def check_grad_mode_kept(case: Case, device: torch.device) -> None:
    facet: GradModeKept = case.facet  # type: ignore[assignment]
    if facet.make is not None:
        arguments = facet.make(device)
    else:
        first = next(
            f for f in case.function.facets if not isinstance(f, (GradModeKept, Propagates))
        )
        arguments = _sample(first, device)
    shared = _shared_state(case.function.target, before=True)
    with (
        torch.random.fork_rng(devices=[]),  # an extra call: the caller's stream stays put
        torch.no_grad(),
        settings_kept(f"{case.function.name}, called under torch.no_grad(),"),
    ):
        try:
            case.function.call(*arguments.args, **arguments.kwargs)
        except NotImplementedError:
            raise
        except Exception:  # whether it works under no_grad is for its contract to say
            pass
    _assert_shared_state_kept(case.function, shared)


# What Propagates plants: an error of an ordinary class with ordinary arguments, drawn anew for
# each case from a generator no seed reaches, so that nothing tells it from an error the
# caller's own code raises (`except Exception as e: if "planted" in str(e): raise`, else
# swallowed; a class of the harness's own, or a fixed message, is such a tell). Identity, not
# class, tells the planted error from another the function raised.
# (Not IndexError, KeyError, StopIteration or AttributeError: Python's protocols end a loop or
# fall back on those, an honest answer's loop over a sequence too.)
PLANTED_CLASSES: tuple[type[Exception], ...] = (
    *(RuntimeError, ValueError, TypeError, AssertionError),
    *(ArithmeticError, ZeroDivisionError, OSError, Exception),
)
_PLANTED_DRAWS = random.SystemRandom()


def planted_error(interrupt: bool) -> BaseException:
    """A fresh error to plant: a KeyboardInterrupt (Ctrl-C) or an ordinary Exception."""
    draw = _PLANTED_DRAWS
    kind: type[BaseException] = KeyboardInterrupt if interrupt else draw.choice(PLANTED_CLASSES)
    words = ("bad", "batch", "input", "value", "loss", "shape", "step", "nan", "data", "model")
    forms: list[tuple[object, ...]] = [
        (),
        (draw.randrange(10**6),),
        (" ".join(draw.choices(words, k=draw.randint(1, 5))),),
        (draw.choice(words), draw.randrange(1000)),
    ]
    return kind(*draw.choice(forms))


def _named_as_the_tests_own(
    function: Callable[..., Any], make: object, like: object = None
) -> Callable[..., Any]:
    """A callable a facet hands the function where the caller's code goes, named as the
    tests' own are: after the callable it wraps (`like`), or as a lambda of the kata's test
    module (where `make` was written). Named after the harness (`check_propagates.<locals>.
    fault`, `counted`), its name or repr would tell an answer that a facet calls it, to run
    right only for the facet (propagate the error, call it once) and not for the tests."""
    module = getattr(make, "__module__", None)
    name = getattr(like, "__name__", None)
    qualname = getattr(like, "__qualname__", None)
    function.__name__ = name if isinstance(name, str) else "<lambda>"
    function.__qualname__ = qualname if isinstance(qualname, str) else function.__name__
    home = getattr(like, "__module__", None) if isinstance(name, str) else module
    function.__module__ = home if isinstance(home, str) else "__main__"
    function.__doc__ = getattr(like, "__doc__", None) if isinstance(name, str) else None
    return function


def check_propagates(case: Case, device: torch.device) -> None:
    facet: Propagates = case.facet  # type: ignore[assignment]
    planted = planted_error(interrupt=bool(case.label))
    kind = type(planted)
    calls = []

    def fault(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        raise planted

    arguments = facet.make(device, _named_as_the_tests_own(fault, facet.make))
    what = f"{case.function.name}: the caller's code it runs raised {planted!r}"
    try:
        _call(case, arguments)
    except NotImplementedError:
        raise
    except kind as error:
        assert error is planted, (
            f"{what}; it raised {error!r}, another {kind.__name__}, instead: re-raise the "
            "caller's error as it is"
        )
    except BaseException as error:
        raise AssertionError(
            f"{what}, and it raised {type(error).__name__}: {error} instead: let the "
            "caller's error propagate as it is"
        ) from error
    else:
        raise AssertionError(
            f"{what}, and it returned (the error swallowed): let the caller's error propagate"
        )
    assert len(calls) == 1, (
        f"{what}, and it called that code {len(calls)} times: the first error ends the call "
        "(no retry, no carrying on with the next item)"
    )


def check_runs(case: Case, device: torch.device) -> None:
    facet: Runs = case.facet  # type: ignore[assignment]
    modes: list[bool] = []
    hooks: list[Any] = []

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        if isinstance(fn, nn.Module):
            # The module itself, counted by a hook of its own: a function in its place would
            # tell the answer that it is being counted (not a module any more).
            count = lambda module, args: modes.append(torch.is_grad_enabled())  # noqa: E731
            hooks.append(fn.register_forward_pre_hook(count))
            return fn

        def counted(*args: Any, **kwargs: Any) -> Any:
            modes.append(torch.is_grad_enabled())
            return fn(*args, **kwargs)

        return _named_as_the_tests_own(counted, facet.make, like=fn)

    caller = torch.no_grad() if case.label == "under no_grad" else nullcontext()
    try:
        arguments = facet.make(device, wrap)
        expected = facet.times(arguments)
        with caller:
            _call(case, arguments)
    finally:
        for hook in hooks:
            hook.remove()
    assert len(modes) == expected, (
        f"{case.function.name} ran the caller's code {len(modes)} times where its contract "
        f"names {expected}: call it once per item, and keep its result (no second call to "
        "log, check or warm up)"
    )
    if facet.grad is not None:
        wrong = sum(mode != facet.grad for mode in modes)
        state = "on" if facet.grad else "off"
        assert not wrong, (
            f"{case.function.name}{' ' + case.label if case.label else ''} ran the caller's "
            f"code {wrong} of {len(modes)} times with grad mode not {state}: "
            + (
                "run it inside `with torch.enable_grad():`"
                if facet.grad
                else "run it inside `with torch.no_grad():`"
            )
        )


def check_classes(case: Case, device: torch.device) -> None:
    facet: Classes = case.facet  # type: ignore[assignment]
    children: list[nn.Module] = []
    if case.label.startswith("not "):
        cls = next(c for c in facet.others if c.__name__ == case.label[4:])
    else:
        cls = next(c for c in facet.covered if c.__name__ == case.label.split()[-1])
        if case.label.startswith("subclass of "):
            # A subclass the kata never saw: a rule matched by exact type or by name misses it.
            cls = _subclass(cls, children if facet.own else None)
    arguments = facet.make(cls, device)
    before = _snapshot(children)
    treated = facet.treated(arguments, _call(case, arguments))
    after = dict(_tensors(children))
    for path, saved in before:
        assert torch.equal(after[path].detach(), saved[0]), (
            f"{case.function.name} changed the child {path} of a {cls.__name__}: the rule "
            "treats the module itself only (its own parameters, recurse=False)"
        )
    if case.label.startswith("not "):
        assert not treated, (
            f"{case.function.name} treats {cls.__name__} as one of the classes its rule names; "
            "it is not one of them (test with isinstance against the named classes)"
        )
    else:
        assert treated, (
            f"{case.function.name} does not treat {cls.__name__} as one of the classes its "
            "rule names (subclasses included: test with isinstance)"
        )


def check_seeded(case: Case, device: torch.device) -> None:
    facet: Seeded = case.facet  # type: ignore[assignment]
    drawn = []
    with torch.random.fork_rng():  # the seeds set here are the test's, not the caller's
        for seed in (seed_for(1), seed_for(1), seed_for(2)):
            arguments = facet.make(device)
            torch.manual_seed(seed)
            result = _call(case, arguments)
            picked = facet.drawn(arguments, result) if facet.drawn else result
            drawn.append([t.detach().cpu().clone() for _, t in _tensors(picked)])
    first, again, other = drawn
    assert first, f"{case.function.name}: nothing drawn to compare"
    same = [torch.equal(a, b) for a, b in zip(first, again, strict=True)]
    assert all(same), (
        f"{case.function.name} gave another result after the same torch.manual_seed: draw "
        "only from torch's generator (no seed of your own from the clock or elsewhere)"
    )
    assert not all(torch.equal(a, b) for a, b in zip(first, other, strict=True)), (
        f"{case.function.name} gave the same result after two different torch.manual_seed: it "
        "ignores the caller's seed (a torch.Generator of its own seeded with a constant); draw "
        "from torch's default generator"
    )
    # Drawing moves the caller's stream on: two calls in a row draw different values (draws
    # inside a torch.random.fork_rng would repeat at every call, two layers alike). Where
    # only some draws are forked, the others move the stream and the calls differ all the
    # same, yet the forked ones repeat what the caller draws next: nothing in the call puts
    # a saved state back or reseeds, however it is spelled (fork_rng, set_rng_state, the
    # default generator's set_state: _GLOBAL_GENERATORS), nor reads the state or seed a
    # copy of the stream is made from (_global_generator_reads: every method of the generator).
    forked = (
        "draw from torch's default generator itself, so that each call moves it on: draws "
        "inside torch.random.fork_rng, before a saved state is put back (set_rng_state, "
        "set_state), or from a generator given its state or seed (get_rng_state, "
        "initial_seed) come from a copy of it, the same values the caller draws next"
    )
    with torch.random.fork_rng():
        calls = [facet.make(device), facet.make(device)]
        torch.manual_seed(seed_for(1))
        results = [
            (
                arguments,
                _call(
                    case,
                    arguments,
                    inside=lambda: forbidden_calls(
                        *_GLOBAL_GENERATORS, *_global_generator_reads(), reason=forked
                    ),
                ),
            )
            for arguments in calls
        ]
    first_call, second_call = (
        [t.detach().cpu() for _, t in _tensors(facet.drawn(a, r) if facet.drawn else r)]
        for a, r in results
    )
    assert not all(torch.equal(a, b) for a, b in zip(first_call, second_call, strict=True)), (
        f"{case.function.name} drew the same values twice in a row: draw from torch's default "
        "generator itself, so that each call moves it on (not from a copy of it, such as "
        "inside torch.random.fork_rng)"
    )
    if facet.like is None:
        return
    with torch.random.fork_rng():
        torch.manual_seed(seed_for(1))
        expected = [t.detach().cpu() for _, t in _tensors(facet.like())]
    assert len(first) == len(expected), (
        f"{case.function.name}: {len(first)} tensors drawn, the contract's builtins draw "
        f"{len(expected)}"
    )
    for index, (got, want) in enumerate(zip(first, expected, strict=True)):
        assert got.shape == want.shape and torch.equal(got.to(want.dtype), want), (
            f"{case.function.name}: drawn tensor {index} (of shape {tuple(got.shape)}) differs "
            "from what torch's own layers draw after the same seed: keep the initialisation "
            "each layer's constructor gives it (no zeroing, no redraw, no seed of your own), "
            "and create the layers in the contract's order"
        )


# What reseeds torch's global generators, or puts a saved state back: the CPU's and CUDA's.
_GLOBAL_GENERATORS = (
    *((torch.random, name) for name in ("manual_seed", "seed", "set_rng_state", "fork_rng")),
    *(
        (torch.default_generator, name)
        for name in ("manual_seed", "seed", "set_state", "graphsafe_set_state", "set_offset")
    ),
    *(
        (torch.cuda, name)
        for name in ("manual_seed", "manual_seed_all", "seed", "seed_all", "set_rng_state")
    ),
    (torch.cuda, "set_rng_state_all"),
)


# Methods of a torch.Generator that neither read nor write its stream: identity, comparison,
# representation, attribute access.
_GENERATOR_NEUTRAL = frozenset(
    {
        *("__class__", "__dir__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"),
        *("__hash__", "__repr__", "__str__", "__format__", "__sizeof__", "__init__"),
        *("__new__", "__init_subclass__", "__subclasshook__", "__getattribute__"),
        *("__setattr__", "__delattr__"),
    }
)


def _global_generator_reads() -> tuple[tuple[object, str], ...]:
    """What reads the state or the seed of torch's global generators, from which a copy of
    the stream is made without putting anything back (`torch.Generator().set_state(
    torch.get_rng_state())`, `torch.Generator().manual_seed(torch.initial_seed())`,
    `copy.deepcopy(torch.default_generator)`, which calls its `__reduce_ex__`): torch's
    functions that do, and every method of each global generator but the neutral ones,
    whatever it is named (a method a later torch adds too), so that no way of copying the
    stream is left out of a list."""
    generators = (torch.default_generator, *torch.cuda.default_generators)
    methods = sorted(
        name
        for name in dir(torch.Generator)
        if name not in _GENERATOR_NEUTRAL and callable(getattr(torch.Generator, name, None))
    )
    return (
        *((torch.random, name) for name in ("get_rng_state", "initial_seed")),
        *((torch.cuda, name) for name in ("get_rng_state", "get_rng_state_all", "initial_seed")),
        *((generator, name) for generator in generators for name in methods),
    )


def _global_states() -> list[torch.Tensor]:
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_initialized() else []
    return [torch.get_rng_state(), *cuda]


def check_own_generator(case: Case, device: torch.device) -> None:
    facet: OwnGenerator = case.facet  # type: ignore[assignment]
    arguments = facet.make(device)
    reason = (
        "draw from a torch.Generator of your own, seeded with the seed: the global generator "
        "is the caller's, also while your code runs (another thread may draw from it), so "
        "no reseed of it, not even inside torch.random.fork_rng"
    )
    # The harness's own look at the seed (settings_kept) comes before and after the watch.
    with (
        settings_kept(case.function.name),
        forbidden_calls(*_GLOBAL_GENERATORS, reason=reason),
    ):
        before = _global_states()
        shared = _shared_state(case.function.target, before=True)
        result = case.function.call(*arguments.args, **arguments.kwargs)
        _assert_shared_state_kept(case.function, shared)
        if facet.then is not None:
            facet.then(arguments, result)
        after = _global_states()
    assert len(after) == len(before) and all(map(torch.equal, after, before)), (
        f"{case.function.name} drew from torch's global generator: {reason}"
    )


def _subclass(cls: type, children: list[nn.Module] | None) -> type:
    """A subclass of `cls`; one that holds a child built like itself where `children` collects
    them."""
    if children is None or not issubclass(cls, nn.Module):
        return type(f"Custom{cls.__name__}", (cls,), {})

    def __init__(self: nn.Module, *positional: Any, **keywords: Any) -> None:
        cls.__init__(self, *positional, **keywords)
        self.adapter = cls(*positional, **keywords)
        children.append(self.adapter)

    return type(f"Custom{cls.__name__}", (cls,), {"__init__": __init__})


CHECKERS: dict[type[Facet], Callable[[Case, torch.device], None]] = {
    Dtypes: check_dtypes,
    Gradients: check_gradients,
    Shapes: check_shapes,
    Edges: check_edges,
    BadShapes: check_bad_shapes,
    Number: check_number,
    Setting: check_setting,
    DefaultDevice: check_default_device,
    Defaults: check_defaults,
    Unmodified: check_unmodified,
    NoGraph: check_no_graph,
    Trains: check_trains,
    Registered: check_registered,
    UpdatesAll: check_updates_all,
    Refused: check_refused,
    FreshGrads: check_fresh_grads,
    Returns: check_returns,
    Changed: check_changed,
    Seeded: check_seeded,
    OwnGenerator: check_own_generator,
    Modes: check_modes,
    ForwardModes: check_forward_modes,
    Classes: check_classes,
    GradModeKept: check_grad_mode_kept,
    Propagates: check_propagates,
    Runs: check_runs,
}


def copy_module(module: nn.Module) -> nn.Module:
    """A deep copy, for oracles that must not touch the module under test."""
    return copy.deepcopy(module)
