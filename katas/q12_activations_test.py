import functools
import math

import pytest
import torch
import torch.nn.functional as F

from katas.q12_activations import gelu, silu, softplus
from torch_katas import facets
from torch_katas.op_families import GELU, SILU, SOFTPLUS
from torch_katas.testing import (
    assert_close,
    assert_no_torch_internals,
    check_tensor,
    forbidden_ops,
    raises,
    skip_unless_supported,
)

# Every way torch offers these (torch.logaddexp(x, 0) and logsumexp of (0, x) are softplus
# under other names: the softplus family holds them).
RULE = (GELU | SILU | SOFTPLUS).ops
REASON = "build the activation from primitives (erf, tanh, sigmoid, exp, log1p, where)"
# The aten operators behind them, however they are reached (torch._C, torch.ops, ...).
ATEN = (GELU | SILU | SOFTPLUS).aten

# (name, the kata's function, torch's function) for every activation and mode.
ACTIVATIONS = [
    ("gelu", gelu, F.gelu),
    (
        "gelu-tanh",
        functools.partial(gelu, approximate="tanh"),
        functools.partial(F.gelu, approximate="tanh"),
    ),
    ("silu", silu, F.silu),
    ("softplus", softplus, F.softplus),
]
IDS = [name for name, *_ in ACTIVATIONS]
LARGE = [-1e4, -100.0, -30.0, -20.0, -1.0, 0.0, 1.0, 20.0, 30.0, 100.0, 1e4]


def call(function, *args, **kwargs):
    """Run the kata's function with the torch.nn.functional versions forbidden."""
    assert_no_torch_internals(function, reason=REASON)
    with forbidden_ops(*RULE, reason=REASON, aten=ATEN):
        return function(*args, **kwargs)


def value_and_grad(function, x, forbid=False):
    x = x.detach().clone().requires_grad_()
    y = call(function, x) if forbid else function(x)
    (grad,) = torch.autograd.grad(y.sum(), x)
    return y.detach(), grad


@pytest.mark.parametrize("name, mine, reference", ACTIVATIONS, ids=IDS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_values_match_torch(device, name, mine, reference, dtype):
    skip_unless_supported(device, dtype)
    x = torch.linspace(-8, 8, 161, dtype=dtype, device=device).reshape(7, 23)
    out = call(mine, x)
    check_tensor(out, shape=(7, 23), dtype=dtype, device=device, name=f"{name} output")
    assert_close(out, reference(x), f"{name} values differ from torch's")


@pytest.mark.parametrize("name, mine, reference", ACTIVATIONS, ids=IDS)
def test_gradients_match_torch(device, name, mine, reference):
    x = torch.randn(50, device=device) * 4
    _, grad = value_and_grad(mine, x, forbid=True)
    _, expected = value_and_grad(reference, x)
    assert_close(grad, expected, f"the gradient of {name} differs from torch's")


@pytest.mark.parametrize("name, mine, reference", ACTIVATIONS, ids=IDS)
def test_gradcheck_in_float64(device, name, mine, reference):
    skip_unless_supported(device, torch.float64)
    x = torch.randn(6, dtype=torch.float64, device=device, requires_grad=True)
    with forbidden_ops(*RULE, reason=REASON, aten=ATEN):
        assert torch.autograd.gradcheck(mine, (x,)), (
            f"{name}: analytic and numeric gradients differ"
        )


@pytest.mark.parametrize("name, mine, reference", ACTIVATIONS, ids=IDS)
def test_large_inputs_give_finite_values_and_gradients(device, name, mine, reference):
    x = torch.tensor(LARGE, device=device)
    out, grad = value_and_grad(mine, x, forbid=True)
    expected_out, expected_grad = value_and_grad(reference, x)
    assert torch.isfinite(out).all(), (
        f"{name} gives {out.tolist()} for {LARGE}: not finite. Is an exp overflowing?"
    )
    assert torch.isfinite(grad).all(), (
        f"the gradient of {name} is {grad.tolist()} for {LARGE}: not finite. A branch that "
        "torch.where discards still gets a zero gradient, and 0 * inf = nan; keep every "
        "branch finite"
    )
    assert_close(out, expected_out, f"{name} values at {LARGE} differ from torch's")
    assert_close(grad, expected_grad, f"{name} gradients at {LARGE} differ from torch's")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("beta", [1.0, 2.0, 0.5])
def test_softplus_keeps_tiny_results_for_very_negative_inputs(device, dtype, beta):
    skip_unless_supported(device, dtype)
    x = torch.tensor([-15.0, -20.0, -30.0, -50.0], dtype=dtype, device=device) / beta
    out = call(softplus, x, beta=beta)
    assert_close(
        out,
        F.softplus(x, beta=beta),
        "softplus of a very negative x is about exp(beta * x) / beta, tiny but "
        "not 0: use torch.log1p(z) rather than torch.log(1 + z)",
        rtol=1e-5,
        atol=0,
    )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_silu_keeps_tiny_results_for_very_negative_inputs(device, dtype):
    # silu(x) is about x exp(x) there: tiny, not 0, and x - x * sigmoid(-x) cancels to 0.
    skip_unless_supported(device, dtype)
    x = torch.tensor([-10.0, -15.0, -20.0, -30.0, -50.0, -80.0], dtype=dtype, device=device)
    out, grad = value_and_grad(silu, x, forbid=True)
    exact_out, exact_grad = value_and_grad(F.silu, x.double())
    rtol = 1e-5 if dtype == torch.float32 else 1e-12
    for what, got, exact in (("values", out, exact_out), ("gradients", grad, exact_grad)):
        assert_close(
            got.double(),
            exact,
            f"silu {what} at very negative x must be accurate relative to their tiny size "
            "(about x exp(x)): multiply x by torch.sigmoid(x)",
            rtol=rtol,
            atol=0,
        )


@pytest.mark.parametrize(
    "beta, threshold", [(1.0, 20.0), (2.0, 5.0), (0.5, 3.0), (3.0, 30.0)], ids=str
)
def test_softplus_beta_and_threshold_match_torch(device, beta, threshold):
    x = torch.cat([torch.randn(200, device=device) * 8, torch.tensor(LARGE, device=device)])
    out, grad = value_and_grad(functools.partial(softplus, beta=beta, threshold=threshold), x, True)
    reference = functools.partial(F.softplus, beta=beta, threshold=threshold)
    expected_out, expected_grad = value_and_grad(reference, x)
    assert_close(
        out,
        expected_out,
        f"softplus(beta={beta}, threshold={threshold}) values differ: is it "
        "log1p(exp(beta * x)) / beta, and x itself where beta * x > threshold?",
    )
    assert_close(grad, expected_grad, "softplus gradients differ from torch's")


@pytest.mark.parametrize("beta, threshold", [(1.0, 20.0), (2.0, 5.0)], ids=str)
def test_softplus_switches_to_x_just_above_the_threshold(device, beta, threshold):
    skip_unless_supported(device, torch.float64)
    # In float64 the formula and x differ by about exp(-threshold): visible here.
    at, above = threshold / beta, (threshold + 10) / beta
    x = torch.tensor([at, above, 2 * threshold / beta], dtype=torch.float64, device=device)
    kwargs = {} if (beta, threshold) == (1.0, 20.0) else {"beta": beta, "threshold": threshold}
    out, grad = value_and_grad(functools.partial(softplus, **kwargs), x, forbid=True)
    check_tensor(out, shape=(3,), dtype=torch.float64, device=device, name="softplus output")
    assert out[1:].tolist() == x[1:].tolist() and grad[1:].tolist() == [1.0, 1.0], (
        f"above the threshold (beta * x > {threshold}) softplus must be x itself with "
        f"gradient 1, got {out[1:].tolist()} and {grad[1:].tolist()}"
        + ("; the default threshold is 20" if not kwargs else "")
    )
    expected = math.log1p(math.exp(threshold)) / beta
    assert abs(out[0].item() - expected) < 1e-12, (
        f"at beta * x == threshold exactly softplus is still the formula, "
        f"log1p(exp({threshold})) / beta = {expected!r}, got {out[0].item()!r}: switch to x "
        "only where beta * x > threshold"
    )


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_softplus_in_half_precision_between_11_and_the_threshold(device, dtype):
    x = torch.tensor([-100.0, -5.0, 0.0, 5.0, 11.5, 12.0, 15.0, 19.5, 20.0, 25.0, 100.0])
    out, grad = value_and_grad(softplus, x.to(device=device, dtype=dtype), forbid=True)
    check_tensor(out, shape=(11,), dtype=dtype, device=device, name="softplus output")
    assert torch.isfinite(out).all() and torch.isfinite(grad).all(), (
        f"softplus in {dtype} gives {out.tolist()} with gradients {grad.tolist()}: float16's "
        "exp overflows above about 11; compute in float32 and convert the result back"
    )
    expected_out, expected_grad = value_and_grad(F.softplus, x.to(device))
    assert_close(
        out.float(),
        expected_out.to(dtype).float(),
        f"softplus in {dtype} should be the float32 result rounded once to {dtype}",
        rtol=1e-2,
        atol=1e-2,
    )
    assert_close(
        grad.float(), expected_grad, f"softplus gradients in {dtype}", rtol=1e-2, atol=1e-2
    )


@pytest.mark.parametrize("name, mine, reference", ACTIVATIONS, ids=IDS)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_half_precision_input_keeps_its_dtype(device, name, mine, reference, dtype):
    x = torch.linspace(-4, 4, 41, device=device).to(dtype)
    out = call(mine, x)
    check_tensor(out, shape=(41,), dtype=dtype, device=device, name=f"{name} output")
    expected = reference(x.float()).to(dtype)
    assert_close(out, expected, f"{name} is wrong in {dtype}", rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("name, mine, reference", ACTIVATIONS, ids=IDS)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_half_precision_is_computed_in_float32_and_rounded_once(
    device, name, mine, reference, dtype
):
    # As torch computes them: in float32, the result (and the gradient) rounded once to
    # x's dtype. Natively, float16's x**3 and 3 * x**2 overflow above about 40 and 150
    # (a nan gradient), and bfloat16 loses several bits on the way.
    skip_unless_supported(device, dtype)
    values = [*LARGE, *torch.linspace(-6, 6, 385).tolist()]
    x = torch.tensor(values, device=device).to(dtype)
    out, grad = value_and_grad(mine, x, forbid=True)
    check_tensor(out, shape=(len(values),), dtype=dtype, device=device, name=f"{name} output")
    assert torch.isfinite(grad).all(), (
        f"the {dtype} gradient of {name} is not finite: {grad.tolist()}; compute in float32 "
        "and convert back, as torch does"
    )
    # Two oracles, each rounded once to x's dtype: torch's function in float32 (as torch
    # computes 16-bit input), and in float64 (a float32 formula more accurate than torch's,
    # erfc for gelu's negative tail say, rounds as this one does). A float32 formula lands on
    # one of them except where the exact value lies within a float32 rounding of a 16-bit
    # midpoint (rare), or where a difference cancels (gelu's tail, SiLU's gradient near
    # x = -1.28): float32 loses about 1e-7 absolute there. A native computation misses both
    # oracles by a unit of its dtype (far more than 1e-6 above 1e-2) for about one value in five.
    torch32 = value_and_grad(reference, x.float())
    exact = value_and_grad(reference, x.double())
    for what, got, in32, in64 in zip(
        ("values", "gradients"), (out, grad), torch32, exact, strict=True
    ):
        differ = (got != in32.to(dtype)) & (got != in64.to(dtype))
        differ &= (got.double() - in64).abs() > 1e-6
        assert differ.sum().item() <= 2, (
            f"{name} {what} in {dtype} are not the float32 result rounded once at "
            f"x = {x[differ].tolist()[:6]}: got {got[differ].tolist()[:6]}, expected "
            f"{in64[differ].to(dtype).tolist()[:6]}; compute 16-bit input in float32 and "
            "round the result once to x's dtype"
        )


@pytest.mark.parametrize("name, mine, reference", ACTIVATIONS, ids=IDS)
def test_empty_and_non_contiguous_inputs_are_left_unmodified(device, name, mine, reference):
    x = torch.randn(6, 5, device=device).T  # non-contiguous view
    before = x.clone()
    out = call(mine, x)
    check_tensor(out, shape=(5, 6), dtype=torch.float32, device=device, name=f"{name} output")
    assert_close(out, reference(before), f"{name} is wrong for a non-contiguous input")
    assert torch.equal(x, before), f"{name} modified its input; do not use in-place ops on x"
    empty = call(mine, torch.empty(0, 3, device=device))
    check_tensor(empty, shape=(0, 3), dtype=torch.float32, device=device, name=f"{name} output")


@pytest.mark.parametrize("approximate", ["sigmoid", "TANH", "Tanh", "tanh ", "None", "", None])
def test_gelu_rejects_an_unknown_approximation(device, approximate):
    # Exactly "none" or "tanh", as F.gelu: no other spelling, case or None.
    with raises(ValueError):
        call(gelu, torch.zeros(3, device=device), approximate=approximate)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16], ids=str)
@pytest.mark.parametrize("beta", [0.0, -1.0, float("nan")])
def test_softplus_rejects_a_non_positive_beta(device, beta, dtype):
    # For every dtype, each path checks beta; NaN is not > 0 either.
    skip_unless_supported(device, dtype)
    with raises(ValueError):
        call(softplus, torch.zeros(3, device=device, dtype=dtype), beta=beta)


# ---------------------------------------------------------------- facets


def inputs(dtype, device):
    """Moderate values and the large ones the contract names, exactly representable."""
    x = torch.cat([torch.linspace(-8, 8, 33, dtype=torch.float64), torch.tensor(LARGE)])
    return facets.args(x.to(dtype=dtype, device=device))


# Gradients of order 1 computed in float32 or float64, where 1 + tanh and 1 + erf cancel for
# negative x: a few units of the dtype's precision absolute (16-bit ones round once).
GRADIENT = {torch.float32: 8 * 2.0**-23, torch.float64: 1e-12}


def activation_facets(oracle):
    """The facets every activation shares: 16-bit input computed in float32 and rounded
    once, values and gradients."""
    return (
        facets.Dtypes(inputs, oracle=oracle),
        facets.Gradients(inputs, oracle=oracle, atol=GRADIENT),
        facets.Shapes(
            lambda shape, device: facets.args(
                torch.linspace(-3, 3, 12)[: torch.Size(shape).numel()].reshape(shape).to(device)
            ),
            oracle=oracle,
            shapes=("0-dim", "1-D", "empty", "non-contiguous"),
        ),
        facets.Unmodified(lambda device: inputs(torch.float32, device)),
    )


def tanh_gelu(x):
    return F.gelu(x, approximate="tanh")


FACETS = facets.declare(
    facets.of(gelu, *activation_facets(F.gelu)),
    facets.of(
        gelu,
        *activation_facets(tanh_gelu),
        name="gelu(approximate=tanh)",
        call=lambda x: gelu(x, approximate="tanh"),
    ),
    facets.of(silu, *activation_facets(F.silu)),
    facets.of(
        softplus,
        *activation_facets(F.softplus),
        facets.Setting(
            lambda device: facets.args(torch.linspace(-3, 3, 5, device=device), beta=1.0),
            "beta",
            low=0,
            low_open=True,
        ),
    ),
)
test_facets = FACETS.test
