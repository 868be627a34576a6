import pytest
import torch
import torch.nn.functional as F

from katas.q46_norm_layers import batch_norm, layer_norm
from torch_katas import facets
from torch_katas.op_families import NORMALISATION
from torch_katas.testing import (
    assert_close,
    assert_no_torch_internals,
    check_tensor,
    forbidden_ops,
    skip_unless_supported,
)

# Every builtin that normalises for you, whatever namespace it is reached through.
NORM_BUILTINS = NORMALISATION.ops
# The aten operators behind them on every device, however they are reached.
NORM_ATEN = NORMALISATION.aten


def assert_near(actual, expected, advice):
    """assert_close with room for float32 round-off on any device (a GPU reduces in
    another order); the mistakes this kata catches are off by far more."""
    assert_close(actual, expected, advice, rtol=1e-5, atol=1e-5)


def channel_stats(device, channels, dtype=torch.float32):
    """Running statistics and affine parameters that are far from the defaults."""
    running_mean = torch.randn(channels, device=device, dtype=dtype)
    running_var = torch.rand(channels, device=device, dtype=dtype) + 0.5
    weight = torch.randn(channels, device=device, dtype=dtype)
    bias = torch.randn(channels, device=device, dtype=dtype)
    return running_mean, running_var, weight, bias


BN_SHAPES = [(8, 3), (4, 3, 5), (2, 3, 4, 5), (1, 3, 4), (2, 3, 2, 2, 2)]


AFFINE = ["affine", "plain"]


def affine_parts(affine, weight, bias):
    """weight and bias as the case has them: each may be None on its own."""
    keep_weight, keep_bias = affine in ("affine", "weight only"), affine in ("affine", "bias only")
    return (weight if keep_weight else None), (bias if keep_bias else None)


@pytest.mark.parametrize("shape", BN_SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("affine", AFFINE)
def test_batch_norm_training_matches_torch(device, shape, affine):
    x = torch.randn(shape, device=device) * 3 + 1
    running_mean, running_var, weight, bias = channel_stats(device, shape[1])
    weight, bias = affine_parts(affine, weight, bias)
    expected_mean, expected_var = running_mean.clone(), running_var.clone()
    y = batch_norm(x, running_mean, running_var, weight, bias, training=True)
    expected = F.batch_norm(x, expected_mean, expected_var, weight, bias, training=True)
    check_tensor(y, shape=shape, dtype=x.dtype, device=device, name="batch_norm(x, ...)")
    assert_near(
        running_mean,
        expected_mean,
        "running_mean: (1 - momentum) · running + momentum · batch mean",
    )
    assert_near(
        running_var,
        expected_var,
        (
            "running_var should be updated with the UNBIASED batch variance "
            "(divide by n - 1, n = values per channel), in place"
        ),
    )
    assert_near(
        y,
        expected,
        (
            "the output should be normalised with the batch mean and the BIASED "
            "batch variance (divide by n), per channel over batch and spatial dims; "
            "then scaled by weight and shifted by bias, each when it is given"
        ),
    )


@pytest.mark.parametrize("momentum", [0.0, 0.3, 1.0])
def test_batch_norm_momentum(device, momentum):
    x = torch.randn(6, 4, 3, device=device)
    running_mean, running_var, _, _ = channel_stats(device, 4)
    expected_mean, expected_var = running_mean.clone(), running_var.clone()
    batch_norm(x, running_mean, running_var, training=True, momentum=momentum)
    F.batch_norm(x, expected_mean, expected_var, training=True, momentum=momentum)
    assert_near(
        (running_mean, running_var),
        (expected_mean, expected_var),
        (
            f"momentum={momentum}: running = (1 - momentum) · running + momentum · "
            f"batch statistic (0 keeps the old value, 1 takes the batch's)"
        ),
    )


def test_batch_norm_updates_running_statistics_in_place_and_out_of_the_graph(device):
    x = torch.randn(5, 3, device=device, requires_grad=True)
    running_mean, running_var, weight, bias = channel_stats(device, 3)
    weight.requires_grad_(True)
    mean_object, var_object = running_mean, running_var
    before = running_mean.clone(), running_var.clone()
    batch_norm(x, running_mean, running_var, weight, bias, training=True)
    assert running_mean is mean_object and running_var is var_object
    assert not torch.equal(running_mean, before[0]) and not torch.equal(running_var, before[1]), (
        "update running_mean and running_var in place (their owner, a BatchNorm layer, "
        "keeps the same tensors), e.g. with mul_/add_ or lerp_"
    )
    for name, stat in (("running_mean", running_mean), ("running_var", running_var)):
        assert not stat.requires_grad and stat.grad_fn is None, (
            f"{name} now records autograd history; update it under torch.no_grad() "
            "(or from detached statistics): it is bookkeeping, not part of the model's graph"
        )


# Evaluation needs no batch statistics: a batch of one, an empty batch and an input with no
# positions (n = 0) work there, as in F.batch_norm.
@pytest.mark.parametrize(
    "shape",
    [(1, 3), (4, 3, 2), (0, 3), (0, 3, 4), (2, 3, 0)],
    ids=["batch-of-1", "4x3x2", "empty-batch", "empty-batch-4", "no-positions"],
)
def test_batch_norm_eval_uses_running_statistics(device, shape):
    x = torch.randn(shape, device=device)
    running_mean, running_var, weight, bias = channel_stats(device, 3)
    before = running_mean.clone(), running_var.clone()
    y = batch_norm(x, running_mean, running_var, weight, bias, training=False, eps=1e-3)
    expected = F.batch_norm(x, *before, weight, bias, training=False, eps=1e-3)
    check_tensor(y, shape=shape, dtype=x.dtype, device=device, name="batch_norm(x, ...)")
    assert_near(y, expected, "in eval mode normalise with the running statistics")
    assert torch.equal(running_mean, before[0]) and torch.equal(running_var, before[1]), (
        "in eval mode the running statistics must not change"
    )


@pytest.mark.parametrize(
    "shape",
    [(1, 3), (1, 3, 1, 1), (0, 3), (0, 3, 4), (2, 3, 0)],
    ids=["1x3", "1x3x1x1", "empty-batch", "empty-batch-4", "no-positions"],
)
def test_batch_norm_training_needs_two_values_per_channel(device, shape):
    running_mean, running_var, _, _ = channel_stats(device, 3)
    before = running_mean.clone(), running_var.clone()
    with pytest.raises(ValueError):
        batch_norm(torch.randn(shape, device=device), running_mean, running_var, training=True)
    assert torch.equal(running_mean, before[0]) and torch.equal(running_var, before[1]), (
        "a call that raises must leave the running statistics unchanged: check n first"
    )


MODES = pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])


# (which statistic is wrong, its shape) for 3 channels: longer, shorter, and the right size
# in the wrong layout.
WRONG_STATS = [
    ("running_mean", (4,)),
    ("running_var", (4,)),
    ("both", (4,)),
    ("running_mean", (2,)),
    ("running_var", (2,)),
    ("running_mean", (3, 1)),
    ("running_var", (1, 3)),
    ("running_mean", ()),  # no length at all: a ValueError, not len()'s TypeError
    ("running_var", ()),
]


@MODES
@pytest.mark.parametrize("wrong, shape", WRONG_STATS, ids=[f"{w}-{s}" for w, s in WRONG_STATS])
def test_batch_norm_rejects_running_statistics_of_the_wrong_size(device, wrong, shape, training):
    right = torch.rand(3, device=device) + 0.5
    bad = torch.rand(shape, device=device) + 0.5
    running_mean = bad.clone() if wrong in ("running_mean", "both") else right.clone()
    running_var = bad.clone() if wrong in ("running_var", "both") else right.clone()
    try:
        batch_norm(torch.randn(5, 3, device=device), running_mean, running_var, training=training)
    except ValueError:
        return
    pytest.fail(
        f"{wrong} of shape {shape} for 3 channels, training={training}: raise ValueError; "
        "check that both have shape (C,) exactly (not only their size), in either mode"
    )


@MODES
@pytest.mark.parametrize("shape", [(3,), ()], ids=["1-D", "0-D"])
def test_batch_norm_rejects_x_without_a_channel_dimension(device, shape, training):
    running_mean, running_var, _, _ = channel_stats(device, 3)
    try:
        batch_norm(torch.randn(shape, device=device), running_mean, running_var, training=training)
    except ValueError:
        return
    pytest.fail(
        f"x of shape {shape}, training={training}: raise ValueError, x needs (N, C, ...) "
        "in either mode"
    )


def test_batch_norm_trains_by_default_and_on_two_values_per_channel(device):
    x = torch.randn(2, 3, device=device) * 3 + 1  # n = 2: the fewest training allows
    running_mean, running_var, _, _ = channel_stats(device, 3)
    expected_stats = running_mean.clone(), running_var.clone()
    y = batch_norm(x, running_mean, running_var)
    expected = F.batch_norm(x, *expected_stats, training=True)
    assert_near(y, expected, "training=True is the default; n = 2 values per channel is enough")
    assert_near(
        (running_mean, running_var), expected_stats, "the default updates the running statistics"
    )


def test_batch_norm_is_stable_for_large_offsets(device):
    x = 1000 + torch.randn(64, 3, 5, device=device)
    running_mean, running_var, _, _ = channel_stats(device, 3)
    y = batch_norm(x, running_mean, running_var, training=True)
    exact = F.batch_norm(x.cpu().double(), None, None, training=True).float().to(device)
    assert_close(
        y,
        exact,
        "inputs around 1000 lose the variance to round-off when it is "
        "computed as E[x²] - E[x]²; subtract the mean first (or use torch.var)",
        atol=1e-3,
        rtol=0,
    )


def test_batch_norm_non_contiguous_input_is_not_modified(device):
    x = torch.randn(2, 5, 4, 3, device=device).permute(0, 3, 1, 2)  # (2, 3, 5, 4)
    x_before = x.clone()
    running_mean, running_var, weight, bias = channel_stats(device, 3)
    expected_stats = running_mean.clone(), running_var.clone()
    y = batch_norm(x, running_mean, running_var, weight, bias, training=True, momentum=0.5)
    expected = F.batch_norm(x, *expected_stats, weight, bias, training=True, momentum=0.5)
    assert_near(y, expected, "a non-contiguous x must give the same result")
    assert_near(
        (running_mean, running_var), expected_stats, "the running statistics, from a strided x"
    )
    assert torch.equal(x, x_before), "x was modified; compute a new tensor instead"


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
def test_batch_norm_gradients_match_torch(device, training):
    skip_unless_supported(device, torch.float64)
    x = torch.randn(4, 3, 2, device=device, dtype=torch.float64, requires_grad=True)
    running_mean, running_var, weight, bias = channel_stats(device, 3, torch.float64)
    weight.requires_grad_(True)
    bias.requires_grad_(True)
    y = batch_norm(x, running_mean.clone(), running_var.clone(), weight, bias, training=training)
    check_tensor(y, shape=x.shape, dtype=torch.float64, device=device, name="batch_norm(x, ...)")
    upstream = torch.randn_like(y)
    grads = torch.autograd.grad(y, (x, weight, bias), upstream)
    expected_y = F.batch_norm(x, running_mean, running_var, weight, bias, training=training)
    expected = torch.autograd.grad(expected_y, (x, weight, bias), upstream)
    for name, grad, want in zip(("x", "weight", "bias"), grads, expected, strict=True):
        assert_close(grad, want, f"gradient with respect to {name}")


LN_CASES = [
    ((4, 10), 10),
    ((2, 3, 4), (3, 4)),
    ((2, 3, 4), [4]),
    ((1, 6), 6),  # a batch of one is fine: nothing is shared across examples
    ((5,), (5,)),  # no leading dimensions at all
    ((0, 4), 4),  # an empty batch gives an empty result
    ((2, 2, 3), torch.Size([2, 3])),
]


@pytest.mark.parametrize(
    "shape, normalized_shape", LN_CASES, ids=[f"{shape}-{ns}" for shape, ns in LN_CASES]
)
@pytest.mark.parametrize("affine", AFFINE)
def test_layer_norm_matches_torch(device, shape, normalized_shape, affine):
    x = torch.randn(shape, device=device) * 2 - 1
    trailing = (normalized_shape,) if isinstance(normalized_shape, int) else normalized_shape
    weight = torch.randn(tuple(trailing), device=device)
    bias = torch.randn(tuple(trailing), device=device)
    weight, bias = affine_parts(affine, weight, bias)
    y = layer_norm(x, normalized_shape, weight, bias)
    check_tensor(y, shape=shape, dtype=x.dtype, device=device, name="layer_norm(x, ...)")
    expected = F.layer_norm(x, tuple(trailing), weight, bias)
    assert_near(
        y,
        expected,
        (
            "normalise each example over its trailing normalized_shape dims, "
            "with the biased variance; then scale by weight and shift by bias, each when "
            "it is given (nn.LayerNorm(bias=False) has a weight and no bias)"
        ),
    )


def test_layer_norm_does_not_depend_on_the_rest_of_the_batch(device):
    x = torch.randn(6, 8, device=device)
    alone = layer_norm(x[2:3], 8)
    together = layer_norm(x, 8)
    assert_near(
        alone,
        together[2:3],
        "an example's output must not change with the batch around it",
    )


def test_layer_norm_is_stable_for_large_offsets(device):
    x = 1000 + torch.randn(8, 64, device=device)
    y = layer_norm(x, 64)
    exact = F.layer_norm(x.cpu().double(), (64,)).float().to(device)
    assert_close(
        y,
        exact,
        "inputs around 1000 lose the variance to round-off when it is "
        "computed as E[x²] - E[x]²; subtract the mean first (or use torch.var)",
        atol=1e-3,
        rtol=0,
    )


def test_layer_norm_non_contiguous_input_is_not_modified(device):
    x = torch.randn(5, 4, 3, device=device).transpose(0, 2)  # (3, 4, 5)
    x_before = x.clone()
    y = layer_norm(x, (4, 5), eps=1e-3)
    assert_near(y, F.layer_norm(x, (4, 5), eps=1e-3), "a non-contiguous x, with eps=1e-3")
    assert torch.equal(x, x_before), "x was modified; compute a new tensor instead"


def test_layer_norm_gradients_match_torch(device):
    skip_unless_supported(device, torch.float64)
    options = {"device": device, "dtype": torch.float64, "requires_grad": True}
    x, weight, bias = (
        torch.randn(3, 2, 5, **options),
        torch.randn(5, **options),
        torch.randn(5, **options),
    )
    y = layer_norm(x, 5, weight, bias)
    check_tensor(y, shape=x.shape, dtype=torch.float64, device=device, name="layer_norm(x, ...)")
    upstream = torch.randn_like(y)
    grads = torch.autograd.grad(y, (x, weight, bias), upstream)
    expected = torch.autograd.grad(F.layer_norm(x, (5,), weight, bias), (x, weight, bias), upstream)
    for name, grad, want in zip(("x", "weight", "bias"), grads, expected, strict=True):
        assert_close(grad, want, f"gradient with respect to {name}")


@pytest.mark.parametrize(
    "shape, normalized_shape",
    [
        ((4, 6), 5),
        ((4, 6), (4, 5)),
        ((6,), (2, 6)),
        ((4, 6), ()),
        ((), 6),
        ((), (1,)),
        # The count and the last dim agree, the others are in another order.
        ((5, 2, 3, 4), (3, 2, 4)),
    ],
    ids=[
        "size",
        "two-dims",
        "too-many-dims",
        "empty",
        "0-dim x, int",
        "0-dim x, (1,)",
        "three dims, first two swapped",
    ],
)
def test_layer_norm_rejects_a_mismatched_shape(device, shape, normalized_shape):
    with pytest.raises(ValueError):
        layer_norm(torch.randn(shape, device=device), normalized_shape)


@pytest.mark.parametrize("training", [True, False], ids=["training", "eval"])
@pytest.mark.parametrize("given", ["weight", "bias"])
def test_weight_and_bias_are_each_optional(device, given, training):
    # nn.LayerNorm(bias=False) passes a weight and no bias; F.batch_norm takes either alone,
    # in either mode, with the caller's eps in either mode.
    x = torch.randn(4, 3, 5, device=device)
    running_mean, running_var, weight, bias = channel_stats(device, 3)
    expected_stats = running_mean.clone(), running_var.clone()
    parts = (
        {"weight": weight, "bias": None} if given == "weight" else {"weight": None, "bias": bias}
    )
    y = batch_norm(x, running_mean, running_var, **parts, training=training, eps=0.05)
    ln_parts = {k: None if v is None else torch.randn(5, device=device) for k, v in parts.items()}
    z = layer_norm(x, 5, **ln_parts)
    advice = f"apply the {given} alone when only the {given} is given"
    expected = F.batch_norm(x, *expected_stats, **parts, training=training, eps=0.05)
    mode = "training" if training else "eval"
    assert_near(y, expected, f"batch_norm ({mode}, eps=0.05, the caller's): " + advice)
    assert_near(z, F.layer_norm(x, (5,), **ln_parts), "layer_norm: " + advice)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_half_precision_inputs_keep_their_dtype(device, dtype):
    skip_unless_supported(device, dtype)
    x = torch.randn(6, 3, 4, device=device).to(dtype)
    running_mean, running_var, weight, bias = channel_stats(device, 3, dtype)
    expected_stats = running_mean.clone(), running_var.clone()
    y = batch_norm(x, running_mean, running_var, weight, bias, training=True)
    ln_weight, ln_bias = (torch.randn(4, device=device).to(dtype) for _ in range(2))
    z = layer_norm(x, 4, ln_weight, ln_bias)
    check_tensor(y, shape=x.shape, dtype=dtype, device=device, name="batch_norm(x, ...)")
    check_tensor(z, shape=x.shape, dtype=dtype, device=device, name="layer_norm(x, ...)")
    for stat in (running_mean, running_var):
        check_tensor(stat, shape=(3,), dtype=dtype, device=device, name="a running statistic")
    expected = F.batch_norm(x, *expected_stats, weight, bias, training=True)
    assert_close(y, expected, f"batch_norm of a {dtype} x", rtol=2e-2, atol=2e-2)
    expected = F.layer_norm(x, (4,), ln_weight, ln_bias)
    assert_close(z, expected, f"layer_norm of a {dtype} x", rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_half_precision_running_statistics_are_rounded_once(device, dtype):
    # Running statistics near the batch's own (not 0 and 1, where the first product is
    # exact): (1 - m) × running rounded to the dtype, then the sum rounded again, lands a
    # unit in the last place away from the exact update rounded once.
    skip_unless_supported(device, dtype)
    k = torch.arange(6 * 8 * 4, dtype=torch.float64).reshape(6, 8, 4)
    c = torch.arange(8, dtype=torch.float64)
    x = (3000 + 500 * torch.sin(1.7 * k)).to(dtype)
    running = [(3000 + 50 * torch.cos(2.3 * c)).to(dtype), (35000 + 15000 * torch.sin(c)).to(dtype)]
    exact = x.double()
    batch = [exact.mean(dim=(0, 2)), exact.var(dim=(0, 2))]  # the variance unbiased
    expected = [(0.9 * r.double() + 0.1 * b).to(dtype) for r, b in zip(running, batch, strict=True)]
    running_mean, running_var = (r.to(device) for r in running)
    batch_norm(x.to(device), running_mean, running_var, training=True, momentum=0.1)
    for name, got, want in zip(("mean", "var"), (running_mean, running_var), expected, strict=True):
        assert torch.equal(got.cpu(), want), (
            f"running_{name} in {dtype}: expected {want.tolist()}, got {got.tolist()}; compute "
            "(1 - momentum) × running + momentum × batch statistic in float32 and round it once "
            "(running.mul_(...).add_(...) in the 16-bit dtype rounds twice)"
        )


@pytest.mark.parametrize("eps", [None, 3.3e-6], ids=["default eps", "eps=3.3e-6"])
def test_eps_at_its_full_value_in_float64(device, eps):
    # Variances of the size of eps, where y depends on eps as much as on them: eps rounded
    # to float32 (a float32 tensor of it) moves y by about 1e-8, which float64 resolves.
    skip_unless_supported(device, torch.float64)
    x = torch.linspace(-1, 1, 4 * 3 * 6, dtype=torch.float64, device=device).reshape(4, 3, 6)
    x = (x * torch.tensor([1.0, -0.3, 2.0], dtype=torch.float64, device=device)[:, None]) ** 3
    x = x * 4e-3
    eps_kwargs = {} if eps is None else {"eps": eps}
    advice = "eps at its full value: add the Python float, not a float32 tensor of it"
    for training in (True, False):
        stats = (
            torch.zeros(3, dtype=torch.float64, device=device) + 1e-3,
            torch.full((3,), 2e-5, dtype=torch.float64, device=device),
        )
        y = batch_norm(x, *(stat.clone() for stat in stats), training=training, **eps_kwargs)
        expected = F.batch_norm(x, *stats, training=training, **eps_kwargs)
        mode = "training" if training else "eval"
        assert_close(y, expected, f"batch_norm ({mode}): {advice}", rtol=1e-12, atol=1e-12)
    z = layer_norm(x, (3, 6), **eps_kwargs)
    expected = F.layer_norm(x, (3, 6), **eps_kwargs)
    assert_close(z, expected, f"layer_norm: {advice}", rtol=1e-12, atol=1e-12)


def test_layer_norm_rejects_an_empty_normalized_shape_for_a_scalar_too(device):
    # x of shape () "ends with" the empty shape, yet there is nothing to normalise over.
    with pytest.raises(ValueError):
        layer_norm(torch.tensor(1.5, device=device), ())


def test_no_builtin_normalisation(device):
    x = torch.randn(4, 3, 2, device=device)
    running_mean, running_var, weight, bias = channel_stats(device, 3)
    assert_no_torch_internals(batch_norm, reason="build the normalisation from primitives")
    with forbidden_ops(
        *NORM_BUILTINS, reason="build the normalisation from primitives", aten=NORM_ATEN
    ):
        batch_norm(x, running_mean, running_var, weight, bias, training=True)
        batch_norm(x, running_mean, running_var, weight, bias, training=False)
        layer_norm(x, (3, 2))


# ---------------------------------------------------------------- facets


def channels(dtype, device, requires_grad=False):
    # For float16, a spread whose variance overflows the dtype: F computes it in float32.
    spread = facets.past_square_overflow(dtype)
    x = torch.linspace(-3, 5, 6 * 3 * 4, dtype=torch.float64).reshape(6, 3, 4) ** 2 * spread
    stats = torch.zeros(3, dtype=dtype, device=device), torch.ones(3, dtype=dtype, device=device)
    weight = torch.tensor([1.5, -0.5, 2.0], dtype=dtype, device=device)
    bias = torch.tensor([0.0, 1.0, -1.0], dtype=dtype, device=device)
    x = x.to(dtype=dtype, device=device).requires_grad_(requires_grad)
    return facets.args(x, *stats, weight, bias)


def one_statistic_reshaped(index):
    """Training arguments whose running statistic `index` (1: mean, 2: var) has shape (C, 1):
    the right size in another layout, refused."""

    def make(device):
        arguments = channels(torch.float32, device)
        stats = list(arguments.args)
        stats[index] = stats[index].reshape(3, 1)
        return facets.args(*stats, **arguments.kwargs)

    return make


def batch_norm64(x, running_mean, running_var, weight, bias):
    return F.batch_norm(x, running_mean, running_var, weight, bias, training=True)


def spread_channels(dtype, device):
    """A batch whose unbiased variance (about 8e4) passes float16's 65504 where the running
    variance after the update (0.9 + 0.1 of it) fits, so the update is computed wide and
    rounded once; each channel's sum (24 values near 3000) passes it too where its mean
    fits."""
    x = 3000 + torch.linspace(-500, 500, 6 * 3 * 4, dtype=torch.float64).reshape(6, 3, 4)
    stats = torch.zeros(3, dtype=dtype, device=device), torch.ones(3, dtype=dtype, device=device)
    return facets.args(x.to(dtype=dtype, device=device), *stats)


def statistics_after(x, running_mean, running_var):
    """The kata's training step, then the running statistics it updated."""
    batch_norm(x, running_mean, running_var, training=True)
    return running_mean, running_var


def statistics64(x, running_mean, running_var):
    F.batch_norm(x, running_mean, running_var, training=True)  # updates the copies given
    return running_mean, running_var


def rows(dtype, device, shape=(4, 6)):
    count = torch.Size(shape).numel()
    spread = facets.past_square_overflow(dtype)  # as for channels
    x = torch.linspace(-2, 7, max(count, 1), dtype=torch.float64)[:count].reshape(shape) ** 2
    x = x * spread
    width = shape[-1] if shape else 1
    weight = torch.linspace(0.5, 2, width, dtype=dtype, device=device)
    return facets.args(
        x.to(dtype=dtype, device=device),
        width,
        weight,
        # A bias that is not 0: y + bias rounds, so y rounded to a 16-bit dtype before the
        # shift (then shifted natively) is rounded twice.
        torch.linspace(-1.3, 0.7, width, dtype=dtype, device=device),
    )


def layer_norm64(x, normalized_shape, weight, bias):
    return F.layer_norm(x, (normalized_shape,), weight, bias)


def far_apart(dtype):
    """For float16, a magnitude that fits the dtype but whose distance to its negative does
    not: x - mean overflows unless it is computed in float32, as F does for 16-bit inputs
    (in eval mode too, and for the centred values, not only for the statistics)."""
    return 0.9 * torch.finfo(dtype).max if dtype == torch.float16 else 1.0


def running_far_apart(dtype, device):
    """Eval mode: x and running means of opposite signs, far apart."""
    far = far_apart(dtype)
    x = torch.linspace(-1, 1, 24, dtype=torch.float64).reshape(4, 3, 2) * far
    running_mean = torch.tensor([-1.0, 0.5, 1.0], dtype=torch.float64) * far
    running_var = torch.tensor([1.0, 0.25, 0.5], dtype=torch.float64) * far
    weight = torch.tensor([1.5, -0.5, 2.0], dtype=torch.float64)
    bias = torch.tensor([0.0, 1.0, -1.0], dtype=torch.float64)
    tensors = (t.to(dtype=dtype, device=device) for t in (x, running_mean, running_var, weight))
    return facets.args(*tensors, bias.to(dtype=dtype, device=device), training=False)


def batch_norm_eval64(x, running_mean, running_var, weight, bias, training):
    return F.batch_norm(x, running_mean, running_var, weight, bias, training=training)


def rows_far_apart(dtype, device):
    """Rows whose values sit at +far and -far: their centred values pass float16's range."""
    signs = torch.tensor([[1.0, 1.0, 1.0, -1.0], [-1.0, 1.0, -1.0, -1.0], [1.0, -1.0, 1.0, -1.0]])
    x = (signs.double() * far_apart(dtype)).to(dtype=dtype, device=device)
    weight = torch.tensor([0.5, 1.0, 1.5, 2.0], dtype=dtype, device=device)
    return facets.args(x, 4, weight, torch.zeros(4, dtype=dtype, device=device))


# The gradients of 16-bit inputs: a few units of the dtype's precision (backward rounds too).
ROUNDED = {torch.float16: 8 * 2.0**-10, torch.bfloat16: 8 * 2.0**-7}
FACETS = facets.declare(
    facets.of(
        batch_norm,
        facets.Dtypes(channels, oracle=batch_norm64, ulps=8, once=True),
        facets.Dtypes(running_far_apart, oracle=batch_norm_eval64, ulps=8, once=True, label="eval"),
        facets.Gradients(channels, oracle=batch_norm64, atol=ROUNDED),
        facets.NoGraph(
            lambda device: channels(torch.float32, device, requires_grad=True),
            state=lambda arguments, result: arguments.args[1:3],
        ),
        # x, weight and bias as given (the running statistics are updated).
        facets.Unmodified(
            lambda device: channels(torch.float32, device),
            inputs=lambda arguments: (arguments.args[0], *arguments.args[3:5]),
        ),
        # A refused call leaves both running statistics as they were.
        facets.Refused(
            {
                "running_mean (C, 1)": one_statistic_reshaped(1),
                "running_var (C, 1)": one_statistic_reshaped(2),
            }
        ),
        # In place: a state_dict entry or a view of a buffer sees the update.
        facets.UpdatesAll(
            lambda device: channels(torch.float32, device),
            params=lambda arguments: arguments.args[1:3],
        ),
        # A variance of 5e-6, where eps shows; the running statistics updated too.
        facets.Defaults(
            lambda device: facets.args(
                torch.linspace(-3, 5, 6 * 3 * 4, device=device).reshape(6, 3, 4) * 1e-3,
                torch.zeros(3, device=device),
                torch.ones(3, device=device),
            ),
            values={"weight": None, "bias": None, "training": True, "momentum": 0.1, "eps": 1e-5},
            key=lambda arguments, result: (result, *arguments.args[1:3]),
        ),
        # Running statistics of shape (C,) alone; x's channels are theirs.
        facets.BadShapes(lambda device: channels(torch.float32, device), names=(1, 2)),
        facets.BadShapes(
            lambda device: channels(torch.float32, device), names=(0,), dims=(1,), label="x"
        ),
    ),
    # The running statistics keep x's dtype, with the exact update rounded to it.
    facets.of(
        batch_norm,
        facets.Dtypes(spread_channels, oracle=statistics64, ulps=8, once=True),
        name="batch_norm(running statistics)",
        call=statistics_after,
    ),
    facets.of(
        layer_norm,
        facets.Dtypes(rows, oracle=layer_norm64, ulps=8, once=True),
        facets.Dtypes(rows_far_apart, oracle=layer_norm64, ulps=8, once=True, label="far apart"),
        facets.Gradients(rows, oracle=layer_norm64, atol=ROUNDED),
        facets.Shapes(
            lambda shape, device: rows(torch.float32, device, shape),
            oracle=layer_norm64,
            shapes=("1-D", "empty", "empty inside", "2-D", "size 1", "non-contiguous"),
        ),
        facets.Unmodified(lambda device: rows(torch.float32, device)),
        facets.Defaults(
            lambda device: facets.args(
                torch.linspace(-2, 7, 24, device=device).reshape(4, 6) * 1e-3, 6
            ),
            values={"weight": None, "bias": None, "eps": 1e-5},
        ),
        # x's trailing dims are normalized_shape: each of them, not the last alone nor the count.
        facets.BadShapes(
            lambda device: facets.args(
                torch.linspace(-2, 7, 24, device=device).reshape(2, 3, 4), (3, 4)
            ),
            names=(0,),
            dims=(-2, -1),
        ),
    ),
)
test_facets = FACETS.test
