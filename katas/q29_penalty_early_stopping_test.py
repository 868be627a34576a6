import copy
import math
import random

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from katas.q29_penalty_early_stopping import EarlyStopping, dropout, weight_penalty
from torch_katas import facets
from torch_katas.testing import (
    assert_close,
    check_tensor,
    dyadic,
    forbidden_ops,
    raises,
    same_device,
    seed_for,
    skip_unless_supported,
)


class Net(nn.Module):
    """Every kind of parameter: weights (2-D and up), biases, norm scales/shifts, a scalar."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 4)
        self.conv = nn.Conv1d(4, 6, kernel_size=3)
        self.norm = nn.BatchNorm1d(6)
        self.fc = nn.Linear(6, 5)
        self.ln = nn.LayerNorm(5)
        self.head = nn.Linear(5, 2)
        self.temperature = nn.Parameter(torch.tensor(1.5))
        # A 2-D parameter of the module's own, outside any layer: a weight too.
        self.mix = nn.Parameter(torch.randn(6, 6) / 3)
        with torch.no_grad():  # norm layers start at ones/zeros: make them count if summed
            for p in [*self.norm.parameters(), *self.ln.parameters()]:
                p.uniform_(0.5, 1.5)
            self.fc.weight[0, :2] = 0.0  # |w| has gradient sign(0) = 0 there, not NaN

    def weights(self):
        return [self.embed.weight, self.conv.weight, self.mix, self.fc.weight, self.head.weight]

    def forward(self, tokens):
        x = self.norm(self.conv(self.embed(tokens).transpose(1, 2))).relu().mean(-1)
        return self.head(self.ln(self.fc(x @ self.mix)).relu()) / self.temperature


def penalty_by_hand(weights, l1, l2):
    return sum(l1 * w.detach().abs().sum() + l2 * (w.detach() ** 2).sum() for w in weights)


# --- weight_penalty ----------------------------------------------------------------------


@pytest.mark.parametrize("l1, l2", [(0.01, 0.0), (0.0, 0.1), (0.003, 0.02)])
def test_penalty_sums_over_weights_only(device, l1, l2):
    model = Net().to(device)
    penalty = weight_penalty(model, l1=l1, l2=l2)
    check_tensor(penalty, shape=(), dtype=torch.float32, device=device, name="the penalty")
    assert_close(
        penalty.detach(),
        penalty_by_hand(model.weights(), l1, l2),
        "the penalty should be l1·Σ|w| + l2·Σw² over parameters with 2 or more dims only "
        "(embedding, conv and linear weights, the model's own 2-D parameter), not biases or "
        "norm parameters",
    )


def test_penalty_of_a_single_layer(device):
    layer = nn.Linear(3, 2, bias=False).to(device)  # one parameter in all
    penalty = weight_penalty(layer, l1=0.1, l2=0.01)
    check_tensor(penalty, shape=(), dtype=torch.float32, device=device, name="the penalty")
    assert_close(
        penalty.detach(),
        penalty_by_hand([layer.weight], 0.1, 0.01),
        "a model with one weight matrix: the penalty is that matrix's",
    )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_penalty_of_a_model_without_weights(device, dtype):
    skip_unless_supported(device, dtype)
    model = nn.Sequential(nn.LayerNorm(4), nn.BatchNorm1d(4)).to(device, dtype)
    penalty = weight_penalty(model, l1=0.5, l2=0.5)
    check_tensor(penalty, shape=(), dtype=dtype, device=device, name="the penalty")
    assert penalty.item() == 0.0, "a model with no parameter of 2 or more dims has penalty 0"


def test_penalty_gradient_reaches_weights_only(device):
    model = Net().to(device)
    weight_penalty(model, l1=0.01, l2=0.05).backward()
    weight_ids = {id(w) for w in model.weights()}
    for name, p in model.named_parameters():
        if id(p) in weight_ids:
            assert p.grad is not None, f"{name} got no gradient: keep the penalty on the graph"
            assert_close(
                p.grad,
                0.01 * p.detach().sign() + 2 * 0.05 * p.detach(),
                f"gradient of {name} should be l1·sign(w) + 2·l2·w (0 where w is 0: take "
                "|w| with abs(), whose gradient there is 0, not sqrt(w²), whose is NaN)",
            )
        else:
            assert p.grad is None or not p.grad.any(), (
                f"{name} ({p.dim()}-D) got a gradient from the penalty; leave out parameters "
                "with fewer than two dimensions"
            )


def test_penalty_keeps_the_parameters_dtype(device):
    skip_unless_supported(device, torch.float64)
    model = nn.Sequential(nn.Linear(3, 4), nn.LayerNorm(4), nn.Linear(4, 1)).double().to(device)
    penalty = weight_penalty(model, l2=0.5)
    check_tensor(penalty, shape=(), dtype=torch.float64, device=device, name="the penalty")
    assert penalty.requires_grad, "the penalty should stay on the graph (no .item(), no detach)"
    expected = penalty_by_hand([model[0].weight, model[2].weight], 0.0, 0.5)
    assert_close(penalty.detach(), expected, "float64 weights: sum them in float64")


def test_penalty_of_a_model_without_parameters(device):
    penalty = weight_penalty(nn.Sequential(nn.ReLU(), nn.Flatten()), l1=0.5, l2=0.5)
    check_tensor(penalty, shape=(), dtype=torch.float32, device="cpu", name="the penalty")
    assert penalty.item() == 0.0, (
        "a model without parameters has penalty 0, a float32 zero on the CPU; do not take the "
        "device from next(model.parameters()), which has nothing to give"
    )


class TiedLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(6, 3)
        self.out = nn.Linear(3, 6)
        self.out.weight = self.embed.weight


def test_penalty_counts_a_tied_weight_once_and_frozen_weights_too(device):
    model = TiedLM().to(device)
    penalty = weight_penalty(model, l1=0.1, l2=0.2)
    assert_close(
        penalty.detach(),
        penalty_by_hand([model.embed.weight], 0.1, 0.2),
        "the embedding and output layer share one weight: count it once (model.parameters() "
        "yields a shared parameter once)",
    )
    model.embed.requires_grad_(False)
    frozen = weight_penalty(model, l1=0.1, l2=0.2)
    assert_close(
        frozen.detach(),
        penalty_by_hand([model.embed.weight], 0.1, 0.2),
        "a frozen weight (requires_grad=False) is still a weight: it counts in the penalty",
    )


def test_zero_strengths_give_zero(device):
    model = Net().to(device)
    penalty = weight_penalty(model)
    check_tensor(penalty, shape=(), device=device, name="the penalty")
    assert penalty.item() == 0.0


@pytest.mark.parametrize("l1, l2", [(-0.1, 0.0), (0.0, -1e-3)])
def test_negative_strength_raises(device, l1, l2):
    with raises(ValueError):
        weight_penalty(Net().to(device), l1=l1, l2=l2)


# --- EarlyStopping -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "losses, patience, min_delta, stop_at, best",
    [
        ([5.0, 4.0, 3.0, 3.5, 3.2, 3.1, 2.9], 3, 0.0, 5, 3.0),
        ([3.0, 3.5, 3.2, 2.9, 3.0, 3.0, 3.0], 3, 0.0, 6, 2.9),
        ([2.0, 2.0, 2.0], 2, 0.0, 2, 2.0),
        ([1.0, 0.5, 0.6], 1, 0.0, 2, 0.5),
        ([5.0, 4.0, 3.0, 2.0, 1.0], 1, 0.0, None, 1.0),
        ([1.0, 0.95, 0.92, 0.5], 2, 0.1, 2, 1.0),
        ([1.0, 0.95, 0.92, 0.85, 0.84, 0.83, 0.82], 3, 0.1, 6, 0.85),
        ([4.0, 3.85, 3.7, 3.65], 1, 0.1, 3, 3.7),
    ],
    ids=[
        "patience 3",
        "improvement resets the count",
        "equal is no improvement",
        "patience 1",
        "always improving",
        "min_delta",
        "min_delta from the best",
        "min_delta is absolute",  # not a fraction of best_loss
    ],
)
def test_stops_after_patience_epochs_without_improvement(
    device, losses, patience, min_delta, stop_at, best
):
    check_stops(device, losses, patience, min_delta, stop_at, best)


def test_a_loss_exactly_min_delta_below_the_best_is_no_improvement(device):
    # min_delta, the best loss and the patience drawn from the seeded generator (grading's
    # held-out seed draws others), all exact in binary, so best - min_delta is exact: a loss
    # on that bar does not improve (strictly below it does), whatever min_delta is.
    min_delta, best, patience = dyadic(), 2.0 ** random.randint(0, 3), random.randint(1, 6)
    losses = [best, best - min_delta, best - 2 * min_delta] + [best - 3 * min_delta] * patience
    check_stops(device, losses, patience, min_delta, 2 + patience, best - 2 * min_delta)


def check_stops(device, losses, patience, min_delta, stop_at, best):
    stopper = EarlyStopping(patience=patience, min_delta=min_delta)
    model = nn.Linear(2, 1).to(device)
    decisions = []
    for loss in losses:
        decision = stopper.step(loss, model)
        assert isinstance(decision, bool), f"step should return a bool, got {decision!r}"
        decisions.append(decision)
        if decision:
            break
    expected = [False] * len(losses) if stop_at is None else [False] * stop_at + [True]
    assert decisions == expected, (
        f"losses {losses} with patience={patience}, min_delta={min_delta}: expected "
        f"{expected}, got {decisions}; stop at the patience-th epoch in a row that does not "
        "beat best_loss - min_delta"
    )
    assert stopper.best_loss == best, f"best_loss should be {best}, got {stopper.best_loss}"


def test_keeps_advising_to_stop_until_an_epoch_improves(device):
    stopper = EarlyStopping(patience=2)
    model = nn.Linear(2, 1).to(device)
    decisions = [stopper.step(loss, model) for loss in [1.0, 0.8, 0.9, 0.85, 0.86, 0.87, 0.7]]
    assert decisions == [False, False, False, True, True, True, False], (
        f"losses 1.0, 0.8, 0.9, 0.85, 0.86, 0.87, 0.7 with patience 2: got {decisions}; the "
        "epochs after the patience-th one without improvement still advise to stop (count "
        "them: >= patience, not == patience), until an epoch improves and resets the count"
    )


@pytest.mark.parametrize("first", [math.nan, math.inf, -math.inf], ids=["nan", "inf", "-inf"])
def test_a_non_finite_loss_never_improves(device, first):
    model = bn_model(device)
    stopper = EarlyStopping(patience=2)
    stopped = stopper.step(first, model)
    assert stopped is False, "one epoch without improvement is not yet patience 2"
    assert stopper.best_loss == math.inf, (
        f"a first loss of {first} is no improvement: best_loss stays inf, got {stopper.best_loss}"
    )
    with raises(RuntimeError):
        stopper.restore_best(model)  # no epoch has improved: there are no weights to restore
    assert stopper.step(2.0, model) is False, "the first finite loss improves"
    assert stopper.best_loss == 2.0, f"best_loss should be 2.0, got {stopper.best_loss}"
    assert stopper.step(first, model) is False and stopper.step(first, model) is True, (
        f"two losses of {first} in a row after the best epoch are two epochs without improvement"
    )
    assert stopper.best_loss == 2.0, f"best_loss should stay 2.0, got {stopper.best_loss}"


def test_best_loss_starts_at_infinity(device):
    stopper = EarlyStopping(patience=2)
    assert stopper.best_loss == math.inf


def bn_model(device):
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 1)).to(device)


def snapshot(model):
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def train_one_epoch(model, optimizer, device):
    model.train()
    x, y = torch.randn(16, 3, device=device), torch.randn(16, 1, device=device)
    optimizer.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    optimizer.step()  # updates the parameters in place; the forward updated BatchNorm's stats


def test_restores_a_copy_of_the_best_weights_and_buffers(device):
    model = bn_model(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    stopper = EarlyStopping(patience=3)
    states, stopped = [], False
    for loss in [3.0, 2.0, 2.5, 2.7, 2.8]:
        train_one_epoch(model, optimizer, device)
        states.append(snapshot(model))
        stopped = stopper.step(loss, model)
        if stopped:
            break
    assert stopped and len(states) == 5, "should stop at the fifth epoch (patience 3)"
    parameters_before = list(model.parameters())
    stopper.restore_best(model)
    for key, value in model.state_dict().items():
        assert same_device(value.device, device), f"{key} should stay on {device}"
        assert_close(
            value,
            states[1][key],
            f"after restore_best, {key} should be its value at the best epoch (epoch 1); "
            "save a copy (copy.deepcopy of the state_dict), not the live tensors",
            rtol=0,
            atol=0,
        )
    assert all(a is b for a, b in zip(model.parameters(), parameters_before, strict=True)), (
        "restore the values into the model's own parameters (load_state_dict), so the "
        "optimizer still updates them"
    )


def test_restore_is_not_changed_by_later_in_place_updates(device):
    model = bn_model(device)
    stopper = EarlyStopping(patience=2)
    stopper.step(1.0, model)
    best = snapshot(model)
    with torch.no_grad():
        for tensor in model.state_dict().values():
            tensor.add_(1)  # parameters and buffers, changed in place
    stopper.step(1.5, model)
    # Twice: training goes on after a restore, and the saved copy stays the best epoch's.
    for restore in ("first", "second"):
        stopper.restore_best(model)
        for key, value in model.state_dict().items():
            assert_close(
                value,
                best[key],
                f"{key} was not restored to the saved copy at the {restore} restore_best: "
                "keep the copy apart from the model's tensors, also after a restore",
                rtol=0,
                atol=0,
            )
        with torch.no_grad():
            for tensor in model.state_dict().values():
                tensor.add_(1)


def test_two_stoppers_keep_their_own_best_weights(device):
    models = [bn_model(device), bn_model(device)]
    stoppers = [EarlyStopping(patience=3), EarlyStopping(patience=3)]
    losses = [[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]]  # best epochs: 0 for the first, 2 for the second
    best = [None, None]
    for epoch in range(3):
        for i in (0, 1):  # interleaved, as with one stopper per model or per metric
            with torch.no_grad():
                for p in models[i].parameters():
                    p.fill_(10 * i + epoch)
            stoppers[i].step(losses[i][epoch], models[i])
            if epoch == (0, 2)[i]:
                best[i] = snapshot(models[i])
    for i in (0, 1):
        stoppers[i].restore_best(models[i])
        for key, value in models[i].state_dict().items():
            assert_close(
                value,
                best[i][key],
                f"stopper {i} restored {key} from another stopper's best epoch; keep the saved "
                "copy on the instance, not in a dict shared by the class",
                rtol=0,
                atol=0,
            )


@pytest.mark.parametrize("stateless", [False, True], ids=["batchnorm model", "stateless model"])
def test_restore_before_any_step_raises(device, stateless):
    # The check is restore_best's own: a model with no state at all (nn.ReLU) has no missing
    # key for load_state_dict to complain about.
    stopper = EarlyStopping(patience=2)
    with raises(RuntimeError):
        stopper.restore_best(nn.ReLU() if stateless else bn_model(device))


@pytest.mark.parametrize(
    "patience, min_delta",
    [(0, 0.0), (-1, 0.0), (2, -0.1), (2, math.nan), (2, math.inf), (2, -math.inf)],
)
def test_rejects_bad_settings(device, patience, min_delta):
    # min_delta is a finite number >= 0: a check written `min_delta < 0` lets nan through
    # (every comparison with nan is False), and with inf no epoch could ever improve.
    with raises(ValueError):
        EarlyStopping(patience=patience, min_delta=min_delta)
        pytest.fail(
            f"EarlyStopping(patience={patience}, min_delta={min_delta}) should raise "
            "ValueError: patience >= 1 and min_delta finite and >= 0 (nan and inf refused)"
        )


def test_restores_a_deep_copied_model_too(device):
    """restore_best works for a model that is not the one the weights were taken from."""
    model = bn_model(device)
    stopper = EarlyStopping(patience=1)
    stopper.step(0.5, model)
    best = snapshot(model)
    other = copy.deepcopy(model)
    with torch.no_grad():
        for p in other.parameters():
            p.zero_()
    stopper.restore_best(other)
    for key, value in other.state_dict().items():
        assert_close(value, best[key], f"{key} was not restored", rtol=0, atol=0)


# ---------------------------------------------------------------- dropout


def dropped(x, p, training):
    with forbidden_ops(
        F.dropout,
        torch.dropout,
        reason="build the mask yourself",
        aten=["dropout", "native_dropout"],
    ):
        return dropout(x, p, training)


@pytest.mark.parametrize("p", [0.25, 0.6])
def test_dropout_in_training_zeroes_a_fraction_p_and_scales_the_rest(device, p):
    # 2-D and not contiguous (a transposed view): any shape and layout, each element on its own.
    x = torch.linspace(1, 2, 20000, device=device).reshape(100, 200).t()
    out = dropped(x, p, training=True)
    check_tensor(out, shape=x.shape, dtype=x.dtype, device=device, name="dropout(x, p, True)")
    kept = out != 0
    for dim in range(x.dim()):
        assert not (kept == kept.select(dim, 0).unsqueeze(dim)).all(), (
            f"the same elements were kept along dim {dim} of a {tuple(x.shape)} x: draw one "
            "keep-or-drop per element (a mask of x's shape), not one shared along a dimension"
        )
    fraction = 1 - kept.double().mean().item()
    assert abs(fraction - p) < 0.02, (
        f"each element is dropped with probability p = {p}; {fraction:.3f} of them were"
    )
    assert_close(
        out[kept],
        x[kept] / (1 - p),
        msg="kept elements are scaled by 1 / (1 - p), so that the expected output is x",
    )


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float64])
def test_dropout_in_training_keeps_the_dtype(device, dtype):
    skip_unless_supported(device, dtype)
    x = torch.ones(64, dtype=dtype, device=device)
    # 1 / (1 - p) is no float32 value: a scale computed in float32 shows in float64.
    p = 0.3
    out = dropped(x, p, training=True)
    check_tensor(out, shape=x.shape, dtype=dtype, device=device, name=f"dropout(x, {p}, True)")
    kept = out[out != 0].cpu().double()
    assert kept.numel(), "dropout(x, 0.3, True) dropped all 64 elements"
    scale = torch.tensor(1 / (1 - p), dtype=torch.float64).to(dtype).double()
    rtol, atol = facets.TOLERANCE[dtype]
    torch.testing.assert_close(
        kept,
        scale.expand_as(kept),
        rtol=rtol,
        atol=atol,
        msg=lambda report: f"each element is 0 or x / (1 - p), in x's dtype\n{report}",
    )


def test_dropout_zeroes_dropped_elements_where_the_scaled_value_overflows(device):
    skip_unless_supported(device, torch.float16)
    # 60000 / (1 - 0.5) is past float16's largest value: a kept element becomes inf, and a
    # dropped one is still 0 (scaling x before masking gives inf * 0 = NaN there).
    x = torch.full((64,), 6e4, dtype=torch.float16, device=device)
    out = dropped(x, 0.5, training=True)
    check_tensor(out, shape=x.shape, dtype=x.dtype, device=device, name="dropout(x, 0.5, True)")
    assert not out.isnan().any(), (
        "dropout of a finite float16 x gave NaN: x / (1 - p) overflows to inf here, and inf "
        "times a mask of 0 is NaN; mask first (x * keep / (1 - p)) or select with torch.where"
    )
    assert ((out == 0) | (out == math.inf)).all(), (
        "each element is 0 (dropped) or x / (1 - p), which overflows float16 to inf here"
    )


def test_dropout_in_eval_mode_is_the_identity(device):
    x = torch.randn(5, 7, device=device, requires_grad=True)
    out = dropped(x, 0.5, training=False)
    assert torch.equal(out, x), "in eval mode dropout changes nothing (no mask, no scaling)"
    (grad,) = torch.autograd.grad(out.sum(), x)
    assert torch.equal(grad, torch.ones_like(x)), "in eval mode the gradient is 1"


def test_dropout_gradient_follows_the_mask(device):
    x = torch.randn(400, device=device, requires_grad=True)
    out = dropped(x, 0.5, training=True)
    (grad,) = torch.autograd.grad(out.sum(), x)
    kept = (out != 0).to(x.dtype)
    assert_close(grad, kept * 2.0, msg="the gradient is 1 / (1 - p) where kept, 0 where dropped")


def test_dropout_at_p_0_and_p_1(device):
    x = torch.randn(6, 3, device=device)
    assert torch.equal(dropped(x, 0.0, training=True), x), "p = 0 keeps every element as it is"
    out = dropped(x, 1.0, training=True)
    assert torch.equal(out, torch.zeros_like(x)), (
        "p = 1 drops every element: zeros, not NaN (0 times 1 / (1 - 1) is 0 * inf)"
    )


def test_dropout_draws_from_the_callers_seed(device):
    x = torch.ones(64, device=device)
    torch.manual_seed(seed_for(3))
    first = dropped(x, 0.5, training=True)
    torch.manual_seed(seed_for(3))
    again = dropped(x, 0.5, training=True)
    later = dropped(x, 0.5, training=True)
    assert torch.equal(first, again), "after the same torch.manual_seed, the same mask"
    assert not torch.equal(again, later), "each call draws a new mask"


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("p", [-0.1, 1.5, float("nan")])
def test_dropout_rejects_p_outside_0_1(device, p, training):
    with raises(ValueError):
        dropout(torch.ones(3, device=device), p, training)
        pytest.fail(f"p = {p} is outside [0, 1]: ValueError, in training and in eval mode")


# ---------------------------------------------------------------- facets


def net(dtype, device):
    return Net().to(device=device, dtype=dtype)


def penalty64(model, l1, l2):
    return penalty_by_hand([w.double().cpu() for w in model.weights()], l1, l2)


def stepped(device):
    """A stopper that kept the weights of its first epoch, and a model trained since."""
    model = bn_model(device)
    stopper = EarlyStopping(patience=3)
    stopper.step(1.0, model)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(1.0)
    return facets.args(stopper, model)


def small_improvements(arguments, stopper):
    """What a stopper decides over losses that improve by 1e-6 an epoch: each one improves
    with min_delta 0, none with a default of the 1e-4 some libraries pick."""
    model = nn.Linear(2, 1)
    losses = [1.0, 1.0 - 1e-6, 1.0 - 2e-6, 1.0 - 3e-6]
    return [stopper.step(loss, model) for loss in losses], stopper.best_loss


def ramp(dtype, device):
    return torch.linspace(-3, 3, 24, dtype=torch.float64).reshape(4, 6).to(device, dtype)


def edge_penalty(model, device):
    return facets.args(model, 0.1, 0.2)


def penalty_facts(model, l1, l2):
    """The penalty's value, device kind and dtype."""
    penalty = weight_penalty(model, l1, l2)
    return penalty.item(), penalty.device.type, penalty.dtype


def penalty_expected(model, l1, l2):
    """The oracle: a loop over the model's distinct weights in float64; the parameters'
    device and dtype, float32 on the CPU without parameters."""
    unique = {id(p): p for p in model.parameters()}.values()
    value = sum(
        (l1 * w.detach().double().abs().sum() + l2 * w.detach().double().pow(2).sum()).item()
        for w in unique
        if w.dim() >= 2
    )
    first = next(iter(unique), None)
    if first is None:
        return float(value), "cpu", torch.float32
    return float(value), first.device.type, first.dtype


def edge_restore(model, device):
    """A stopper that kept the edge model's state, and the model changed since."""
    stopper = EarlyStopping(2)
    assert stopper.step(1.0, model) is False
    before = {key: value.clone() for key, value in model.state_dict().items()}
    with torch.no_grad():
        for value in model.state_dict().values():
            value.add_(1)
    return facets.args(stopper, model, before)


def restored(stopper, model, before):
    return stopper.restore_best(model), dict(model.state_dict())


FACETS = facets.declare(
    # Models at the edges: nothing, no parameters, buffers only, all frozen.
    facets.of(
        weight_penalty,
        facets.Edges(facets.edge_models(edge_penalty), oracle=penalty_expected),
        name="weight_penalty(edge models)",
        call=penalty_facts,
    ),
    facets.of(
        EarlyStopping,
        facets.Edges(
            facets.edge_models(lambda model, device: facets.args(EarlyStopping(2), model)),
            oracle=lambda stopper, model: [False, False, True],
        ),
        name="EarlyStopping.step(edge models)",
        call=lambda stopper, model: [stopper.step(loss, model) for loss in (1.0, 1.5, 2.0)],
    ),
    facets.of(
        EarlyStopping,
        facets.Edges(
            facets.edge_models(edge_restore),
            oracle=lambda stopper, model, before: (None, dict(before)),
        ),
        name="EarlyStopping.restore_best(edge models)",
        call=restored,
    ),
    facets.of(
        weight_penalty,
        facets.Dtypes(
            lambda dtype, device: facets.args(net(dtype, device), 0.01, 0.1),
            oracle=penalty64,
            ulps=8,  # a sum of many terms in the parameters' dtype
        ),
        *(
            facets.Setting(
                lambda device: facets.args(nn.Linear(2, 2).to(device), l1=0.1, l2=0.1),
                name,
                low=0,
            )
            for name in ("l1", "l2")
        ),
        facets.DefaultDevice(
            lambda device: facets.args(nn.ReLU(), 0.1, 0.1),
            where="cpu",
        ),
        facets.Unmodified(
            lambda device: facets.args(net(torch.float32, device), 0.1, 0.2), module_grads=True
        ),
        facets.Defaults(values={"l1": 0.0, "l2": 0.0}),
        # Called again after the model changed: read anew, nothing kept from the last call.
        facets.Changed(lambda device: facets.args(net(torch.float32, device), 0.1, 0.2)),
    ),
    facets.of(
        EarlyStopping,
        facets.Setting(
            lambda device: facets.args(patience=2, min_delta=0.0),
            "patience",
            low=1,
            integer=True,
            nan=True,  # "a NaN patience ... included"
        ),
        facets.Setting(
            lambda device: facets.args(patience=2, min_delta=0.0),
            "min_delta",
            low=0,
            high=math.inf,
            high_open=True,  # finite: with an infinite min_delta no epoch could improve
        ),
        facets.Defaults(
            lambda device: facets.args(patience=2),
            values={"min_delta": 0.0},
            key=small_improvements,
        ),
    ),
    facets.of(
        EarlyStopping,
        facets.Number(lambda device: facets.args(EarlyStopping(2), 0.5, bn_model(device)), bool),
        facets.Unmodified(
            lambda device: facets.args(EarlyStopping(2), 0.5, bn_model(device)), module_grads=True
        ),
        name="EarlyStopping.step",
        call=lambda stopper, loss, model: stopper.step(loss, model),
    ),
    facets.of(
        EarlyStopping,
        facets.UpdatesAll(stepped, params=lambda arguments: list(arguments.args[1].parameters())),
        name="EarlyStopping.restore_best",
        call=lambda stopper, model: stopper.restore_best(model),
    ),
    facets.of(
        dropout,
        facets.Setting(
            lambda device: facets.args(torch.ones(4, device=device), p=0.5, training=True),
            "p",
            low=0,
            high=1,
        ),
        facets.Dtypes(
            lambda dtype, device: facets.args(ramp(dtype, device), 0.5, training=False),
            oracle=lambda x, p, training: x,
        ),
        facets.Gradients(
            lambda dtype, device: facets.args(ramp(dtype, device), 0.5, training=False),
            oracle=lambda x, p, training: x,
        ),
        facets.Shapes(
            lambda shape, device: facets.args(torch.randn(shape, device=device), 0.5, False),
            oracle=lambda x, p, training: x,
        ),
        # Training at p = 1 and p = 0 draws a mask yet has one result: all dropped, all kept.
        facets.Dtypes(
            lambda dtype, device: facets.args(ramp(dtype, device), 1.0, training=True),
            oracle=lambda x, p, training: x * 0,
            label="p=1",
            once=True,  # zeros: exact
        ),
        facets.Gradients(
            lambda dtype, device: facets.args(ramp(dtype, device), 1.0, training=True),
            oracle=lambda x, p, training: x * 0,
            label="p=1",
        ),
        facets.Gradients(
            lambda dtype, device: facets.args(ramp(dtype, device), 0.0, training=True),
            oracle=lambda x, p, training: x,
            label="p=0",
        ),
        facets.Seeded(lambda device: facets.args(torch.ones(32, device=device), 0.5, True)),
        facets.Unmodified(lambda device: facets.args(torch.randn(4, 5, device=device), 0.5, True)),
    ),
)
test_facets = FACETS.test
