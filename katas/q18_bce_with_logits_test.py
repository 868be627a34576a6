import random

import pytest
import torch
import torch.nn.functional as F

from katas.q18_bce_with_logits import bce_with_logits
from torch_katas import facets
from torch_katas.op_families import BINARY_CROSS_ENTROPY
from torch_katas.testing import (
    assert_close,
    assert_no_torch_internals,
    check_tensor,
    forbidden_ops,
    raises,
    skip_unless_supported,
)

# Every way torch offers a binary cross-entropy or a softplus, and so a log-sum-exp (of 0 and
# x) and a (log-)softmax or cross-entropy (of the two logits 0 and x).
FORBIDDEN = BINARY_CROSS_ENTROPY.ops
REASON = "write the stable form max(z, 0) + log1p(exp(-|z|)) yourself"
# The aten operators behind them, however they are reached (torch._C, torch.ops, ...).
ATEN = BINARY_CROSS_ENTROPY.aten


def learner_loss(logits, target, **options):
    """The learner's bce_with_logits, with the ready-made losses and softplus forbidden."""
    assert_no_torch_internals(bce_with_logits, reason=REASON)
    with forbidden_ops(*FORBIDDEN, reason=REASON, aten=ATEN):
        return bce_with_logits(logits, target, **options)


def multi_label(device, n=6, c=4, dtype=torch.float32):
    """Logits of a few units, 0/1 targets and a positive pos_weight per label."""
    logits = 3 * torch.randn(n, c, dtype=dtype, device=device)
    target = torch.randint(0, 2, (n, c), device=device).to(dtype)
    pos_weight = torch.rand(c, dtype=dtype, device=device) * 4 + 0.25
    return logits, target, pos_weight


def with_grad(logits, loss_fn):
    """Loss and gradient with respect to logits of loss_fn(logits), against a random upstream."""
    logits = logits.detach().clone().requires_grad_()
    loss = loss_fn(logits)
    upstream = torch.linspace(-1, 2, loss.numel(), device=loss.device).reshape(loss.shape)
    (grad,) = torch.autograd.grad((loss * upstream).sum(), logits)
    return loss, grad


@pytest.mark.parametrize("weighted", [False, True], ids=["no pos_weight", "pos_weight"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_equals_torch_bce_with_logits(device, reduction, weighted):
    logits, target, pos_weight = multi_label(device)
    options = dict(reduction=reduction, pos_weight=pos_weight if weighted else None)
    loss = learner_loss(logits, target, **options)
    shape = (6, 4) if reduction == "none" else ()
    check_tensor(loss, shape=shape, dtype=torch.float32, device=device)
    assert_close(
        loss,
        F.binary_cross_entropy_with_logits(logits, target, **options),
        f"differs from F.binary_cross_entropy_with_logits (reduction={reduction!r}, "
        f"pos_weight={'given' if weighted else None}); pos_weight multiplies only the "
        "positive term y * softplus(-x)",
    )


def test_keeps_float64(device):
    skip_unless_supported(device, torch.float64)
    logits, target, pos_weight = multi_label(device, dtype=torch.float64)
    loss = learner_loss(logits, target, pos_weight=pos_weight)
    check_tensor(loss, shape=(), dtype=torch.float64, device=device)
    assert_close(
        loss,
        F.binary_cross_entropy_with_logits(logits, target, pos_weight=pos_weight),
        "float64 inputs must be computed in float64 all the way (no float32 step)",
    )


def test_soft_targets(device):
    logits, _, pos_weight = multi_label(device)
    target = torch.rand(6, 4, device=device)
    loss = learner_loss(logits, target, pos_weight=pos_weight, reduction="none")
    assert_close(
        loss,
        F.binary_cross_entropy_with_logits(logits, target, pos_weight=pos_weight, reduction="none"),
        "targets between 0 and 1 (soft labels) must work too",
    )


@pytest.mark.parametrize(
    "logits_shape, weight_shape",
    [((5,), ()), ((5,), (1,)), ((2, 3, 4), (4,)), ((3, 4), (3, 1))],
    ids=["1-D, scalar", "1-D, [1]", "3-D, last dim", "2-D, per row"],
)
def test_pos_weight_broadcasts(device, logits_shape, weight_shape):
    logits = 2 * torch.randn(logits_shape, device=device)
    target = torch.randint(0, 2, logits_shape, device=device).float()
    pos_weight = torch.rand(weight_shape, device=device) * 3 + 0.5
    loss = learner_loss(logits, target, pos_weight=pos_weight, reduction="none")
    check_tensor(loss, shape=logits_shape, dtype=torch.float32, device=device)
    assert_close(
        loss,
        F.binary_cross_entropy_with_logits(logits, target, pos_weight=pos_weight, reduction="none"),
        f"a pos_weight of shape {weight_shape} broadcasts against logits of shape {logits_shape}",
    )


@pytest.mark.parametrize("weighted", [False, True], ids=["no pos_weight", "pos_weight"])
def test_finite_and_exact_at_extreme_logits(device, weighted):
    # Up to ±1e30: "finite however large" holds past any clamp a formula might put in; and
    # ±3e38, near float32's largest value, where x + |x| (relu as (x + |x|) / 2) overflows.
    logits = torch.tensor(
        [
            [100.0, -100.0, 1e4, -1e4, 1e5, -1e30, 3e38],
            [100.0, -100.0, 1e4, -1e4, -1e5, 1e30, -3e38],
            [-30.0, 30.0, -88.0, 90.0, 1e30, -1e5, 3e38],
        ],
        device=device,
    )
    target = torch.tensor(
        [
            [0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0],
            [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0],
            [1.0, 0.0, 0.5, 1.0, 0.5, 0.5, 0.5],
        ],
        device=device,
    )
    # (A weight above 1 on the loss of -3e38 with target 1 would overflow the true loss.)
    pos_weight = (
        torch.tensor([3.0, 0.5, 2.0, 1.5, 2.0, 0.5, 0.5], device=device) if weighted else None
    )
    loss, grad = with_grad(
        logits, lambda x: learner_loss(x, target, pos_weight=pos_weight, reduction="none")
    )
    assert torch.isfinite(loss).all(), (
        f"losses {loss.tolist()} are not all finite: sigmoid(±100) rounds to 0 or 1 in float32 "
        "and its log is -inf; compute softplus(±x) from the logit instead"
    )
    assert torch.isfinite(grad).all(), (
        f"the gradient {grad.tolist()} is not finite; an inf anywhere in the computation "
        "(even in an unused torch.where branch) poisons it"
    )
    # The oracle runs in float64 on the CPU: at such logits with soft labels float32 rounds
    # differently in every correct formula (torch's own included), by a few ulps of 1e4.
    expected, expected_grad = with_grad(
        logits.double().cpu(),
        lambda x: F.binary_cross_entropy_with_logits(
            x,
            target.double().cpu(),
            pos_weight=None if pos_weight is None else pos_weight.double().cpu(),
            reduction="none",
        ),
    )
    assert_close(
        loss.double().cpu(),
        expected,
        "wrong losses at extreme logits: a logit of -100 with target 1 costs 100 "
        "(times pos_weight), not a clamped constant",
        rtol=1e-5,
        atol=1e-6,
    )
    assert_close(
        grad.double().cpu(),
        expected_grad,
        "wrong gradient at extreme logits: it is pos_weight-weighted sigmoid(x) - y, "
        "which saturates but stays finite",
        rtol=1e-5,
        atol=1e-6,
    )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("weighted", [False, True], ids=["no pos_weight", "pos_weight"])
@pytest.mark.parametrize("positive", [True, False], ids=["target 1", "target 0"])
def test_tiny_losses_at_large_margins_are_accurate(device, dtype, weighted, positive):
    # A right answer by a margin m (a logit m, target 1; or a logit -m, target 0) costs
    # softplus(-m) = log1p(exp(-m)), about exp(-m): tiny, not 0, with gradient ∓sigmoid(-m),
    # as torch computes them. The oracle is that, in float64.
    skip_unless_supported(device, dtype)
    margins = torch.tensor([10.0, 15.0, 17.0, 20.0, 30.0, 50.0, 80.0], dtype=dtype, device=device)
    logits = margins if positive else -margins
    target = torch.full_like(logits, 1.0 if positive else 0.0)
    pos_weight = torch.full_like(logits, 1.5) if weighted else None
    loss, grad = with_grad(
        logits, lambda x: learner_loss(x, target, pos_weight=pos_weight, reduction="none")
    )
    m = margins.double().cpu()
    weight = 1.5 if weighted and positive else 1.0  # pos_weight weighs the positive term only
    expected = weight * torch.log1p(torch.exp(-m))
    upstream = torch.linspace(-1, 2, len(m)).double()  # as in with_grad (float32)
    expected_grad = (-1 if positive else 1) * upstream * weight * torch.sigmoid(-m)
    rtol = 1e-5 if dtype == torch.float32 else 1e-12
    for what, got, exact in (("losses", loss, expected), ("gradients", grad, expected_grad)):
        assert_close(
            got.double().cpu(),
            exact,
            f"{what} at logits {logits.tolist()} with target {int(positive)} must be accurate "
            "relative to their tiny size: log1p(exp(-|x|)), not log(1 + exp(-|x|)), nor "
            "softplus(x) from softplus(-x) + x, which round them to 0",
            rtol=rtol,
            atol=0,
        )


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_gradient_equals_autograd_through_torch(device, reduction):
    logits, target, pos_weight = multi_label(device)
    options = dict(reduction=reduction, pos_weight=pos_weight)
    _, grad = with_grad(logits, lambda x: learner_loss(x, target, **options))
    _, expected = with_grad(
        logits, lambda x: F.binary_cross_entropy_with_logits(x, target, **options)
    )
    assert_close(grad, expected, "the gradient with respect to logits differs from PyTorch's")


@pytest.mark.parametrize("weighted", [False, True], ids=["no pos_weight", "pos_weight"])
def test_gradient_at_logits_exactly_zero(device, weighted):
    # A zero-initialised last layer outputs exactly 0: softplus has slope 1/2 there, but
    # autograd takes clamp(min=0)'s slope at 0 as 1 and relu's as 0.
    target = torch.tensor([0.0, 1.0, 0.3, 0.8], device=device)
    pos_weight = torch.tensor([2.0, 3.0, 0.5, 1.5], device=device) if weighted else None
    logits = torch.zeros(4, device=device)
    _, grad = with_grad(
        logits, lambda x: learner_loss(x, target, pos_weight=pos_weight, reduction="none")
    )
    weight = torch.ones(4, device=device) if pos_weight is None else pos_weight
    upstream = torch.linspace(-1, 2, 4, device=device)  # as in with_grad
    expected = upstream * ((1 - target) - weight * target) / 2  # sigmoid(0) = 1/2
    assert_close(
        grad,
        expected,
        "wrong gradient at a logit of exactly 0: the slope of softplus there is 1/2, but "
        "autograd gives max(z, 0) written as clamp(min=0) the slope 1 at 0 and relu the "
        "slope 0; torch.maximum(z, torch.zeros_like(z)) splits the tie evenly",
    )


def test_gradcheck_in_float64(device):
    skip_unless_supported(device, torch.float64)
    logits, target, pos_weight = multi_label(device, n=3, c=3, dtype=torch.float64)
    logits.requires_grad_()
    learner_loss(logits, target, pos_weight=pos_weight)
    with forbidden_ops(*FORBIDDEN, reason=REASON, aten=ATEN):
        assert torch.autograd.gradcheck(
            lambda x: bce_with_logits(x, target, pos_weight=pos_weight, reduction="none"),
            (logits,),
        )


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", [(), (1,), (1, 1), (0,), (0, 3)], ids=str)
def test_size_one_and_empty_inputs(device, shape, reduction):
    logits = torch.randn(shape, device=device)
    target = torch.rand(shape, device=device)
    loss = learner_loss(logits, target, reduction=reduction)
    check_tensor(
        loss,
        shape=shape if reduction == "none" else (),
        dtype=torch.float32,
        device=device,
    )
    assert_close(
        loss,
        F.binary_cross_entropy_with_logits(logits, target, reduction=reduction),
        f"wrong loss for inputs of shape {shape} (reduction={reduction!r})",
        equal_nan=True,  # the mean over no elements is nan, in PyTorch as in the contract
    )


def test_non_contiguous_inputs(device):
    logits = torch.randn(4, 6, device=device).t()
    target = torch.randint(0, 2, (6, 8), device=device).float()[:, ::2]
    pos_weight = torch.rand(8, device=device)[::2] + 0.5
    loss = learner_loss(logits, target, pos_weight=pos_weight, reduction="none")
    assert_close(
        loss,
        F.binary_cross_entropy_with_logits(logits, target, pos_weight=pos_weight, reduction="none"),
        "wrong loss for non-contiguous (transposed or strided) inputs",
    )


def test_does_not_modify_its_inputs(device):
    logits, target, pos_weight = multi_label(device)
    before = [t.clone() for t in (logits, target, pos_weight)]
    learner_loss(logits, target, pos_weight=pos_weight)
    for name, tensor, old in zip(
        ("logits", "target", "pos_weight"), (logits, target, pos_weight), before, strict=True
    ):
        assert torch.equal(tensor, old), f"{name} must not be modified"


@pytest.mark.parametrize(
    "target_shape, reduction",
    [
        ((4,), "mean"),
        ((4, 1), "mean"),
        ((1, 4), "sum"),
        ((4, 1), "none"),
        ((3, 4), "mean"),
        ((12,), "none"),
        ((2, 4, 3), "sum"),
        ((4, 3), "average"),
        ((4, 3), "Mean"),
        ((4, 3), "SUM "),
        ((4, 3), "sum "),
        ((4, 3), " mean"),
        ((4, 3), None),
        ((4, 3), ""),
        ((4, 3), "e"),
        ((4, 3), "sum|none"),
        ((4, 3), "mean|sum|none"),
        ((4, 3), "summ"),
    ],
    ids=[
        "fewer dims",
        "trailing 1",
        "transposed",
        "trailing 1, none",
        "same numel, transposed",
        "same numel, flat",
        "more dims",
        "reduction",
        "reduction Mean",
        "reduction SUM with a space",
        "reduction sum with a trailing space",
        "reduction mean with a leading space",
        "reduction None",
        "reduction empty",
        "reduction a letter of one",
        "reduction two joined",
        "reduction all joined",
        "reduction sum with a letter more",
    ],
)
def test_rejects_invalid_arguments(device, target_shape, reduction):
    logits = torch.randn(4, 3, device=device)
    target = torch.zeros(target_shape, device=device)
    with raises(ValueError):
        learner_loss(logits, target, reduction=reduction)
        pytest.fail(
            f"reduction={reduction!r} should raise ValueError"
            if target_shape == (4, 3)
            else f"target of shape {target_shape} against logits of shape (4, 3) should raise "
            f"ValueError (reduction={reduction!r}): compare the shapes themselves, not the "
            "element counts, in every reduction"
        )


@pytest.mark.parametrize(
    "logits_shape, target_shape",
    [((4, 1), (4,)), ((4,), (4, 1)), ((1,), ()), ((), (1,)), ((2, 1, 3), (2, 3))],
    ids=str,
)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_rejects_a_target_that_differs_in_size_one_dims(
    device, logits_shape, target_shape, reduction
):
    # The classic slip: a model's [N, 1] output against [N] labels, which would broadcast
    # to [N, N]. The shapes must be equal, not equal once squeezed.
    logits = torch.randn(logits_shape, device=device)
    target = torch.zeros(target_shape, device=device)
    with raises(ValueError):
        learner_loss(logits, target, reduction=reduction)
        pytest.fail(
            f"target of shape {target_shape} against logits of shape {logits_shape} should "
            "raise ValueError: compare the shapes themselves, not squeezed or reshaped ones"
        )


def enlarging_pos_weight() -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Drawn shapes: logits, and a pos_weight that broadcasts with them to a larger shape,
    its dimensions logits' or 1 but for one of two changes: a dimension of logits of size 1
    widened, or leading dimensions of size 1 added (so, at times, one element alone: a
    pos_weight of one element enlarges the loss as any other does)."""
    if random.random() < 0.5:
        logits_shape = [random.randint(1, 3) for _ in range(random.randint(1, 4))]
        widened = random.randrange(len(logits_shape))
        logits_shape[widened] = 1
        weight_shape = [random.choice((size, 1)) for size in logits_shape]
        weight_shape[widened] = random.randint(2, 4)
    else:
        logits_shape = [random.randint(1, 3) for _ in range(random.randint(0, 3))]
        kept = [random.choice((size, 1)) for size in logits_shape]
        weight_shape = [1] * random.randint(1, 2) + kept
    return tuple(logits_shape), tuple(weight_shape)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize(
    "logits_shape, weight_shape",
    [
        ((4,), (2, 4)),
        ((3, 4), (2, 1, 4)),
        ((3, 1), (3, 4)),
        ((4,), (1, 4)),
        ((3, 4), (1, 3, 4)),
        ((1, 4), (3, 4)),
        ((2, 1, 4), (3, 1)),
        ((5,), (1, 1)),
        ((), (1,)),
        (None, None),
    ],
    ids=[
        "more dims",
        "more dims, last matches",
        "larger last dim",
        "a leading 1",
        "a leading 1, same numel",
        "larger first dim",
        "larger middle dim",
        "one element, more dims",
        "0-dim logits, one element",
        "drawn",
    ],
)
def test_rejects_a_pos_weight_that_would_enlarge_the_loss(
    device, logits_shape, weight_shape, reduction
):
    # The loss keeps logits' shape: a pos_weight that broadcasts with logits to a larger
    # shape is refused, as F.binary_cross_entropy_with_logits refuses it, whatever the
    # reduction (a sum or mean over the enlarged losses hides the larger shape). (One that
    # does not broadcast at all fails in the arithmetic already.)
    if logits_shape is None:
        logits_shape, weight_shape = enlarging_pos_weight()
    logits = torch.randn(logits_shape, device=device)
    target = torch.zeros(logits_shape, device=device)
    pos_weight = torch.ones(weight_shape, device=device)
    with raises(ValueError):
        learner_loss(logits, target, pos_weight=pos_weight, reduction=reduction)
        pytest.fail(
            f"a pos_weight of shape {weight_shape} against logits of shape {logits_shape} "
            f"would broadcast the loss to a larger shape (reduction={reduction!r}): check "
            "that broadcasting leaves logits' shape as it is, every dimension, before reducing"
        )


@pytest.mark.parametrize("weight_shape", [(3,), (2, 4)], ids=["last dim", "two dims"])
def test_a_pos_weight_that_does_not_broadcast_raises(device, weight_shape):
    # Outside the precondition: any error is fine (the reference's ValueError, or torch's own
    # RuntimeError from broadcast_shapes or the arithmetic), a loss is not.
    logits, target = torch.randn(3, 4, device=device), torch.zeros(3, 4, device=device)
    pos_weight = torch.ones(weight_shape, device=device)
    try:
        loss = learner_loss(logits, target, pos_weight=pos_weight, reduction="none")
    except NotImplementedError:  # a RuntimeError too: the stub's, which must fail the test
        raise
    except (ValueError, RuntimeError):
        return
    pytest.fail(
        f"a pos_weight of shape {weight_shape} against logits of shape (3, 4) gave a "
        f"loss of shape {tuple(loss.shape)}; it does not broadcast: raise"
    )


# ---------------------------------------------------------------- facets


def labelled(dtype, device, shape=(4, 5), requires_grad=False):
    count = torch.Size(shape).numel()
    logits = torch.linspace(-12, 12, max(count, 1), dtype=torch.float64)[:count].reshape(shape)
    if count:
        logits.view(-1)[0], logits.view(-1)[-1] = 1e4, 0.0  # huge, and exactly 0
    target = (torch.arange(count, dtype=torch.float64).reshape(shape) % 3) / 2
    pos_weight = torch.tensor(1.5, dtype=torch.float64)
    logits = logits.to(dtype=dtype, device=device).requires_grad_(requires_grad)
    return facets.args(
        logits,
        target.to(dtype=dtype, device=device),
        pos_weight=pos_weight.to(dtype=dtype, device=device),
    )


def elementwise(dtype, device):
    """labelled's arguments, unreduced: each loss compared on its own, so a pos_weight
    rounded through float32 shows where the mean is swamped by the loss of 1e4."""
    arguments = labelled(dtype, device)
    return facets.args(*arguments.args, **arguments.kwargs, reduction="none")


def bce64(logits, target, pos_weight, reduction="mean"):
    return F.binary_cross_entropy_with_logits(
        logits, target, pos_weight=pos_weight, reduction=reduction
    )


KEPT = (torch.float32, torch.float64)
FACETS = facets.declare(
    facets.of(
        bce_with_logits,
        facets.Dtypes(labelled, oracle=bce64, dtypes=KEPT, ulps=4),
        facets.Dtypes(elementwise, oracle=bce64, dtypes=KEPT, ulps=4, label="none"),
        facets.Gradients(labelled, oracle=bce64, dtypes=KEPT),
        # "the same gradients through autograd": to soft targets too (torch gives none to
        # pos_weight).
        facets.Gradients(labelled, oracle=bce64, dtypes=KEPT, wrt=1, label="target"),
        facets.Shapes(
            lambda shape, device: labelled(torch.float32, device, shape=shape),
            oracle=bce64,
        ),
        facets.Unmodified(lambda device: labelled(torch.float32, device, requires_grad=True)),
        facets.Defaults(values={"pos_weight": None, "reduction": "mean"}),
        facets.BadShapes(lambda device: labelled(torch.float32, device), names=(1,)),
    ),
)
test_facets = FACETS.test
