import copy
import math
import warnings
from functools import partial

import pytest
import torch
from torch import nn
from torch.optim.lr_scheduler import LambdaLR

from katas.q15_warmup_cosine import (
    train_with_schedule,
    warmup_cosine_factor,
    warmup_cosine_scheduler,
)
from torch_katas import facets
from torch_katas.testing import assert_close, raises, skip_unless_supported


def expected_factor(step, warmup, total, floor=0.0):
    """The schedule written another way: (1 + cos x) / 2 == cos(x / 2) ** 2."""
    if step < warmup:
        return step / warmup
    progress = min(step - warmup, total - warmup) / (total - warmup)
    return floor + (1 - floor) * math.cos(math.pi * progress / 2) ** 2


def check_factors(got, warmup, total, floor):
    for step, factor in enumerate(got):
        assert isinstance(factor, float), (
            f"the factor should be a Python float, got {type(factor).__name__}"
        )
        want = expected_factor(step, warmup, total, floor)
        # The bound of pytest.approx(want, rel=1e-9, abs=1e-12), without its cost per value.
        assert abs(factor - want) <= max(1e-9 * abs(want), 1e-12), (
            f"factor at step {step} (warmup_steps={warmup}, total_steps={total}, "
            f"min_factor={floor}) should be {want:.6f}, got {factor:.6f}"
        )


CONFIGS = [(0, 5, 0.0), (1, 4, 0.0), (3, 10, 0.0), (4, 12, 0.1), (10, 11, 0.5), (2, 9, 1.0)]


@pytest.mark.parametrize("warmup, total, floor", CONFIGS)
def test_factor_warms_up_then_follows_half_a_cosine(device, warmup, total, floor):
    got = [warmup_cosine_factor(step, warmup, total, floor) for step in range(total + 4)]
    check_factors(got, warmup, total, floor)


def test_factor_matches_the_formula_over_a_grid(device):
    for warmup in (0, 1, 2, 7, 25):
        for length in (1, 2, 5, 13, 100):
            for floor in (0.0, 0.05, 0.3, 1.0):
                total = warmup + length
                got = [
                    warmup_cosine_factor(step, warmup, total, floor) for step in range(total + 3)
                ]
                check_factors(got, warmup, total, floor)


def test_factor_key_points(device):
    start = warmup_cosine_factor(0, 4, 12, 0.2)
    peak = warmup_cosine_factor(4, 4, 12, 0.2)
    end = warmup_cosine_factor(12, 4, 12, 0.2)
    after = [warmup_cosine_factor(step, 4, 12, 0.2) for step in (13, 20, 1000)]
    assert start == 0.0, "the warmup starts from factor 0 (step / warmup_steps)"
    assert peak == pytest.approx(1.0), (
        "the factor is 1 when the warmup ends: the cosine's progress counts from "
        "warmup_steps, not from 0"
    )
    assert end == pytest.approx(0.2), "at total_steps the factor has fallen to min_factor"
    assert after == pytest.approx([0.2] * 3), (
        "after total_steps the factor stays at min_factor; clamp the progress at 1 so the "
        "cosine does not rise again"
    )


@pytest.mark.parametrize(
    "step, warmup, total, floor",
    [(-1, 2, 10, 0.0), (0, -1, 10, 0.0), (0, 5, 5, 0.0), (0, 6, 5, 0.0), (0, 2, 10, -0.1),
     (0, 2, 10, 1.5), (0, 2, 10, float("nan"))],
    ids=["negative step", "negative warmup", "warmup = total", "warmup > total",
         "min_factor < 0", "min_factor > 1", "min_factor NaN"],
)  # fmt: skip
def test_factor_rejects_bad_arguments(device, step, warmup, total, floor):
    with raises(ValueError):
        warmup_cosine_factor(step, warmup, total, floor)


def test_factor_falls_to_0_by_default(device):
    got = [warmup_cosine_factor(step, 2, 6) for step in range(9)]
    check_factors(got, 2, 6, 0.0)
    # Round-off allowed: cos(pi / 2) ** 2, the same schedule written another way, is 4e-33.
    assert got[6:] == pytest.approx([0.0, 0.0, 0.0], abs=1e-12), (
        f"with the default min_factor=0.0 the factor ends at 0, got {got[6:]}"
    )


def two_group_optimizer(device, lrs=(0.4, 0.01)):
    groups = [
        {"params": [torch.zeros(3, device=device, requires_grad=True)], "lr": lr} for lr in lrs
    ]
    return torch.optim.SGD(groups)


def test_scheduler_is_a_lambdalr_that_scales_every_group(device):
    optimizer = two_group_optimizer(device)
    scheduler = warmup_cosine_scheduler(optimizer, warmup_steps=3, total_steps=10, min_factor=0.1)
    assert isinstance(scheduler, LambdaLR), (
        f"return a torch.optim.lr_scheduler.LambdaLR, got {type(scheduler).__name__}"
    )
    for step in range(14):
        for group, base in zip(optimizer.param_groups, (0.4, 0.01), strict=True):
            want = base * expected_factor(step, 3, 10, 0.1)
            assert group["lr"] == pytest.approx(want, rel=1e-9, abs=1e-12), (
                f"after {step} scheduler steps a group with initial lr {base} should have "
                f"lr {want:.6g}, got {group['lr']:.6g}"
            )
        optimizer.step()
        scheduler.step()


def test_scheduler_decays_to_0_by_default(device):
    optimizer = two_group_optimizer(device)
    scheduler = warmup_cosine_scheduler(optimizer, warmup_steps=1, total_steps=3)
    for _ in range(4):
        optimizer.step()
        scheduler.step()
    lrs = [group["lr"] for group in optimizer.param_groups]
    assert lrs == pytest.approx([0.0, 0.0], abs=1e-12), (
        f"with the default min_factor=0.0 the lr ends at 0, got {lrs}"
    )


@pytest.mark.parametrize(
    "warmup, total, floor",
    [(5, 5, 0.0), (-1, 4, 0.0), (1, 4, 1.5), (1, 4, float("nan"))],
    ids=["warmup = total", "negative", "min_factor", "min_factor NaN"],
)
def test_scheduler_rejects_bad_arguments_before_touching_the_optimizer(
    device, warmup, total, floor
):
    optimizer = two_group_optimizer(device)
    before = [{k: v for k, v in group.items() if k != "params"} for group in optimizer.param_groups]
    attributes = dict(vars(optimizer))
    with raises(ValueError):
        warmup_cosine_scheduler(optimizer, warmup_steps=warmup, total_steps=total, min_factor=floor)
    after = [{k: v for k, v in group.items() if k != "params"} for group in optimizer.param_groups]
    assert after == before, (
        f"the rejected call changed the param groups from {before} to {after}; check the "
        "arguments before creating the LambdaLR, which adds 'initial_lr' to every group"
    )
    changed = sorted(
        name
        for name in attributes.keys() | vars(optimizer).keys()
        if vars(optimizer).get(name, attributes) is not attributes.get(name, vars(optimizer))
    )
    assert not changed, (
        f"the rejected call changed the optimizer's attributes {changed}: creating a LambdaLR "
        "wraps optimizer.step, and putting the param groups back does not undo that; check "
        "the arguments before creating it"
    )


def test_two_schedulers_side_by_side_keep_their_own_schedules(device):
    first, second = two_group_optimizer(device), two_group_optimizer(device, lrs=(1.0, 0.5))
    schedulers = (
        warmup_cosine_scheduler(first, warmup_steps=2, total_steps=6),
        warmup_cosine_scheduler(second, warmup_steps=0, total_steps=4, min_factor=0.5),
    )
    settings = ((first, (0.4, 0.01), (2, 6, 0.0)), (second, (1.0, 0.5), (0, 4, 0.5)))
    for step in range(8):
        for optimizer, bases, (warmup, total, floor) in settings:
            want = [base * expected_factor(step, warmup, total, floor) for base in bases]
            got = [group["lr"] for group in optimizer.param_groups]
            assert got == pytest.approx(want, rel=1e-9, abs=1e-12), (
                f"with two schedulers stepped in turn, after {step} steps the one built with "
                f"warmup_steps={warmup}, total_steps={total}, min_factor={floor} gives lrs "
                f"{got}, expected {want}: each scheduler keeps its own settings (no "
                "module-level state shared between them)"
            )
        for optimizer, scheduler in zip((first, second), schedulers, strict=True):
            optimizer.step()
            scheduler.step()


def regression_batches(device, count, size=6):
    true_weight = torch.tensor([[1.5], [-2.0]], device=device)
    batches = []
    for _ in range(count):
        inputs = torch.randn(size, 2, device=device)
        batches.append((inputs, inputs @ true_weight + 0.5))
    return batches


def scheduled_setup(device, base_lr=0.3, warmup=2, total=6):
    """A model, its optimizer and a LambdaLR built here, so only the loop is tested."""
    model = nn.Linear(2, 1).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=base_lr)
    factor = partial(expected_factor, warmup=warmup, total=total)
    return model, optimizer, LambdaLR(optimizer, factor)


def test_loop_records_the_lr_each_optimizer_step_used(device):
    model, optimizer, scheduler = scheduled_setup(device)
    lrs = train_with_schedule(
        model, regression_batches(device, 8), nn.MSELoss(), optimizer, scheduler
    )
    want = [0.3 * expected_factor(step, 2, 6) for step in range(8)]
    assert isinstance(lrs, list) and len(lrs) == 8, (
        f"return a list with one lr per batch (8), got {lrs!r}"
    )
    assert lrs == pytest.approx(want, rel=1e-9, abs=1e-12), (
        f"the recorded lrs should be {[round(lr, 4) for lr in want]}, got "
        f"{[round(float(lr), 4) for lr in lrs]}; record the lr before scheduler.step() "
        "changes it, and step the scheduler once per batch, after optimizer.step()"
    )
    assert optimizer.param_groups[0]["lr"] == pytest.approx(0.3 * expected_factor(8, 2, 6)), (
        "after the loop the scheduler should have been stepped once per batch"
    )


@pytest.mark.parametrize("stale", [False, True], ids=["grad-None", "grad-left-by-caller"])
def test_loop_trains_with_the_scheduled_lr(device, stale):
    # Without warmup when .grad is stale: a first step with lr 0 would hide what it used.
    warmup = 0 if stale else 3
    model, optimizer, scheduler = scheduled_setup(device, base_lr=0.2, warmup=warmup, total=7)
    if stale:  # gradients of an earlier backward, which the first step must not use
        for parameter in model.parameters():
            parameter.grad = torch.full_like(parameter, 5.0)
    weight, bias = model.weight.detach().clone(), model.bias.detach().clone()
    batches = regression_batches(device, 9)
    train_with_schedule(model, batches, nn.MSELoss(), optimizer, scheduler)
    # Plain SGD by hand, with the lr the schedule gives at each step.
    for step, (inputs, targets) in enumerate(batches):
        weight.requires_grad_(True)
        bias.requires_grad_(True)
        loss = ((inputs @ weight.T + bias - targets) ** 2).mean()
        grad_weight, grad_bias = torch.autograd.grad(loss, (weight, bias))
        lr = 0.2 * expected_factor(step, warmup, 7)
        weight, bias = (weight - lr * grad_weight).detach(), (bias - lr * grad_bias).detach()
    assert_close(
        (model.weight.detach(), model.bias.detach()),
        (weight, bias),
        "the trained weights differ from SGD with the scheduled lrs; per batch: "
        "zero_grad, forward, loss, backward, optimizer.step(), scheduler.step()",
    )


def by_hand(model, optimizer, scheduler, batches):
    """The loop as the docstring lists it, with torch's own optimizer and scheduler."""
    for inputs, targets in batches:
        optimizer.zero_grad()
        nn.functional.mse_loss(model(inputs), targets).backward()
        optimizer.step()
        scheduler.step()


def momentum_setup(device, model=None):
    model = nn.Linear(2, 1).to(device) if model is None else copy.deepcopy(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    return model, optimizer, LambdaLR(optimizer, partial(expected_factor, warmup=2, total=8))


def test_a_second_call_goes_on_with_the_optimizers_state(device):
    # Two epochs, one call each, with one optimizer: the second goes on from the momentum
    # the first left (the optimizer's state is the caller's, neither cleared nor replaced).
    model, optimizer, scheduler = momentum_setup(device)
    expected = momentum_setup(device, model)
    batches = regression_batches(device, 4)
    for _ in range(2):
        train_with_schedule(model, batches, nn.MSELoss(), optimizer, scheduler)
        by_hand(*expected, batches)
    assert_close(
        (model.weight.detach(), model.bias.detach()),
        (expected[0].weight.detach(), expected[0].bias.detach()),
        "after two calls the weights differ from two epochs of SGD with momentum: the "
        "second call steps with the momentum the first one left in the optimizer",
    )


@pytest.mark.parametrize("stale", [False, True], ids=["no-grad", "stale-grad"])
def test_a_parameter_the_caller_froze_stays_frozen(device, stale):
    # Fine-tuning: the bias frozen (requires_grad=False), the optimizer over all parameters.
    # stale: the frozen bias holds a .grad from before it was frozen and the optimizer
    # decays weights; a zeroed .grad (zero_grad(set_to_none=False)) is still stepped with.
    model, optimizer, scheduler = momentum_setup(device)
    model.bias.requires_grad_(False)
    expected = momentum_setup(device, model)
    if stale:
        for each in (optimizer, expected[1]):
            each.param_groups[0]["weight_decay"] = 0.01
        model.bias.grad = torch.full_like(model.bias, 100.0)
    batches = regression_batches(device, 4)
    train_with_schedule(model, batches, nn.MSELoss(), optimizer, scheduler)
    by_hand(*expected, batches)
    assert not model.bias.requires_grad, (
        "the caller froze the bias (requires_grad=False) and the loop made it require grad: "
        "leave requires_grad as the caller set it"
    )
    assert_close(
        (model.weight.detach(), model.bias.detach()),
        (expected[0].weight.detach(), expected[0].bias.detach()),
        "the weights differ from SGD over the trainable ones: a frozen bias does not move",
    )


@pytest.mark.parametrize("inputs", ["float64", "token ids"])
def test_loop_gives_the_model_each_batch_as_it_is(device, inputs):
    # The batches are the caller's, already fit for the model: a float64 model gets float64
    # inputs, an embedding integer ids; the loop calls model(inputs), no cast of its own.
    if inputs == "float64":
        skip_unless_supported(device, torch.float64)
        model = nn.Linear(2, 1).to(device=device, dtype=torch.float64)
        batches = [(x.double(), y.double()) for x, y in regression_batches(device, 4)]
    else:
        model = nn.Sequential(nn.Embedding(7, 3), nn.Flatten(), nn.Linear(6, 2)).to(device)
        batches = [
            (torch.randint(7, (5, 2), device=device), torch.randn(5, 2, device=device))
            for _ in range(4)
        ]
    model, optimizer, scheduler = momentum_setup(device, model)
    expected = momentum_setup(device, model)
    train_with_schedule(model, batches, nn.MSELoss(), optimizer, scheduler)
    by_hand(*expected, batches)
    assert_close(
        [p.detach() for p in model.parameters()],
        [p.detach() for p in expected[0].parameters()],
        f"with {inputs} inputs the weights differ from the loop written out: call "
        "model(inputs) with the batch's inputs as they are (no .float(), no cast to the "
        "model's dtype)",
    )


@pytest.mark.parametrize("bad", [math.inf, math.nan], ids=["inf", "nan"])
def test_a_batch_with_a_non_finite_loss_still_gets_its_steps(device, bad):
    model, optimizer, scheduler = scheduled_setup(device, warmup=0)
    batches = regression_batches(device, 4)
    batches[1][1][0, 0] = bad  # the second batch's loss is not finite, nor its gradients
    lrs = train_with_schedule(model, batches, nn.MSELoss(), optimizer, scheduler)
    want = [0.3 * expected_factor(step, 0, 6) for step in range(4)]
    assert lrs == pytest.approx(want, rel=1e-9, abs=1e-12), (
        f"the recorded lrs should be {[round(lr, 4) for lr in want]}, got {lrs}: one "
        "optimizer step and one scheduler step per batch, a batch whose loss is not finite too"
    )
    assert not torch.isfinite(model.weight).all(), (
        "a step on a batch whose loss is not finite puts NaN into the weights, as SGD does: "
        "every batch gets its optimizer.step(); skipping it is the caller's choice"
    )


@pytest.mark.parametrize("set_lr", [0.05, 1], ids=["float", "int"])
def test_loop_records_the_lr_the_optimizer_holds(device, set_lr):
    # The caller may set the lr after the scheduler last computed it; the first step uses
    # that lr, which the scheduler's get_last_lr() does not know. An int lr is recorded as
    # a float too.
    model, optimizer, scheduler = scheduled_setup(device)
    optimizer.param_groups[0]["lr"] = set_lr
    lrs = train_with_schedule(
        model, regression_batches(device, 3), nn.MSELoss(), optimizer, scheduler
    )
    assert all(type(lr) is float for lr in lrs), (
        f"return Python floats, got {[type(lr).__name__ for lr in lrs]}: record float(...) "
        "of the lr the param group holds, whatever number type the caller put there"
    )
    want = [set_lr] + [0.3 * expected_factor(step, 2, 6) for step in (1, 2)]
    assert lrs == pytest.approx(want, rel=1e-9, abs=1e-12), (
        f"expected the lrs {want}, got {lrs}: record optimizer.param_groups[0]['lr'] just "
        "before each optimizer.step(), the lr the step uses (scheduler.get_last_lr() is "
        "what the scheduler last set, not what the optimizer holds)"
    )


def test_loop_records_the_lr_of_param_group_0(device):
    # Two groups with their own lrs: the record is group 0's, not another group's, nor a
    # mean or maximum over the groups.
    model = nn.Linear(2, 1).to(device)
    groups = [{"params": [model.weight], "lr": 0.3}, {"params": [model.bias], "lr": 0.9}]
    optimizer = torch.optim.SGD(groups)
    scheduler = LambdaLR(optimizer, partial(expected_factor, warmup=2, total=6))
    lrs = train_with_schedule(
        model, regression_batches(device, 4), nn.MSELoss(), optimizer, scheduler
    )
    want = [0.3 * expected_factor(step, 2, 6) for step in range(4)]
    assert lrs == pytest.approx(want, rel=1e-9, abs=1e-12), (
        f"with two param groups (lrs 0.3 and 0.9) expected group 0's lrs {want}, got {lrs}: "
        "record optimizer.param_groups[0]['lr']"
    )


def test_loop_records_floats_for_a_tensor_lr(device):
    # A tensor lr (as fused or compiled optimizers use) is one tensor that the scheduler
    # updates in place: recording it as it is would give the last lr at every step.
    model = nn.Linear(2, 1).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=torch.tensor(0.3))
    scheduler = LambdaLR(optimizer, partial(expected_factor, warmup=2, total=6))
    lrs = train_with_schedule(
        model, regression_batches(device, 4), nn.MSELoss(), optimizer, scheduler
    )
    assert all(type(lr) is float for lr in lrs), (
        f"return Python floats, got {[type(lr).__name__ for lr in lrs]}; with a tensor lr, "
        "param_groups[0]['lr'] is one tensor that scheduler.step() changes in place: "
        "record float(...) of it"
    )
    want = [0.3 * expected_factor(step, 2, 6) for step in range(4)]
    assert lrs == pytest.approx(want, rel=1e-6, abs=1e-9), f"expected the lrs {want}, got {lrs}"


def test_loop_takes_batches_from_a_generator(device):
    model, optimizer, scheduler = scheduled_setup(device)
    batches = regression_batches(device, 5)
    lrs = train_with_schedule(
        model, (batch for batch in batches), nn.MSELoss(), optimizer, scheduler
    )
    want = [0.3 * expected_factor(step, 2, 6) for step in range(5)]
    assert lrs == pytest.approx(want, rel=1e-9, abs=1e-12), (
        f"with batches from a generator the recorded lrs should be {want}, got {lrs}; "
        "iterate over batches once, without len() or indexing (a DataLoader has no indexing)"
    )


def test_loop_steps_the_optimizer_before_the_scheduler(device):
    model, optimizer, scheduler = scheduled_setup(device)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        train_with_schedule(
            model, regression_batches(device, 3), nn.MSELoss(), optimizer, scheduler
        )
    order = [w for w in caught if "before `optimizer.step()`" in str(w.message)]
    assert not order, (
        "PyTorch warned that lr_scheduler.step() ran before optimizer.step(): call "
        "optimizer.step() first, then scheduler.step(), or the first lr of the schedule is skipped"
    )


# ---------------------------------------------------------------- facets


def schedule(device, **changes):
    return facets.args(step=0, warmup_steps=0, total_steps=10, min_factor=0).replace(**changes)


def sgd(device, **changes):
    optimizer = torch.optim.SGD([torch.zeros(2, device=device, requires_grad=True)], lr=0.1)
    return facets.args(optimizer, warmup_steps=2, total_steps=10, min_factor=0.0).replace(**changes)


def trained(device, model=None):
    model = (model or nn.Linear(3, 2)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = LambdaLR(optimizer, lambda step: 1.0)
    batches = [(torch.randn(4, 3, device=device), torch.randn(4, 2, device=device))] * 2
    return facets.args(model, batches, nn.MSELoss(), optimizer, scheduler)


def layered(device):
    return trained(device, nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)))


FACETS = facets.declare(
    facets.of(
        warmup_cosine_factor,
        facets.Number(schedule, float, label="no warmup"),  # factor 1 from ints: still a float
        facets.Number(lambda device: schedule(device, step=20), float, label="after"),
        facets.Setting(schedule, "step", low=0, integer=True),
        facets.Setting(schedule, "warmup_steps", low=0, integer=True),
        facets.Setting(schedule, "min_factor", low=0, high=1),
        facets.Defaults(
            lambda device: facets.args(step=7, warmup_steps=2, total_steps=10),
            values={"min_factor": 0.0},
        ),
    ),
    facets.of(
        warmup_cosine_scheduler,
        facets.Setting(sgd, "warmup_steps", low=0, integer=True),
        facets.Setting(sgd, "min_factor", low=0, high=1),
        # The factors of a whole schedule, past its warm-up.
        facets.Defaults(
            lambda device: facets.args(sgd(device).args[0], warmup_steps=2, total_steps=10),
            values={"min_factor": 0.0},
            key=lambda arguments, scheduler: [
                (arguments.args[0].step(), scheduler.step(), scheduler.get_last_lr())[-1]
                for _ in range(10)
            ],
        ),
    ),
    facets.of(
        train_with_schedule,
        facets.UpdatesAll(trained, params=lambda arguments: list(arguments.args[0].parameters())),
        facets.FreshGrads(trained, params=lambda arguments: list(arguments.args[0].parameters())),
        facets.Propagates(lambda device, fault: trained(device).at(2, fault)),
        # A model with submodules, so that a mode set for all of them shows.
        facets.ForwardModes(
            layered,
            module=lambda arguments: arguments.args[0],
            grad=True,
            calls=lambda arguments: len(arguments.args[1]),  # once per batch
        ),
        facets.Modes(layered, module=lambda arguments: arguments.args[0]),
        # The batches are the caller's data: none changed, none set to require grad.
        facets.Unmodified(trained, inputs=lambda arguments: arguments.args[1]),
        # loss_fn once per batch: the loss backpropagated is the one recorded.
        facets.Runs(
            lambda device, wrap: trained(device).through(2, wrap),
            times=lambda arguments: len(arguments.args[1]),
        ),
    ),
)
test_facets = FACETS.test
