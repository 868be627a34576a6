import math
import random

import pytest
import torch
from torch import nn

from katas.q31_init_depth import (
    activation_stds,
    deep_stack,
    relu_std_ratio,
    train_hidden_units,
)
from torch_katas import facets
from torch_katas.testing import (
    assert_close,
    check_tensor,
    default_dtype,
    raises,
    seed_for,
    skip_unless_supported,
)

DEPTH, WIDTH, BATCH = 50, 256, 64
# Over hundreds of seeds, a Kaiming ReLU stack of this width keeps every activation std
# within a factor of about 3 of its start; the range below has a wide margin for any
# device's random numbers, yet a per-layer factor off by 12% either way leaves it.
HEALTHY_RELU = (0.02, 50.0)


def stds_by_loop(stack, x):
    """The std after each activation, layer by layer, from the stack's own modules."""
    stds = []
    with torch.no_grad():
        for layer in stack:
            x = layer(x)
            if not isinstance(layer, nn.Linear):  # every other module is an activation
                stds.append(x.std().item())
    return stds


def reference_stack(weights, activation):
    layers = []
    for weight in weights:
        linear = nn.Linear(
            *weight.shape[::-1], bias=False, device=weight.device, dtype=weight.dtype
        )
        with torch.no_grad():
            linear.weight.copy_(weight)
        layers += [linear, activation()]
    return nn.Sequential(*layers)


@pytest.mark.parametrize("activation, act_type", [("relu", nn.ReLU), ("tanh", nn.Tanh)])
@pytest.mark.parametrize("depth", [1, 3])
def test_deep_stack_layout(device, activation, act_type, depth):
    stack = deep_stack(depth, 8, activation, "kaiming", device=device)
    assert isinstance(stack, nn.Sequential), "return an nn.Sequential"
    kinds = [type(module) for module in stack]
    assert kinds == [nn.Linear, act_type] * depth, (
        f"expected Linear, {act_type.__name__}, ... ({2 * depth} modules), got "
        f"{[kind.__name__ for kind in kinds]}"
    )
    for act in stack[1::2]:
        assert not getattr(act, "inplace", False), (
            "the activations are not in place (inplace=False): an in-place ReLU overwrites "
            "the Linear's output that a hook on the Linear sees"
        )
    for linear in stack[::2]:
        assert linear.bias is None, "the Linear layers have no bias (bias=False)"
        check_tensor(
            linear.weight,
            shape=(8, 8),
            dtype=torch.get_default_dtype(),
            device=device,
            name="a Linear weight",
        )


@pytest.mark.parametrize("activation", ["relu", "tanh"])
@pytest.mark.parametrize(
    "init, expected_std",
    [("normal", 1.0), ("xavier", math.sqrt(1 / WIDTH)), ("kaiming", math.sqrt(2 / WIDTH))],
)
def test_deep_stack_weight_std(device, init, expected_std, activation):
    # The std depends on init alone: no gain of the activation (tanh's 5/3) scales it.
    stack = deep_stack(4, WIDTH, activation, init, device=device)
    for index, linear in enumerate(stack[::2]):
        weight = linear.weight.detach().double().cpu()
        std, mean = weight.std().item(), weight.mean().item()
        assert abs(std / expected_std - 1) < 0.05, (
            f"layer {index}: weight std {std:.4g}, expected {expected_std:.4g} for "
            f"init={init!r} with {activation} (gain 1 for xavier, sqrt(2) for kaiming)"
        )
        assert abs(mean) < 0.1 * expected_std, f"layer {index}: weight mean {mean:.3g}, expected 0"


@pytest.mark.parametrize(
    "args",
    [
        (3, 8, "gelu", "kaiming"),
        (3, 8, "relu", "orthogonal"),
        (3, 8, "ReLU", "kaiming"),
        (3, 8, "tanh", "Xavier"),
        (0, 8, "relu", "xavier"),
        (-2, 8, "relu", "xavier"),
        (3, 0, "tanh", "xavier"),
        (3, -4, "tanh", "xavier"),
    ],
    ids=[
        "activation",
        "init",
        "activation ReLU",
        "init Xavier",
        "depth",
        "negative depth",
        "width",
        "negative width",
    ],
)
def test_deep_stack_rejects_bad_arguments(device, args):
    with raises(ValueError):
        deep_stack(*args, device=device)
        pytest.fail(
            f"deep_stack{args} should raise ValueError: activation 'relu' or 'tanh', init "
            "'normal', 'xavier' or 'kaiming', as written (lower case), depth and width at "
            "least 1 (negative ones too)"
        )


def test_deep_stack_layers_are_distinct_modules(device):
    stack = deep_stack(4, 8, "relu", "normal", device=device)
    modules = list(stack)
    assert len({id(module) for module in modules}) == len(modules) == 8, (
        "the 8 modules of a depth-4 stack should be 8 distinct objects: build a new Linear and "
        "a new activation for every layer (a list times depth repeats the same objects)"
    )
    weights = [linear.weight for linear in modules[::2]]
    for i, w in enumerate(weights[1:], start=1):
        assert not torch.equal(w, weights[0]), (
            f"layer {i} has the same weight as layer 0: draw every layer's weight on its own"
        )


def test_deep_stack_of_one_layer_of_width_one(device):
    stack = deep_stack(1, 1, "tanh", "xavier", device=device)
    assert [type(module) for module in stack] == [nn.Linear, nn.Tanh], (
        "depth 1 and width 1 are allowed: one Linear(1, 1) and its activation"
    )
    assert stack[0].weight.shape == (1, 1)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_deep_stack_uses_the_default_dtype(device, dtype):
    skip_unless_supported(device, dtype)
    with default_dtype(dtype):
        stack = deep_stack(2, 8, "relu", "kaiming", device=device)
    for linear in stack[::2]:
        check_tensor(linear.weight, dtype=dtype, device=device, name="a Linear weight")


def test_activation_stds_match_a_loop(device):
    weights = [torch.randn(32, 32, device=device) / 5 for _ in range(4)]
    stack = reference_stack(weights, nn.Tanh)
    x = torch.randn(64, 32, device=device, requires_grad=True)
    stds = activation_stds(stack, x)
    check_tensor(stds, shape=(4,), dtype=x.dtype, device=device, name="activation_stds(...)")
    assert not stds.requires_grad, "return plain numbers: run the stack under torch.no_grad()"
    assert_close(
        stds.cpu(),
        torch.tensor(stds_by_loop(stack, x)),
        "one std per activation module, over all elements of its output",
        rtol=1e-3,
        atol=1e-6,
    )


def test_every_module_other_than_linear_counts_as_an_activation(device):
    layers = [nn.GELU(), nn.LeakyReLU(0.1), nn.Sigmoid(), nn.ReLU(), nn.SiLU()]
    stack = nn.Sequential(*[m for act in layers for m in (nn.Linear(16, 16, bias=False), act)]).to(
        device
    )
    x = torch.randn(32, 16, device=device)
    stds = activation_stds(stack, x)
    check_tensor(stds, shape=(5,), dtype=x.dtype, device=device, name="activation_stds(...)")
    assert_close(
        stds.cpu(),
        torch.tensor(stds_by_loop(stack, x)),
        "GELU, LeakyReLU, Sigmoid and SiLU are activation modules too: keep the std after "
        "every module that is not an nn.Linear",
        rtol=1e-3,
        atol=1e-6,
    )


class GatedSwish(nn.Module):
    """An activation of the caller's own built from a module of its own: x * sigmoid(x)."""

    def __init__(self):
        super().__init__()
        self.gate = nn.Sigmoid()

    def forward(self, x):
        return x * self.gate(x)


def test_an_activation_holding_modules_is_one_activation(device):
    # The activations are the stack's own entries (for layer in stack), not every module
    # nested in it (stack.modules()): the Sigmoid inside GatedSwish is part of one
    # activation and is not run again on GatedSwish's output.
    stack = nn.Sequential(
        nn.Linear(16, 16, bias=False), GatedSwish(), nn.Linear(16, 16, bias=False), nn.Tanh()
    ).to(device)
    x = torch.randn(32, 16, device=device)
    stds = activation_stds(stack, x)
    check_tensor(stds, shape=(2,), dtype=x.dtype, device=device, name="activation_stds(...)")
    assert_close(
        stds.cpu(),
        torch.tensor(stds_by_loop(stack, x)),
        "an activation module holding modules of its own (GatedSwish with an nn.Sigmoid "
        "inside) is one activation: run the stack's own entries, not stack.modules()",
        rtol=1e-3,
        atol=1e-6,
    )


def test_a_stack_without_activation_modules_has_no_std(device):
    # One entry per activation module: none here, so an empty 1-D tensor, not an error.
    stack = nn.Sequential(nn.Linear(4, 4, bias=False), nn.Linear(4, 4, bias=False)).to(device)
    stds = activation_stds(stack, torch.randn(6, 4, device=device))
    check_tensor(stds, shape=(0,), dtype=torch.float32, device=device, name="activation_stds(...)")


def test_activation_stds_keep_float64(device):
    skip_unless_supported(device, torch.float64)
    stack = reference_stack([torch.randn(8, 8, dtype=torch.float64, device=device)] * 2, nn.Tanh)
    x = torch.randn(16, 8, dtype=torch.float64, device=device)
    stds = activation_stds(stack, x)
    check_tensor(stds, shape=(2,), dtype=torch.float64, device=device, name="activation_stds(...)")


def test_activation_stds_measure_float64_in_float64(device):
    # Activations around 1e8 that vary by less than 1: float32 holds only multiples of 8
    # there, so a std taken of a float32 copy (x.float().std(), a guard against float16's
    # overflow) is off by far more than the unbiased/biased choice (4096 elements: 1e-4).
    skip_unless_supported(device, torch.float64)
    eye = torch.eye(64, dtype=torch.float64, device=device)
    stack = reference_stack([eye, eye], nn.ReLU)
    ramp = torch.linspace(-1, 1, 64 * 64, dtype=torch.float64, device=device).reshape(64, 64)
    x = 1e8 + ramp
    stds = activation_stds(stack, x)
    check_tensor(stds, shape=(2,), dtype=torch.float64, device=device, name="activation_stds(...)")
    assert_close(
        stds.cpu(),
        torch.tensor(stds_by_loop(stack, x), dtype=torch.float64),
        "float64 activations measured in float64: a float32 copy of values near 1e8 loses "
        "everything below 8",
        rtol=1e-3,
        atol=0,
    )


def test_activation_stds_leave_inputs_alone(device):
    stack = reference_stack([torch.randn(16, 16, device=device) / 4] * 3, nn.ReLU)
    x = torch.randn(16, 64, device=device).t()  # non-contiguous
    x_before = x.clone()
    weights_before = [p.clone() for p in stack.parameters()]
    stds = activation_stds(stack, x)
    check_tensor(stds, shape=(3,), dtype=x.dtype, device=device, name="activation_stds(...)")
    assert torch.equal(x, x_before), "x was modified"
    assert all(torch.equal(p, q) for p, q in zip(stack.parameters(), weights_before, strict=True))
    assert all(p.grad is None for p in stack.parameters()), "no gradients should be computed"


def test_kaiming_keeps_a_deep_relu_stack_in_range(device):
    stack = deep_stack(DEPTH, WIDTH, "relu", "kaiming", device=device)
    stds = stds_by_loop(stack, torch.randn(BATCH, WIDTH, device=device))
    low, high = HEALTHY_RELU
    assert all(low < std < high for std in stds), (
        f"with Kaiming init the activation std should stay within ({low}, {high}) over "
        f"{DEPTH} ReLU layers; it went from {stds[0]:.3g} to {stds[-1]:.3g} "
        f"(min {min(stds):.3g}, max {max(stds):.3g}); is the weight std sqrt(2 / fan_in)?"
    )


def test_standard_normal_weights_make_a_relu_stack_explode(device):
    stack = deep_stack(10, WIDTH, "relu", "normal", device=device)
    stds = stds_by_loop(stack, torch.randn(BATCH, WIDTH, device=device))
    assert not stds[9] < 1e6, (
        f"with N(0, 1) weights each ReLU layer multiplies the std by about "
        f"sqrt({WIDTH} / 2) ≈ 11, so after 10 layers it should exceed 1e6; got {stds[9]:.3g}"
    )


def test_xavier_makes_a_relu_stack_vanish(device):
    stack = deep_stack(30, WIDTH, "relu", "xavier", device=device)
    stds = stds_by_loop(stack, torch.randn(BATCH, WIDTH, device=device))
    assert stds[-1] < 1e-3, (
        f"Xavier ignores ReLU's halving: the std shrinks by sqrt(2) per layer, so after "
        f"30 layers it should be below 1e-3; got {stds[-1]:.3g}"
    )


def test_xavier_keeps_a_deep_tanh_stack_out_of_saturation(device):
    stack = deep_stack(DEPTH, WIDTH // 2, "tanh", "xavier", device=device)
    stds = stds_by_loop(stack, torch.randn(BATCH, WIDTH // 2, device=device))
    assert all(0.03 < std < 0.9 for std in stds), (
        f"with Xavier init a tanh stack should neither saturate (std near 1) nor vanish; "
        f"the std went from {stds[0]:.3g} to {stds[-1]:.3g}"
    )


def test_standard_normal_weights_saturate_a_tanh_stack(device):
    stack = deep_stack(10, WIDTH, "tanh", "normal", device=device)
    stds = stds_by_loop(stack, torch.randn(BATCH, WIDTH, device=device))
    assert min(stds) > 0.9, (
        f"with N(0, 1) weights the pre-activations are huge and tanh outputs sit at ±1 "
        f"(std near 1); got a min std of {min(stds):.3g}"
    )


@pytest.mark.parametrize(
    "width, weight_std, expected",
    [
        (512, math.sqrt(2 / 512), 1.0),
        (200, 1.0, 10.0),
        (8, 0.5, 1.0),
        (50, 0.1, 0.5),
        (25, 0.2, math.sqrt(0.5)),  # an odd width: half of 25 units is 12.5, not 12
        (8, 1e200, 2e200),  # weight_std squared overflows a float
        (8, 1e-200, 2e-200),  # and here underflows to 0
    ],
)
def test_relu_std_ratio_formula(device, width, weight_std, expected):
    ratio = relu_std_ratio(width, weight_std)
    assert isinstance(ratio, float), f"return a Python float, got {type(ratio).__name__}"
    assert ratio == pytest.approx(expected, rel=1e-9), (
        f"relu_std_ratio({width}, {weight_std:.4g}) should be {expected}, got {ratio}"
    )


def test_relu_std_ratio_at_a_drawn_width(device):
    # Any width, odd ones too (a floor of width / 2 is off there), and any std.
    rng = random.Random(seed_for(3))
    width, weight_std = rng.randrange(1, 2000, 2), rng.uniform(0.01, 3)
    expected = math.sqrt(width * weight_std**2 / 2)  # half the mean square of width terms
    ratio = relu_std_ratio(width, weight_std)
    assert ratio == pytest.approx(expected, rel=1e-9), (
        f"relu_std_ratio({width}, {weight_std!r}) should be {expected}, got {ratio}"
    )


@pytest.mark.parametrize("scale", [0.8, 1.0, 1.25])
def test_relu_std_ratio_predicts_a_measured_stack(device, scale):
    weight_std = scale * math.sqrt(2 / WIDTH)
    predicted = relu_std_ratio(WIDTH, weight_std)
    weights = [torch.randn(WIDTH, WIDTH, device=device) * weight_std for _ in range(16)]
    stds = stds_by_loop(reference_stack(weights, nn.ReLU), torch.randn(BATCH, WIDTH, device=device))
    measured = (stds[-1] / stds[1]) ** (1 / (len(stds) - 2))  # per layer, geometric mean
    assert measured == pytest.approx(predicted, rel=0.12), (
        f"a measured stack grows by {measured:.3f} per layer, you predicted {predicted:.3f}; "
        "did you account for ReLU halving the mean square?"
    )


def descend_from(w1, w2, x, y, steps, lr):
    """The hidden weight after `steps` steps of gradient descent from weights w1, w2."""
    w1, w2 = w1.clone().requires_grad_(), w2.clone().requires_grad_()
    for _ in range(steps):
        loss = ((torch.tanh(x @ w1.T) @ w2.T).squeeze(-1) - y).pow(2).mean()
        g1, g2 = torch.autograd.grad(loss, (w1, w2))
        with torch.no_grad():
            w1 -= lr * g1
            w2 -= lr * g2
    return w1.detach()


def regression_data(device, n=16, d=5, dtype=torch.float32):
    x = torch.randn(n, d, dtype=dtype, device=device)
    return x, torch.randn(n, dtype=dtype, device=device)


def test_constant_init_keeps_every_hidden_unit_a_copy(device):
    x, y = regression_data(device)
    weight = train_hidden_units(x, y, hidden=6, init="constant", steps=4, lr=0.2)
    check_tensor(weight, shape=(6, 5), dtype=x.dtype, device=device, name="the hidden weight")
    expected = descend_from(
        torch.full((6, 5), 0.5, device=device), torch.full((1, 6), 0.5, device=device), x, y, 4, 0.2
    )
    assert_close(weight, expected, msg="four steps of gradient descent from weights all 0.5")
    assert_close(
        weight,
        weight[:1].expand_as(weight),
        msg="with every weight equal, every hidden unit gets the same gradient: the rows stay "
        "equal (set both layers to 0.5, not only the first)",
    )


def test_zero_init_never_trains_the_hidden_layer(device):
    x, y = regression_data(device)
    weight = train_hidden_units(x, y, hidden=6, init="zeros", steps=3, lr=0.5)
    check_tensor(weight, shape=(6, 5), dtype=x.dtype, device=device, name="the hidden weight")
    assert torch.equal(weight, torch.zeros_like(weight)), (
        "with every weight 0 (both layers) the output layer sends no gradient back and the "
        "hidden outputs tanh(0) = 0 give the output layer none: the hidden weight stays 0"
    )


def test_xavier_init_gives_every_unit_its_own_weights(device):
    x, y = regression_data(device, d=64)
    start = train_hidden_units(x, y, hidden=64, init="xavier", steps=0, lr=0.1)
    std = start.double().std().item()
    assert abs(std / math.sqrt(2 / 128) - 1) < 0.1, (
        f"xavier_normal_ on a [64, 64] weight has std sqrt(2 / 128) ≈ 0.125; got {std:.4g}"
    )
    # A uniform draw of that std never passes sqrt(3) std; 4096 normal ones do, many times over.
    assert start.abs().max().item() > 1.2 * math.sqrt(3) * math.sqrt(2 / 128), (
        "xavier_normal_ draws from a normal distribution, not a uniform one (xavier_uniform_)"
    )
    trained = train_hidden_units(x, y, hidden=6, init="xavier", steps=3, lr=0.1)
    gaps = torch.cdist(trained.double(), trained.double())
    gaps.fill_diagonal_(float("inf"))
    assert gaps.min().item() > 1e-3, "random weights break the symmetry: no two rows alike"


def test_xavier_init_draws_the_output_layer_too(device):
    # One step from the same draws, with y[0] moved by 1: hidden row j's gradient moves by
    # -(2 / N) w2[j] (1 - tanh(w1[j] . x[0])²) x[0], which gives back the output weight w2.
    skip_unless_supported(device, torch.float64)
    x, y = regression_data(device, n=8, d=4, dtype=torch.float64)
    moved = y.clone()
    moved[0] += 1
    runs = []
    for steps, target in ((0, y), (1, y), (1, moved)):
        torch.manual_seed(seed_for(5))
        runs.append(train_hidden_units(x, target, hidden=256, init="xavier", steps=steps, lr=1.0))
    start, step, step_moved = runs
    slope = 1 - torch.tanh(start @ x[0]) ** 2
    w2 = ((step - step_moved) @ x[0]) / ((2 / len(x)) * slope * (x[0] @ x[0]))
    std = w2.std().item()
    assert abs(std / math.sqrt(2 / 257) - 1) < 0.3, (
        f"xavier_normal_ on the [1, 256] output weight has std sqrt(2 / 257) ≈ 0.088; got "
        f"{std:.3g} (init sets the weights of both layers)"
    )


@pytest.mark.parametrize("init", ["kaiming", "Xavier", "ZEROS"])
def test_train_hidden_units_rejects_other_inits(device, init):
    x, y = regression_data(device)
    with raises(ValueError):
        train_hidden_units(x, y, hidden=4, init=init, steps=1, lr=0.1)
        pytest.fail(
            f"init must be 'constant', 'zeros' or 'xavier', as written (lower case): "
            f"ValueError for {init!r}"
        )


# ---------------------------------------------------------------- facets


def stack_and_input(device):
    stack = nn.Sequential(
        nn.Linear(4, 4, bias=False), nn.ReLU(), nn.Linear(4, 4, bias=False), nn.Tanh()
    ).to(device)
    x = torch.randn(6, 4, device=device, requires_grad=True)
    return facets.args(stack, x)


def built(device):
    return facets.args(3, 8, "relu", "kaiming")


def identity_stack(dtype, device):
    """Two identity Linears, each followed by a ReLU, fed a ramp: the stds are those of the
    input's positive part, and in float16 their squares overflow (torch.std accumulates in
    float32). 4096 elements: a biased std is within a rounding of the unbiased one."""
    layers = []
    for _ in range(2):
        linear = nn.Linear(64, 64, bias=False)
        with torch.no_grad():
            linear.weight.copy_(torch.eye(64))
        layers += [linear, nn.ReLU()]
    ramp = torch.linspace(-1, 1, 64 * 64, dtype=torch.float64).reshape(64, 64)
    x = (ramp * facets.past_square_overflow(dtype)).to(device, dtype)
    return facets.args(nn.Sequential(*layers).to(device, dtype), x)


def stds64(stack, x):
    return torch.tensor(stds_by_loop(facets.copy_module(stack).cpu().double(), x.double()))


class Swish(nn.Module):
    """An activation of the caller's own."""

    def forward(self, x):
        return x * torch.sigmoid(x)


def stack_holding(cls, device):
    """Linear, the module of class `cls`, ReLU: one std if `cls` is treated as a Linear."""
    middle = cls(4, 4, bias=False) if issubclass(cls, nn.Linear) else cls()
    stack = nn.Sequential(nn.Linear(4, 4, bias=False), middle, nn.ReLU()).to(device)
    return facets.args(stack, torch.randn(6, 4, device=device))


def constant_run(dtype, device):
    x = torch.linspace(-1, 1, 12, dtype=torch.float64).reshape(4, 3)
    y = torch.tensor([0.5, -0.25, 1.0, 0.0], dtype=torch.float64)
    return facets.args(x.to(device, dtype), y.to(device, dtype), 3, "constant", 2, 0.2)


def constant_oracle(x, y, hidden, init, steps, lr):
    w1 = torch.full((hidden, x.shape[1]), 0.5, dtype=x.dtype)
    return descend_from(w1, torch.full((1, hidden), 0.5, dtype=x.dtype), x, y, steps, lr)


def data_needing_grad(device):
    x = torch.randn(6, 3, device=device, requires_grad=True)
    return facets.args(x, torch.randn(6, device=device, requires_grad=True), 4, "xavier", 2, 0.1)


FACETS = facets.declare(
    facets.of(
        deep_stack,
        facets.DefaultDevice(built),
        facets.Setting(
            lambda device: facets.args(depth=3, width=8, activation="relu", init="kaiming"),
            "depth",
            low=1,
            integer=True,
        ),
        facets.Setting(
            lambda device: facets.args(depth=3, width=8, activation="relu", init="kaiming"),
            "width",
            low=1,
            integer=True,
        ),
        facets.Seeded(built, drawn=lambda arguments, stack: list(stack.parameters())),
        facets.Trains(
            built, forward=lambda model, device: model.to(device)(torch.randn(2, 8, device=device))
        ),
        facets.Registered(
            built, forward=lambda model, device: model.to(device)(torch.randn(2, 8, device=device))
        ),
    ),
    facets.of(
        activation_stds,
        facets.NoGraph(stack_and_input, state=lambda arguments, result: result),
        # A tensor of its own, not an inference tensor (torch.inference_mode() instead of
        # no_grad) that the caller cannot normalise in place.
        facets.Returns(stack_and_input),
        facets.Unmodified(stack_and_input, module_grads=True),
        # float32 and float64 are checked against the unbiased std by the tests above.
        facets.Dtypes(
            identity_stack, oracle=stds64, dtypes=(torch.float16, torch.bfloat16), ulps=2
        ),
        facets.Modes(stack_and_input, module=lambda arguments: arguments.args[0]),
        facets.ForwardModes(  # each layer on its own: the stack itself is never called
            stack_and_input, module=lambda arguments: arguments.args[0], grad=False, whole=False
        ),
        facets.Classes(
            stack_holding,
            treated=lambda arguments, result: len(result) == 1,
            covered=(nn.Linear,),
            others=(Swish, nn.Identity, nn.Dropout),
        ),
        facets.Edges(
            {
                "no activation module (an empty result)": lambda device: facets.args(
                    nn.Sequential(nn.Linear(3, 3)).to(device, torch.float64),
                    torch.randn(4, 3, dtype=torch.float64, device=device),
                )
            },
            oracle=lambda stack, x: x.new_zeros(0),
        ),
    ),
    facets.of(relu_std_ratio, facets.Number(lambda device: facets.args(8, 1), float)),
    facets.of(
        train_hidden_units,
        facets.Dtypes(constant_run, oracle=constant_oracle, dtypes=(torch.float32, torch.float64)),
        facets.NoGraph(data_needing_grad, state=lambda arguments, result: result),
        facets.Unmodified(data_needing_grad),
        # The xavier weights as drawn (no step): the caller's seed decides them.
        facets.Seeded(
            lambda device: facets.args(
                torch.randn(6, 3, device=device), torch.randn(6, device=device), 4, "xavier", 0, 0.1
            )
        ),
    ),
)
test_facets = FACETS.test
