import io
import pickle

import pytest
import torch
from torch.optim.lr_scheduler import LinearLR, LRScheduler, SequentialLR, StepLR

from katas.q20_warmup_step_scheduler import WarmupStepLR
from torch_katas import facets
from torch_katas.testing import raises

BASE_LRS = (0.5, 0.02)


def make_optimizer(device, base_lrs=BASE_LRS):
    """SGD with one param group per base lr, the params on `device`."""
    groups = [
        {"params": [torch.zeros(3, device=device, requires_grad=True)], "lr": lr} for lr in base_lrs
    ]
    return torch.optim.SGD(groups)


def run(optimizer, scheduler, steps):
    """The lrs of every group used by each of `steps` optimizer steps."""
    lrs = []
    for _ in range(steps):
        lrs.append([group["lr"] for group in optimizer.param_groups])
        optimizer.step()
        scheduler.step()
    return lrs


def builtin_schedule(optimizer, warmup, step_size, gamma, start):
    warmup_part = LinearLR(optimizer, start_factor=start, end_factor=1.0, total_iters=warmup)
    decay_part = StepLR(optimizer, step_size=step_size, gamma=gamma)
    return SequentialLR(optimizer, [warmup_part, decay_part], milestones=[warmup])


def formula(t, warmup, step_size, gamma, start):
    if t < warmup:
        return start + (1 - start) * t / warmup
    return gamma ** ((t - warmup) // step_size)


def compare(got, want, what):
    for t, (got_t, want_t) in enumerate(zip(got, want, strict=True)):
        assert got_t == pytest.approx(want_t, rel=1e-9, abs=1e-15), (
            f"{what}: at step {t} the group lrs should be {want_t}, got {got_t}"
        )


# (warmup_steps, step_size, gamma, start_factor)
CONFIGS = [
    (5, 3, 0.5, 0.1),
    (1, 1, 0.9, 0.5),
    (4, 10, 0.1, 1.0),
    (10, 2, 1.0, 0.25),
    (3, 4, 0.3, 0.01),
]


def test_is_an_lr_scheduler(device):
    optimizer = make_optimizer(device)
    scheduler = WarmupStepLR(optimizer, warmup_steps=3, step_size=2)
    assert isinstance(scheduler, LRScheduler), (
        "WarmupStepLR should subclass torch.optim.lr_scheduler.LRScheduler"
    )
    assert scheduler.optimizer is optimizer, "pass the optimizer on to LRScheduler.__init__"


def test_construction_sets_the_start_of_the_warmup(device):
    optimizer = make_optimizer(device)
    scheduler = WarmupStepLR(optimizer, warmup_steps=4, step_size=2, start_factor=0.2)
    want = [lr * 0.2 for lr in BASE_LRS]
    assert [group["lr"] for group in optimizer.param_groups] == pytest.approx(want), (
        "right after construction each group's lr should be start_factor * its lr; "
        "LRScheduler.__init__ makes that first step when you call super().__init__"
    )
    assert scheduler.get_last_lr() == pytest.approx(want)


@pytest.mark.parametrize("warmup, step_size, gamma, start", CONFIGS)
def test_equals_sequential_linear_then_step(device, warmup, step_size, gamma, start):
    optimizer = make_optimizer(device)
    scheduler = WarmupStepLR(optimizer, warmup, step_size, gamma=gamma, start_factor=start)
    got = run(optimizer, scheduler, 40)
    builtin_optimizer = make_optimizer(device)
    builtin = builtin_schedule(builtin_optimizer, warmup, step_size, gamma, start)
    compare(got, run(builtin_optimizer, builtin, 40), "SequentialLR(LinearLR, StepLR)")


@pytest.mark.parametrize("warmup, step_size, gamma, start", CONFIGS)
def test_follows_the_formula(device, warmup, step_size, gamma, start):
    optimizer = make_optimizer(device)
    scheduler = WarmupStepLR(optimizer, warmup, step_size, gamma=gamma, start_factor=start)
    got = run(optimizer, scheduler, 40)
    want = [
        [lr * formula(t, warmup, step_size, gamma, start) for lr in BASE_LRS] for t in range(40)
    ]
    compare(got, want, "the docstring's formula")


@pytest.mark.parametrize(
    "warmup, step_size", [(2.5, 2), (3, 1.5), (2.5, 1.5)], ids=["warmup 2.5", "step 1.5", "both"]
)
def test_a_fraction_above_1_raises_or_is_used_as_it_is(device, warmup, step_size):
    # Either reading the docstring allows; a fraction rounded or cut to an int is neither.
    optimizer = make_optimizer(device)
    try:
        scheduler = WarmupStepLR(optimizer, warmup, step_size, gamma=0.5, start_factor=0.2)
    except ValueError:
        return
    got = run(optimizer, scheduler, 12)
    want = [[lr * formula(t, warmup, step_size, 0.5, 0.2) for lr in BASE_LRS] for t in range(12)]
    compare(
        got,
        want,
        f"warmup_steps={warmup}, step_size={step_size}: raise ValueError, or use the values "
        "as they are in the formula (not rounded or cut to ints)",
    )


def test_whole_numbers_written_as_floats_work(device):
    # 4.0 and 2.0 are finite numbers >= 1: the contract refuses only what it lists.
    optimizer = make_optimizer(device)
    scheduler = WarmupStepLR(optimizer, 4.0, 2.0, gamma=0.5, start_factor=0.2)
    want = [[lr * formula(t, 4, 2, 0.5, 0.2) for lr in BASE_LRS] for t in range(12)]
    compare(
        run(optimizer, scheduler, 12),
        want,
        "warmup_steps=4.0, step_size=2.0 (finite numbers >= 1: compare with the limits, "
        "do not require an int)",
    )


def save(optimizer, scheduler):
    buffer = io.BytesIO()
    try:
        torch.save(
            {"optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict()}, buffer
        )
    except (pickle.PicklingError, AttributeError, TypeError) as error:
        raise AssertionError(
            "torch.save could not store scheduler.state_dict(): keep only plain data "
            f"(numbers, lists) in the scheduler's attributes, no functions ({error})"
        ) from None
    buffer.seek(0)
    try:
        return torch.load(buffer, weights_only=True)
    except pickle.UnpicklingError as error:
        raise AssertionError(
            "torch.load(weights_only=True) refused the scheduler's state: keep only plain "
            f"data (numbers, lists) in its attributes ({error})"
        ) from None


@pytest.mark.parametrize("stop_at", [2, 5, 6, 13], ids=lambda k: f"stop after {k}")
def test_resumes_exactly_from_a_checkpoint(device, stop_at):
    settings = dict(warmup_steps=5, step_size=3, gamma=0.5, start_factor=0.1)
    optimizer = make_optimizer(device)
    scheduler = WarmupStepLR(optimizer, **settings)
    run(optimizer, scheduler, stop_at)
    checkpoint = save(optimizer, scheduler)
    uninterrupted = run(optimizer, scheduler, 12)

    # A new process: build everything again, then load the checkpoint into it.
    resumed_optimizer = make_optimizer(device)
    resumed_scheduler = WarmupStepLR(resumed_optimizer, **settings)
    resumed_optimizer.load_state_dict(checkpoint["optimizer"])
    resumed_scheduler.load_state_dict(checkpoint["scheduler"])
    compare(
        run(resumed_optimizer, resumed_scheduler, 12),
        uninterrupted,
        f"resumed after {stop_at} steps (expected: the uninterrupted run)",
    )


@pytest.mark.parametrize(
    "settings",
    [
        dict(warmup_steps=0, step_size=2),
        dict(warmup_steps=-2, step_size=2),
        dict(warmup_steps=3, step_size=0),
        dict(warmup_steps=3, step_size=-1),
        dict(warmup_steps=3, step_size=2, gamma=0.0),
        dict(warmup_steps=3, step_size=2, gamma=-0.5),
        dict(warmup_steps=3, step_size=2, gamma=1.5),
        dict(warmup_steps=3, step_size=2, start_factor=0.0),
        dict(warmup_steps=3, step_size=2, start_factor=-0.5),
        dict(warmup_steps=3, step_size=2, start_factor=2.0),
        dict(warmup_steps=0.5, step_size=2),
        dict(warmup_steps=3, step_size=0.5),
    ],
    ids=[
        "warmup 0",
        "warmup < 0",
        "step_size 0",
        "step_size < 0",
        "gamma 0",
        "gamma < 0",
        "gamma > 1",
        "start 0",
        "start < 0",
        "start > 1",
        "warmup 0.5",
        "step_size 0.5",
    ],
)
def test_rejects_bad_settings(device, settings):
    optimizer = make_optimizer(device)
    groups = [dict(group, params=list(group["params"])) for group in optimizer.param_groups]
    with raises(ValueError):
        WarmupStepLR(optimizer, **settings)
        pytest.fail(
            f"WarmupStepLR(optimizer, **{settings}) should raise ValueError: warmup_steps and "
            "step_size must be >= 1, gamma and start_factor in (0, 1]; compare with the "
            "limits, so that negative and fractional values fail too"
        )
    assert optimizer.param_groups == groups, (
        f"WarmupStepLR(optimizer, **{settings}) changed the optimizer's param groups before "
        "raising: check the settings before calling super().__init__ (which sets each "
        "group's lr and initial_lr)"
    )


@pytest.mark.parametrize("resume_at", [0, 3, 5, 9])
def test_last_epoch_resumes_where_an_earlier_scheduler_stopped(device, resume_at):
    # The first scheduler sets each group's initial_lr; a second one built with
    # last_epoch=k on the same optimizer takes over at step k + 1 from those base lrs.
    settings = dict(warmup_steps=5, step_size=3, gamma=0.5, start_factor=0.1)
    optimizer = make_optimizer(device)
    run(optimizer, WarmupStepLR(optimizer, **settings), resume_at)
    resumed = WarmupStepLR(optimizer, **settings, last_epoch=resume_at)
    want = [[lr * formula(t, 5, 3, 0.5, 0.1) for lr in BASE_LRS] for t in range(resume_at + 1, 46)]
    compare(
        run(optimizer, resumed, 45 - resume_at),
        want,
        f"built with last_epoch={resume_at} (pass last_epoch on to LRScheduler.__init__; "
        "base lrs are the groups' initial_lr)",
    )


def test_a_later_scheduler_keeps_the_groups_initial_lr(device):
    # The first scheduler attached sets each group's "initial_lr"; a later one built with
    # last_epoch=-1 keeps it as its base lr, and may start from it (closed form) or from the
    # group's current lr (chainable).
    optimizer = make_optimizer(device)
    first = StepLR(optimizer, step_size=1, gamma=0.5)
    run(optimizer, first, 2)
    moved = [group["lr"] for group in optimizer.param_groups]
    scheduler = WarmupStepLR(optimizer, warmup_steps=2, step_size=2, gamma=0.5, start_factor=0.5)
    initial = [group["initial_lr"] for group in optimizer.param_groups]
    assert initial == list(BASE_LRS) and scheduler.base_lrs == list(BASE_LRS), (
        f"the groups' initial_lr became {initial} and base_lrs {scheduler.base_lrs}, expected "
        f"{list(BASE_LRS)}: a later scheduler keeps the initial_lr the first one set "
        "(LRScheduler.__init__ does; set no initial_lr of your own)"
    )
    got = run(optimizer, scheduler, 6)
    readings = {
        "closed form, from initial_lr": BASE_LRS,
        "chainable, from the current lr": moved,
    }
    wants = {
        reading: [[lr * formula(t, 2, 2, 0.5, 0.5) for lr in starts] for t in range(6)]
        for reading, starts in readings.items()
    }
    assert any(
        all(
            got_t == pytest.approx(want_t, rel=1e-9, abs=1e-15)
            for got_t, want_t in zip(got, want, strict=True)
        )
        for want in wants.values()
    ), f"the lrs {got} follow neither reading: {wants}"


def test_default_gamma_and_start_factor(device):
    optimizer = make_optimizer(device)
    scheduler = WarmupStepLR(optimizer, warmup_steps=2, step_size=1)
    expected = [[lr * formula(t, 2, 1, 0.1, 0.1) for lr in BASE_LRS] for t in range(5)]
    compare(run(optimizer, scheduler, 5), expected, "gamma and start_factor default to 0.1 each")


def test_two_schedulers_side_by_side_keep_their_own_settings(device):
    # Two runs in one process (a sweep, a model and its EMA): each scheduler keeps its own
    # settings, so building the second one changes nothing in the first.
    first_settings = (5, 3, 0.5, 0.1)
    second_settings = (2, 1, 0.9, 0.5)
    first_optimizer, second_optimizer = make_optimizer(device), make_optimizer(device)
    first = WarmupStepLR(first_optimizer, 5, 3, gamma=0.5, start_factor=0.1)
    second = WarmupStepLR(second_optimizer, 2, 1, gamma=0.9, start_factor=0.5)
    got = {"first": [], "second": []}
    for _ in range(12):  # interleaved, as two runs stepped in turn
        for name, optimizer, scheduler in (
            ("first", first_optimizer, first),
            ("second", second_optimizer, second),
        ):
            got[name].append([group["lr"] for group in optimizer.param_groups])
            optimizer.step()
            scheduler.step()
    for name, settings in (("first", first_settings), ("second", second_settings)):
        want = [[lr * formula(t, *settings) for lr in BASE_LRS] for t in range(12)]
        compare(
            got[name],
            want,
            f"the {name} of two schedulers built side by side (keep the settings on the "
            "instance, self.x = ..., not on the class or in module globals)",
        )


# ---------------------------------------------------------------- facets


def scheduled(device):
    optimizer = torch.optim.SGD([torch.zeros(2, device=device, requires_grad=True)], lr=1.0)
    return facets.args(optimizer, warmup_steps=2, step_size=2, gamma=0.5, start_factor=0.5)


FACETS = facets.declare(
    facets.of(
        WarmupStepLR,
        # "a finite number >= 1 (... NaN and inf included)"
        facets.Setting(scheduled, "warmup_steps", low=1, high_open=True, integer=True, nan=True),
        facets.Setting(scheduled, "step_size", low=1, high_open=True, integer=True, nan=True),
        facets.Setting(scheduled, "gamma", low=0, high=1, low_open=True),
        facets.Setting(scheduled, "start_factor", low=0, high=1, low_open=True),
        # The rates of the first steps, from the one set when the scheduler is built.
        facets.Defaults(
            values={"gamma": 0.1, "start_factor": 0.1, "last_epoch": -1},
            key=lambda arguments, scheduler: [
                scheduler.get_last_lr(),
                *(
                    (arguments.args[0].step(), scheduler.step(), scheduler.get_last_lr())[-1]
                    for _ in range(6)
                ),
            ],
        ),
    ),
)
test_facets = FACETS.test
