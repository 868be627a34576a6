import functools
import math

import pytest
from torch.utils.data import BatchSampler, DataLoader

from katas.q39_steps_per_epoch import epoch_of_step, optimizer_steps, steps_per_epoch
from torch_katas import facets
from torch_katas.testing import (
    assert_no_python_loops,
    assert_no_torch_internals,
    forbidden_calls,
    plural,
)


def dataloader_refused():
    """Inside the block, building a DataLoader or a BatchSampler fails."""
    assert_no_torch_internals(steps_per_epoch, reason="compute the counts with integer arithmetic")
    # Their length code too, which runs on any stand-in object as `self`.
    return forbidden_calls(
        (DataLoader, "__init__"),
        (DataLoader, "__len__"),
        (BatchSampler, "__init__"),
        (BatchSampler, "__len__"),
        (BatchSampler, "__iter__"),
        reason="this kata asks for the counts from integer arithmetic",
    )


@functools.cache  # the length depends on these three numbers only, not on the data
def loader_length(num_samples, batch_size, drop_last):
    return len(DataLoader(range(num_samples), batch_size=batch_size, drop_last=drop_last))


def steps_by_loop(batches, epochs, accumulation_steps):
    """The epoch of every optimizer step of the docstring's loop, in order."""
    epoch_of = []
    for epoch in range(epochs):
        for i in range(batches):
            if (i + 1) % accumulation_steps == 0 or i + 1 == batches:
                epoch_of.append(epoch)
    return epoch_of


def check_int(value, name):
    assert isinstance(value, int) and not isinstance(value, bool), (
        f"{name} should return a Python int, got {type(value).__name__}"
    )


# (function, positional arguments, accumulation_steps) with one argument out of range.
IMPOSSIBLE = {
    "negative samples": (steps_per_epoch, (-1, 4), None),
    "batch size 0": (steps_per_epoch, (10, 0), None),
    "negative batch size": (steps_per_epoch, (10, -4), None),
    "negative epochs": (optimizer_steps, (10, 4, -1), 1),
    "accumulation 0": (optimizer_steps, (10, 4, 2), 0),
    "negative accumulation": (optimizer_steps, (10, 4, 2), -2),
    "optimizer_steps negative samples": (optimizer_steps, (-5, 4, 2), 1),
    "optimizer_steps batch size 0": (optimizer_steps, (10, 0, 2), 1),
    "optimizer_steps negative batch size": (optimizer_steps, (10, -4, 2), 1),
    "negative step": (epoch_of_step, (-1, 10, 4), 1),
    "epoch_of_step negative samples": (epoch_of_step, (0, -5, 4), 1),
    "epoch_of_step batch size 0": (epoch_of_step, (0, 10, 0), 1),
    "epoch_of_step negative batch size": (epoch_of_step, (0, 10, -4), 1),
    "epoch_of_step accumulation 0": (epoch_of_step, (0, 10, 4), 0),
    "epoch_of_step negative accumulation": (epoch_of_step, (0, 10, 4), -2),
    "empty dataset": (epoch_of_step, (0, 0, 4), 1),
}


@pytest.mark.parametrize("drop_last", [False, True], ids=["keep last", "drop last"])
@pytest.mark.parametrize("case", IMPOSSIBLE)
def test_rejects_impossible_arguments(device, case, drop_last):
    function, args, accumulation = IMPOSSIBLE[case]
    kwargs = {"drop_last": drop_last}
    if accumulation is not None:
        kwargs["accumulation_steps"] = accumulation
    shown = [*map(repr, args), *(f"{key}={value!r}" for key, value in kwargs.items())]
    call = f"{function.__name__}({', '.join(shown)})"
    with dataloader_refused():
        try:
            result = function(*args, **kwargs)
        except ValueError:
            return
    pytest.fail(
        f"{call} returned {result!r}; it should raise ValueError ({case}): check every "
        "argument against its limit (num_samples >= 0, batch_size >= 1, epochs >= 0, "
        "accumulation_steps >= 1, step >= 0), negative values included, in both drop_last "
        "modes, before computing anything"
    )


def test_rejects_an_epoch_whose_batches_are_all_dropped(device):
    with dataloader_refused(), pytest.raises(ValueError):
        epoch_of_step(3, 3, 4, drop_last=True)


SIZES = [*range(21), 31, 32, 33, 100]  # empty, smaller than a batch, exact multiples, ...
BATCH_SIZES = [1, 2, 3, 4, 5, 7, 32]


# Sizes that grow with n: a loop over the batches, the epochs, the accumulation groups or
# the steps, written as for, map, functools.reduce, recursion or in a helper, runs more
# lines of Python for the bigger case (integer arithmetic runs the same lines for both).
LOOP_FREE = {
    "steps_per_epoch": (steps_per_epoch, lambda n: (7 * n + 3, 7), "batches"),
    "steps_per_epoch drop last": (steps_per_epoch, lambda n: (7 * n + 3, 7, True), "batches"),
    "optimizer_steps": (
        optimizer_steps,
        lambda n: (12 * n + 5, 4, n, 3),
        "epochs and batches",
    ),
    "optimizer_steps drop last": (
        optimizer_steps,
        lambda n: (12 * n + 5, 4, n, 3, True),
        "epochs and batches",
    ),
    "epoch_of_step": (epoch_of_step, lambda n: (n * n, 4 * n + 1, 2, 2), "epochs and steps"),
    "epoch_of_step drop last": (
        epoch_of_step,
        lambda n: (n * n, 4 * n + 1, 2, 2, True),
        "epochs and steps",
    ),
}


@pytest.mark.parametrize("case", list(LOOP_FREE))
def test_rules_no_loops(device, case):
    function, inputs, over = LOOP_FREE[case]
    with dataloader_refused():
        assert_no_python_loops(function, inputs, over=over)


@pytest.mark.parametrize("drop_last", [False, True], ids=["keep last", "drop last"])
def test_steps_per_epoch_equals_len_of_a_dataloader(device, drop_last):
    with dataloader_refused():
        got = {(n, b): steps_per_epoch(n, b, drop_last) for n in SIZES for b in BATCH_SIZES}
    for (n, b), count in got.items():
        check_int(count, "steps_per_epoch")
        want = loader_length(n, b, drop_last)
        assert count == want, (
            f"{plural(n, 'sample')} in batches of {b} with drop_last={drop_last} make "
            f"{plural(want, 'batch', 'batches')}, "
            f"got {count}"
            + ("; a short last batch still counts unless drop_last" if not drop_last else "")
        )


# Arithmetic on a count: instant; a loop up to 2**62 fails at the time limit, not a minute on.
@pytest.mark.timeout(10)
@pytest.mark.parametrize(
    "num_samples, batch_size",
    [(2**53 + 1, 1), (10**17 + 1, 3), (10**18 - 1, 10**9), (3 * 10**16 + 2, 3)],
)
@pytest.mark.parametrize("drop_last", [False, True], ids=["keep last", "drop last"])
def test_steps_per_epoch_is_exact_for_huge_datasets(device, num_samples, batch_size, drop_last):
    with dataloader_refused():
        count = steps_per_epoch(num_samples, batch_size, drop_last)
    want = len(DataLoader(range(num_samples), batch_size=batch_size, drop_last=drop_last))
    other_mode = -(-num_samples // batch_size) if drop_last else num_samples // batch_size
    through_float = {math.floor(num_samples / batch_size), math.ceil(num_samples / batch_size)}
    hints = []
    if count == other_mode:
        hints.append("round up only when a short last batch is kept (drop_last=False)")
    if count in through_float:
        hints.append(
            "use integer division (// and %): floats cannot hold every integer above 2**53"
        )
    hint = " or ".join(hints) or "count whole batches, plus one for a remainder unless drop_last"
    assert count == want, (
        f"{plural(num_samples, 'sample')} in batches of {batch_size} with drop_last={drop_last} "
        f"make {plural(want, 'batch', 'batches')}, got {count}; {hint}"
    )


# Beyond 2**63 and 2**64, where int64 tensors and NumPy integers wrap, and beyond the 28
# digits decimal.Decimal keeps by default, or any precision set for it: Python ints are exact
# at any size.
BEYOND_INT64 = [
    (2**63 - 1, 2),
    (2**64 + 1, 3),
    (2**70 + 5, 2**35),
    (3 * 2**80, 2**80 - 1),
    (10**40 + 1, 10**30),  # 10**10 + 1e-30 batches: rounded to 28 digits, 10**10
    (2**200 + 3, 2**170 + 1),  # just below 2**30 batches: rounded, 2**30
    # 10**10 + 1e-1290 batches: rounded to a decimal precision raised by hand (100 or 1000
    # digits), 10**10
    (10**1300 + 1, 10**1290),
]


def batches_by_divmod(num_samples, batch_size, drop_last):
    whole, left = divmod(num_samples, batch_size)
    return whole + (left > 0 and not drop_last)


# Arithmetic on a count: instant; a loop up to 2**62 fails at the time limit, not a minute on.
@pytest.mark.timeout(10)
@pytest.mark.parametrize("drop_last", [False, True], ids=["keep last", "drop last"])
def test_counts_are_exact_beyond_64_bit_integers(device, drop_last):
    runs = [(n, b, e, a) for n, b in BEYOND_INT64 for e, a in ((1, 1), (4, 3), (2**40, 2))]
    with dataloader_refused():
        batches = [steps_per_epoch(n, b, drop_last) for n, b in BEYOND_INT64]
        steps = [optimizer_steps(n, b, e, a, drop_last) for n, b, e, a in runs]
        epochs = [epoch_of_step(2**70, n, b, 1, drop_last) for n, b in BEYOND_INT64]
        epochs += [epoch_of_step(2**64 - 1, 2**62, 1, 2, drop_last)]
    hint = (
        "; Python ints have no limit, int64 tensors and NumPy integers wrap past 2**63 and "
        "decimal.Decimal rounds past its precision (28 digits by default): compute with "
        "Python's // and %"
    )
    for (n, b), count in zip(BEYOND_INT64, batches, strict=True):
        check_int(count, "steps_per_epoch")
        want = batches_by_divmod(n, b, drop_last)
        assert count == want, f"steps_per_epoch({n}, {b}, {drop_last}) is {want}, got {count}{hint}"
    for (n, b, e, a), count in zip(runs, steps, strict=True):
        check_int(count, "optimizer_steps")
        want = e * -(-batches_by_divmod(n, b, drop_last) // a)
        assert count == want, (
            f"optimizer_steps({n}, {b}, {e}, {a}, {drop_last}) is {want}, got {count}{hint}"
        )
    per_epoch = [batches_by_divmod(n, b, drop_last) for n, b in BEYOND_INT64]
    want_epochs = [2**70 // steps for steps in per_epoch] + [(2**64 - 1) // 2**61]
    assert epochs == want_epochs, f"epoch_of_step gave {epochs}, expected {want_epochs}{hint}"


@pytest.mark.parametrize("drop_last", [False, True], ids=["keep last", "drop last"])
def test_optimizer_steps_counts_the_accumulation_loop(device, drop_last):
    cases = [
        (n, b, e, a)
        for n in range(14)
        for b in (1, 2, 3, 5)
        for e in (0, 1, 3)
        for a in range(1, 6)
    ]
    with dataloader_refused():
        got = [optimizer_steps(n, b, e, a, drop_last) for n, b, e, a in cases]
    for (n, b, e, a), count in zip(cases, got, strict=True):
        check_int(count, "optimizer_steps")
        want = len(steps_by_loop(loader_length(n, b, drop_last), e, a))
        assert count == want, (
            f"{plural(n, 'sample')}, batch size {b}, drop_last={drop_last}, {e} epochs, "
            f"accumulation over {a} batches: the loop steps the optimizer {want} times, got "
            f"{count}; each epoch steps after every full group and once more for a leftover group"
        )


HUGE_RUNS = [(2**53 + 1, 1, 1), (10**17 + 1, 3, 7), (10**18 - 1, 10**9, 3), (3 * 10**16, 1, 7)]


def steps_in_an_epoch(num_samples, batch_size, accumulation_steps, drop_last):
    batches = len(DataLoader(range(num_samples), batch_size=batch_size, drop_last=drop_last))
    return batches // accumulation_steps + (batches % accumulation_steps > 0)  # + leftover


# Arithmetic on a count: instant; a loop up to 2**62 fails at the time limit, not a minute on.
@pytest.mark.timeout(10)
@pytest.mark.parametrize("drop_last", [False, True], ids=["keep last", "drop last"])
def test_optimizer_steps_and_epoch_of_step_are_exact_for_huge_runs(device, drop_last):
    with dataloader_refused():
        got = [optimizer_steps(n, b, 3, a, drop_last) for n, b, a in HUGE_RUNS]
    for (n, b, a), steps in zip(HUGE_RUNS, got, strict=True):
        want = 3 * steps_in_an_epoch(n, b, a, drop_last)
        assert steps == want, (
            f"{plural(n, 'sample')}, batch size {b}, accumulation over {a}, drop_last={drop_last}: "
            f"3 epochs make {want} optimizer steps, got {steps}; use integer arithmetic "
            "(// and %): floats cannot hold every integer above 2**53"
        )
    # The last step of an epoch and the first of the next, early in the run and later.
    per_epoch = [steps_in_an_epoch(n, b, a, drop_last) for n, b, a in HUGE_RUNS]
    asked = [
        (step, n, b, a, step // steps)
        for (n, b, a), steps in zip(HUGE_RUNS, per_epoch, strict=True)
        for step in (steps - 1, steps, 5 * steps - 1, 5 * steps)
    ]
    with dataloader_refused():
        got = [epoch_of_step(step, n, b, a, drop_last) for step, n, b, a, _ in asked]
    for (step, n, b, a, want), epoch in zip(asked, got, strict=True):
        assert epoch == want, (
            f"{plural(n, 'sample')}, batch size {b}, accumulation over {a}, drop_last={drop_last}: "
            f"optimizer step {step} happens in epoch {want}, got {epoch}; use integer "
            "division (//): floats cannot hold every integer above 2**53"
        )


@pytest.mark.parametrize("drop_last", [False, True], ids=["keep last", "drop last"])
def test_epoch_of_step_follows_the_accumulation_loop(device, drop_last):
    cases = [(n, b, a) for n in range(1, 14) for b in (1, 2, 3, 5) for a in range(1, 6)]
    cases = [case for case in cases if case[0] >= case[1] or not drop_last]  # epochs with steps
    # Every step of the first three epochs, across two epoch boundaries.
    wanted = [steps_by_loop(loader_length(n, b, drop_last), 3, a) for n, b, a in cases]
    with dataloader_refused():
        got = [
            [epoch_of_step(s, n, b, a, drop_last) for s in range(len(want))]
            for (n, b, a), want in zip(cases, wanted, strict=True)
        ]
    for (n, b, a), epochs, want in zip(cases, got, wanted, strict=True):
        for step, (epoch, want_epoch) in enumerate(zip(epochs, want, strict=True)):
            check_int(epoch, "epoch_of_step")
            assert epoch == want_epoch, (
                f"{plural(n, 'sample')}, batch size {b}, drop_last={drop_last}, accumulation "
                f"over {a} batches: optimizer step {step} happens in epoch {want_epoch}, got "
                f"{epoch}; count optimizer steps per epoch, not batches"
            )


def test_defaults_keep_the_last_batch_and_step_after_every_batch(device):
    # 10 samples in batches of 4: the default keeps the short last batch (3 batches, not
    # 2) and steps after every batch (no accumulation).
    with dataloader_refused():
        got = {
            "steps_per_epoch(10, 4)": steps_per_epoch(10, 4),
            "optimizer_steps(10, 4, 2)": optimizer_steps(10, 4, 2),
            "optimizer_steps(10, 4, 2, 1)": optimizer_steps(10, 4, 2, 1),
            "epoch_of_step(5, 10, 4)": epoch_of_step(5, 10, 4),
            "epoch_of_step(5, 10, 4, 1)": epoch_of_step(5, 10, 4, 1),
        }
    want = {
        "steps_per_epoch(10, 4)": loader_length(10, 4, False),
        "optimizer_steps(10, 4, 2)": len(steps_by_loop(3, 2, 1)),
        "optimizer_steps(10, 4, 2, 1)": len(steps_by_loop(3, 2, 1)),
        "epoch_of_step(5, 10, 4)": steps_by_loop(3, 2, 1)[5],
        "epoch_of_step(5, 10, 4, 1)": steps_by_loop(3, 2, 1)[5],
    }
    assert got == want, (
        f"with the defaults (accumulation_steps=1, drop_last=False) got {got}, expected {want}"
    )


# ---------------------------------------------------------------- facets


def sizes(device, **changes):
    return facets.args(num_samples=10, batch_size=4).replace(**changes)


def run(device, **changes):
    return sizes(device, epochs=2, accumulation_steps=2).replace(**changes)


def at_step(device, **changes):
    return sizes(device, step=3, accumulation_steps=2).replace(**changes)


def every_setting(make, *names):
    """A Setting for each argument: each bad value is also tried with the others at their
    bounds (0 samples, 0 epochs), where a shortcut could return before the checks."""
    lows = {"num_samples": 0, "batch_size": 1, "epochs": 0, "accumulation_steps": 1, "step": 0}
    return [facets.Setting(make, name, low=lows[name], integer=True) for name in names]


FACETS = facets.declare(
    facets.of(
        steps_per_epoch,
        facets.Number(sizes, int),
        *every_setting(sizes, "num_samples", "batch_size"),
        facets.Defaults(values={"drop_last": False}),  # 10 samples in batches of 4
    ),
    facets.of(
        optimizer_steps,
        facets.Number(run, int),
        *every_setting(run, "num_samples", "batch_size", "epochs", "accumulation_steps"),
        facets.Defaults(values={"accumulation_steps": 1, "drop_last": False}),
    ),
    facets.of(
        epoch_of_step,
        facets.Number(at_step, int),
        *every_setting(at_step, "step", "batch_size", "accumulation_steps"),
        facets.Defaults(
            lambda device: sizes(device, step=5),
            values={"accumulation_steps": 1, "drop_last": False},
        ),
    ),
)
test_facets = FACETS.test
