import functools

import pytest
import torch
import torch.nn.functional as F

from katas.q12_activations import gelu, silu, softplus
from torch_katas.testing import (
    assert_no_torch_internals,
    check_tensor,
    forbidden_ops,
    skip_without_float64,
)

RULE = (F.gelu, F.silu, F.softplus, F.logsigmoid)
REASON = "build the activation from primitives (erf, tanh, sigmoid, exp, log1p, where)"
# The aten operators behind them, however they are reached (torch._C, torch.ops, ...).
ATEN = ("gelu", "silu", "softplus", "log_sigmoid_forward", "log_sigmoid")

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
    if dtype == torch.float64:
        skip_without_float64(device)
    x = torch.linspace(-8, 8, 161, dtype=dtype, device=device).reshape(7, 23)
    out = call(mine, x)
    check_tensor(out, shape=(7, 23), dtype=dtype, device=device, name=f"{name} output")
    torch.testing.assert_close(out, reference(x), msg=lambda m: f"{name} values differ\n{m}")


@pytest.mark.parametrize("name, mine, reference", ACTIVATIONS, ids=IDS)
def test_gradients_match_torch(device, name, mine, reference):
    x = torch.randn(50, device=device) * 4
    _, grad = value_and_grad(mine, x, forbid=True)
    _, expected = value_and_grad(reference, x)
    torch.testing.assert_close(
        grad, expected, msg=lambda m: f"the gradient of {name} differs from torch's\n{m}"
    )


@pytest.mark.parametrize("name, mine, reference", ACTIVATIONS, ids=IDS)
def test_gradcheck_in_float64(device, name, mine, reference):
    skip_without_float64(device)
    x = torch.randn(12, dtype=torch.float64, device=device, requires_grad=True)
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
    torch.testing.assert_close(
        out, expected_out, msg=lambda m: f"{name} values at {LARGE} differ from torch's\n{m}"
    )
    torch.testing.assert_close(
        grad, expected_grad, msg=lambda m: f"{name} gradients at {LARGE} differ from torch's\n{m}"
    )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("beta", [1.0, 2.0, 0.5])
def test_softplus_keeps_tiny_results_for_very_negative_inputs(device, dtype, beta):
    if dtype == torch.float64:
        skip_without_float64(device)
    x = torch.tensor([-15.0, -20.0, -30.0, -50.0], dtype=dtype, device=device) / beta
    out = call(softplus, x, beta=beta)
    torch.testing.assert_close(
        out,
        F.softplus(x, beta=beta),
        rtol=1e-5,
        atol=0,
        msg=lambda m: (
            "softplus of a very negative x is about exp(beta * x) / beta, tiny but "
            f"not 0: use torch.log1p(z) rather than torch.log(1 + z)\n{m}"
        ),
    )


@pytest.mark.parametrize(
    "beta, threshold", [(1.0, 20.0), (2.0, 5.0), (0.5, 3.0), (3.0, 30.0)], ids=str
)
def test_softplus_beta_and_threshold_match_torch(device, beta, threshold):
    x = torch.cat([torch.randn(200, device=device) * 8, torch.tensor(LARGE, device=device)])
    out, grad = value_and_grad(functools.partial(softplus, beta=beta, threshold=threshold), x, True)
    reference = functools.partial(F.softplus, beta=beta, threshold=threshold)
    expected_out, expected_grad = value_and_grad(reference, x)
    torch.testing.assert_close(
        out,
        expected_out,
        msg=lambda m: (
            f"softplus(beta={beta}, threshold={threshold}) values differ: is it "
            f"log1p(exp(beta * x)) / beta, and x itself where beta * x > threshold?\n{m}"
        ),
    )
    torch.testing.assert_close(grad, expected_grad, msg=lambda m: f"gradients differ\n{m}")


@pytest.mark.parametrize("name, mine, reference", ACTIVATIONS, ids=IDS)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_half_precision_input_keeps_its_dtype(device, name, mine, reference, dtype):
    x = torch.linspace(-4, 4, 41, device=device).to(dtype)
    out = call(mine, x)
    check_tensor(out, shape=(41,), dtype=dtype, device=device, name=f"{name} output")
    expected = reference(x.float()).to(dtype)
    torch.testing.assert_close(out, expected, rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("name, mine, reference", ACTIVATIONS, ids=IDS)
def test_empty_and_non_contiguous_inputs_are_left_unmodified(device, name, mine, reference):
    x = torch.randn(6, 5, device=device).T  # non-contiguous view
    before = x.clone()
    out = call(mine, x)
    check_tensor(out, shape=(5, 6), dtype=torch.float32, device=device, name=f"{name} output")
    torch.testing.assert_close(out, reference(before))
    assert torch.equal(x, before), f"{name} modified its input; do not use in-place ops on x"
    empty = call(mine, torch.empty(0, 3, device=device))
    check_tensor(empty, shape=(0, 3), dtype=torch.float32, device=device, name=f"{name} output")


def test_gelu_rejects_an_unknown_approximation(device):
    with pytest.raises(ValueError):
        call(gelu, torch.zeros(3, device=device), approximate="sigmoid")


@pytest.mark.parametrize("beta", [0.0, -1.0])
def test_softplus_rejects_a_non_positive_beta(device, beta):
    with pytest.raises(ValueError):
        call(softplus, torch.zeros(3, device=device), beta=beta)
