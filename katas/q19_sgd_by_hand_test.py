import contextlib
import copy
import math

import pytest
import torch
import torch.nn.functional as F
import torch.optim.optimizer as OPTIMIZER_MODULE
import torch.optim.sgd as SGD_MODULE
from torch import nn

from katas.q19_sgd_by_hand import SGD, optimizer_state_bytes, race_in_a_valley
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

# Every mistake in the update shows by step 2 (one in the velocity carried over, at step 2);
# five steps leave margin.
STEPS = 5
# torch.optim's own module for SGD (torch.optim does not keep it as an attribute).


def torch_sgd_refused():
    """Inside the block, torch.optim.SGD and its functional form fail when they update.

    Patching the module-level update functions catches every way in: SGD.step, the
    functional torch.optim.sgd.sgd (however it was imported) and the fused kernel.
    """
    updates = ("_single_tensor_sgd", "_multi_tensor_sgd", "_fused_sgd")
    assert_no_torch_internals(SGD, reason="write the SGD update by hand")
    reason = "this kata asks for the SGD update written by hand"
    return _both(
        forbidden_calls(
            *((SGD_MODULE, name) for name in updates),
            (torch.optim.SGD, "step"),
            (torch, "_fused_sgd_"),
            reason=reason,
        ),
        # By behaviour too: no code of torch.optim runs but the Optimizer base class's
        # bookkeeping (no other optimizer's step or functional form either).
        forbidden_modules(torch.optim, allow=[OPTIMIZER_MODULE], reason=reason),
    )


@contextlib.contextmanager
def _both(first, second):
    with first, second:
        yield


def small_model(device, dtype=torch.float32):
    model = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2))
    return model.to(device=device, dtype=dtype)


def regression_data(device, dtype=torch.float32):
    x = torch.randn(16, 3, device=device, dtype=dtype)
    return x, torch.sin(2 * x[:, :2]) + 0.5 * x[:, 2:]


def train(model, optimizer, data, steps, schedule=None, rule=contextlib.nullcontext):
    """Run `steps` optimizer steps on the MSE loss; return the parameters after each.

    `rule` watches each optimizer.step(), the learner's code (not the forward and backward).
    """
    x, y = data
    trajectory = []
    for step in range(steps):
        if schedule is not None:
            schedule(optimizer, step)
        optimizer.zero_grad()
        F.mse_loss(model(x), y).backward()
        with rule():
            optimizer.step()
        trajectory.append([p.detach().clone() for p in model.parameters()])
    return trajectory


def learner_run(model, data, steps=STEPS, schedule=None, **hyperparameters):
    """The learner's SGD on `model` (changed in place), with torch's SGD refused."""
    with torch_sgd_refused():
        optimizer = SGD(model.parameters(), **hyperparameters)
    return optimizer, train(model, optimizer, data, steps, schedule, rule=torch_sgd_refused)


def assert_same_trajectory(model, actual, expected, what, **tolerance):
    names = [name for name, _ in model.named_parameters()]
    assert_all_close(
        (
            (a, b, f"{what}: parameter {name} differs from torch.optim.SGD after step {step}")
            for step, (mine, theirs) in enumerate(zip(actual, expected, strict=True), start=1)
            for name, a, b in zip(names, mine, theirs, strict=True)
        ),
        **tolerance,
    )


CONFIGS = {
    "plain": dict(lr=0.1),
    "momentum": dict(lr=0.05, momentum=0.9),
    "dampening": dict(lr=0.05, momentum=0.8, dampening=0.5),
    "nesterov": dict(lr=0.05, momentum=0.9, nesterov=True),
    "weight decay": dict(lr=0.1, weight_decay=0.05),
    "momentum and decay": dict(lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.05),
    "nesterov and decay": dict(lr=0.05, momentum=0.7, weight_decay=0.1, nesterov=True),
}


@pytest.mark.parametrize(
    "hyperparameters",
    [
        dict(lr=-0.1),
        dict(lr=0.1, momentum=-0.5),
        dict(lr=0.1, weight_decay=-1e-3),
        dict(lr=0.1, nesterov=True),
        dict(lr=0.1, momentum=0.9, dampening=0.5, nesterov=True),
        dict(lr=0.1, momentum=0.9, dampening=-0.5, nesterov=True),
    ],
    ids=[
        "lr",
        "momentum",
        "weight decay",
        "nesterov without momentum",
        "nesterov with dampening",
        "nesterov with negative dampening",
    ],
)
def test_rejects_invalid_hyperparameters(device, hyperparameters):
    model = small_model(device)
    with raises(ValueError):
        SGD(model.parameters(), **hyperparameters)
        pytest.fail(
            f"SGD({hyperparameters}) should raise ValueError: lr, momentum and weight_decay "
            "must be >= 0, and nesterov needs momentum > 0 and dampening exactly 0"
        )


def test_default_hyperparameters_and_zero_values(device):
    model = small_model(device)
    expected = dict(lr=1e-3, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False)
    optimizer = SGD(model.parameters())
    actual = {key: optimizer.param_groups[0].get(key) for key in expected}
    assert actual == expected, (
        f"the defaults should be {expected} (as in the signature); got {actual}"
    )
    zeros = dict(lr=0.0, momentum=0.0, weight_decay=0.0)
    SGD(model.parameters(), **zeros)  # zero is not negative: accepted


def test_is_a_torch_optimizer_with_sgd_defaults(device):
    model = small_model(device)
    optimizer = SGD(model.parameters(), lr=0.2, momentum=0.5, weight_decay=0.01)
    assert isinstance(optimizer, torch.optim.Optimizer), "SGD should subclass torch.optim.Optimizer"
    expected = dict(lr=0.2, momentum=0.5, dampening=0.0, weight_decay=0.01, nesterov=False)
    actual = {key: optimizer.param_groups[0].get(key) for key in expected}
    assert actual == expected, f"each group should carry {expected}; got {actual}"
    assert set(optimizer.defaults) == set(expected), (
        f"the defaults are exactly {sorted(expected)}, got {sorted(optimizer.defaults)}"
    )


def test_step_without_closure_returns_none_and_keeps_parameters_leaves(device):
    model = small_model(device)
    x, y = regression_data(device)
    with torch_sgd_refused():
        optimizer = SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=0.01)
        F.mse_loss(model(x), y).backward()
        grads = [p.grad.clone() for p in model.parameters()]
        result = optimizer.step()
    assert result is None, f"step() without a closure should return None, got {result!r}"
    for (name, p), grad in zip(model.named_parameters(), grads, strict=True):
        assert p.is_leaf and p.grad_fn is None and p.requires_grad, (
            f"{name} is no longer a trainable leaf: update it in place under torch.no_grad()"
        )
        assert torch.equal(p.grad, grad), (
            f"{name}.grad was modified by step(); add weight decay out of place"
        )


@pytest.mark.parametrize("nesterov", [False, True], ids=["momentum", "nesterov"])
def test_gradients_are_not_modified_at_any_step(device, nesterov):
    model = small_model(device)
    x, y = regression_data(device)
    with torch_sgd_refused():
        optimizer = SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=nesterov)
        for step in range(1, 4):
            # No zero_grad: the gradients accumulate, as they may between two steps.
            F.mse_loss(model(x), y).backward()
            grads = [p.grad.clone() for p in model.parameters()]
            optimizer.step()
            for (name, p), grad in zip(model.named_parameters(), grads, strict=True):
                assert torch.equal(p.grad, grad), (
                    f"{name}.grad was changed by step {step} (nesterov={nesterov}): leave p.grad "
                    "as it is; the first momentum buffer is a copy of it (clone), and the "
                    "Nesterov look-ahead is added out of place"
                )


def test_parameters_without_gradient_are_skipped(device):
    model = small_model(device)
    unused = nn.Parameter(torch.randn(4, device=device))
    with torch_sgd_refused():
        optimizer = SGD([*model.parameters(), unused], lr=0.1, momentum=0.9, weight_decay=0.1)
    before = unused.detach().clone()
    train(model, optimizer, regression_data(device), 3, rule=torch_sgd_refused)
    assert torch.equal(unused.detach(), before), (
        "a parameter whose .grad is None must not change (not even by weight decay)"
    )
    assert unused not in optimizer.state, (
        "a parameter that never had a gradient gets no state, not even an empty entry: "
        "self.state is a defaultdict, so look up self.state[p] only after the .grad check"
    )


@pytest.mark.parametrize("nesterov", [False, True], ids=["momentum", "nesterov"])
def test_a_zero_gradient_is_a_gradient(device, nesterov):
    # zero_grad(set_to_none=False) leaves zeros on a parameter the next batch does not use:
    # it has a gradient, so its velocity still moves it (and weight decay shrinks it), as in
    # torch.optim.SGD.
    grads = [torch.tensor([0.5, -1.0]), torch.zeros(2)]
    options = dict(lr=0.1, momentum=0.9, weight_decay=0.1, nesterov=nesterov)
    mine = torch.tensor([1.0, -2.0], device=device)
    theirs = mine.detach().cpu().clone()
    with torch_sgd_refused():
        optimizer = SGD([mine], **options)
    reference = torch.optim.SGD([theirs], **options)
    for grad in grads:
        mine.grad, theirs.grad = grad.to(device), grad.clone()
        with torch_sgd_refused():
            optimizer.step()
        reference.step()
    torch.testing.assert_close(
        mine.cpu(),
        theirs,
        msg="a parameter whose .grad holds zeros after an earlier step still moves along its "
        "velocity, as torch.optim.SGD moves it: a zero gradient is a gradient, not None",
    )


def test_a_gradient_set_by_hand_is_used_whatever_requires_grad(device):
    # "has a gradient" is .grad not None: a frozen tensor (requires_grad=False) given a
    # .grad by hand is updated, as torch.optim.SGD does.
    frozen = torch.tensor([1.0, -2.0], device=device)
    frozen.grad = torch.tensor([0.5, 0.25], device=device)
    with torch_sgd_refused():
        SGD([frozen], lr=0.1, momentum=0.9).step()
    expected = torch.tensor([0.95, -2.025])
    torch.testing.assert_close(
        frozen.cpu(),
        expected,
        msg="a tensor whose .grad is set is updated even when it does not require grad",
    )


def test_no_velocity_without_momentum(device):
    model = small_model(device)
    optimizer, _ = learner_run(model, regression_data(device), steps=2, lr=0.1, weight_decay=0.1)
    kept = [name for name, p in model.named_parameters() if "momentum_buffer" in optimizer.state[p]]
    assert not kept, (
        f"with momentum 0 no velocity is kept, but {kept} have a 'momentum_buffer' entry "
        "(torch.optim.SGD stores none, not even None)"
    )


def test_step_runs_the_closure_with_gradients_enabled(device):
    model = small_model(device)
    reference_model = copy.deepcopy(model)
    x, y = regression_data(device)

    calls = []
    returned = []

    def closure_for(m, opt):
        def closure():
            calls.append(m)
            opt.zero_grad()
            loss = F.mse_loss(m(x), y)
            loss.backward()
            returned.append(loss)
            return loss

        return closure

    with torch_sgd_refused():
        optimizer = SGD(model.parameters(), lr=0.1, momentum=0.9)
        losses = [optimizer.step(closure_for(model, optimizer)) for _ in range(3)]
    assert len(calls) == 3, (
        f"step(closure) should call the closure once, it ran {len(calls)} times in 3 steps"
    )
    assert all(loss is mine for loss, mine in zip(losses, returned, strict=True)), (
        "step(closure) should return the very object the closure returned (as "
        "torch.optim.SGD does), not a copy, a detached tensor or a number made from it"
    )
    reference = torch.optim.SGD(reference_model.parameters(), lr=0.1, momentum=0.9)
    expected = [reference.step(closure_for(reference_model, reference)) for _ in range(3)]
    assert all(isinstance(loss, torch.Tensor) for loss in losses), (
        "step(closure) should return the closure's loss"
    )
    assert_close(
        torch.stack(losses).detach(),
        torch.stack(expected).detach(),
        "step(closure) should return the loss the closure computed before the update",
    )
    for p, q in zip(model.parameters(), reference_model.parameters(), strict=True):
        assert_close(p.detach(), q.detach(), "parameters after step(closure) differ from torch's")


def test_step_under_no_grad_still_runs_the_closure_with_gradients(device):
    model = small_model(device)
    reference_model = copy.deepcopy(model)
    x, y = regression_data(device)

    def closure_for(m, opt):
        def closure():
            opt.zero_grad()
            loss = F.mse_loss(m(x), y)
            loss.backward()
            return loss

        return closure

    with torch_sgd_refused():
        optimizer = SGD(model.parameters(), lr=0.1, momentum=0.9)
        with torch.no_grad():
            loss = optimizer.step(closure_for(model, optimizer))
    reference = torch.optim.SGD(reference_model.parameters(), lr=0.1, momentum=0.9)
    with torch.no_grad():
        expected = reference.step(closure_for(reference_model, reference))
    assert_close(
        loss.detach(),
        expected.detach(),
        "step(closure) under torch.no_grad() should return the closure's loss; call the "
        "closure inside torch.enable_grad()",
    )
    for p, q in zip(model.parameters(), reference_model.parameters(), strict=True):
        assert_close(p.detach(), q.detach(), "parameters after step(closure) differ from torch's")


@pytest.mark.parametrize("config", list(CONFIGS))
def test_trajectory_equals_torch_sgd(device, config):
    model = small_model(device)
    reference_model = copy.deepcopy(model)
    data = regression_data(device)
    _, trajectory = learner_run(model, data, **CONFIGS[config])
    expected = train(
        reference_model,
        torch.optim.SGD(reference_model.parameters(), **CONFIGS[config]),
        data,
        STEPS,
    )
    assert_same_trajectory(model, trajectory, expected, config)


def test_float64_parameters_stay_float64_on_their_device(device):
    skip_unless_supported(device, torch.float64)
    model = small_model(device, torch.float64)
    reference_model = copy.deepcopy(model)
    data = regression_data(device, torch.float64)
    optimizer, trajectory = learner_run(model, data, lr=0.05, momentum=0.9, nesterov=True)
    for name, p in model.named_parameters():
        check_tensor(p.detach(), dtype=torch.float64, device=device, name=name)
        buffer = optimizer.state[p]["momentum_buffer"]
        check_tensor(
            buffer, shape=p.shape, dtype=torch.float64, device=device, name=f"{name}'s buffer"
        )
    hyper = dict(lr=0.05, momentum=0.9, nesterov=True)
    expected = train(
        reference_model, torch.optim.SGD(reference_model.parameters(), **hyper), data, STEPS
    )
    # lr and momentum are no float32 values, and float64 is compared to a few of its own
    # roundings: a setting turned into a float32 tensor shows.
    assert_same_trajectory(model, trajectory, expected, "float64", rtol=1e-12, atol=1e-14)


def test_each_group_uses_its_own_hyperparameters(device):
    model = small_model(device)
    reference_model = copy.deepcopy(model)
    data = regression_data(device)

    def groups(m):
        return [
            {"params": m[0].parameters(), "lr": 0.02, "momentum": 0.5},
            {"params": m[2].parameters(), "nesterov": True, "weight_decay": 0.1},
        ]

    with torch_sgd_refused():
        optimizer = SGD(groups(model), lr=0.1, momentum=0.9)
    trajectory = train(model, optimizer, data, STEPS, rule=torch_sgd_refused)
    assert [group["lr"] for group in optimizer.param_groups] == [0.02, 0.1]
    reference = torch.optim.SGD(groups(reference_model), lr=0.1, momentum=0.9)
    expected = train(reference_model, reference, data, STEPS)
    assert_same_trajectory(model, trajectory, expected, "two parameter groups")


def test_reads_the_learning_rate_from_the_group_at_every_step(device):
    def schedule(optimizer, step):  # what a scheduler does: edit the groups between steps
        for group in optimizer.param_groups:
            group["lr"] = 0.1 * 0.8**step
            group["momentum"] = 0.9 if step < 2 else 0.5

    model = small_model(device)
    reference_model = copy.deepcopy(model)
    data = regression_data(device)
    _, trajectory = learner_run(model, data, schedule=schedule, lr=0.1, momentum=0.9)
    reference = torch.optim.SGD(reference_model.parameters(), lr=0.1, momentum=0.9)
    expected = train(reference_model, reference, data, STEPS, schedule)
    assert_same_trajectory(model, trajectory, expected, "lr changed between steps")


def test_momentum_buffers_match_torch_and_resume_from_its_state_dict(device):
    model = small_model(device)
    reference_model = copy.deepcopy(model)
    data = regression_data(device)
    with torch_sgd_refused():
        optimizer = SGD(model.parameters(), lr=0.3, momentum=0.1, dampening=0.0)
    reference = torch.optim.SGD(reference_model.parameters(), lr=0.05, momentum=0.9, dampening=0.2)
    train(reference_model, reference, data, 3)
    # Resume where torch's run stands: its weights (copied in place) and its state_dict.
    model.load_state_dict(reference_model.state_dict())
    with torch_sgd_refused():
        optimizer.load_state_dict(copy.deepcopy(reference.state_dict()))
    trajectory = train(model, optimizer, data, 3, rule=torch_sgd_refused)
    expected = train(reference_model, reference, data, 3)
    assert_same_trajectory(model, trajectory, expected, "resumed from torch's state_dict")
    for name, p, q in zip(
        [n for n, _ in model.named_parameters()],
        model.parameters(),
        reference_model.parameters(),
        strict=True,
    ):
        assert_close(
            optimizer.state[p]["momentum_buffer"],
            reference.state[q]["momentum_buffer"],
            f"self.state[p]['momentum_buffer'] of {name} differs from torch's",
        )


# --- optimizer_state_bytes ---------------------------------------------------------------


def stepped(make_optimizer, device, dtype=torch.float32):
    """A model of 3 * 4 + 4 = 16 scalars in two tensors, and its optimizer after one step."""
    model = nn.Linear(3, 4).to(device, dtype)
    optimizer = make_optimizer(model.parameters())
    model(torch.randn(2, 3, device=device, dtype=dtype)).sum().backward()
    optimizer.step()
    return optimizer


# Worked out from what each optimizer keeps per parameter tensor (16 scalars, 2 tensors):
# its buffers of the parameter's size, and Adam's step counter as a 0-dim float32 tensor.
STATE_BYTES = {
    "sgd": (lambda p: torch.optim.SGD(p, lr=0.1), lambda size: 0),
    "momentum": (lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9), lambda size: 16 * size),
    "adam": (lambda p: torch.optim.Adam(p), lambda size: 2 * 16 * size + 2 * 4),
    "adamw-amsgrad": (
        lambda p: torch.optim.AdamW(p, amsgrad=True),
        lambda size: 3 * 16 * size + 2 * 4,
    ),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("name", list(STATE_BYTES))
def test_optimizer_state_bytes_counts_what_each_optimizer_keeps(device, name, dtype):
    skip_unless_supported(device, dtype)
    make, expected = STATE_BYTES[name]
    optimizer = stepped(make, device, dtype)
    got = optimizer_state_bytes(optimizer)
    want = expected(torch.empty((), dtype=dtype).element_size())
    assert type(got) is int, f"return a Python int, got {type(got).__name__}"
    assert got == want, (
        f"{name} keeps {want} bytes of state for 16 {dtype} parameters in 2 tensors, got "
        f"{got}: count numel() * element_size() of every tensor in optimizer.state, "
        "0-dim step counters included"
    )


def test_optimizer_state_bytes_is_zero_before_the_first_step(device):
    model = nn.Linear(3, 4).to(device)
    optimizer = torch.optim.Adam(model.parameters())
    assert optimizer_state_bytes(optimizer) == 0
    assert optimizer.state_dict()["state"] == {}, (
        "reading optimizer.state[p] adds an empty entry (it is a defaultdict): look only at "
        "the entries it holds"
    )


@pytest.mark.parametrize("container", [list, tuple], ids=["list", "tuple"])
def test_optimizer_state_bytes_looks_inside_lists(device, container):
    optimizer = stepped(lambda p: torch.optim.SGD(p, lr=0.1), device)
    param = optimizer.param_groups[0]["params"][0]
    optimizer.state[param]["history"] = container(
        (torch.zeros(5, device=device), torch.zeros(2, dtype=torch.float16, device=device))
    )
    optimizer.state[param]["count"] = 3
    assert optimizer_state_bytes(optimizer) == 5 * 4 + 2 * 2, (
        f"tensors inside a {container.__name__} in the state count too; plain numbers count 0"
    )


def test_optimizer_state_bytes_counts_elements_of_each_entry(device):
    # numel() * element_size() per tensor entry: a view counts its own elements, not the
    # buffer it looks into, and a tensor held in two entries counts twice.
    optimizer = stepped(lambda p: torch.optim.SGD(p, lr=0.1), device)
    param = optimizer.param_groups[0]["params"][0]
    buffer = torch.zeros(100, device=device)
    window = buffer[10:15]
    optimizer.state[param]["window"] = window
    optimizer.state[param]["again"] = buffer[10:15]
    optimizer.state[param]["same"] = window  # the very same tensor object, once more
    assert optimizer_state_bytes(optimizer) == 3 * 5 * 4, (
        "three entries of 5 float32 elements each (two of them the same tensor object): "
        "count numel() * element_size() of each entry, not the storage behind them"
    )


def test_optimizer_state_bytes_leaves_out_the_param_groups(device):
    # A tensor lr or tensor betas (as capturable and compiled optimizers hold them) live in
    # param_groups: hyperparameters, not state kept per parameter.
    optimizer = stepped(
        lambda p: torch.optim.SGD(p, lr=torch.tensor(0.1), momentum=0.9, foreach=False), device
    )
    optimizer.param_groups[0]["extra"] = torch.zeros(50, device=device)
    assert optimizer_state_bytes(optimizer) == 16 * 4, (
        "only the momentum buffers (16 float32 scalars) are in optimizer.state; a tensor lr "
        "or other tensors in param_groups are hyperparameters and do not count"
    )


def test_optimizer_state_bytes_counts_tensors_of_every_dtype(device):
    # Every tensor counts, not only floating ones: an int64 step counter, a bool mask.
    optimizer = stepped(lambda p: torch.optim.SGD(p, lr=0.1), device)
    param = optimizer.param_groups[0]["params"][0]
    optimizer.state[param]["step"] = torch.tensor(3, device=device)
    optimizer.state[param]["mask"] = torch.ones(6, dtype=torch.bool, device=device)
    assert optimizer_state_bytes(optimizer) == 8 + 6, (
        "an int64 counter (8 bytes) and a bool mask of 6 (6 bytes): every tensor in the state "
        "counts, whatever its dtype"
    )


# --- race_in_a_valley --------------------------------------------------------------------


def heavy_ball(scales, lr, steps, momentum=0.9):
    """The oracle for SGD with momentum, written out: the first velocity is the gradient."""
    x, velocity = torch.ones_like(scales), None
    for _ in range(steps):
        g = scales * x
        velocity = g.clone() if velocity is None else momentum * velocity + g
        x = x - lr * velocity
    return x


def adam_by_formula(scales, lr, steps, betas=(0.9, 0.999), eps=1e-8):
    """The oracle for Adam, from its paper's formulas."""
    x = torch.ones_like(scales)
    m, v = torch.zeros_like(x), torch.zeros_like(x)
    for t in range(1, steps + 1):
        g = scales * x
        m = betas[0] * m + (1 - betas[0]) * g
        v = betas[1] * v + (1 - betas[1]) * g * g
        m_hat, v_hat = m / (1 - betas[0] ** t), v / (1 - betas[1] ** t)
        x = x - lr * m_hat / (v_hat.sqrt() + eps)
    return x


def expected_points(scales, steps, dtype=torch.float32):
    """Each optimizer's end point, worked out on the CPU, outside the answer."""
    curvatures = torch.tensor(scales, dtype=dtype)
    lr = 1 / max(scales)
    return {
        # Plain SGD on a quadratic: each coordinate shrinks by (1 - lr * scale) per step.
        "sgd": (1 - lr * curvatures) ** steps,
        "momentum": heavy_ball(curvatures, lr, steps),
        "adam": adam_by_formula(curvatures, 0.1, steps),
    }


def check_points(reached, expected, device, steps):
    assert sorted(reached) == ["adam", "momentum", "sgd"], f"got keys {sorted(reached)}"
    for name, want in expected.items():
        got = reached[name]
        check_tensor(got, shape=want.shape, dtype=want.dtype, device=device, name=name)
        assert not got.requires_grad, f"{name}: return x detached"
        assert_close(
            got.cpu(), want, rtol=1e-4, atol=1e-6, msg=f"where {name} ends after {steps} steps"
        )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("scales, steps", [([2.0, 50.0, 10.0], 7), ([4.0], 1), ([3.0], 0)])
def test_race_in_a_valley_follows_each_optimizer(device, scales, steps, dtype):
    skip_unless_supported(device, dtype)
    curvatures = torch.tensor(scales, device=device, dtype=dtype)
    kept = curvatures.clone()
    reached = race_in_a_valley(curvatures, steps=steps)
    check_points(reached, expected_points(scales, steps, dtype), device, steps)
    assert torch.equal(curvatures, kept), "scales was modified"


def test_race_in_a_valley_under_no_grad(device):
    scales = torch.tensor([1.0, 3.0], device=device)
    with torch.no_grad():  # the race turns gradients on for its own backward passes
        reached = race_in_a_valley(scales, steps=3)
    expected = race64(scales.cpu().double(), 3)
    for name, point in zip(("sgd", "momentum", "adam"), expected, strict=True):
        assert_close(reached[name].cpu().double(), point, f"{name} under torch.no_grad()")


def test_adam_crosses_the_valley_where_sgd_crawls(device):
    # The lesson in numbers, at the default 100 steps: with a 1000:1 valley, SGD's rate is
    # set by the steep side and it covers a tenth of the flat side; Adam covers both.
    scales = torch.tensor([1.0, 1000.0], device=device)
    reached = race_in_a_valley(scales)
    check_points(reached, expected_points([1.0, 1000.0], 100), device, 100)

    def f(x):
        return (0.5 * (scales * x**2).sum()).item()

    assert f(reached["sgd"]) > 0.3 > 0.01 > f(reached["adam"]), (
        f"after 100 steps f is {f(reached['sgd']):.3g} for SGD and {f(reached['adam']):.3g} "
        "for Adam"
    )


# ---------------------------------------------------------------- facets


def with_graph_grads(device, momentum=0.9):
    """An optimizer over two parameters whose .grad carries a graph (create_graph=True)."""
    model = nn.Linear(3, 2).to(device)
    loss = (model(torch.randn(4, 3, device=device)) ** 2).sum()
    parameters = list(model.parameters())
    for parameter, grad in zip(
        parameters, torch.autograd.grad(loss, parameters, create_graph=True), strict=True
    ):
        parameter.grad = grad
    optimizer = SGD(model.parameters(), lr=0.1, momentum=momentum, weight_decay=0.01)
    return facets.args(optimizer)


def state_and_params(arguments, result):
    optimizer = arguments.args[0]
    return [p for group in optimizer.param_groups for p in group["params"]], optimizer


def grads(arguments):
    return [p.grad for group in arguments.args[0].param_groups for p in group["params"]]


def settings(device):
    return facets.args(
        [torch.zeros(2, device=device, requires_grad=True)], lr=0.1, momentum=0.5, weight_decay=0.01
    )


class ClosureFailed(Exception):
    """Raised by a closure: not a RuntimeError, so an unwritten stub cannot match it."""


def failing_closure(device):
    """An optimizer over one parameter with a gradient, and a closure that raises."""
    w = torch.zeros(2, device=device, requires_grad=True)
    w.grad = torch.ones(2, device=device)

    def closure():
        raise ClosureFailed("the closure failed")

    return facets.args(SGD([w], lr=0.1), closure)


def squares_closure(device):
    """A closure that recomputes a loss and its gradients, as the contract's closure does."""
    w = torch.ones(2, device=device, requires_grad=True)

    def closure():
        w.grad = None
        loss = (w * w).sum()
        loss.backward()
        return loss

    return closure


def stepped_adam(device):
    model = nn.Linear(3, 2).to(device)
    optimizer = torch.optim.Adam(model.parameters())
    model(torch.ones(1, 3, device=device)).sum().backward()
    optimizer.step()
    return facets.args(optimizer)


def unstepped_adam(device):
    return facets.args(torch.optim.Adam(nn.Linear(3, 2).to(device).parameters()))


def step_taken(arguments):
    """One step with gradients on every parameter: Adam's state appears."""
    optimizer = arguments.args[0]
    for group in optimizer.param_groups:
        for parameter in group["params"]:
            parameter.grad = torch.ones_like(parameter)
    optimizer.step()


def valley(dtype, device):
    # 1 / 3 is inexact: an lr rounded to another dtype than scales' shows in float64.
    return facets.args(torch.tensor([1.0, 3.0], dtype=dtype, device=device), steps=3)


def race64(scales, steps):
    """The three end points, by the formulas of torch's SGD, momentum and Adam."""
    lr = 1 / scales.max()
    sgd = (1 - lr * scales) ** steps
    x, buffer = torch.ones_like(scales), None
    for _ in range(steps):
        grad = scales * x
        buffer = grad if buffer is None else 0.9 * buffer + grad
        x = x - lr * buffer
    momentum = x
    x, m, v = torch.ones_like(scales), torch.zeros_like(scales), torch.zeros_like(scales)
    for t in range(1, steps + 1):
        grad = scales * x
        m, v = 0.9 * m + 0.1 * grad, 0.999 * v + 0.001 * grad**2
        denom = v.sqrt() / math.sqrt(1 - 0.999**t) + 1e-8
        x = x - 0.1 / (1 - 0.9**t) * m / denom
    return sgd, momentum, x


FACETS = facets.declare(
    facets.of(
        SGD,
        *(
            # "Raises ValueError if ... is negative", as torch.optim.SGD checks it.
            facets.Setting(settings, name, low=0, nan=False)
            for name in ("lr", "momentum", "weight_decay")
        ),
        # With momentum, dampening and nesterov show; weight decay once the parameter moved.
        facets.Defaults(
            values={
                "lr": 1e-3,
                "momentum": 0.0,
                "dampening": 0.0,
                "weight_decay": 0.0,
                "nesterov": False,
            },
            key=lambda arguments, optimizer: [
                (setattr(p, "grad", torch.full_like(p, 1.0 + i)), optimizer.step(), p.clone())[-1]
                for i in range(3)
                for p in arguments.args[0]
            ],
        ),
    ),
    facets.of(
        SGD,
        facets.NoGraph(with_graph_grads, state=state_and_params),
        facets.UpdatesAll(
            with_graph_grads,
            params=lambda arguments: [
                p for g in arguments.args[0].param_groups for p in g["params"]
            ],
        ),
        facets.Unmodified(with_graph_grads, inputs=grads),
        name="SGD.step",
        call=lambda optimizer: optimizer.step(),
    ),
    facets.of(
        SGD,
        # Under the caller's no_grad, grad mode is on for the closure only, and off again
        # when the closure raises (torch.enable_grad() as a block, not set_grad_enabled).
        facets.GradModeKept(failing_closure),
        facets.Propagates(lambda device, fault: failing_closure(device).at(1, fault)),
        # The closure once, with grad on also under the caller's no_grad (it runs backward).
        facets.Runs(
            lambda device, wrap: failing_closure(device).at(1, wrap(squares_closure(device))),
            times=lambda arguments: 1,
            grad=True,
        ),
        name="SGD.step(closure)",
        call=lambda optimizer, closure: optimizer.step(closure),
    ),
    facets.of(
        optimizer_state_bytes,
        facets.Number(stepped_adam, int),
        facets.Unmodified(stepped_adam),
        # The state grows as the optimizer steps: counted anew at every call.
        facets.Changed(unstepped_adam, step_taken),
    ),
    facets.of(
        race_in_a_valley,
        # float32 and float64: a 16-bit x rounds at every step of the loop.
        facets.Dtypes(
            valley,
            oracle=race64,
            dtypes=(torch.float32, torch.float64),
            ulps=4,  # three steps, each rounded
        ),
        # A scales that requires grad keeps its .grad (None, or as the caller set it).
        facets.Unmodified(
            lambda device: facets.args(
                valley(torch.float32, device).args[0].requires_grad_(), steps=3
            )
        ),
        facets.Defaults(
            lambda device: facets.args(valley(torch.float32, device).args[0]),
            values={"steps": 100},
        ),
        # "each final x detached": not the leaf each optimizer moved.
        facets.NoGraph(
            lambda device: facets.args(valley(torch.float32, device).args[0], steps=3),
            state=lambda arguments, result: result,
        ),
        call=lambda scales, **steps: tuple(
            race_in_a_valley(scales, **steps)[name] for name in ("sgd", "momentum", "adam")
        ),
    ),
)
test_facets = FACETS.test
