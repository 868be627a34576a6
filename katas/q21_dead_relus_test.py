import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from katas.q21_dead_relus import dead_and_saturated, dead_relu_fraction, output_activation
from torch_katas import facets
from torch_katas.testing import (
    dyadic,
    hooks_left,
    raises,
    same_device,
    seed_for,
    skip_unless_supported,
)


def linear_model(device, n):
    """A Linear(4, 8) + ReLU with 4 dead units out of 8 on the batch `linear_batch(n)`."""
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
    weight = torch.zeros(8, 4)
    bias = torch.zeros(8)
    weight[0:3] = -1.0  # inputs are positive: pre-activations negative for every example
    weight[3:6] = 1.0  # positive for every example
    weight[6, 0] = 1.0  # fires for the last example only: alive, though mostly zero
    bias[6] = -(n - 0.5) / n
    # unit 7: weight and bias 0, so exactly 0 everywhere: dead
    with torch.no_grad():
        model[0].weight.copy_(weight)
        model[0].bias.copy_(bias)
    return model.to(device)


def linear_batch(device, n):
    x = torch.rand(n, 4, device=device) + 0.1
    x[:, 0] = torch.arange(1, n + 1, device=device) / n  # the last example has the largest
    return x


def conv_model(device):
    """Conv2d(2, 4, 3, padding=1) + ReLU on 5×5 inputs: 100 units, 73 dead on `conv_batch`."""
    conv = nn.Conv2d(2, 4, 3, padding=1)
    with torch.no_grad():
        conv.weight.zero_()
        conv.bias.copy_(torch.tensor([-1.0, 1.0, 0.0, 0.0]))  # dead, alive, dead (exact 0)
        conv.weight[3, 0, 1, 1] = 1.0  # channel 3 copies input channel 0
    return nn.Sequential(conv, nn.ReLU()).to(device)


def conv_batch(device, n=6):
    x = -torch.rand(n, 2, 5, 5, device=device) - 0.1
    x[:, 0, 0, 0] = 1.0  # channel 3 fires here for every example,
    x[:, 0, 4, 4] = torch.linspace(-1, 1, n, device=device)  # here for the last one only,
    return x  # and nowhere else: 23 of its 25 units are dead


class Net(nn.Module):
    """Nested ReLUs, one in place, one never run, plus activations that do not count."""

    def __init__(self):
        super().__init__()
        self.block = nn.Sequential(nn.Linear(6, 16), nn.ReLU(inplace=True))
        self.head = nn.ModuleDict({"fc": nn.Linear(16, 16), "act": nn.ReLU()})
        self.leaky = nn.LeakyReLU()
        self.unused = nn.ReLU()
        self.out = nn.Linear(16, 3)
        with torch.no_grad():  # 4 head units surely dead, 4 surely alive, 8 left to chance
            self.head["fc"].weight[:8] = 0.0
            self.head["fc"].bias[:8] = torch.tensor([-1.0] * 4 + [1.0] * 4)

    def forward(self, x):
        h = self.block(x)
        h = self.head["act"](self.head["fc"](h))
        return self.out(F.relu(self.leaky(h)))


def dead_fraction_by_loop(output):
    """Dead units counted one by one: a unit is dead when no example makes it nonzero."""
    per_example = output.reshape(output.shape[0], -1).cpu().tolist()
    units = len(per_example[0])
    dead = sum(all(row[unit] == 0 for row in per_example) for unit in range(units))
    return dead / units


@pytest.mark.parametrize("n", [1, 16])
def test_known_fraction_after_a_linear_layer(device, n):
    model, x = linear_model(device, n), linear_batch(device, n)
    result = dead_relu_fraction(model, x)
    assert isinstance(result, dict), f"return a dict, got {type(result).__name__}"
    assert result == pytest.approx({"1": 0.5}, abs=1e-6), (
        "4 of the 8 units are zero for every example; the unit that fires for a single "
        "example is alive (count dead units, not zero outputs)"
    )
    assert all(type(value) is float for value in result.values()), (
        "the fractions should be Python floats (tensor.item())"
    )


def test_every_position_of_a_conv_output_is_a_unit(device):
    result = dead_relu_fraction(conv_model(device), conv_batch(device))
    assert result == pytest.approx({"1": 0.73}, abs=1e-6), (
        "a (N, C, H, W) output has C×H×W units: one per channel and position, not one per channel"
    )


def test_nested_relus_by_qualified_name(device):
    model = Net().to(device)
    x = torch.randn(32, 6, device=device)
    result = dead_relu_fraction(model, x)
    with torch.no_grad():
        block = model.block(x.clone())
        head = model.head["act"](model.head["fc"](block))
    expected = {"block.1": dead_fraction_by_loop(block), "head.act": dead_fraction_by_loop(head)}
    assert result.keys() == expected.keys(), (
        f"expected entries for {sorted(expected)}, got {sorted(result)}: one per nn.ReLU "
        "module that ran, named as in model.named_modules() (no LeakyReLU, no F.relu, "
        "nothing for a ReLU that never ran)"
    )
    assert result == pytest.approx(expected, abs=1e-6)


def test_a_model_that_is_a_relu_is_reported_under_the_empty_name(device):
    x = torch.tensor([[-1.0, 2.0, -3.0], [-1.0, -2.0, -3.0]], device=device)
    result = dead_relu_fraction(nn.ReLU(), x)
    assert result == pytest.approx({"": 2 / 3}, abs=1e-6), (
        f"got {result}: model.named_modules() gives the model itself first, under the name "
        "''; an nn.ReLU model is one ReLU module, reported as {'': fraction}"
    )


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_fractions_of_a_half_precision_model(device, dtype):
    skip_unless_supported(device, dtype)
    model = nn.Sequential(nn.Linear(3, 3), nn.ReLU()).to(device, dtype)
    with torch.no_grad():
        model[0].weight.copy_(torch.eye(3))
        model[0].bias.copy_(torch.tensor([0.0, -9.0, -9.0]))
    result = dead_relu_fraction(model, torch.rand(4, 3, device=device, dtype=dtype) + 0.5)
    assert result == pytest.approx({"1": 2 / 3}, abs=1e-6), (
        f"got {result} for 2 of 3 dead units of a {dtype} model: count them in float32 or "
        f"float64, not in the output's dtype"
    )


def test_removes_its_hooks(device):
    model = Net().to(device)
    seen = []
    own = model.head["act"].register_forward_hook(lambda *args: seen.append(1))
    dead_relu_fraction(model, torch.randn(4, 6, device=device))
    assert seen and own.id in model.head["act"]._forward_hooks, (
        "a hook that was on the model before was removed or bypassed; remove only your own "
        "hooks, through the handles that register_forward_hook returns"
    )
    own.remove()
    assert not hooks_left(model), (
        f"hooks left behind in {hooks_left(model)}: keep the handles that "
        "register_forward_hook returns and call .remove() on each"
    )


class ForwardFailed(Exception):
    """Raised by a test model on purpose (not a RuntimeError: NotImplementedError is one)."""


def test_removes_its_hooks_when_the_forward_pass_raises(device):
    class Broken(nn.Module):
        def __init__(self):
            super().__init__()
            self.act = nn.ReLU()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            self.fc(self.act(x))
            raise ForwardFailed("forward failed on purpose")

    model = Broken().to(device)
    with raises(ForwardFailed) as failure:
        dead_relu_fraction(model, torch.randn(3, 4, device=device))
    assert str(failure.value) == "forward failed on purpose", (
        f"the forward pass's error should propagate unchanged, got {failure.value!r}"
    )
    assert not hooks_left(model), (
        f"hooks left behind in {hooks_left(model)} after the forward pass raised; "
        "remove them in a `finally:` block"
    )


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
def test_leaves_the_model_and_input_as_they_were(device, training):
    model = Net().to(device).train(training)
    x = torch.randn(8, 6, device=device)
    x_before = x.clone()
    state_before = {key: value.clone() for key, value in model.state_dict().items()}
    for p in model.parameters():  # measured between a backward and the optimizer step
        p.grad = torch.randn_like(p)
    grads_before = {name: p.grad.clone() for name, p in model.named_parameters()}
    saved = []  # tensors autograd keeps for a backward: none when no graph is recorded
    with torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(1) or t, lambda t: t):
        dead_relu_fraction(model, x)
    assert all(module.training == training for module in model.modules()), (
        "the model's train/eval mode changed; leave it as it was"
    )
    assert torch.equal(x, x_before), "x was modified"
    for key, value in model.state_dict().items():
        assert torch.equal(value, state_before[key]), f"{key} changed"
    assert not saved, (
        "the forward pass recorded an autograd graph (it saved tensors for a backward); this "
        "is a measurement: run the model under torch.no_grad()"
    )
    for name, p in model.named_parameters():
        assert p.grad is not None and torch.equal(p.grad, grads_before[name]), (
            f"{name}.grad changed: leave the gradients the caller accumulated as they are "
            "(compute none, clear none)"
        )


def test_leaves_x_as_it_was_when_the_model_works_in_place_on_its_input(device):
    model = nn.Sequential(nn.ReLU(inplace=True), nn.Linear(4, 3)).to(device)
    x = torch.randn(5, 4, device=device)
    x[:, 0] = -1.0  # unit 0 of the first ReLU is dead
    x_before = x.clone()
    result = dead_relu_fraction(model, x)
    assert torch.equal(x, x_before), (
        "x was modified: the model's first layer is nn.ReLU(inplace=True), which overwrites "
        "its input; run the model on a copy of x (x.clone())"
    )
    assert result == pytest.approx({"0": dead_fraction_by_loop(x_before.clamp(min=0))})


def test_counts_inside_the_hook_before_later_in_place_ops(device):
    class AddOne(nn.Module):
        def forward(self, x):
            return x.add_(1.0)  # changes the ReLU's output tensor in place

    model = linear_model(device, 4).append(AddOne())
    result = dead_relu_fraction(model, linear_batch(device, 4))
    assert result == pytest.approx({"1": 0.5}, abs=1e-6), (
        f"got {result}: an in-place op after the ReLU changed its output before you counted; "
        "count the dead units inside the hook, right when the ReLU has run"
    )


def test_rejects_an_empty_batch(device):
    with raises(ValueError):
        dead_relu_fraction(linear_model(device, 1), torch.empty(0, 4, device=device))


def test_examples_without_features_are_a_batch(device):
    class Bias(nn.Module):  # a layer of 0 inputs: its output is its bias, per example
        def __init__(self):
            super().__init__()
            self.bias = nn.Parameter(torch.tensor([1.0, -1.0, 1.0, -1.0]))

        def forward(self, x):
            return self.bias.expand(x.shape[0], -1)

    model = nn.Sequential(Bias(), nn.ReLU()).to(device)
    result = dead_relu_fraction(model, torch.empty(3, 0, device=device))
    assert result == {"1": 0.5}, (
        f"got {result}: x of shape (3, 0) holds 3 examples (with no features); only a batch "
        "of 0 examples is refused (check x.shape[0], not x.numel())"
    )


def test_a_nan_output_is_not_dead(device):
    x = torch.tensor([[math.nan, -1.0], [-1.0, -1.0]], device=device)
    result = dead_relu_fraction(nn.Sequential(nn.ReLU()).to(device), x)
    assert result == {"0": 0.5}, (
        f"got {result}: relu(nan) is nan, which is not 0, so unit 0 is not dead (compare with "
        "== 0: NaN > 0 is False as well)"
    )


def test_a_relu_under_two_names_is_one_module(device):
    class Shared(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 8)
            self.act = nn.ReLU()
            self.alias = self.act  # the same module object, registered twice

        def forward(self, x):
            return self.act(self.fc(x))

    model = linear_model(device, 4)
    shared = Shared().to(device)
    shared.fc = model[0]
    result = dead_relu_fraction(shared, linear_batch(device, 4))
    assert result == pytest.approx({"act": 0.5}, abs=1e-6), (
        f"got {result}: one ReLU object under two names is one module that ran once: one "
        "entry, under the name model.named_modules() gives it (hook each module once)"
    )


def batchnorm_model(device):
    """BatchNorm1d(4) + ReLU, fresh running stats (mean 0, var 1), on all-negative inputs."""
    return nn.Sequential(nn.BatchNorm1d(4), nn.ReLU()).to(device)


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
def test_batchnorm_measures_in_the_models_mode_and_keeps_buffers(device, training):
    model = batchnorm_model(device).train(training)
    x = torch.randn(16, 4, device=device) - 10.0
    buffers_before = {name: b.clone() for name, b in model.named_buffers()}
    fractions = dead_relu_fraction(model, x)
    # Normalised by the batch's own statistics (training) every unit fires for some example;
    # with the running statistics (eval) all of them are dead.
    expected = {"1": 0.0} if training else {"1": 1.0}
    mode, how = ("training", "by the batch") if training else ("eval", "by its running stats")
    assert fractions == expected, (
        f"got {fractions}: run the forward pass in the mode the model is in (here {mode}, "
        f"where BatchNorm normalises {how}), do not switch it"
    )
    for name, buffer in model.named_buffers():
        assert torch.equal(buffer, buffers_before[name]), (
            f"{name} changed: the forward in training mode updated BatchNorm's running "
            "statistics; save the buffers and copy them back afterwards"
        )


def test_batchnorm_buffers_restored_when_the_forward_pass_raises(device):
    class Fails(nn.Module):
        def forward(self, x):
            raise ForwardFailed("forward failed on purpose")

    model = nn.Sequential(nn.BatchNorm1d(4), nn.ReLU(), Fails()).to(device).train()
    x = torch.randn(16, 4, device=device) + 3.0
    buffers_before = {name: b.clone() for name, b in model.named_buffers()}
    with raises(ForwardFailed):
        dead_relu_fraction(model, x)
    for name, buffer in model.named_buffers():
        assert torch.equal(buffer, buffers_before[name]), (
            f"{name} changed after a failed forward pass; put the buffers back in `finally:`"
        )


def test_a_training_batchnorm_inside_an_eval_model_keeps_its_buffers(device):
    model = batchnorm_model(device).eval()
    model[0].train()  # each module's own mode counts, not the model's
    x = torch.randn(16, 4, device=device) - 10.0
    buffers_before = {name: b.clone() for name, b in model.named_buffers()}
    dead_relu_fraction(model, x)
    for name, buffer in model.named_buffers():
        assert torch.equal(buffer, buffers_before[name]), (
            f"{name} changed: a BatchNorm in training mode updates its buffers whatever mode "
            "the model is in; put every buffer back, always"
        )


@pytest.mark.parametrize(
    ("x", "expected"),
    [([-1.0, -2.0, 3.0], 0.0), ([-1.0, -2.0], 1.0)],
    ids=["fires once", "never fires"],
)
def test_a_relu_output_of_shape_n_is_one_unit(device, x, expected):
    result = dead_relu_fraction(nn.Sequential(nn.ReLU()), torch.tensor(x, device=device))
    assert result == {"0": expected}, (
        f"got {result}: an output of shape (N,) is one unit per example (reshape to (N, -1), "
        "not flatten(1))"
    )


def test_a_relu_without_units_has_no_dead_unit(device):
    result = dead_relu_fraction(nn.Sequential(nn.ReLU()), torch.empty(3, 0, device=device))
    assert result == {"0": 0.0}, (
        f"got {result}: a ReLU output with no units has no dead unit, 0.0 (a mean over no "
        "units is NaN)"
    )


def test_keeps_a_forward_replaced_on_the_instance(device):
    relu = nn.ReLU()
    calls = []

    def forward(x):  # set on the instance before the call, by the caller
        calls.append(True)
        return F.relu(x)

    relu.forward = forward
    model = nn.Sequential(nn.Linear(2, 3), relu).to(device)
    result = dead_relu_fraction(model, torch.randn(4, 2, device=device))
    assert set(result) == {"1"} and calls, "the ReLU ran through its own forward"
    assert relu.forward is forward, (  # the instance's own, not the class's bound method
        "the ReLU's forward set on the instance was lost: measure with forward hooks "
        "(register_forward_hook), do not replace or delete forward"
    )


# ---------------------------------------------------------------- dead and saturated units


def phi(x):
    return math.exp(-x * x / 2) / math.sqrt(2 * math.pi)


def big_phi(x):
    return math.erfc(-x / math.sqrt(2)) / 2


def sigmoid(x):
    return 1 / (1 + math.exp(-x))


# name -> (module, value, slope): the activation and its analytic value and derivative.
ACTIVATIONS = {
    "relu": (nn.ReLU, lambda x: max(x, 0.0), lambda x: 1.0 if x > 0 else 0.0),
    "leaky_relu": (
        nn.LeakyReLU,
        lambda x: x if x > 0 else 0.01 * x,
        lambda x: 1 if x > 0 else 0.01,
    ),
    "gelu": (nn.GELU, lambda x: x * big_phi(x), lambda x: big_phi(x) + x * phi(x)),
    "sigmoid": (nn.Sigmoid, sigmoid, lambda x: sigmoid(x) * (1 - sigmoid(x))),
    "tanh": (nn.Tanh, math.tanh, lambda x: 1 - math.tanh(x) ** 2),
}


def modules():
    return {name: cls() for name, (cls, _, _) in ACTIVATIONS.items()}


def fractions_by_loop(pre, threshold):
    """Dead and saturated fractions from the analytic values and slopes, unit by unit."""
    rows = pre.reshape(pre.shape[0], -1).double().cpu().tolist()
    units = len(rows[0])
    expected = {}
    for name, (_, value, slope) in ACTIVATIONS.items():
        column = [[(value(row[u]), slope(row[u])) for row in rows] for u in range(units)]
        dead = sum(all(v == 0 and d == 0 for v, d in unit) for unit in column)
        saturated = sum(all(abs(d) < threshold for _, d in unit) for unit in column)
        expected[name] = (dead / units, saturated / units)
    return expected


# Values whose slopes sit far from 1e-3 on either side in float32 and float64 alike: the
# sigmoid and tanh saturate at ±10 and ±6 (tanh only at ±6: σ'(6) = 0.0025), GELU below -6
# and not at -2, where its slope is -0.085 (negative: compare its magnitude).
NEGATIVE = (-10.0, -6.0, -2.0, -0.5)
LARGE = (-10.0, -6.0, 6.0, 10.0)
ANY = (-10.0, -6.0, -2.0, -0.5, 0.5, 2.0, 6.0, 10.0)


def constructed_pre(device, dtype, n=6):
    """Columns of three kinds: always negative, always large, anything."""
    generator = torch.Generator().manual_seed(seed_for(21))

    def columns(values, count):
        picks = torch.randint(len(values), (n, count), generator=generator)
        return torch.tensor(values, dtype=dtype)[picks]

    pre = torch.cat(
        [columns(NEGATIVE, 7), columns(LARGE, 9), columns(ANY, 8), columns((-6.0, -10.0), 4)], 1
    )
    return pre.to(device)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_fractions_for_the_common_activations(device, dtype):
    pre = constructed_pre(device, dtype)
    result = dead_and_saturated(pre, modules())
    assert isinstance(result, dict), f"return a dict, got {type(result).__name__}"
    assert list(result) == list(ACTIVATIONS), (
        f"expected the names {list(ACTIVATIONS)} in that order, got {list(result)}"
    )
    for name, value in result.items():
        assert isinstance(value, tuple) and len(value) == 2, (
            f"{name}: expected a (dead, saturated) tuple, got {value!r}"
        )
        assert all(type(fraction) is float for fraction in value), (
            f"{name}: the fractions should be Python floats (tensor.item()), got {value!r}"
        )
    expected = fractions_by_loop(pre, 1e-3)
    for name in ACTIVATIONS:
        assert result[name] == pytest.approx(expected[name], abs=1e-6), (
            f"{name}: got (dead, saturated) = {result[name]}, expected {expected[name]}; a unit "
            "is dead when output and slope are both 0 for every example, saturated when "
            "|slope| < threshold for every example"
        )


def test_zero_output_with_a_slope_is_not_dead(device):
    result = dead_and_saturated(torch.zeros(3, 5, device=device), modules())
    assert result["relu"] == (1.0, 1.0), (
        f"relu at exactly 0: got {result['relu']}; PyTorch's ReLU has slope 0 at 0, so "
        "output and slope are both 0: dead (and saturated)"
    )
    for name in ("leaky_relu", "gelu", "tanh"):
        assert result[name] == (0.0, 0.0), (
            f"{name} at 0 outputs 0 but has a slope ({ACTIVATIONS[name][2](0.0)}): it still "
            f"learns, so it is neither dead nor saturated; got {result[name]} (check the slope, "
            "not only the output)"
        )
    assert result["sigmoid"] == (0.0, 0.0)


def test_flat_but_not_zero_is_saturated_not_dead(device):
    pre = torch.tensor([[20.0, -20.0], [30.0, -25.0]], device=device)
    result = dead_and_saturated(pre, {"tanh": nn.Tanh(), "sigmoid": nn.Sigmoid()})
    assert result == {"tanh": (0.0, 1.0), "sigmoid": (0.0, 1.0)}, (
        f"got {result}: tanh at ±20 and a sigmoid at +20 have no slope left (0 in float32) "
        "but output ±1 and 1: saturated, not dead (dead needs a 0 output too)"
    )


def test_one_live_example_keeps_a_unit_alive(device):
    pre = torch.tensor([[-1.0, -1.0, -9.0, -9.0], [-1.0, 2.0, -9.0, 0.5]], device=device)
    result = dead_and_saturated(pre, {"relu": nn.ReLU(), "tanh": nn.Tanh()})
    assert result == {"relu": (0.5, 0.5), "tanh": (0.0, 0.25)}, (
        f"got {result}: a unit is dead or saturated only when it is so for every example; "
        "one example where it fires or has a slope keeps it alive"
    )


def test_saturation_compares_the_slopes_magnitude(device):
    # GELU dips below 0 for x < 0: its slope there is negative, not small.
    pre = torch.full((4, 3), -2.0, device=device)
    result = dead_and_saturated(pre, {"gelu": nn.GELU()})
    assert result == {"gelu": (0.0, 0.0)}, (
        f"got {result}: GELU's slope at -2 is {big_phi(-2) + -2 * phi(-2):.3f}, negative but "
        "far from 0; saturation compares |slope| with the threshold"
    )


@pytest.mark.parametrize("drawn", [False, True], ids=["slope 0.25", "slope drawn"])
def test_threshold_is_a_strict_bound(device, drawn):
    # LeakyReLU(0.25)'s slope is exactly 0.25 for x < 0, in every floating dtype. Drawn: a
    # dyadic slope (exact in float32) from the seeded generator, so that a threshold on the
    # slope is tested at values other than a quarter.
    slope = dyadic() if drawn else 0.25
    pre = torch.full((2, 4), -3.0, device=device)
    for threshold, saturated in [
        (slope, 0.0),
        (math.nextafter(slope, 1.0), 1.0),
        (2 * slope, 1.0),
        (math.inf, 1.0),
    ]:
        result = dead_and_saturated(pre, {"leaky": nn.LeakyReLU(slope)}, threshold=threshold)
        assert result == {"leaky": (0.0, saturated)}, (
            f"threshold={threshold!r}, slope {slope!r}: got {result}; saturated means |slope| "
            "strictly below the threshold"
        )


def test_every_position_of_an_image_batch_is_a_unit(device):
    pre = torch.full((2, 2, 3, 3), 1.0, device=device)
    pre[:, 0, 0, :] = -4.0  # 3 positions of channel 0 negative for both examples: dead
    pre[0, 1, 2, 2] = -4.0  # negative for one example only: alive
    result = dead_and_saturated(pre, {"relu": nn.ReLU()})
    assert list(result) == ["relu"] and result["relu"] == pytest.approx((3 / 18, 3 / 18)), (
        f"got {result}: an (N, C, H, W) batch has C×H×W units, one per channel and position"
    )


def test_one_unit_per_example(device):
    result = dead_and_saturated(torch.tensor([-1.0, -2.0], device=device), {"relu": nn.ReLU()})
    assert result == {"relu": (1.0, 1.0)}, "a pre of shape (N,) has one unit per example"


def test_functions_and_modules_alike(device):
    pre = torch.tensor([[-20.0, 0.5], [-30.0, 1.0]], device=device)
    result = dead_and_saturated(pre, {"silu": F.silu, "tanh": torch.tanh})
    assert result == {"silu": (0.0, 0.5), "tanh": (0.0, 0.5)}, (
        f"got {result}: activations may be plain functions (F.silu, torch.tanh) as well as modules"
    )


def test_measures_under_no_grad(device):
    with torch.no_grad():
        result = dead_and_saturated(torch.full((2, 2), -1.0, device=device), {"relu": nn.ReLU()})
        assert not torch.is_grad_enabled(), (
            "the caller's torch.no_grad() was switched off for the rest of its block: turn "
            "autograd on inside a `with torch.enable_grad():` block, not with a statement"
        )
    assert result == {"relu": (1.0, 1.0)}, (
        "the caller ran under torch.no_grad(); the slopes need autograd: turn it back on "
        "inside (torch.enable_grad())"
    )


def test_grad_mode_is_restored_when_an_activation_raises(device):
    class Failed(Exception):
        pass

    def broken(x):
        raise Failed

    for enabled in (False, True):
        with torch.set_grad_enabled(enabled):
            with raises(Failed):
                dead_and_saturated(torch.ones(2, 2, device=device), {"broken": broken})
            assert torch.is_grad_enabled() == enabled, (
                f"an activation raised, and the caller's grad mode ({enabled}) was left "
                f"{not enabled}: turn autograd on in a `with torch.enable_grad():` block, "
                "which restores it whatever happens"
            )


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_threshold_is_not_rounded_into_pres_dtype(device, dtype):
    skip_unless_supported(device, dtype)
    # Slopes 0 (ReLU below 0) and 0.25 (LeakyReLU(0.25) below 0), exact in every dtype.
    pre = torch.full((2, 3), -1.0, device=device, dtype=dtype)
    activations = {"relu": nn.ReLU(), "leaky": nn.LeakyReLU(0.25)}
    tiny = math.ulp(0.0)  # 5e-324, which every dtype but float64 rounds to 0
    for threshold, leaky in [(tiny, 0.0), (math.nextafter(0.25, 1.0), 1.0), (0.25, 0.0)]:
        result = dead_and_saturated(pre, activations, threshold=threshold)
        assert result == {"relu": (1.0, 1.0), "leaky": (0.0, leaky)}, (
            f"threshold {threshold!r} in {dtype}: got {result}; compare |slope| with the "
            f"threshold itself, not the threshold rounded to {dtype} (a slope of 0 is below "
            "any threshold > 0, a slope of 0.25 below any threshold > 0.25)"
        )


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_activations_run_in_pres_dtype(device, dtype):
    skip_unless_supported(device, dtype)
    seen, devices = [], []

    def tanh(x):
        seen.append(x.dtype)
        devices.append(x.device)
        return torch.tanh(x)

    # Three units: fractions of 1/3, which bfloat16 or float16 would round.
    pre = torch.tensor([[-1.0, 0.5, 1.0], [-2.0, 1.0, -1.0]], device=device, dtype=dtype)
    result = dead_and_saturated(pre, {"tanh": tanh, "relu": nn.ReLU()})
    assert seen and set(seen) == {dtype}, (
        f"the activation ran on {seen}, pre is {dtype}: run it in pre's dtype"
    )
    assert all(same_device(where, device) for where in devices), (
        f"the activation ran on {devices}, pre is on {device}: run it on pre's device"
    )
    assert result["tanh"] == (0.0, 0.0)
    assert all(abs(value - 1 / 3) < 1e-6 for value in result["relu"]), (
        f"got {result['relu']} for 1 of 3 units: count the units and divide in float32 or "
        f"float64, not in pre's dtype ({dtype})"
    )


def test_slopes_of_a_large_float16_batch(device):
    skip_unless_supported(device, torch.float16)
    pre = torch.full((1000, 1000), -1.0, device=device, dtype=torch.float16)
    result = dead_and_saturated(pre, {"leaky": nn.LeakyReLU(0.01)})
    assert result == {"leaky": (0.0, 0.0)}, (
        f"got {result}: LeakyReLU's slope is 0.01 at every unit; take the gradient of "
        "f(x).sum() (each slope itself), not of a mean rescaled (1/numel underflows in float16)"
    )


class LearnedSlope(nn.Module):
    """An activation with a parameter of its own, as nn.PReLU has."""

    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.tensor(0.25))

    def forward(self, x):
        return torch.where(x > 0, x, self.weight * x)


def test_leaves_the_activations_parameters_alone(device):
    if device.type == "sim":  # the CPU and CUDA runs check it
        pytest.skip("torch.func.jvp through a parameter crashes on the simulated device")
    fresh, used = LearnedSlope().to(device), LearnedSlope().to(device)
    used.weight.grad = torch.ones_like(used.weight)
    dead_and_saturated(torch.randn(4, 3, device=device), {"fresh": fresh, "used": used})
    assert fresh.weight.grad is None and torch.equal(used.weight.grad.cpu(), torch.ones(())), (
        "the activation's own parameter got a .grad: take the slopes with "
        "torch.autograd.grad(..., x), not .backward(), which accumulates into every "
        "parameter it reaches"
    )


def test_float64_slopes_are_not_rounded_away(device):
    skip_unless_supported(device, torch.float64)
    # σ'(20) = 2.1e-9 and tanh'(10) = 8.2e-9 in float64; float32 rounds both outputs to 1 and
    # both slopes to 0.
    pre = torch.tensor([[20.0, 10.0], [20.0, 10.0]], device=device, dtype=torch.float64)
    activations = {"sigmoid": nn.Sigmoid(), "tanh": torch.tanh}
    for threshold, saturated in [(1e-9, 0.0), (1e-8, 1.0)]:
        result = dead_and_saturated(pre[:, :1], activations, threshold=threshold)
        assert result == {"sigmoid": (0.0, saturated), "tanh": (0.0, 1.0)}, (
            f"threshold {threshold}: got {result}; measure in pre's dtype (float64), where "
            "σ'(20) is 2.1e-9, not 0"
        )
    result = dead_and_saturated(pre[:, 1:], {"tanh": torch.tanh}, threshold=5e-9)
    assert result == {"tanh": (0.0, 0.0)}, f"tanh'(10) = 8.2e-9 in float64, got {result}"
    # A slope of 1e-300 is a float64 number, 0 in float32: above a threshold of 1e-301.
    leaky = {"leaky": nn.LeakyReLU(1e-300)}
    result = dead_and_saturated(-pre[:, :1], leaky, threshold=1e-301)
    assert result == {"leaky": (0.0, 0.0)}, (
        f"LeakyReLU(1e-300) below 0 has slope 1e-300 > 1e-301 in float64, got {result}: "
        "keep the slopes in pre's dtype (float32 rounds 1e-300 to 0)"
    )


@pytest.mark.parametrize("layout", ["transposed", "channels_last", "sliced"])
def test_pre_with_any_strides(device, layout):
    pre = constructed_pre(device, torch.float32)  # (6, 28)
    if layout == "transposed":
        pre = pre.t().contiguous().t()
    elif layout == "channels_last":
        pre = pre.reshape(6, 7, 2, 2).contiguous(memory_format=torch.channels_last)
    else:
        pre = torch.stack([pre, pre], dim=-1)[..., 0]
    assert not pre.is_contiguous()
    result = dead_and_saturated(pre, modules())
    expected = fractions_by_loop(pre, 1e-3)
    assert result.keys() == expected.keys()
    for name, fractions in expected.items():
        assert result[name] == pytest.approx(fractions, abs=1e-6), (
            f"{name}: got {result[name]} for a {layout} pre: a copy keeps the strides of its "
            "source; use .reshape (not .view), which copies only where it must"
        )


def test_nan_is_neither_dead_nor_saturated(device):
    pre = torch.tensor([[math.nan, 20.0], [20.0, 20.0]], device=device)

    def zero(x):  # slope 0 everywhere; output 0, NaN at NaN
        return x - x

    result = dead_and_saturated(pre, {"tanh": nn.Tanh(), "zero": zero})
    assert result == {"tanh": (0.0, 0.5), "zero": (0.5, 1.0)}, (
        f"got {result}: a NaN output is not 0 (its unit is not dead) and a NaN slope is not "
        "below the threshold (not saturated); tanh(nan) has slope nan, tanh(20) slope 0"
    )


def test_an_infinite_threshold_leaves_nan_slopes_unsaturated(device):
    pre = torch.tensor([[math.nan, 1.0]], device=device)
    result = dead_and_saturated(pre, {"tanh": nn.Tanh()}, threshold=math.inf)
    assert result == {"tanh": (0.0, 0.5)}, (
        f"got {result}: with threshold inf every unit with a number for a slope is saturated; "
        "a NaN slope is below no threshold, inf included"
    )


def test_leaves_pre_and_its_graph_as_they_were(device):
    weight = torch.randn(4, 3, device=device, requires_grad=True)
    inputs = torch.randn(5, 4, device=device)
    pre = inputs @ weight  # part of the caller's graph
    before = pre.detach().clone()
    weight.grad = torch.ones_like(weight)
    result = dead_and_saturated(pre, modules())
    assert set(result) == set(ACTIVATIONS)
    assert torch.equal(pre, before) and pre.requires_grad and pre.grad_fn is not None
    assert torch.equal(weight.grad, torch.ones_like(weight)), (
        "the caller's .grad changed: the slopes were taken through the caller's graph; "
        "measure on a detached copy (pre.detach().clone().requires_grad_())"
    )
    pre.sum().backward()  # the caller's graph is still whole and usable
    torch.testing.assert_close(weight.grad, 1 + inputs.sum(0)[:, None].expand(4, 3))


@pytest.mark.parametrize("activations", [{"relu": nn.ReLU()}, {}], ids=["relu", "none"])
def test_rejects_a_pre_without_units(device, activations):
    # No example, no unit (in any dimension of the units), no batch dimension.
    for shape in [(0, 3), (3, 0), (3, 0, 2), (3, 2, 0), ()]:
        with raises(ValueError):
            dead_and_saturated(torch.zeros(shape, device=device), activations)


# ---------------------------------------------------------------- the output activation


def apply(head, z):
    assert head is None or isinstance(head, nn.Module), (
        f"return an nn.Module or None, got {type(head).__name__}"
    )
    return z if head is None else head.to(z.device)(z)


def logits(device, *shape):
    z = torch.randn(*shape, device=device) * 3
    # Confident logits: where a second squashing flattens the loss.
    z.view(-1)[:2] = torch.tensor([60.0, -60.0], device=device)
    return z


# Where the loss takes the raw output: each a loss that squashes by itself, or none at all.
RAW = {
    "regression": "nn.MSELoss or nn.HuberLoss, on any real number",
    "binary": "nn.BCEWithLogitsLoss, which applies the sigmoid itself",
    "multilabel": "nn.BCEWithLogitsLoss, which applies the sigmoid to each label itself",
    "multiclass": "nn.CrossEntropyLoss, which applies log_softmax over dim 1 itself",
}


def test_raw_output_where_the_loss_takes_logits(device):
    z = logits(device, 8, 5)
    for task, loss in RAW.items():
        assert torch.equal(apply(output_activation(task), z), z), (
            f"{task!r}: the output goes to {loss}: no final activation (None or "
            "nn.Identity()); a sigmoid or softmax in front of it squashes twice"
        )


def test_positive_is_softplus(device):
    z = torch.cat(
        [
            torch.linspace(-20, 20, 81, device=device),
            torch.tensor([-60.0, -80.0, 1e3, 1e30], device=device),
        ]
    )
    z.requires_grad_()
    y = apply(output_activation("positive"), z)
    assert (y > 0).all() and y.isfinite().all(), (
        "'positive' must give a finite output > 0 for every input (exp overflows, ReLU gives 0)"
    )
    # Relative to the value: softplus(-60) is 8.8e-27, an epsilon added would hide below an
    # absolute tolerance.
    torch.testing.assert_close(
        y, F.softplus(z), rtol=1e-5, atol=0, msg="'positive': softplus with beta 1, no epsilon"
    )
    (slope,) = torch.autograd.grad(y.sum(), z)
    assert (slope > 0).all(), "'positive' needs a slope > 0 everywhere (ReLU has 0 for x ≤ 0)"


def test_bounded_is_tanh(device):
    z = torch.cat([torch.linspace(-8, 8, 33, device=device), torch.tensor([1e-30], device=device)])
    torch.testing.assert_close(
        apply(output_activation("bounded"), z),
        torch.tanh(z),
        rtol=1e-5,
        atol=1e-12,
        msg="'bounded' maps onto (-1, 1) smoothly: tanh (a sigmoid's range is (0, 1); a "
        "clamp has no slope outside it)",
    )


def test_nll_gets_log_softmax_over_the_class_dim(device):
    for shape in [(6, 4), (3, 4, 5), (2, 4, 3, 3)]:  # (N, C), (N, C, L), (N, C, H, W)
        z = logits(device, *shape).double()
        target = torch.randint(shape[1], (shape[0], *shape[2:]), device=device)
        log_probs = apply(output_activation("multiclass_nll"), z)
        torch.testing.assert_close(
            log_probs,
            F.log_softmax(z, dim=1),
            msg=f"'multiclass_nll' on an output of shape {shape}: log_softmax over dim 1, the "
            "class dim (nn.NLLLoss takes log-probabilities, not probabilities)",
        )
        torch.testing.assert_close(F.nll_loss(log_probs, target), F.cross_entropy(z, target))


# What the table names in float64: the exact value, rounded once into the dtype. Softplus
# as max(z, 0) + log1p(exp(-|z|)), exact in float64 everywhere (F.softplus switches to z
# above 20, 2e-9 off in float64: the builtin's own result is accepted too, see below).
EXACT = {
    "positive": lambda z: z.clamp(min=0) + torch.log1p(torch.exp(-z.abs())),
    "bounded": torch.tanh,
    "multiclass_nll": lambda z: F.log_softmax(z, dim=1),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("task", EXACT)
def test_computes_the_named_function_to_the_dtypes_rounding(device, task, dtype):
    skip_unless_supported(device, dtype)
    # Everywhere a rewrite loses precision: tiny inputs (tanh as 2σ(2x) - 1), the stretch
    # past softplus's switch to x (threshold 10 instead of 20), logits far apart (the log of
    # a softmax that underflows to 0).
    values = [0.0, 1e-30, -1e-30, 1e-8, -1e-8, 1e-3, 0.5, -3.0, 30.0, 60.0, -60.0, 100.0, -100.0]
    values += [10.0 + k / 4 for k in range(41)]  # 10 to 20
    z = torch.tensor(values, dtype=torch.float64).reshape(-1, 2)
    expected = EXACT[task](z)
    got = apply(output_activation(task), z.to(device=device, dtype=dtype))
    assert got.dtype == dtype, f"{task!r}: the output should stay {dtype}, got {got.dtype}"
    if task == "positive":
        # nn.Softplus() as the table names it (its switch to x above 20) or the exact value,
        # whichever each element is nearer to; a switch at 10 is near neither.
        builtin = F.softplus(z).to(dtype).double()
        exact, answer = expected.to(dtype).double(), got.detach().cpu().double()
        nearer = (answer - builtin).abs() < (answer - exact).abs()
        expected = torch.where(nearer, builtin, exact)
    eps = torch.finfo(dtype).eps
    # Relative to the value, a few units in the last place (subnormal results: absolute);
    # log_softmax subtracts logits of size |z|, whose rounding is absolute.
    finfo = torch.finfo(dtype)
    atol = 4 * eps * z.abs().amax().item() if task == "multiclass_nll" else finfo.tiny
    torch.testing.assert_close(
        got.cpu().double(),
        expected.to(dtype).double(),
        rtol=4 * eps,
        atol=atol,
        msg=lambda message: (
            f"{task!r} in {dtype}: compute what the table names to the "
            f"dtype's rounding (the builtin: F.softplus with its defaults, torch.tanh, "
            f"log_softmax), not a rewrite that loses precision\n{message}"
        ),
    )


TASKS = (
    "regression",
    "positive",
    "bounded",
    "binary",
    "multilabel",
    "multiclass",
    "multiclass_nll",
)


def test_every_call_returns_a_new_module(device):
    # Two models built side by side each get a final activation of their own: a module
    # kept from an earlier call would be shared, and a hook, .to() or .eval() on one
    # model's head would reach the other's.
    for task in TASKS:
        first, second = output_activation(task), output_activation(task)
        assert first is None or first is not second, (
            f"output_activation({task!r}) returned the same {type(first).__name__} object "
            "twice: make a new module on every call, so two models share no module object"
        )


def test_rejects_an_unknown_task(device):
    near_misses = [
        variant
        for task in TASKS
        for variant in (task.upper(), task.title(), f" {task}", f"{task} ", f"{task}\n")
    ]
    for task in ["softmax", "", "classification", "multiclass nll", *near_misses]:
        with raises(ValueError) as failure:
            output_activation(task)
        message = str(failure.value)
        assert task in message or repr(task) in message, f"the error should name the task {task!r}"


# ---------------------------------------------------------------- facets


class CountsCalls(nn.Module):
    """A module with state of its own, updated by every forward pass (not a BatchNorm)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros((), dtype=torch.int64))
        # Not in the state_dict: a restore through state_dict() misses it.
        self.register_buffer("seen", torch.zeros(()), persistent=False)

    def forward(self, x):
        self.calls += 1
        self.seen += x.shape[0]
        return x


def relu_model(device, first=nn.ReLU):
    model = nn.Sequential(first(), nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU(), CountsCalls()).to(
        device
    )
    return facets.args(model, torch.linspace(-1, 1, 20, device=device).reshape(5, 4))


def activation(cls, device):
    return facets.args(
        nn.Sequential(nn.Linear(3, 4), cls()).to(device), torch.randn(5, 3, device=device)
    )


def health_args(device):
    return facets.args(
        torch.randn(4, 3, device=device, requires_grad=True) * 4, modules(), threshold=1e-3
    )


def edge_batch(model, device):
    return facets.args(model, torch.randn(8, 3, device=device).clamp(min=-0.5))


def edge_fractions(model, x):
    """The oracle for an edge model: a bare ReLU is its only ReLU; the others have none."""
    if not isinstance(model, nn.ReLU):
        return {}
    return {"": (x.relu() == 0).all(dim=0).double().mean().item()}


FACETS = facets.declare(
    # Models at the edges: nothing, no parameters, buffers only, all frozen.
    facets.of(
        dead_relu_fraction,
        facets.Edges(facets.edge_models(edge_batch), oracle=edge_fractions),
        name="dead_relu_fraction(edge models)",
    ),
    facets.of(
        dead_and_saturated,
        facets.Unmodified(health_args),
        facets.Propagates(
            lambda device, fault: health_args(device).at(1, {**modules(), "the caller's": fault})
        ),
        facets.Returns(health_args),
        facets.Unmodified(
            lambda device: facets.args(torch.randn(4, 3, device=device), modules()),
            label="no grad",
        ),
        facets.Setting(health_args, "threshold", low=0.0, low_open=True),
        # tanh's slope at 4.5 is 4.9e-4: saturated below 1e-3, not below a smaller default.
        facets.Defaults(
            lambda device: facets.args(torch.full((2, 3), 4.5, device=device), {"tanh": nn.Tanh()}),
            values={"threshold": 1e-3},
        ),
        facets.Setting(
            lambda device: facets.args(torch.randn(4, 3, device=device), {}, threshold=1e-3),
            "threshold",
            low=0.0,
            low_open=True,
            label="no activations",
        ),
        # Sigmoid slopes from 0.25 down to 6e-6: another threshold counts other units.
        facets.Defaults(
            lambda device: facets.args(
                torch.linspace(0, 12, 25, device=device)[None], {"sigmoid": torch.sigmoid}
            ),
            values={"threshold": 1e-3},
        ),
    ),
    facets.of(
        output_activation,
        # The tasks that name an activation: a module of one's own holds its state as any.
        *(
            facets.Registered(
                lambda device, task=task: facets.args(task),
                forward=lambda module, device: module.to(device)(torch.randn(3, 4, device=device)),
                label=task,
            )
            for task in ("positive", "bounded", "multiclass_nll")
        ),
    ),
    facets.of(
        dead_relu_fraction,
        facets.Modes(relu_model, module=lambda arguments: arguments.args[0]),
        facets.ForwardModes(
            relu_model, module=lambda arguments: arguments.args[0], grad=False, calls=1
        ),
        # No example: refused before a hook is registered, or with every hook removed.
        facets.Refused(
            {
                "an empty batch": lambda device: facets.args(
                    relu_model(device).args[0], torch.zeros(0, 4, device=device)
                )
            }
        ),
        facets.Unmodified(relu_model, module_grads=True),
        facets.Returns(relu_model),
        # Called again after the model changed: read anew, nothing kept from the last call.
        facets.Changed(relu_model, lambda arguments: arguments.args[0][2].bias.data.fill_(-10)),
        facets.Unmodified(
            lambda device: relu_model(device, first=lambda: nn.ReLU(inplace=True)),
            label="in-place ReLU first",
        ),
        facets.Classes(
            activation,
            treated=lambda arguments, result: "1" in result,
            covered=(nn.ReLU,),
            others=(nn.ReLU6, nn.LeakyReLU, nn.Hardtanh),
        ),
    ),
)
test_facets = FACETS.test
