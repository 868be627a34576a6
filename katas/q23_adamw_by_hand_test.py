import contextlib
import copy
import math

import pytest
import torch
import torch.nn.functional as F
import torch.optim.adam as ADAM_MODULE
from torch import nn

from katas.q23_adamw_by_hand import adamw_step_
from torch_katas import facets
from torch_katas.testing import (
    assert_all_close,
    assert_close,
    assert_no_torch_internals,
    check_tensor,
    forbidden_calls,
    forbidden_modules,
    raises,
    skip_unless_supported,
)

# Every mistake in the update shows by step 3 (one carried over from step to step, at step 2);
# five steps leave margin.
STEPS = 5
# torch.optim's own module for Adam and AdamW (torch.optim does not keep it as an attribute).


def torch_adam_refused():
    """Inside the block, torch.optim.Adam / AdamW and their functional forms fail when they
    update: every path (the classes' step, adam(), adamw(), the fused kernels) ends in one
    of the module-level functions refused here."""
    updates = ("_single_tensor_adam", "_multi_tensor_adam", "_fused_adam")
    assert_no_torch_internals(adamw_step_, reason="write the Adam/AdamW update by hand")
    reason = "this kata asks for the Adam/AdamW update written by hand"
    return _both(
        forbidden_calls(
            *((ADAM_MODULE, name) for name in updates),
            (torch.optim.Adam, "step"),
            (torch.optim.AdamW, "step"),
            (torch, "_fused_adam_"),
            (torch, "_fused_adamw_"),
            reason=reason,
        ),
        # By behaviour too: no code of torch.optim runs (no other optimizer's update).
        forbidden_modules(torch.optim, reason=reason),
    )


@contextlib.contextmanager
def _both(first, second):
    with first, second:
        yield


class Model(nn.Module):
    """A small regression model with a 0-dim parameter besides the usual ones."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2))
        self.temperature = nn.Parameter(torch.tensor(1.5))

    def forward(self, x):
        return self.net(x) * self.temperature


def setup(device, dtype=torch.float32):
    model = Model().to(device=device, dtype=dtype)
    x = torch.randn(16, 3, device=device, dtype=dtype)
    y = torch.sin(2 * x[:, :2]) + 0.5 * x[:, 2:]
    return model, (x, y)


def learner_trajectory(model, data, steps=STEPS, **hyperparameters):
    """Train with the learner's step; after each step record params and both moments."""
    x, y = data
    params = list(model.parameters())
    exp_avgs = [torch.zeros_like(p) for p in params]
    exp_avg_sqs = [torch.zeros_like(p) for p in params]
    trajectory = []
    for step in range(1, steps + 1):
        grads = torch.autograd.grad(F.mse_loss(model(x), y), params)
        with torch_adam_refused():  # the rule watches the learner's step, not the gradients
            adamw_step_(params, grads, exp_avgs, exp_avg_sqs, step, **hyperparameters)
        trajectory.append(
            [[t.detach().clone() for t in tensors] for tensors in (params, exp_avgs, exp_avg_sqs)]
        )
    return trajectory


def torch_trajectory(model, data, steps=STEPS, decoupled=True, **hyperparameters):
    """The same with torch.optim.AdamW (decoupled) or torch.optim.Adam (L2)."""
    x, y = data
    params = list(model.parameters())
    optimizer = (torch.optim.AdamW if decoupled else torch.optim.Adam)(params, **hyperparameters)
    trajectory = []
    for _ in range(steps):
        optimizer.zero_grad()
        F.mse_loss(model(x), y).backward()
        optimizer.step()
        state = [optimizer.state[p] for p in params]
        trajectory.append(
            [
                [p.detach().clone() for p in params],
                [s["exp_avg"].clone() for s in state],
                [s["exp_avg_sq"].clone() for s in state],
            ]
        )
    return trajectory


def assert_same_trajectory(model, actual, expected, what):
    names = [name for name, _ in model.named_parameters()]
    kinds = ("parameter", "exp_avg (m) of", "exp_avg_sq (v) of")
    assert_all_close(
        (
            (a, b, f"{what}: {kind} {name} differs after step {step}")
            for step, (mine, theirs) in enumerate(zip(actual, expected, strict=True), start=1)
            for kind, my_tensors, their_tensors in zip(kinds, mine, theirs, strict=True)
            for name, a, b in zip(names, my_tensors, their_tensors, strict=True)
        ),
        rtol=1e-5,
        atol=1e-6,
    )


CONFIGS = {
    "defaults": dict(lr=1e-2, weight_decay=1e-2),
    "strong decay": dict(lr=5e-3, weight_decay=0.5),
    "large eps": dict(lr=2e-2, betas=(0.8, 0.99), eps=1e-2, weight_decay=0.05),
    "no decay": dict(lr=1e-2, betas=(0.5, 0.9), weight_decay=0.0),
}


@pytest.mark.parametrize(
    "change",
    [
        dict(step=0),
        dict(step=-1),
        dict(lr=-0.1),
        dict(eps=-1e-8),
        dict(weight_decay=-0.01),
        dict(weight_decay=-0.01, decoupled=False),
        dict(betas=(1.0, 0.999)),
        dict(betas=(1.5, 0.999)),
        dict(betas=(0.9, -0.1)),
        dict(betas=(0.9, 1.0)),
        dict(betas=(-0.1, 0.999)),
        dict(lengths=(2, 1, 2, 2)),
        dict(lengths=(2, 2, 1, 2)),
        dict(lengths=(2, 2, 2, 1)),
        dict(lengths=(1, 2, 2, 2)),
    ],
    ids=[
        "step 0",
        "step < 0",
        "lr",
        "eps",
        "weight decay",
        "weight decay, L2",
        "beta1 1",
        "beta1 > 1",
        "beta2 < 0",
        "beta2 1",
        "beta1 < 0",
        "grads shorter",
        "exp_avgs shorter",
        "exp_avg_sqs shorter",
        "params shorter",
    ],
)
def test_rejects_invalid_arguments(device, change):
    change = dict(change)
    lengths = change.pop("lengths", (2, 2, 2, 2))
    params, grads, exp_avgs, exp_avg_sqs = (
        [torch.zeros(3, device=device) for _ in range(n)] for n in lengths
    )
    for g in grads:
        g.fill_(1.0)
    arguments = dict(step=1, lr=0.01) | change
    with raises(ValueError):
        adamw_step_(params, grads, exp_avgs, exp_avg_sqs, **arguments)
        pytest.fail(
            f"{change or 'lists of lengths ' + str(lengths)} should raise ValueError: the four "
            "lists have one length, step >= 1, lr, eps and weight_decay >= 0 (in both modes), "
            "each beta in [0, 1)"
        )
    for p, m, v in zip(params, exp_avgs, exp_avg_sqs, strict=False):
        assert not (p.any() or m.any() or v.any()), (
            "invalid arguments must be rejected before any tensor is updated; check them all first"
        )


def test_accepts_the_boundaries_of_each_range(device):
    # Zero is allowed for lr, eps, weight_decay and both betas.
    p = torch.tensor([1.0, -2.0], device=device)
    grad = torch.tensor([0.5, 0.25], device=device)
    for arguments in (dict(lr=0.0), dict(lr=0.1, eps=0.0), dict(lr=0.1, betas=(0.0, 0.0))):
        with torch_adam_refused():
            adamw_step_(
                [p.clone()],
                [grad],
                [torch.zeros(2, device=device)],
                [torch.zeros(2, device=device)],
                1,
                **arguments,
            )


@pytest.mark.parametrize("decoupled", [True, False], ids=["adamw", "adam-l2"])
@pytest.mark.parametrize(
    "eps, expected",
    [(1e-8, [0.9, -2.0, math.nan, math.nan]), (0.0, [0.9, math.nan, math.nan, math.nan])],
    ids=["eps", "eps 0"],
)
def test_non_finite_values_propagate_as_in_torch(device, decoupled, eps, expected):
    # Matching torch step for step includes where it gives NaN: a NaN or inf gradient, and
    # eps = 0 where the gradient is 0 (0 / 0), are neither zeroed nor guarded.
    p = torch.tensor([1.0, -2.0, 3.0, 4.0], device=device)
    grad = torch.tensor([0.5, 0.0, math.nan, math.inf], device=device)
    m, v = torch.zeros_like(p), torch.zeros_like(p)
    with torch_adam_refused():
        adamw_step_(
            [p], [grad], [m], [v], 1, lr=0.1, eps=eps, weight_decay=0.0, decoupled=decoupled
        )
    assert_close(
        p.cpu(),
        torch.tensor(expected),
        "torch.optim.AdamW / Adam give NaN where the gradient is NaN or inf, and with eps = 0 "
        "where it is 0; match them (no nan_to_num, no clamp on the denominator)",
        equal_nan=True,
    )


def test_first_step_is_lr_times_the_sign_of_the_gradient(device):
    p = torch.tensor([0.0, 1.0, 2.0, -3.0], device=device)
    grad = torch.tensor([3.0, -1e-3, 50.0, -0.2], device=device)
    m, v = torch.zeros_like(p), torch.zeros_like(p)
    with torch_adam_refused():
        adamw_step_([p], [grad], [m], [v], 1, lr=0.01, betas=(0.8, 0.999), weight_decay=0.0)
    assert_close(
        p.cpu(),
        torch.tensor([-0.01, 1.01, 1.99, -2.99]),
        "with bias correction the first step is lr * g / |g| whatever the betas; "
        "divide m by 1 - beta1**step and v by 1 - beta2**step",
    )
    assert_close(m.cpu(), 0.2 * grad.cpu(), "m after step 1 is (1 - beta1) * g")
    assert_close(v.cpu(), 0.001 * grad.cpu() ** 2, "v after step 1 is (1 - beta2) * g**2")


def test_default_betas_eps_and_weight_decay(device):
    # A gradient of 1e-8 makes sqrt(v_hat) as small as eps = 1e-8: the step halves.
    p = torch.tensor([0.0, 1.0], device=device)
    grad = torch.tensor([1e-8, 0.0], device=device)
    m, v = torch.zeros_like(p), torch.zeros_like(p)
    with torch_adam_refused():
        adamw_step_([p], [grad], [m], [v], 1, lr=0.1)
    assert_close(
        p.cpu(),
        torch.tensor([-0.05, 0.999]),
        "with the defaults eps = 1e-8 and weight_decay = 1e-2, p = [0, 1] with g = [1e-8, 0] "
        "becomes [-lr * g / (|g| + eps), 1 - lr * 0.01]",
    )
    assert_close(m.cpu(), 0.1 * grad.cpu(), "the default beta1 is 0.9")
    assert_close(v.cpu(), 0.001 * grad.cpu() ** 2, "the default beta2 is 0.999")


def test_zero_gradient_shows_where_the_decay_goes(device):
    adamw_p, l2_p = (
        torch.tensor([1.0, -2.0], device=device),
        torch.tensor([1.0, -2.0], device=device),
    )
    zero = torch.zeros(2, device=device)
    with torch_adam_refused():
        moments = [torch.zeros(2, device=device)], [torch.zeros(2, device=device)]
        adamw_step_([adamw_p], [zero], *moments, 1, lr=0.1, weight_decay=0.1)
        moments = [torch.zeros(2, device=device)], [torch.zeros(2, device=device)]
        adamw_step_([l2_p], [zero], *moments, 1, lr=0.1, weight_decay=0.1, decoupled=False)
    assert_close(
        adamw_p.cpu(),
        torch.tensor([0.99, -1.98]),
        "AdamW with a zero gradient only scales p by 1 - lr * weight_decay",
    )
    assert_close(
        l2_p.cpu(),
        torch.tensor([0.9, -1.9]),
        "Adam with L2 and a zero gradient steps by lr against weight_decay * p: "
        "the first bias-corrected step is lr * sign(g)",
    )


@pytest.mark.parametrize(
    "decoupled, weight_decay",
    [(True, 0.1), (True, 0.0), (False, 0.0)],
    ids=["adamw", "no-decay", "adam"],
)
def test_a_zero_gradient_later_still_steps_along_the_moments(device, decoupled, weight_decay):
    # An element whose gradient is 0 at step 2 (a unit unused by that batch) still has the
    # moments of step 1: m and v decay and p moves along m_hat / sqrt(v_hat), as in torch.
    grads = [torch.tensor([0.5, -1.0, 2.0]), torch.zeros(3)]
    p = torch.tensor([1.0, -2.0, 0.5], device=device)
    m, v = torch.zeros_like(p), torch.zeros_like(p)
    reference = p.detach().cpu().clone().requires_grad_(True)
    optimizer = (torch.optim.AdamW if decoupled else torch.optim.Adam)(
        [reference], lr=0.1, weight_decay=weight_decay
    )
    for step, grad in enumerate(grads, start=1):
        with torch_adam_refused():
            adamw_step_(
                [p],
                [grad.to(device)],
                [m],
                [v],
                step,
                lr=0.1,
                weight_decay=weight_decay,
                decoupled=decoupled,
            )
        reference.grad = grad.clone()
        optimizer.step()
    state = optimizer.state[reference]
    assert_all_close(
        (
            (p.cpu(), reference.detach(), "the parameter after a zero gradient at step 2"),
            (m.cpu(), state["exp_avg"], "m after a zero gradient at step 2"),
            (v.cpu(), state["exp_avg_sq"], "v after a zero gradient at step 2"),
        ),
        rtol=1e-5,
        atol=1e-7,
    )


def test_updates_in_place_without_a_graph_and_leaves_grads_alone(device):
    model, (x, y) = setup(device)
    params = list(model.parameters())
    grads = torch.autograd.grad(F.mse_loss(model(x), y), params)
    grads_before = [g.clone() for g in grads]
    exp_avgs = [torch.zeros_like(p) for p in params]
    exp_avg_sqs = [torch.zeros_like(p) for p in params]
    before = [p.detach().clone() for p in params]
    with torch_adam_refused():
        result = adamw_step_(params, grads, exp_avgs, exp_avg_sqs, 1, lr=0.1, decoupled=False)
    assert result is None, "adamw_step_ updates in place and returns None"
    for (name, p), old, g, g_old, m in zip(
        model.named_parameters(), before, grads, grads_before, exp_avgs, strict=True
    ):
        assert p is dict(model.named_parameters())[name]
        assert not torch.equal(p.detach(), old), f"{name} did not change: update it in place"
        assert p.is_leaf and p.grad_fn is None and p.requires_grad, (
            f"{name} is no longer a trainable leaf; update under torch.no_grad()"
        )
        assert m.grad_fn is None, f"the moment of {name} recorded a graph"
        assert torch.equal(g, g_old), f"the gradient of {name} was modified; add decay out of place"


@pytest.mark.parametrize("config", list(CONFIGS))
def test_trajectory_equals_torch_adamw(device, config):
    model, data = setup(device)
    reference = copy.deepcopy(model)
    trajectory = learner_trajectory(model, data, **CONFIGS[config])
    expected = torch_trajectory(reference, data, **CONFIGS[config])
    assert_same_trajectory(model, trajectory, expected, f"AdamW, {config}")


@pytest.mark.parametrize("config", ["defaults", "strong decay", "large eps"])
def test_l2_mode_equals_torch_adam(device, config):
    model, data = setup(device)
    reference = copy.deepcopy(model)
    trajectory = learner_trajectory(model, data, decoupled=False, **CONFIGS[config])
    expected = torch_trajectory(reference, data, decoupled=False, **CONFIGS[config])
    assert_same_trajectory(model, trajectory, expected, f"Adam with L2 (decoupled=False), {config}")


def test_adamw_and_adam_with_l2_follow_different_paths(device):
    model, data = setup(device)
    l2_model = copy.deepcopy(model)
    hyperparameters = dict(lr=1e-2, weight_decay=0.3)
    decoupled = learner_trajectory(model, data, **hyperparameters)[-1][0]
    l2 = learner_trajectory(l2_model, data, decoupled=False, **hyperparameters)[-1][0]
    gap = max((a - b).abs().max().item() for a, b in zip(decoupled, l2, strict=True))
    assert gap > 1e-3, (
        f"after {STEPS} steps decoupled=True and decoupled=False end within {gap:.1e} of each "
        "other; AdamW shrinks p directly, Adam with L2 adds weight_decay * p to the gradient"
    )


def test_float64_state_stays_float64_on_its_device(device):
    skip_unless_supported(device, torch.float64)
    model, data = setup(device, torch.float64)
    reference = copy.deepcopy(model)
    trajectory = learner_trajectory(model, data, lr=1e-2, weight_decay=0.1)
    for name, p in model.named_parameters():
        check_tensor(p.detach(), dtype=torch.float64, device=device, name=name)
    expected = torch_trajectory(reference, data, lr=1e-2, weight_decay=0.1)
    assert_same_trajectory(model, trajectory, expected, "float64")


def test_non_contiguous_and_empty_parameters(device):
    params = [torch.randn(4, 3, device=device).t(), torch.randn(0, 2, device=device)]
    grads = [torch.randn(3, 4, device=device), torch.randn(0, 2, device=device)]
    mine = [p.clone() for p in params]  # clone keeps the strides
    states = [[torch.zeros_like(p) for p in mine] for _ in range(2)]
    with torch_adam_refused():
        for step in (1, 2, 3):
            adamw_step_(mine, grads, *states, step, lr=0.05, weight_decay=0.2)
    reference = [nn.Parameter(p.clone()) for p in params]
    optimizer = torch.optim.AdamW(reference, lr=0.05, weight_decay=0.2)
    for _ in range(3):
        for p, g in zip(reference, grads, strict=True):
            p.grad = g.clone()
        optimizer.step()
    for a, b in zip(mine, reference, strict=True):
        check_tensor(a, shape=b.shape, dtype=b.dtype, device=device)
        assert_close(a, b.detach(), "differs from torch.optim.AdamW on this parameter")


@pytest.mark.parametrize("decoupled", [True, False], ids=["adamw", "l2"])
def test_four_empty_lists_are_a_step_over_nothing(device, decoupled):
    # A param group may hold no tensors: four lists of one length, 0, are valid arguments.
    with torch_adam_refused():
        result = adamw_step_([], [], [], [], 1, lr=0.1, weight_decay=0.3, decoupled=decoupled)
    assert result is None, f"four empty lists: a step over nothing returns None, got {result!r}"
    with raises(ValueError):
        adamw_step_([], [], [], [], 0, lr=0.1)
        pytest.fail("step=0 should raise ValueError, empty lists or not")


# ---------------------------------------------------------------- facets

# Every setting inexact in float32, so a setting rounded through a float32 tensor shows in
# the float64 case.
OPTIONS = {"lr": 0.1, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.3}


def first_step(shape, dtype, device, requires_grad=False):
    """State before step 1 of one parameter: values, gradient, zero moments. With
    requires_grad, the gradient requires grad too, as one from create_graph=True does: a
    moment updated from it outside no_grad records a graph."""
    count = torch.Size(shape).numel()
    p = torch.linspace(-2, 2, max(count, 1), dtype=torch.float64)[:count].reshape(shape)
    g = torch.linspace(1, -0.5, max(count, 1), dtype=torch.float64)[:count].reshape(shape)
    p, g = (t.to(dtype=dtype, device=device) for t in (p, g))
    p.requires_grad_(requires_grad)
    g.requires_grad_(requires_grad)
    return facets.args([p], [g], [torch.zeros_like(g)], [torch.zeros_like(g)], step=1, **OPTIONS)


def late_step(dtype, device):
    """Zero moments at step 10000 (a gradient that was 0 until now), where the bias
    corrections are about 1, and float16 gradients whose squares overflow it while
    (1 - beta2) g² fits: torch.optim's addcmul_ computes g * g in float32."""
    arguments = first_step((2, 3), dtype, device)
    arguments.args[1][0].mul_(facets.past_square_overflow(dtype))
    return arguments.replace(step=10_000)


def stepped_param(params, grads, exp_avgs, exp_avg_sqs, step, **options):
    """The kata's step, then the updated parameter: the result the facets compare."""
    adamw_step_(params, grads, exp_avgs, exp_avg_sqs, step, **options)
    return params[0]


def tiny_gradient(dtype, device, decoupled=True):
    """Step 1 with a parameter and a gradient of 1e-8 at one element (where the dtype holds
    them): sqrt(v) is as small as eps there, so eps and the L2 term set the step, and a
    setting rounded to float32 shows in float64."""
    arguments = first_step((2, 3), dtype, device).replace(decoupled=decoupled)
    if torch.finfo(dtype).tiny < 1e-30:
        arguments.args[0][0][0, 0] = arguments.args[1][0][0, 0] = 1e-8
    return arguments


def adamw64(
    params, grads, exp_avgs, exp_avg_sqs, step, lr, betas, eps, weight_decay, decoupled=True
):
    """A step of AdamW (or, not decoupled, Adam with L2) from zero moments written out:
    moments (1 - beta) g and (1 - beta2) g², bias-corrected."""
    (p,), (g,) = params, grads
    if not decoupled:
        g = g + weight_decay * p.detach()
    m = (1 - betas[0]) * g / (1 - betas[0] ** step)
    v = (1 - betas[1]) * g**2 / (1 - betas[1] ** step)
    decayed = p.detach() * (1 - lr * weight_decay) if decoupled else p.detach()
    return decayed - lr * m / (v.sqrt() + eps)


def all_tensors(arguments):
    return arguments.args[:4]


# 16-bit steps round in each of several ops.
ROUNDED = {torch.float16: 4 * 2.0**-10, torch.bfloat16: 4 * 2.0**-7}
FACETS = facets.declare(
    facets.of(
        adamw_step_,
        *(
            # "Raises ValueError if ... is negative", as the contract names it.
            facets.Setting(
                lambda device: first_step((3,), torch.float32, device), name, low=0, nan=False
            )
            for name in ("lr", "eps", "weight_decay")
        ),
        facets.Setting(
            lambda device: first_step((3,), torch.float32, device).replace(step=1),
            "step",
            low=1,
            integer=True,
        ),
        *(
            # "a beta outside [0, 1)": NaN is outside too.
            facets.Setting(
                lambda device: first_step((3,), torch.float32, device).replace(betas=(0.9, 0.999)),
                "betas",
                low=0,
                high=1,
                high_open=True,
                index=index,
            )
            for index in (0, 1)
        ),
        facets.NoGraph(
            lambda device: first_step((3,), torch.float32, device, requires_grad=True),
            state=lambda arguments, result: all_tensors(arguments),
        ),
        facets.UpdatesAll(
            lambda device: first_step((4,), torch.float32, device),
            params=lambda arguments: [*arguments.args[0], *arguments.args[2], *arguments.args[3]],
        ),
        facets.Unmodified(
            lambda device: first_step((3,), torch.float32, device),
            inputs=lambda arguments: arguments.args[1],
        ),
        facets.Number(lambda device: first_step((3,), torch.float32, device), type(None)),
        # Step 3 from moments of earlier steps (step 1 bias-corrects the betas away), one of
        # them with no second moment, where eps sets the step.
        facets.Defaults(
            lambda device: facets.args(
                *(
                    [torch.tensor(values, dtype=torch.float64, device=device)]
                    for values in (
                        [-2.0, -1.0, 0.5, 2.0],
                        [1.0, 0.25, -0.5, 0.0],
                        [0.1, 0.1, 0.1, 1e-9],
                        [0.01, 0.01, 0.01, 0.0],
                    )
                ),
                3,
                lr=0.1,
            ),
            values={"betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 1e-2, "decoupled": True},
            key=lambda arguments, result: arguments.args[:4],
        ),
    ),
    facets.of(
        adamw_step_,
        facets.Dtypes(
            lambda dtype, device: first_step((2, 3), dtype, device),
            oracle=adamw64,
            ulps=8,
            atol=ROUNDED,
        ),
        facets.Dtypes(late_step, oracle=adamw64, dtypes=(torch.float16,), ulps=8, label="late"),
        facets.Dtypes(tiny_gradient, oracle=adamw64, ulps=8, atol=ROUNDED, label="tiny gradient"),
        # Adam with L2 computes in the parameters' dtype too.
        facets.Dtypes(
            lambda dtype, device: tiny_gradient(dtype, device, decoupled=False),
            oracle=adamw64,
            ulps=8,
            atol=ROUNDED,
            label="L2",
        ),
        facets.Shapes(
            lambda shape, device: first_step(shape, torch.float32, device),
            oracle=adamw64,
            shapes=("0-dim", "empty", "size 1", "non-contiguous"),
        ),
        name="adamw_step_(parameter)",
        call=stepped_param,
    ),
)
test_facets = FACETS.test
