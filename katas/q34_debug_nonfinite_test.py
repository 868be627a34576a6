import contextlib
import copy
import math
import random
import warnings

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.optim.optimizer import register_optimizer_step_pre_hook

from katas.q34_debug_nonfinite import (
    first_nonfinite_module,
    nan_born_in_backward,
    overfit_one_batch,
    validate_batch,
)
from torch_katas import facets
from torch_katas.testing import assert_close, hooks_left, raises, skip_unless_supported


class Overflow(nn.Module):
    """Multiplies by 1e30 twice: float32 overflows to ±inf (no NaN)."""

    def forward(self, x):
        return x * 1e30 * 1e30


class Reciprocal(nn.Module):
    def forward(self, x):
        return 1 / x


class TwoOutputs(nn.Module):
    """Returns (features, {"aux": [scale]}): the non-finite value hides in the nested aux."""

    def __init__(self, broken):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.broken = broken

    def forward(self, x):
        h = self.fc(x)
        scale = h.abs().sum(-1) / (0.0 if self.broken else 1.0)
        return h, {"aux": [scale], "note": "aux"}


class WithAux(nn.Module):
    def __init__(self, broken):
        super().__init__()
        self.body = TwoOutputs(broken)
        self.head = nn.Linear(4, 2)

    def forward(self, x):
        h, _ = self.body(x)
        return self.head(h)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), Reciprocal(), nn.Linear(8, 8))
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        return self.head(self.encoder(x).relu())


class LogOfOutput(nn.Module):
    """The model's own forward makes the NaN, after its children returned finite values."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return self.fc(x).log()


class ForwardFailed(Exception):
    """Not a RuntimeError: an unimplemented stub's NotImplementedError must not match it."""


class CountsForwards(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.forwards = 0

    def forward(self, x):
        self.forwards += 1
        return self.fc(x)


class Fails(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        self.fc(x)
        raise ForwardFailed("this forward pass always fails")


class ReciprocalInPlace(nn.Module):
    """1 / x written into its input: the tensor the previous module returned changes."""

    def forward(self, x):
        return x.reciprocal_()


class ZeroNonFiniteInPlace(nn.Module):
    """Overwrites NaN and inf in its input with 0, in place (a sanitising layer)."""

    def forward(self, x):
        return x.nan_to_num_(0.0, 0.0, 0.0)


class Scale(nn.Module):
    def __init__(self, factor):
        super().__init__()
        self.factor = factor

    def forward(self, x):
        return x * self.factor


def mlp_with_nan_weight(device):
    model = nn.Sequential(
        nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2)
    ).to(device)
    with torch.no_grad():
        model[2].weight[3, 5] = float("nan")
    return model


# --- first_nonfinite_module --------------------------------------------------------------


def test_names_the_layer_with_a_nan_weight(device):
    model = mlp_with_nan_weight(device)
    name = first_nonfinite_module(model, torch.randn(5, 4, device=device))
    assert name == "2", (
        f"layer '2' has a NaN weight and is the first to output NaN; got {name!r}. "
        "Report the first module whose output is not finite, with its named_modules() name"
    )


def test_names_a_nested_module_that_divides_by_zero(device):
    model = Encoder().to(device)
    x = torch.randn(3, 4, device=device)
    with torch.no_grad():  # make tanh return an exact 0 in one place: 1 / 0 = inf
        model.encoder[0].weight.zero_()
        model.encoder[0].bias.fill_(0.5)
        model.encoder[0].bias[2] = 0.0
    name = first_nonfinite_module(model, x)
    assert name == "encoder.2", f"the reciprocal at 'encoder.2' makes the first inf; got {name!r}"


def test_infinity_counts_not_only_nan(device):
    model = nn.Sequential(nn.Linear(4, 4), Overflow(), nn.Tanh()).to(device)
    name = first_nonfinite_module(model, torch.randn(2, 4, device=device) + 10)
    assert name == "1", (
        f"module '1' overflows to inf (tanh then maps it back to ±1); got {name!r}. "
        "Check with torch.isfinite, which catches inf and -inf as well as NaN"
    )


class CallsTwice(nn.Module):
    """a(x), then b (whose weight is inf), then a again: a finishes first, finite."""

    def __init__(self):
        super().__init__()
        self.a = nn.Identity()
        self.b = nn.Linear(2, 2)

    def forward(self, x):
        return self.a(self.b(self.a(x)))


def test_a_module_called_twice_is_judged_call_by_call(device):
    model = CallsTwice().to(device)
    with torch.no_grad():
        model.b.weight.fill_(float("inf"))
    name = first_nonfinite_module(model, torch.ones(1, 2, device=device))
    assert name == "b", (
        f"a's first call is finite, then b outputs inf (a's second call only passes it on): "
        f"the culprit is 'b', got {name!r}; judge each output as its module finishes"
    )


class Large(nn.Module):
    """Finite outputs whose sum overflows float32."""

    def forward(self, x):
        return torch.full((4,), 3e38, device=x.device)


def test_finite_outputs_whose_sum_overflows_are_finite(device):
    model = nn.Sequential(Large(), nn.Identity()).to(device)
    name = first_nonfinite_module(model, torch.ones(1, device=device))
    assert name is None, (
        f"every output holds only finite values (3e38), got {name!r}: check each element "
        "(torch.isfinite(output).all()), not the sum, which overflows"
    )


def test_finite_model_gives_none(device):
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).to(device)
    name = first_nonfinite_module(model, torch.randn(5, 4, device=device))
    assert name is None, f"every output is finite: expected None, got {name!r}"


@pytest.mark.parametrize("broken", [True, False])
def test_checks_tensors_inside_tuple_and_dict_outputs(device, broken):
    model = WithAux(broken).to(device)
    name = first_nonfinite_module(model, torch.randn(3, 4, device=device))
    expected = "body" if broken else None
    assert name == expected, (
        f"'body' returns (h, {{'aux': [scale], 'note': 'aux'}}); with broken={broken} the "
        f"answer is {expected!r}, got {name!r}. Look inside tuples, lists and dicts"
    )


def test_the_model_itself_is_named_by_the_empty_string(device):
    model = LogOfOutput().to(device)
    with torch.no_grad():
        model.fc.weight.zero_()
        model.fc.bias.fill_(-1.0)  # log(-1) = NaN, made by the model's own forward
    name = first_nonfinite_module(model, torch.randn(2, 4, device=device))
    assert name == "", f"the model itself (named '') made the NaN; got {name!r}"


def test_a_nan_in_the_input_is_caught_by_the_first_module(device):
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU()).to(device)
    x = torch.randn(2, 4, device=device)
    x[1, 2] = float("nan")
    assert first_nonfinite_module(model, x) == "0"


def test_a_non_finite_input_made_finite_is_no_culprit(device):
    # tanh(inf) = 1: every module's output is finite though x is not. A module is judged
    # by what it outputs, not by what it was given.
    model = nn.Sequential(nn.Tanh(), nn.Linear(4, 2)).to(device)
    x = torch.randn(3, 4, device=device)
    x[0, 1] = math.inf
    name = first_nonfinite_module(model, x)
    assert name is None, (
        f"tanh turns the inf in x into 1 and every output is finite: expected None, got "
        f"{name!r}. Check each module's output, not its input"
    )


def test_an_empty_batch_has_nothing_non_finite(device):
    model = nn.Sequential(nn.Linear(4, 3), nn.ReLU()).to(device)
    name = first_nonfinite_module(model, torch.zeros(0, 4, device=device))
    assert name is None, (
        f"an empty output holds no non-finite value: expected None, got {name!r} "
        "(torch.isfinite(output).all() is True for an empty tensor; .max() of one raises)"
    )


@pytest.mark.parametrize(
    "later, expected",
    [(ReciprocalInPlace, "1"), (ZeroNonFiniteInPlace, "0")],
    ids=["makes an inf in place", "clears the NaN in place"],
)
def test_checks_each_output_when_its_module_finishes(device, later, expected):
    # The module after the first changes that module's output tensor in place.
    model = nn.Sequential(nn.Linear(4, 4), later()).to(device)
    with torch.no_grad():
        model[0].weight.zero_()
        model[0].bias.copy_(torch.tensor([1.0, 0.0, 2.0, float("nan")]))
        if later is ReciprocalInPlace:
            model[0].bias[3] = 3.0  # finite out of '0'; '1' turns the 0 into inf
    name = first_nonfinite_module(model, torch.randn(2, 4, device=device))
    assert name == expected, (
        f"module '1' of this model changes the output of module '0' in place, so the answer "
        f"is {expected!r}; got {name!r}. Check each output inside the hook, when its module "
        "finishes, not the saved outputs after the forward pass"
    )


class ComplexReciprocal(nn.Module):
    """x + i/x: a complex output, whose imaginary part is inf where x is 0."""

    def forward(self, x):
        return torch.complex(x, x.reciprocal())


def test_a_complex_output_is_checked_too(device):
    skip_unless_supported(device, torch.complex64)
    model = nn.Sequential(nn.Identity(), ComplexReciprocal(), nn.Identity()).to(device)
    x = torch.tensor([[0.5, 0.0, 2.0]], device=device)
    name = first_nonfinite_module(model, x)
    assert name == "1", (
        f"module '1' returns a complex tensor with an inf in it (1 / 0); got {name!r}. Check "
        "every tensor, whatever its dtype (torch.isfinite takes complex ones too)"
    )


@pytest.mark.parametrize("kind", [torch.float64, torch.bfloat16, torch.float16])
def test_other_floating_dtypes(device, kind):
    skip_unless_supported(device, kind)
    big = 1e300 if kind == torch.float64 else 1e3  # finite in the model's own dtype
    model = nn.Sequential(nn.Linear(4, 4), Scale(big), Overflow()).to(device, kind)
    name = first_nonfinite_module(model, torch.randn(2, 4, device=device, dtype=kind))
    assert name == "2", (
        f"in {kind}, module '1' outputs values near {big:g} (finite in {kind}) and module '2' "
        f"overflows; got {name!r}. Check each output in its own dtype (torch.isfinite), "
        "without converting it"
    )


def test_runs_the_model_once(device):
    model = CountsForwards().to(device)
    first_nonfinite_module(model, torch.randn(2, 4, device=device))
    assert model.forwards == 1, (
        f"the model ran {model.forwards} times; run model(x) once, with every hook in place"
    )


def test_removes_its_hooks(device):
    model = Encoder().to(device)
    first_nonfinite_module(model, torch.randn(3, 4, device=device))
    left = hooks_left(model)
    assert not left, f"hooks are still registered on {left}; call handle.remove() on each"
    broken = mlp_with_nan_weight(device)
    first_nonfinite_module(broken, torch.randn(3, 4, device=device))
    left = hooks_left(broken)
    assert not left, f"hooks are still registered on {left}; call handle.remove() on each"


def test_keeps_the_callers_own_hooks(device):
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU()).to(device)
    calls = []
    model[0].register_forward_hook(lambda module, args, output: calls.append("forward"))
    model.register_forward_pre_hook(lambda module, args: calls.append("pre"))
    x = torch.randn(2, 4, device=device)
    first_nonfinite_module(model, x)
    before = len(calls)
    model(x)
    assert len(calls) == before + 2, (
        "the hooks the model had before the call must still be there afterwards: remove only "
        "the hooks you registered, by their handles"
    )


def test_removes_its_hooks_when_the_forward_fails(device):
    model = Fails().to(device)
    with pytest.raises(ForwardFailed):
        first_nonfinite_module(model, torch.randn(2, 4, device=device))
    left = hooks_left(model)
    assert not left, f"hooks left on {left} after an error: remove them in a finally block"


@pytest.mark.parametrize("training", [True, False, "mixed"])
def test_leaves_mode_and_parameters_alone(device, training):
    model = mlp_with_nan_weight(device).train(training is not False)
    if training == "mixed":
        model[2].eval()  # a frozen part in a model that trains
    modes = [m.training for m in model.modules()]
    before = {k: v.clone() for k, v in model.state_dict().items()}
    first_nonfinite_module(model, torch.randn(3, 4, device=device))
    assert [m.training for m in model.modules()] == modes, (
        f"the modules' train/eval modes were {modes}, and are "
        f"{[m.training for m in model.modules()]} afterwards: leave every module's mode as it was"
    )
    for key, value in model.state_dict().items():
        assert_close(
            value,
            before[key],
            f"{key!r} changed: only run the model, do not modify its parameters or buffers",
            equal_nan=True,
            rtol=0,
            atol=0,
        )


# --- validate_batch ----------------------------------------------------------------------

FEATURES = (3, 4, 4)


def good_batch(device, batch=4):
    inputs = torch.rand(batch, *FEATURES, device=device)
    labels = torch.tensor([0, 4, 2, 1, 3, 0][:batch], device=device)
    return inputs, labels


def test_a_good_batch_passes_unchanged(device):
    inputs, labels = good_batch(device)
    before = inputs.clone(), labels.clone()
    result = validate_batch(inputs, labels, num_classes=5, feature_shape=FEATURES)
    assert result is None, "a good batch returns None"
    assert torch.equal(inputs, before[0]) and torch.equal(labels, before[1])


def test_a_single_sample_batch_passes(device):
    inputs, labels = good_batch(device, batch=1)
    validate_batch(inputs, labels, num_classes=5, feature_shape=FEATURES)


@pytest.mark.parametrize("kind", [torch.float64, torch.bfloat16, torch.float16])
def test_other_floating_dtypes_pass(device, kind):
    skip_unless_supported(device, kind)
    inputs, labels = good_batch(device)
    big = 1e300 if kind == torch.float64 else 1e3  # finite in that dtype
    validate_batch(inputs.to(kind) * big, labels, num_classes=5, feature_shape=FEATURES)


@pytest.mark.parametrize("kind", [torch.float64, torch.bfloat16, torch.float16])
def test_non_finite_inputs_of_other_floating_dtypes(device, kind):
    skip_unless_supported(device, kind)
    inputs, labels = good_batch(device)
    inputs = inputs.to(kind)
    inputs[1, 0, 0, 0] = float("inf")
    with pytest.raises(ValueError) as excinfo:
        validate_batch(inputs, labels, num_classes=5, feature_shape=FEATURES)
    assert_mentions(message_of(excinfo), "inputs", "inf")


def test_scalar_features(device):
    labels = torch.tensor([0, 4, 2], device=device)
    validate_batch(torch.rand(3, device=device), labels, num_classes=5, feature_shape=())
    with pytest.raises(ValueError) as excinfo:
        validate_batch(torch.rand((), device=device), labels, num_classes=5, feature_shape=())
    assert_mentions(message_of(excinfo), "inputs", "shape", "()")


def message_of(excinfo):
    return str(excinfo.value)


def assert_mentions(message, *words):
    missing = [w for w in words if w.lower() not in message.lower()]
    assert not missing, f"the error message {message!r} should mention {missing}"


# Check k of the six with every later problem present too, as far as they can coexist
# (integer inputs hold no NaN): the error is check k's. (error, words in its message)
FIRST_PROBLEM = {
    1: (TypeError, ["inputs", "uint8"]),
    2: (ValueError, ["inputs", "shape", "(4, 3, 4)"]),
    3: (TypeError, ["labels", "float32"]),
    4: (ValueError, ["labels", "shape", "(4, 1)"]),
    5: (ValueError, ["inputs", "NaN"]),
    6: (ValueError, ["labels", "7"]),
}


@pytest.mark.parametrize("first", list(FIRST_PROBLEM))
def test_the_checks_run_in_order(device, first):
    shape = FEATURES if first > 2 else (3, 4)
    inputs = torch.rand(4, *shape, device=device)
    if first <= 5:
        inputs[0, 0, 0] = float("nan")
    if first == 1:
        inputs = inputs.nan_to_num(0.0).mul(255).to(torch.uint8)
    labels = torch.tensor([[0], [7], [2], [1]], device=device)
    labels = labels if first <= 4 else labels[:, 0]
    labels = labels.float() if first <= 3 else labels
    error, words = FIRST_PROBLEM[first]
    with pytest.raises(error) as excinfo:
        validate_batch(inputs, labels, num_classes=5, feature_shape=FEATURES)
    try:
        assert_mentions(message_of(excinfo), *words)
    except AssertionError as failure:
        raise AssertionError(
            f"this batch fails checks {first} to 6 at once: the error should be check {first}'s, "
            f"as the docstring orders them. {failure}"
        ) from None


@pytest.mark.parametrize(
    "dtype", [*facets.INTEGER, torch.bool, torch.complex64, torch.complex128], ids=str
)
def test_inputs_that_are_not_floating_point(device, dtype):
    skip_unless_supported(device, dtype)
    inputs, labels = good_batch(device)
    with pytest.raises(TypeError) as excinfo:
        validate_batch((inputs * 255).to(dtype), labels, num_classes=5, feature_shape=FEATURES)
    assert_mentions(message_of(excinfo), "inputs", str(dtype).removeprefix("torch."))


@pytest.mark.parametrize(
    "shape", [(4, 4, 4, 3), (4, 3, 4), (3, 4, 4), (4, 3, 4, 4, 1), (5,)], ids=str
)
def test_inputs_of_the_wrong_shape(device, shape):
    _, labels = good_batch(device)
    inputs = torch.rand(shape, device=device)
    with pytest.raises(ValueError) as excinfo:
        validate_batch(inputs, labels, num_classes=5, feature_shape=FEATURES)
    assert_mentions(message_of(excinfo), "inputs", "shape", str(shape))


def test_inputs_without_a_batch_dimension(device):
    # One sample's scalar feature, with no batch dimension: shape () is not [B].
    inputs = torch.tensor(0.5, device=device)
    labels = torch.zeros(1, dtype=torch.int64, device=device)
    with pytest.raises(ValueError) as excinfo:
        validate_batch(inputs, labels, num_classes=5, feature_shape=())
    assert_mentions(message_of(excinfo), "inputs", "shape", "()")


def test_empty_batch(device):
    inputs = torch.rand(0, *FEATURES, device=device)
    labels = torch.zeros(0, dtype=torch.int64, device=device)
    with pytest.raises(ValueError) as excinfo:
        validate_batch(inputs, labels, num_classes=5, feature_shape=FEATURES)
    assert_mentions(message_of(excinfo), "empty")


def test_a_batch_of_empty_samples_is_not_an_empty_batch(device):
    # B = 2 samples with a feature dimension of size 0: the batch itself is not empty.
    inputs = torch.rand(2, 3, 0, device=device)
    labels = torch.tensor([0, 4], device=device)
    result = validate_batch(inputs, labels, num_classes=5, feature_shape=(3, 0))
    assert result is None, (
        "a batch of 2 samples of feature shape (3, 0) is fine: 'empty' means B = 0, "
        "not inputs.numel() == 0"
    )


def test_empty_batch_of_the_wrong_feature_shape_is_a_shape_error(device):
    inputs = torch.rand(0, 3, 4, device=device)
    labels = torch.zeros(0, dtype=torch.int64, device=device)
    with pytest.raises(ValueError) as excinfo:
        validate_batch(inputs, labels, num_classes=5, feature_shape=FEATURES)
    assert_mentions(message_of(excinfo), "inputs", "shape", "(0, 3, 4)")


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.uint8])
def test_labels_that_are_not_int64(device, dtype):
    inputs, labels = good_batch(device)
    with pytest.raises(TypeError) as excinfo:
        validate_batch(inputs, labels.to(dtype), num_classes=5, feature_shape=FEATURES)
    assert_mentions(message_of(excinfo), "labels", str(dtype).removeprefix("torch."))


@pytest.mark.parametrize("shape", [(4, 1), (5,), (3,), ()], ids=str)
def test_labels_of_the_wrong_shape(device, shape):
    inputs, _ = good_batch(device)
    labels = torch.zeros(shape, dtype=torch.int64, device=device)
    with pytest.raises(ValueError) as excinfo:
        validate_batch(inputs, labels, num_classes=5, feature_shape=FEATURES)
    assert_mentions(message_of(excinfo), "labels", "shape", str(shape))


@pytest.mark.parametrize(
    "bad, words",
    [
        ([float("nan")], ["NaN"]),
        ([float("inf")], ["inf"]),
        ([-float("inf")], ["inf"]),
        ([float("nan"), float("inf")], ["NaN", "inf"]),
    ],
    ids=["nan", "inf", "-inf", "nan and inf"],
)
def test_non_finite_inputs(device, bad, words):
    inputs, labels = good_batch(device)
    for i, value in enumerate(bad):
        inputs[i, 1, 2, 3 - i] = value
    with pytest.raises(ValueError) as excinfo:
        validate_batch(inputs, labels, num_classes=5, feature_shape=FEATURES)
    message = message_of(excinfo)
    assert_mentions(message, "inputs", *words)
    for absent in {"NaN", "inf"} - set(words):
        assert absent.lower() not in message.lower(), (
            f"the inputs hold no {absent}, yet the message {message!r} mentions {absent!r}; "
            "name only what was found"
        )


@pytest.mark.parametrize("bad_label", [5, 7, -1])
def test_labels_out_of_range(device, bad_label):
    inputs, labels = good_batch(device)
    labels[2] = bad_label
    with pytest.raises(ValueError) as excinfo:
        validate_batch(inputs, labels, num_classes=5, feature_shape=FEATURES)
    assert_mentions(message_of(excinfo), "labels", str(bad_label))


def test_the_label_range_follows_num_classes(device):
    # num_classes drawn from the seeded generator (grading's held-out seed draws others), never
    # the 5 of the other tests: the range is [0, num_classes), whatever num_classes is.
    num_classes = random.choice([n for n in range(2, 41) if n != 5])
    inputs, _ = good_batch(device)
    labels = torch.tensor([0, num_classes - 1, 1, num_classes - 1], device=device)
    validate_batch(inputs, labels, num_classes=num_classes, feature_shape=FEATURES)
    labels[2] = num_classes
    with pytest.raises(ValueError) as excinfo:
        validate_batch(inputs, labels, num_classes=num_classes, feature_shape=FEATURES)
        pytest.fail(
            f"label {num_classes} with num_classes={num_classes} should raise ValueError: "
            "labels are class indices in [0, num_classes)"
        )
    assert_mentions(message_of(excinfo), "labels", str(num_classes))


def test_a_non_contiguous_batch_is_fine(device):
    inputs = torch.rand(4, *FEATURES[::-1], device=device).permute(0, 3, 2, 1)
    labels = torch.tensor([[0, 1], [2, 3], [4, 0], [1, 2]], device=device)[:, 0]
    validate_batch(inputs, labels, num_classes=5, feature_shape=FEATURES)


# --- overfit_one_batch -------------------------------------------------------------------


def one_batch(device, features=8, classes=4, size=8):
    inputs = torch.randn(size, features, device=device)
    return inputs, torch.arange(size, device=device) % classes


def plain_sgd_losses(model, inputs, targets, steps, lr):
    """The oracle: the loop the contract describes, written out with torch's own SGD."""
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def small_mlp(device):
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4)).to(device)
    model[0].bias.requires_grad_(False)  # a frozen parameter stays as it is
    return model


def leftover_grads(model):
    """Gradients left in .grad by earlier code: each step zeroes them before its backward."""
    for param in model.parameters():
        if param.requires_grad:
            param.grad = torch.full_like(param, 3.0)


@contextlib.contextmanager
def optimizers_stepping():
    """Record the optimizer behind each step taken inside the block."""
    seen = []
    handle = register_optimizer_step_pre_hook(
        lambda optimizer, args, kwargs: seen.append(optimizer)
    )
    try:
        yield seen
    finally:
        handle.remove()


@pytest.mark.parametrize("steps, lr", [(1, 0.5), (5, 0.5), (5, 0.05)])
def test_overfit_one_batch_is_plain_sgd_on_cross_entropy(device, steps, lr):
    inputs, targets = one_batch(device)
    model = small_mlp(device)
    leftover_grads(model)
    twin = copy.deepcopy(model)
    with optimizers_stepping() as stepping:
        losses = overfit_one_batch(model, inputs, targets, steps=steps, lr=lr)
    assert len(stepping) == steps and len({id(optimizer) for optimizer in stepping}) == 1, (
        f"{steps} steps of one optimizer, made once before the loop; got {len(stepping)} steps "
        f"of {len({id(optimizer) for optimizer in stepping})} optimizers"
    )
    assert isinstance(losses, list) and all(type(loss) is float for loss in losses), (
        f"return a list of Python floats (loss.item()), got {losses!r}"
    )
    expected = plain_sgd_losses(twin, inputs, targets, steps, lr)
    assert len(losses) == steps, f"{steps} steps should give {steps} losses, got {len(losses)}"
    assert_close(torch.tensor(losses), torch.tensor(expected), msg="the loss before each SGD step")
    for (name, got), want in zip(model.named_parameters(), twin.parameters(), strict=True):
        assert_close(got, want, msg=f"parameter {name} after {steps} steps of plain SGD")


def test_overfit_one_batch_applies_large_gradients_unclipped(device):
    # Inputs in the thousands give gradients in the thousands: plain SGD neither clips nor
    # rescales them (a loop that clips matches the oracle only while gradients are small).
    inputs, targets = one_batch(device)
    inputs = inputs * 1000
    model = nn.Linear(8, 4).to(device)
    twin, probe = copy.deepcopy(model), copy.deepcopy(model)
    F.cross_entropy(probe(inputs), targets).backward()
    grad_norm = torch.linalg.vector_norm(torch.cat([p.grad.flatten() for p in probe.parameters()]))
    assert grad_norm > 100, f"the test needs large gradients, got a norm of {grad_norm.item()}"
    losses = overfit_one_batch(model, inputs, targets, steps=3, lr=1e-4)
    expected = plain_sgd_losses(twin, inputs, targets, 3, 1e-4)
    assert_close(torch.tensor(losses), torch.tensor(expected), msg="the loss before each SGD step")
    for (name, got), want in zip(model.named_parameters(), twin.parameters(), strict=True):
        assert_close(got, want, msg=f"parameter {name} after 3 steps of plain SGD, unclipped")


def test_overfit_one_batch_defaults(device):
    inputs, targets = one_batch(device)
    model = small_mlp(device)
    twin = copy.deepcopy(model)
    losses = overfit_one_batch(model, inputs, targets)
    expected = plain_sgd_losses(twin, inputs, targets, steps=50, lr=0.5)
    assert_close(torch.tensor(losses), torch.tensor(expected), msg="50 steps at lr=0.5")


def test_overfit_zero_steps_changes_nothing(device):
    inputs, targets = one_batch(device)
    model = small_mlp(device)
    leftover_grads(model)
    before = copy.deepcopy(model.state_dict())
    assert overfit_one_batch(model, inputs, targets, steps=0) == []
    for name, value in model.state_dict().items():
        assert torch.equal(value, before[name]), f"steps=0 changed {name}"
    for name, param in model.named_parameters():
        if param.requires_grad:
            assert param.grad is not None and bool((param.grad == 3).all()), (
                f"steps=0 changed {name}.grad: no step, so nothing zeroes it"
            )


def test_a_healthy_model_memorises_one_batch(device):
    # Eight points in eight dimensions can always be told apart by a linear layer: the
    # loss on this one batch must fall most of the way to zero.
    inputs, targets = one_batch(device)
    losses = overfit_one_batch(nn.Linear(8, 4).to(device), inputs, targets, steps=100)
    assert losses[-1] < 0.2 * losses[0], (
        f"the loss went from {losses[0]:.3f} to {losses[-1]:.3f} on one batch: a model that can "
        "learn memorises it (zero the gradients every step, step after backward)"
    )


def test_a_softmax_before_cross_entropy_shows_as_a_plateau(device):
    # cross_entropy applies log_softmax itself: fed probabilities, its loss cannot fall
    # below about log(1 + 3/e) = 0.74 for four classes, about half the starting loss.
    inputs, targets = one_batch(device)
    model = nn.Sequential(nn.Linear(8, 4), nn.Softmax(dim=1)).to(device)
    losses = overfit_one_batch(model, inputs, targets, steps=100)
    assert losses[-1] > 0.5 * losses[0], "a softmax before cross_entropy cannot memorise"


@pytest.mark.parametrize("training", [True, False])
def test_overfit_leaves_the_mode_and_the_batch_alone(device, training):
    inputs, targets = one_batch(device)
    kept = inputs.clone(), targets.clone()
    # Dropout(1.0) zeroes everything in training mode: the loss is log(4) at every step, and
    # the same on every device; in eval mode it lets everything through.
    model = nn.Sequential(nn.Linear(8, 4), nn.Dropout(1.0)).to(device).train(training)
    twin = copy.deepcopy(model)
    losses = overfit_one_batch(model, inputs, targets, steps=2)
    assert all(m.training is training for m in model.modules()), "leave train/eval mode as is"
    assert_close(
        torch.tensor(losses),
        torch.tensor(plain_sgd_losses(twin, inputs, targets, 2, 0.5)),
        msg="the loss each step computed for its update, in the caller's mode",
    )
    assert torch.equal(inputs, kept[0]) and torch.equal(targets, kept[1]), "batch modified"


# --- nan_born_in_backward ----------------------------------------------------------------

ANOMALY_WARNINGS = (
    "ignore:Anomaly Detection has been enabled:UserWarning",
    "ignore:Error detected in:UserWarning",
)


def anomaly_warnings_ignored(test):
    for spec in ANOMALY_WARNINGS:
        test = pytest.mark.filterwarnings(spec)(test)
    return test


# Each forward value is finite (where picks the safe branch); each gradient of the unpicked
# branch is NaN, and 0 * NaN is NaN.
BORN_IN_BACKWARD = {
    "SqrtBackward0": (lambda x: torch.where(x > 0, x.sqrt(), 0), [-1.0, 4.0]),
    "LogBackward0": (lambda x: torch.where(x > 0, x.log(), 0), [0.0, 2.0]),
    "ReciprocalBackward0": (lambda x: torch.where(x != 0, 1 / x, 0), [0.0, 3.0]),
    "AcosBackward0": (lambda x: torch.where(x.abs() < 1, x.acos(), 0), [2.0, 0.5]),
}


@anomaly_warnings_ignored
@pytest.mark.parametrize("node", list(BORN_IN_BACKWARD))
def test_names_the_backward_node_that_returned_nan(device, node):
    f, values = BORN_IN_BACKWARD[node]
    x = torch.tensor(values, device=device, requires_grad=True)
    assert torch.isfinite(f(x)).all()  # the forward is clean
    found = nan_born_in_backward(lambda: (f(x) * 2).sum())
    assert found == node, f"the NaN was born in {node}'s backward, got {found!r}"


@anomaly_warnings_ignored
def test_names_the_first_of_two_nans(device):
    # The backward pass reaches the log (applied last) before the sqrt.
    x = torch.tensor([-1.0, 4.0], device=device, requires_grad=True)
    inner = torch.where(x > 0, x.sqrt(), 0)
    found = nan_born_in_backward(lambda: torch.where(inner > 0, inner.log(), 0).sum())
    assert found == "LogBackward0", f"the first node to return NaN is LogBackward0, got {found!r}"


@anomaly_warnings_ignored
def test_a_finite_backward_gives_none_and_the_gradients(device):
    x = torch.tensor([1.0, 4.0], device=device, requires_grad=True)
    (expected,) = torch.autograd.grad(x.sqrt().sum(), x)
    assert nan_born_in_backward(lambda: x.sqrt().sum()) is None
    assert x.grad is not None, "a finite backward pass leaves its gradients in .grad"
    assert_close(x.grad, expected, msg="x.grad after a finite backward pass")


@anomaly_warnings_ignored
@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")], ids=str)
def test_a_non_finite_loss_was_born_in_the_forward(device, bad):
    x = torch.tensor([1.0, bad], device=device, requires_grad=True)
    with pytest.raises(ValueError):
        nan_born_in_backward(lambda: (x * 2).sum())


@anomaly_warnings_ignored
def test_a_nan_loss_raises_before_any_backward(device):
    # sqrt(-1) is NaN in the forward, and its backward returns NaN too: still a ValueError.
    x = torch.tensor([-1.0, 4.0], device=device, requires_grad=True)
    with pytest.raises(ValueError):
        nan_born_in_backward(lambda: x.sqrt().sum())
    assert x.grad is None, "check the loss before the backward pass, which fills .grad"


def test_runs_under_anomaly_detection(device):
    x = torch.tensor([-1.0, 4.0], device=device, requires_grad=True)
    seen = {}

    def compute_loss():
        seen["forward"] = torch.is_anomaly_enabled()
        return torch.where(x > 0, x.sqrt(), 0).sum()

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nan_born_in_backward(compute_loss)
    assert seen["forward"], "run compute_loss, the forward pass, with anomaly detection on"
    said = [str(warning.message) for warning in caught]
    traceback = [text for text in said if text.startswith("Error detected in SqrtBackward0")]
    assert traceback, (
        "anomaly detection warns with the forward line that built the failing node: let "
        "that warning through"
    )
    assert "No forward pass information" not in traceback[0], (
        "the forward pass ran without anomaly detection, so the warning cannot say which "
        "line built the node"
    )


def test_leaves_the_warnings_filters_to_the_caller(device):
    x = torch.tensor([-1.0, 4.0], device=device, requires_grad=True)
    seen = {}

    def in_backward(grad):
        seen["backward"] = list(warnings.filters)

    def compute_loss():
        seen["forward"] = list(warnings.filters)
        loss = torch.where(x > 0, x.sqrt(), 0).sum()
        loss.register_hook(in_backward)
        return loss

    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        callers = list(warnings.filters)
        nan_born_in_backward(compute_loss)
    for part in ("forward", "backward"):
        assert seen.get(part) == callers, (
            f"the {part} pass ran under warnings filters other than the caller's: anomaly "
            "detection's warnings are its output, do not silence them"
        )


@anomaly_warnings_ignored
def test_other_backward_errors_propagate(device):
    x = torch.tensor([1.0, 4.0], device=device, requires_grad=True)

    def compute_loss():
        y = x.exp()  # exp keeps its result for the backward pass
        loss = y.sum()
        y.add_(1)  # which this changes in place
        return loss

    with raises(RuntimeError) as caught:
        nan_born_in_backward(compute_loss)
    assert "modified by an inplace operation" in str(caught.value), (
        f"autograd's own error should propagate as it is, got {caught.value!r}"
    )


class LossFailed(Exception):
    """Not a RuntimeError: an unimplemented stub's NotImplementedError must not match it."""


@anomaly_warnings_ignored
def test_switches_anomaly_detection_off_again(device):
    x = torch.tensor([-1.0, 4.0], device=device, requires_grad=True)
    nan_born_in_backward(lambda: torch.where(x > 0, x.sqrt(), 0).sum())
    assert not torch.is_anomaly_enabled(), "anomaly detection is slow: switch it off again"
    nan_born_in_backward(lambda: x.exp().sum())
    assert not torch.is_anomaly_enabled(), "switch it off after a finite backward too"

    def fails():
        raise LossFailed("the forward pass failed")

    with pytest.raises(LossFailed):
        nan_born_in_backward(fails)
    assert not torch.is_anomaly_enabled(), "switch it off also when compute_loss raises"


@anomaly_warnings_ignored
def test_puts_back_the_callers_anomaly_setting(device):
    x = torch.tensor([-1.0, 4.0], device=device, requires_grad=True)
    with torch.autograd.set_detect_anomaly(True):
        nan_born_in_backward(lambda: torch.where(x > 0, x.sqrt(), 0).sum())
        assert torch.is_anomaly_enabled(), (
            "the caller had anomaly detection on: put back the setting it had, not off"
        )


@anomaly_warnings_ignored
def test_puts_back_a_setting_without_nan_checks(device):
    x = torch.tensor([-1.0, 4.0], device=device, requires_grad=True)
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        found = nan_born_in_backward(lambda: torch.where(x > 0, x.sqrt(), 0).sum())
        now = (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
    assert found == "SqrtBackward0", (
        f"the caller had anomaly detection on without NaN checks: switch them on for the "
        f"call (detect_anomaly() does), got {found!r}"
    )
    assert now == (True, False), (
        f"the caller had anomaly detection on with check_nan=False; afterwards it is {now}: "
        "put back both parts of the setting"
    )


# ---------------------------------------------------------------- facets


def broken_model(device):
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Dropout(0.5), nn.Linear(4, 1))
    with torch.no_grad():
        model[3].weight[0, 0] = float("inf")
    return facets.args(model.to(device), torch.ones(5, 3, device=device))


def broken_earlier(arguments):
    with torch.no_grad():
        arguments.args[0][0].weight[0, 0] = float("nan")


def broken_model_without_buffers(device):
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Dropout(0.5), nn.Linear(4, 1))
    with torch.no_grad():
        model[3].weight[0, 0] = float("inf")
    return facets.args(model.to(device), torch.ones(5, 3, device=device))


def batch(device):
    return facets.args(
        torch.rand(4, 3, device=device), torch.tensor([0, 1, 2, 1], device=device), 3, (3,)
    )


def small_batch(device):
    inputs = torch.linspace(-1, 1, 12, device=device).reshape(4, 3)
    return facets.args(
        nn.Linear(3, 2).to(device), inputs, torch.tensor([0, 1, 1, 0], device=device), steps=2
    )


def edge_input(model, device, nonfinite=False):
    x = torch.randn(4, 3, device=device)
    if nonfinite:
        x[1, 2] = math.inf
    return facets.args(model, x)


def first_nonfinite_of_one_module(model, x):
    """The oracle for an edge model, the only module it runs: its output is non-finite
    where its input is."""
    return None if torch.isfinite(x).all() else ""


def sqrt_at_zero(device):
    """A finite loss whose backward meets sqrt's infinite slope at 0 times a zero: NaN."""
    x = torch.tensor([0.0, 4.0], device=device, requires_grad=True)
    return lambda: (x.sqrt() * torch.tensor([0.0, 1.0], device=device)).sum()


FACETS = facets.declare(
    # Models at the edges: nothing, no parameters, buffers only, all frozen.
    facets.of(
        first_nonfinite_module,
        facets.Edges(
            {
                **facets.edge_models(edge_input),
                **{
                    f"{label}, an inf in x": make
                    for label, make in facets.edge_models(
                        lambda model, device: edge_input(model, device, nonfinite=True)
                    ).items()
                },
            },
            oracle=first_nonfinite_of_one_module,
        ),
        name="first_nonfinite_module(edge models)",
    ),
    facets.of(
        first_nonfinite_module,
        facets.Modes(broken_model, module=lambda arguments: arguments.args[0]),
        facets.ForwardModes(
            broken_model, module=lambda arguments: arguments.args[0], grad=False, calls=1
        ),
        # The contract names the parameters (not the buffers) and x.
        facets.Unmodified(
            broken_model,
            inputs=lambda arguments: (list(arguments.args[0].parameters()), arguments.args[1]),
        ),
        # A model without buffers, left whole as it was: parameters, hooks and modes.
        facets.Unmodified(
            broken_model_without_buffers,
            inputs=lambda arguments: arguments.args[0],
            label="model",
            module_grads=True,
        ),
        # Called again after the model changed: read anew, nothing kept from the last call.
        facets.Changed(broken_model, broken_earlier),
    ),
    facets.of(
        validate_batch,
        facets.Number(batch, type(None)),
        facets.Unmodified(batch),
        # inputs [B, *feature_shape] and labels [B]: each fixes the other's batch.
        facets.BadShapes(batch, names=(0, 1)),
    ),
    facets.of(
        overfit_one_batch,
        facets.Number(small_batch, float),
        facets.Unmodified(small_batch, inputs=lambda arguments: arguments.args[1:]),
        facets.FreshGrads(
            small_batch, params=lambda arguments: list(arguments.args[0].parameters())
        ),
        facets.ForwardModes(
            small_batch,
            module=lambda arguments: arguments.args[0],
            grad=True,
            calls=lambda arguments: arguments.kwargs["steps"],  # once per step
        ),
        # Python floats, one per step: the first stands for all.
        call=lambda *args, **kwargs: overfit_one_batch(*args, **kwargs)[0],
    ),
    facets.of(
        overfit_one_batch,
        # Every loss: one per step, each after a step of the rate.
        facets.Defaults(
            lambda device: facets.args(*small_batch(device).args), values={"steps": 50, "lr": 0.5}
        ),
        name="overfit_one_batch(defaults)",
    ),
    # Names a backward node and switches a global mode: its own tests check the name and that
    # anomaly detection is off again.
    facets.of(
        nan_born_in_backward,
        facets.Propagates(lambda device, fault: facets.args(fault)),
        # compute_loss once: a second forward (to check the loss first) runs the caller's
        # code twice, BatchNorm statistics and dropout draws included.
        facets.Runs(
            lambda device, wrap: facets.args(wrap(sqrt_at_zero(device))), times=lambda a: 1
        ),
    ),
)
test_facets = anomaly_warnings_ignored(FACETS.test)  # nan_born_in_backward warns, by design
