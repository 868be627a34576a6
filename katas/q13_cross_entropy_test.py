import math

import pytest
import torch
import torch.nn.functional as F

from katas.q13_cross_entropy import cross_entropy, distillation_loss
from torch_katas import facets
from torch_katas.op_families import SOFTPLUS
from torch_katas.testing import (
    assert_close,
    assert_no_torch_internals,
    check_tensor,
    forbidden_ops,
    plural,
    raises,
    skip_unless_supported,
)

# Every way torch offers a cross-entropy, a log-sum-exp or a (log-)softmax: logcumsumexp and
# logaddexp give a log-sum-exp too, and log_softmax one subtracted from x; softplus is
# logaddexp(0, x) and logsigmoid the log_softmax of two classes (SOFTPLUS holds LOG_SUM_EXP).
FORBIDDEN = SOFTPLUS.ops
REASON = "write the log-sum-exp (with the max shift) and the log-probabilities yourself"
# The aten operators behind them, however they are reached (torch._C, torch.ops, ...).
ATEN = SOFTPLUS.aten


def learner_loss(logits, target, **options):
    """The learner's cross_entropy, with the ready-made losses and log-softmaxes forbidden."""
    assert_no_torch_internals(cross_entropy, reason=REASON)
    with forbidden_ops(*FORBIDDEN, reason=REASON, aten=ATEN):
        return cross_entropy(logits, target, **options)


def batch(device, n=8, c=5, dtype=torch.float32, ignored=(1, 4)):
    """Random logits of a few units and random targets, some set to -100 (ignored)."""
    logits = 3 * torch.randn(n, c, dtype=dtype, device=device)
    target = torch.randint(0, c, (n,), device=device)
    target[[i for i in ignored if i < n]] = -100
    return logits, target


def expected_shape(reduction, n):
    return (n,) if reduction == "none" else ()


@pytest.mark.parametrize("label_smoothing", [0.0, 0.2, 1.0])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_equals_torch_cross_entropy(device, reduction, label_smoothing):
    logits, target = batch(device)
    options = dict(reduction=reduction, label_smoothing=label_smoothing)
    loss = learner_loss(logits, target, **options)
    check_tensor(loss, shape=expected_shape(reduction, 8), dtype=torch.float32, device=device)
    assert_close(
        loss,
        F.cross_entropy(logits, target, **options),
        f"differs from F.cross_entropy with {options}; ignored samples add 0 and do not "
        "count in the mean, and smoothing gives ε/C to every class, the true one included",
    )


def class_weights(device, dtype=torch.float32):
    """Uneven weights for 5 classes, as for imbalanced data: one class 8 times another's."""
    return torch.tensor([0.5, 2.0, 1.0, 0.25, 1.5], dtype=dtype, device=device)


@pytest.mark.parametrize("label_smoothing", [0.0, 0.2, 1.0])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_class_weights_equal_torch_cross_entropy(device, reduction, label_smoothing):
    logits, target = batch(device)  # some targets are -100
    logits.requires_grad_()
    options = dict(weight=class_weights(device), reduction=reduction)
    options["label_smoothing"] = label_smoothing
    loss = learner_loss(logits, target, **options)
    check_tensor(loss, shape=expected_shape(reduction, 8), dtype=torch.float32, device=device)
    reference = logits.detach().clone().requires_grad_()
    expected = F.cross_entropy(reference, target, **options)
    said = f"reduction={reduction!r}, label_smoothing={label_smoothing}"
    assert_close(
        loss.detach(),
        expected.detach(),
        f"with class weights ({said}) the loss differs from F.cross_entropy's: class c's terms "
        "are multiplied by weight[c] (the target's term by weight[y], each class's smoothing "
        "term by its own), and the mean divides by the total weight of the samples that "
        "count, not by their number",
    )
    upstream = torch.randn(loss.shape, device=device)  # a random upstream gradient
    (grad,) = torch.autograd.grad((loss * upstream).sum(), logits)
    (expected_grad,) = torch.autograd.grad((expected * upstream).sum(), reference)
    assert_close(grad, expected_grad, f"with class weights ({said}) the gradient differs")


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_equal_class_weights_cancel_in_the_mean(device, reduction):
    # Every class weighing 2.5: each loss is 2.5 times the plain one, and the mean divides
    # by 2.5 times the count, so it is the plain mean.
    logits, target = batch(device)
    weight = torch.full((5,), 2.5, device=device)
    loss = learner_loss(logits, target, weight=weight, label_smoothing=0.1, reduction=reduction)
    plain = F.cross_entropy(logits, target, label_smoothing=0.1, reduction=reduction)
    expected = plain if reduction == "mean" else 2.5 * plain
    assert_close(
        loss,
        expected,
        f"with every class weighing 2.5, reduction={reduction!r} should give "
        + (
            "the plain mean: a weighted mean divides by the total weight (2.5 per sample)"
            if reduction == "mean"
            else "2.5 times the plain loss"
        ),
    )


def test_defaults_are_mean_no_smoothing_and_ignore_index_minus_100(device):
    logits, target = batch(device)  # some targets are -100
    loss = learner_loss(logits, target)
    check_tensor(loss, shape=(), dtype=torch.float32, device=device)
    assert_close(
        loss,
        F.cross_entropy(logits, target),
        "cross_entropy(logits, target) should default to reduction='mean', "
        "label_smoothing=0.0 and ignore_index=-100, as F.cross_entropy does",
    )


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_keeps_float64(device, reduction):
    skip_unless_supported(device, torch.float64)
    logits, target = batch(device, dtype=torch.float64)
    loss = learner_loss(logits, target, label_smoothing=0.1, reduction=reduction)
    check_tensor(loss, shape=expected_shape(reduction, 8), dtype=torch.float64, device=device)
    assert_close(
        loss,
        F.cross_entropy(logits, target, label_smoothing=0.1, reduction=reduction),
        f"float64 logits deserve a float64 loss, with reduction={reduction!r} too",
    )


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_ignore_index_can_be_a_real_class(device, reduction, weighted):
    # With class weights too: the weighted mean's total weight leaves class 2 out as well.
    logits = torch.randn(6, 4, device=device)
    target = torch.tensor([2, 0, 2, 3, 1, 2], device=device)
    options = dict(ignore_index=2, label_smoothing=0.1, reduction=reduction)
    if weighted:
        options["weight"] = torch.tensor([0.5, 2.0, 3.0, 0.25], device=device)
    loss = learner_loss(logits, target, **options)
    expected = F.cross_entropy(logits, target, **options)
    assert_close(
        loss,
        expected,
        f"with ignore_index=2{' and class weights' if weighted else ''}, the samples of class "
        "2 must be left out, of the loss and of the count (the total weight) in the mean",
    )


@pytest.mark.parametrize("classes", [3, 2], ids=["3 classes", "2 classes"])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.1])
def test_finite_and_exact_for_huge_logits(device, label_smoothing, classes):
    # Two classes too: the binary case has no other path to stability (log of a sigmoid of
    # the difference is log 0 at -1e4).
    rows = [[1e4, 0.0, -1e4], [0.0, 1e4, 1e4], [-1e4, -1e4, -1e4], [9e3, -1e4, 1e4], [100.0, 0, 0]]
    logits = torch.tensor([row[:classes] for row in rows], device=device, requires_grad=True)
    target = torch.tensor([0, 2, 1, 1, 0], device=device) % classes
    options = dict(reduction="none", label_smoothing=label_smoothing)
    loss = learner_loss(logits, target, **options)
    assert torch.isfinite(loss).all(), (
        f"per-sample losses {loss.tolist()} are not finite: exp() of a logit of 1e4 overflows; "
        "subtract each row's maximum before exponentiating"
    )
    (grad,) = torch.autograd.grad(loss.sum(), logits)
    assert torch.isfinite(grad).all(), "the gradient is not finite for huge logits"
    # The oracle in float64 on the CPU: torch's own float32 result rounds at these sizes too.
    reference = logits.detach().cpu().double().requires_grad_()
    expected = F.cross_entropy(reference, target.cpu(), **options)
    (expected_grad,) = torch.autograd.grad(expected.sum(), reference)
    # Near 2e4 float32 values are 2e-3 apart, so a correct answer may round that much.
    assert_close(
        loss.detach().cpu().double(),
        expected.detach(),
        "per-sample losses for huge logits differ from the exact ones",
        atol=4e-3,
        rtol=1e-5,
    )
    assert_close(
        grad.cpu().double(),
        expected_grad,
        "the gradient for huge logits differs from the exact one",
        atol=1e-5,
        rtol=1.3e-6,
    )


def extreme_oracle(logits, target, label_smoothing, reduction, weight=None):
    """The contract's formula from torch's log_softmax, each term of factor 0 left out."""
    log_probs = F.log_softmax(logits, dim=1)
    if weight is None:
        weight = torch.ones(logits.shape[1], dtype=logits.dtype)
    keep = target != -100
    safe_target = torch.where(keep, target, 0)
    nll = -weight[safe_target] * log_probs.gather(1, safe_target[:, None])[:, 0]
    smooth = -(weight * log_probs).mean(dim=1)
    terms = [(1 - label_smoothing, nll), (label_smoothing, smooth)]
    loss = sum(factor * term for factor, term in terms if factor != 0)
    loss = torch.where(keep, loss, 0.0)
    if reduction == "none":
        return loss
    counted = torch.where(keep, weight[safe_target], 0.0).sum()
    return loss.sum() if reduction == "sum" else loss.sum() / counted


# Class weights at the dtype's limits too (at most 1, so that no exact loss overflows there
# where the unweighted one fits): a term of factor 0 is left out with them as well.
EXTREME_WEIGHTS = {"unweighted": None, "weighted": [0.5, 1.0, 0.75]}


def extreme_weight(name, dtype):
    values = EXTREME_WEIGHTS[name]
    return None if values is None else torch.tensor(values, dtype=dtype)


@pytest.mark.parametrize("weighted", list(EXTREME_WEIGHTS))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.1, 1.0])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_no_nan_for_finite_logits_at_the_dtypes_limits(
    device, dtype, label_smoothing, reduction, weighted
):
    # Logits at the ends of the dtype's range: differences overflow to inf in log p, and a
    # term of factor 0 (ε = 0 or 1) must add nothing rather than 0 * inf = nan.
    skip_unless_supported(device, dtype)
    top = torch.finfo(dtype).max * 0.9
    rows = [[top, -top, 0.0], [0.0, top, -top], [-top, 0.0, top]]
    logits = torch.tensor(rows * 2 + [[top, top, top]], dtype=dtype)
    target = torch.tensor([0, 1, 2, 1, 2, 0, -100])
    weight = extreme_weight(weighted, dtype)
    expected = extreme_oracle(logits, target, label_smoothing, reduction, weight)
    options = dict(reduction=reduction, label_smoothing=label_smoothing, weight=weight)
    given = dict(options, weight=None if weight is None else weight.to(device))
    loss = learner_loss(logits.to(device), target.to(device), **given).detach().cpu()
    check_tensor(loss, shape=expected_shape(reduction, 7), dtype=dtype, name="the loss")
    # At ε = 1 the contract accepts nan where torch's own loss gives it (0 * inf there).
    torch_loss = F.cross_entropy(logits, target, **options)
    allowed = torch_loss.isnan() & (label_smoothing == 1.0)
    assert not (loss.isnan() & ~allowed).any(), (
        f"the loss is nan for finite logits at ±{top:.3g} with {options}: a term of weight 0 "
        "must add nothing (0 * inf is nan where a log-probability is -inf): leave it out"
    )
    excused = allowed & loss.isnan()
    finite = expected.isfinite() & ~excused
    assert_close(loss[finite], expected[finite], f"the loss at the dtype's limits, {options}")
    assert (loss[~expected.isfinite() & ~excused] >= top / 1e3).all(), (
        f"where the loss overflows (inf, as F.cross_entropy gives it) expect inf or a value of "
        f"the logits' size, got {loss.tolist()}"
    )


@pytest.mark.parametrize("weighted", list(EXTREME_WEIGHTS))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("label_smoothing", [0.1, 1.0])
def test_finite_where_a_rows_sum_passes_the_dtypes_limit(device, dtype, label_smoothing, weighted):
    # Every log-probability here is finite, yet the sum of a row's logits overflows: the
    # smoothing term from the mean of the raw logits (logsumexp - mean(logits)) gives -inf.
    skip_unless_supported(device, dtype)
    top = torch.finfo(dtype).max * 0.9
    logits = torch.tensor([[top, top, top], [top, top, 0.0], [0.0, top, top]], dtype=dtype)
    target = torch.tensor([0, 2, 0])
    weight = extreme_weight(weighted, dtype)
    options = dict(reduction="none", label_smoothing=label_smoothing)
    weight64 = None if weight is None else weight.double()
    expected = extreme_oracle(logits.double(), target, label_smoothing, "none", weight64)
    given = dict(options, weight=None if weight is None else weight.to(device))
    loss = learner_loss(logits.to(device), target.to(device), **given).detach().cpu()
    check_tensor(loss, shape=(3,), dtype=dtype, name="the loss")
    # Rounding at the logits' scale is fine (log 3 next to 3e38 is lost in a float32 sum).
    assert_close(
        loss.double(),
        expected,
        f"the loss where a row's logits sum past the dtype's largest value, {options}: take "
        "the smoothing term from the log-probabilities (-mean of log p), whose mean stays "
        "finite, not from the mean of the raw logits, whose sum overflows",
        rtol=1e-5,
        atol=top * torch.finfo(dtype).eps,
    )


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_gradient_equals_autograd_through_torch_cross_entropy(device, reduction):
    logits, target = batch(device)
    logits.requires_grad_()
    options = dict(reduction=reduction, label_smoothing=0.15)
    loss = learner_loss(logits, target, **options)
    weights = torch.randn(loss.shape, device=device)  # a random upstream gradient
    (grad,) = torch.autograd.grad((loss * weights).sum(), logits)
    reference = logits.detach().clone().requires_grad_()
    expected = F.cross_entropy(reference, target, **options)
    (expected_grad,) = torch.autograd.grad((expected * weights).sum(), reference)
    assert_close(grad, expected_grad, "the gradient with respect to logits differs from PyTorch's")


def test_gradcheck_in_float64(device):
    skip_unless_supported(device, torch.float64)
    logits, target = batch(device, n=3, c=4, dtype=torch.float64, ignored=(1,))
    logits.requires_grad_()
    learner_loss(logits, target, label_smoothing=0.3)
    with forbidden_ops(*FORBIDDEN, reason=REASON, aten=ATEN):
        assert torch.autograd.gradcheck(
            lambda x: cross_entropy(x, target, label_smoothing=0.3), (logits,)
        )


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
# (4, 2): the binary case, where the rules see a log-softmax taken as a logsigmoid too.
@pytest.mark.parametrize("n, c", [(1, 1), (1, 6), (5, 1), (0, 3), (4, 2)], ids=str)
def test_size_one_and_empty_dimensions(device, n, c, reduction):
    logits = torch.randn(n, c, device=device)
    target = torch.randint(0, c, (n,), device=device)
    loss = learner_loss(logits, target, reduction=reduction, label_smoothing=0.1)
    check_tensor(loss, shape=expected_shape(reduction, n), dtype=torch.float32, device=device)
    assert_close(
        loss,
        F.cross_entropy(logits, target, reduction=reduction, label_smoothing=0.1),
        f"wrong for {plural(n, 'sample')} of {plural(c, 'class', 'classes')}",
        equal_nan=True,  # the mean over no samples is nan, in PyTorch as in the contract
    )


@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_one_class_with_an_ignored_sample(device, reduction):
    logits = torch.randn(3, 1, device=device)
    target = torch.tensor([0, -100, 0], device=device)
    loss = learner_loss(logits, target, reduction=reduction, label_smoothing=0.1)
    check_tensor(loss, shape=expected_shape(reduction, 3), dtype=torch.float32, device=device)
    assert_close(
        loss,
        F.cross_entropy(logits, target, reduction=reduction, label_smoothing=0.1),
        "with one class the only valid index is 0: gather the ignored samples from class 0",
    )


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_every_target_ignored(device, reduction):
    logits = torch.randn(3, 4, device=device, requires_grad=True)
    target = torch.full((3,), 7, device=device)
    loss = learner_loss(logits, target, ignore_index=7, reduction=reduction, label_smoothing=0.2)
    # No sample counts, so nothing reaches the logits: F.cross_entropy's gradient is 0, even
    # where the mean is nan (a nan times a 0/1 mask would send nan back).
    (grad,) = torch.autograd.grad(loss.sum(), logits)
    assert torch.equal(grad.cpu(), torch.zeros(3, 4)), (
        f"with every target ignored the gradient must be 0, as F.cross_entropy's, got "
        f"{grad.tolist()}: leave the ignored samples out with torch.where, not by "
        "multiplying by a mask (0 * nan is nan)"
    )
    loss = loss.detach()
    check_tensor(loss, shape=expected_shape(reduction, 3), dtype=torch.float32, device=device)
    if reduction == "mean":
        assert torch.isnan(loss), (
            f"the mean over zero counted samples should be nan (0/0, as F.cross_entropy), got "
            f"{loss.item()}; divide the sum by the number of samples that are not ignored"
        )
    else:
        assert torch.equal(loss.cpu(), torch.zeros(loss.shape)), (
            f"with every target ignored each per-sample loss is 0, got {loss.tolist()}"
        )


def test_non_contiguous_inputs(device):
    logits = torch.randn(5, 7, device=device).t()  # [7, 5], not contiguous
    target = torch.randint(0, 5, (14,), device=device)[::2]
    target[3] = -100
    loss = learner_loss(logits, target, reduction="none", label_smoothing=0.1)
    assert_close(
        loss,
        F.cross_entropy(logits, target, reduction="none", label_smoothing=0.1),
        "wrong for non-contiguous logits and target",
    )


def test_does_not_modify_its_inputs(device):
    logits, target = batch(device)
    logits_before, target_before = logits.clone(), target.clone()
    learner_loss(logits, target, label_smoothing=0.1)
    assert torch.equal(logits, logits_before), "logits must not be modified"
    assert torch.equal(target, target_before), "target must not be modified (ignored ones too)"


def invalid_arguments():
    """(id, logits shape, target shape, target dtype, options) of every call that must raise,
    for a batch of n samples."""
    yield "1-D logits", lambda n: (n,), lambda n: (n,), torch.int64, {}
    yield "3-D logits", lambda n: (n, 3, 4), lambda n: (n, 4), torch.int64, {}
    yield "target length", lambda n: (n, 3), lambda n: (n + 1,), torch.int64, {}
    yield "2-D target", lambda n: (n, 3), lambda n: (n, 1), torch.int64, {}
    for dtype in (torch.float32, torch.int32, torch.uint8):
        yield f"{dtype} target", lambda n: (n, 3), lambda n: (n,), dtype, {}
    # Exactly one of the three spellings: every other case and every space around them.
    spellings = ["avg", "", None, "MEAN", "Mean", "SUM ", "sum ", " sum", "none\n", " mean"]
    spellings += [change(r) for r in ("mean", "sum", "none") for change in (str.title, str.upper)]
    for spelling in dict.fromkeys(spellings):
        yield (
            f"reduction {spelling!r}",
            lambda n: (n, 3),
            lambda n: (n,),
            torch.int64,
            {"reduction": spelling},
        )
    for value in (1.5, -0.1, float("nan"), float("inf")):
        yield (
            f"smoothing {value}",
            lambda n: (n, 3),
            lambda n: (n,),
            torch.int64,
            {"label_smoothing": value},
        )
    # Weights for 3 classes have shape (3,): one too many or too few, a row, a scalar.
    for shape in ((4,), (2,), (1, 3), ()):
        yield (
            f"weight of shape {shape}",
            lambda n: (n, 3),
            lambda n: (n,),
            torch.int64,
            {"weight": shape},
        )


INVALID = list(invalid_arguments())


# Validation comes first, whatever the batch: a shortcut for an empty batch, or for one whose
# every target is ignored, must not skip it.
@pytest.mark.parametrize(
    "logits_shape, target_shape, target_dtype, options",
    [case[1:] for case in INVALID],
    ids=[case[0] for case in INVALID],
)
def test_rejects_invalid_arguments(device, logits_shape, target_shape, target_dtype, options):
    for n, fill in ((4, 0), (0, 0), (4, -100)):  # every target ignored in the last
        logits = torch.randn(logits_shape(n), device=device)
        fill = fill if target_dtype.is_signed else 0
        target = torch.full(target_shape(n), fill, dtype=target_dtype, device=device)
        given = dict(options)
        if "weight" in given:  # its shape, made on the test's device
            given["weight"] = torch.ones(given["weight"], device=device)
        with raises(ValueError):
            learner_loss(logits, target, **given)


# ---------------------------------------------------------------- distillation


def distill64(student, teacher, target, temperature=2.0, alpha=0.5):
    """The contract's formula in float64: KL(p || q) summed over classes, averaged over
    samples, times T², mixed with the cross-entropy of the raw student logits."""
    student, teacher = student.double(), teacher.double()
    log_q = F.log_softmax(student / temperature, dim=1)
    log_p = F.log_softmax(teacher / temperature, dim=1)
    kl = (log_p.exp() * (log_p - log_q)).sum(dim=1).mean()
    return alpha * temperature**2 * kl + (1 - alpha) * F.cross_entropy(student, target)


def student_and_teacher(device, n=6, c=5, dtype=torch.float32):
    """A teacher confident in other classes than the student, targets that differ from both."""
    student = (3 * torch.randn(n, c, dtype=torch.float64)).to(device, dtype)
    teacher = (4 * torch.randn(n, c, dtype=torch.float64)).to(device, dtype)
    target = torch.randint(0, c, (n,)).to(device)
    return student, teacher, target


@pytest.mark.parametrize("alpha", [0.0, 0.3, 1.0])
@pytest.mark.parametrize("temperature", [1.0, 4.0])
def test_distillation_mixes_the_soft_kl_and_the_hard_cross_entropy(device, temperature, alpha):
    student, teacher, target = student_and_teacher(device)
    loss = distillation_loss(student, teacher, target, temperature=temperature, alpha=alpha)
    check_tensor(loss, shape=(), dtype=torch.float32, device=device, name="the distillation loss")
    want = distill64(student.cpu(), teacher.cpu(), target.cpu(), temperature, alpha)
    assert_close(
        loss.cpu(),
        want.float(),
        f"differs from alpha * T² * KL(p || q) + (1 - alpha) * CE at T={temperature}, "
        f"alpha={alpha}: F.kl_div's input is the student's log-probabilities and its target "
        "the teacher's probabilities (KL(target || input)), reduction='batchmean' divides by "
        "N alone, the soft term is scaled by T², and the hard term is the cross-entropy of the "
        "raw student logits (temperature 1)",
        rtol=1e-5,
        atol=1e-6,
    )


def test_distillation_sends_no_gradient_to_the_teacher(device):
    student, teacher, target = student_and_teacher(device)
    student.requires_grad_()
    teacher_weights = teacher.clone().requires_grad_()
    teacher_out = teacher_weights * 1.0  # a teacher model's output, attached to its graph
    loss = distillation_loss(student, teacher_out, target, temperature=3.0, alpha=0.7)
    loss.backward()
    assert teacher_weights.grad is None, (
        "the loss sent gradients into the teacher: it is a fixed target, so take its "
        "probabilities from teacher_logits.detach() (or under torch.no_grad())"
    )
    student64 = student.detach().cpu().double().requires_grad_()
    distill64(student64, teacher.cpu(), target.cpu(), 3.0, 0.7).backward()
    assert_close(
        student.grad.cpu(),
        student64.grad.float(),
        "the gradient with respect to the student logits",
        rtol=1e-4,
        atol=1e-6,
    )


@pytest.mark.parametrize("shape", [(5,), (2, 3, 4)], ids=["1-D", "3-D"])
def test_distillation_rejects_logits_that_are_not_2d_even_when_both_agree(device, shape):
    # BadShapes changes one argument at a time; here the student and the teacher share the
    # wrong shape, so only the 2-D check itself can refuse them.
    student = torch.randn(shape, device=device)
    target = torch.zeros(shape[:1], dtype=torch.int64, device=device)
    with raises(ValueError):
        distillation_loss(student, student.clone(), target)


def test_distillation_is_finite_where_teacher_probabilities_underflow(device):
    # exp(-200) is below float32's smallest subnormal: those teacher probabilities are 0,
    # and 0 * log 0 must count as 0, not nan. Logits of ±1e4 stay finite too.
    teacher = torch.tensor([[0.0, -200.0, -400.0], [1e4, 0.0, -1e4]], device=device)
    student = torch.tensor([[1.0, 0.5, -2.0], [-1e4, 0.0, 1e4]], device=device)
    student.requires_grad_()
    target = torch.tensor([0, 1], device=device)
    loss = distillation_loss(student, teacher, target, temperature=1.0, alpha=0.5)
    assert torch.isfinite(loss).item(), (
        f"the loss is {loss.item()} where some teacher probabilities underflow to 0: a class "
        "of probability 0 adds 0 (F.kl_div handles it; log(softmax(...)) gives log 0 = -inf)"
    )
    loss.backward()
    assert torch.isfinite(student.grad).all().item(), "the student's gradient is not finite"
    want = distill64(student.detach().cpu(), teacher.cpu(), target.cpu(), 1.0, 0.5)
    assert_close(
        loss.detach().cpu(), want.float(), "the loss at extreme logits", rtol=1e-5, atol=1e-6
    )


# ---------------------------------------------------------------- facets


def scores(dtype, device, requires_grad=False):
    logits = torch.linspace(-6, 6, 8 * 5, dtype=torch.float64).reshape(8, 5)
    logits[0, 0] = 1e4  # large values the contract names
    target = torch.tensor([0, 1, 2, 3, 4, -100, 1, 2])
    logits = logits.to(dtype=dtype, device=device).requires_grad_(requires_grad)
    return facets.args(logits, target.to(device), label_smoothing=0.1)


def cross_entropy64(logits, target, label_smoothing):
    return F.cross_entropy(logits, target, label_smoothing=label_smoothing)


def weighted_scores(dtype, device, requires_grad=False):
    """scores with class weights that no binary fraction holds exactly (a weight cast to
    another dtype shows), in logits' dtype."""
    arguments = scores(dtype, device, requires_grad)
    weight = torch.linspace(0.3, 2.1, 5, dtype=torch.float64).to(dtype=dtype, device=device)
    return facets.args(*arguments.args, weight=weight, **arguments.kwargs)


def weighted_cross_entropy64(logits, target, weight, label_smoothing):
    return F.cross_entropy(logits, target, weight=weight, label_smoothing=label_smoothing)


def of_shape(shape, device):
    """Logits of a named [N, C] shape (an empty batch, one sample of one class, strided) and
    valid targets."""
    logits = torch.randn(shape, device=device) * 3
    return facets.args(logits, torch.randint(0, shape[1], shape[:1], device=device))


def edge(device, n=4, c=3, ignored=False, weighted=False):
    """n samples of c classes, every target ignored or none, class weights or none."""
    logits = torch.randn(n, c, dtype=torch.float64).to(device) * 3
    target = torch.full((n,), -100) if ignored else torch.arange(n) % c
    options = {"weight": torch.linspace(0.3, 2.1, c, dtype=torch.float64)} if weighted else {}
    return facets.args(logits, target.to(device), **{k: v.to(device) for k, v in options.items()})


def cross_entropy_of(logits, target, **options):
    return F.cross_entropy(logits, target, **options)


def distill_args(dtype, device, requires_grad=False):
    student = torch.linspace(-4, 4, 6 * 5, dtype=torch.float64).reshape(6, 5)
    student[0, 0] = 1e4  # large values the contract names
    teacher = torch.linspace(3, -3, 6 * 5, dtype=torch.float64).reshape(5, 6).T.reshape(6, 5)
    student = student.to(dtype=dtype, device=device).requires_grad_(requires_grad)
    teacher = teacher.to(dtype=dtype, device=device)
    target = torch.tensor([4, 3, 0, 1, 2, 0], device=device)
    # Settings float32 does not hold: one rounded to float32 shows in float64.
    return facets.args(student, teacher, target, temperature=2.9, alpha=0.3)


def distill_of_shape(shape, device):
    student = torch.randn(shape, device=device) * 3
    teacher = torch.randn(shape, device=device) * 3
    target = torch.randint(0, shape[1], shape[:1], device=device)
    return facets.args(student, teacher, target, temperature=2.0, alpha=0.5)


KEPT = (torch.float32, torch.float64)
FACETS = facets.declare(
    facets.of(
        distillation_loss,
        facets.Dtypes(distill_args, oracle=distill64, dtypes=KEPT, ulps=8),
        facets.Gradients(distill_args, oracle=distill64, dtypes=KEPT),
        facets.Setting(
            lambda device: distill_args(torch.float32, device),
            "temperature",
            low=0,
            low_open=True,
            high=math.inf,
            high_open=True,  # a finite temperature: T² of inf is no scale
        ),
        facets.Setting(lambda device: distill_args(torch.float32, device), "alpha", low=0, high=1),
        facets.Unmodified(lambda device: distill_args(torch.float32, device, requires_grad=True)),
        facets.Defaults(values={"temperature": 2.0, "alpha": 0.5}),
        facets.BadShapes(lambda device: distill_args(torch.float32, device), names=(1, 2)),
        facets.BadShapes(
            lambda device: distill_args(torch.float32, device), names=(0,), dims=(), label="2-D"
        ),
        facets.Shapes(
            distill_of_shape, oracle=distill64, shapes=("2-D", "size 1", "non-contiguous")
        ),
    ),
    facets.of(
        cross_entropy,
        facets.Dtypes(scores, oracle=cross_entropy64, dtypes=KEPT, ulps=4),
        facets.Gradients(scores, oracle=cross_entropy64, dtypes=KEPT),
        facets.Setting(
            lambda device: scores(torch.float32, device), "label_smoothing", low=0, high=1
        ),
        facets.Unmodified(lambda device: scores(torch.float32, device, requires_grad=True)),
        # Class weights: kept in logits' dtype (float64 too), and the caller's left as given.
        facets.Dtypes(
            weighted_scores, oracle=weighted_cross_entropy64, dtypes=KEPT, ulps=4, label="weighted"
        ),
        facets.Unmodified(
            lambda device: weighted_scores(torch.float32, device, requires_grad=True),
            label="weighted",
        ),
        facets.Defaults(
            values={
                "weight": None,
                "ignore_index": -100,
                "label_smoothing": 0.0,
                "reduction": "mean",
            }
        ),
        facets.BadShapes(lambda device: scores(torch.float32, device), names=(1,)),
        facets.BadShapes(
            lambda device: scores(torch.float32, device), names=(0,), dims=(), label="2-D"
        ),
        # An empty batch (the mean of nothing is nan), one sample of one class, any layout:
        # values and gradients.
        facets.Shapes(of_shape, oracle=cross_entropy_of, shapes=("empty", "2-D", "size 1")),
        # The edge cases the contract names, with class weights too: the weighted mean over
        # no counted sample is 0/0 = nan, and no gradient reaches the logits.
        facets.Edges(
            {
                "every target ignored": lambda device: edge(device, ignored=True),
                "every target ignored, weighted": lambda device: edge(
                    device, ignored=True, weighted=True
                ),
                "an empty batch, weighted": lambda device: edge(device, n=0, weighted=True),
                "one class, weighted": lambda device: edge(device, c=1, weighted=True),
            },
            oracle=cross_entropy_of,
            wrt=0,
        ),
    ),
)
test_facets = FACETS.test
