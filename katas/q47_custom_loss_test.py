import contextlib
import math

import pytest
import torch
import torch.nn.functional as F
from torch.autograd.gradcheck import GradcheckError

from katas.q47_custom_loss import FocalLoss, HuberFunction
from torch_katas import facets
from torch_katas.op_families import HUBER
from torch_katas.testing import (
    assert_close,
    assert_no_python_loops,
    assert_no_torch_internals,
    check_tensor,
    forbidden_ops,
    skip_unless_supported,
)

HUBER_RULE = "write the Huber loss yourself"
# The aten operators behind them, however they are reached (torch._C, torch.ops, ...).
HUBER_ATEN = HUBER.aten


def focal_by_hand(logits, target, gamma):
    """Per-sample focal loss with Python floats, log-sum-exp shifted by the row maximum."""
    losses = []
    for row, t in zip(logits.double().cpu().tolist(), target.cpu().tolist(), strict=True):
        top = max(row)
        log_pt = row[t] - top - math.log(sum(math.exp(z - top) for z in row))
        losses.append(-((1 - math.exp(log_pt)) ** gamma) * log_pt)
    return torch.tensor(losses, dtype=torch.float64)


@contextlib.contextmanager
def no_nested_backward():
    """Refuses a backward pass started inside another: autograd differentiating the forward
    again inside a hand-written backward (torch.autograd.grad, .backward(), torch.func all
    run the engine, or forward mode: torch.func.jvp and forward_ad enter a dual level),
    where the kata asks for the gradient written out."""
    engine = torch.autograd.Variable._execution_engine
    enter_dual_level = torch.autograd.forward_ad.enter_dual_level
    running = False
    refused = []  # kept: code that catches a refusal and goes on still fails the rule

    def refuse(message):
        refused.append(message)
        raise AssertionError(message)

    def dual_level_refused_in_backward():
        if running:
            refuse(
                "HuberFunction.backward ran forward-mode autograd (torch.func.jvp, forward_ad) "
                "to differentiate the forward again: write the gradient yourself, "
                "clamp(d, -delta, delta) * grad_output"
            )
        return enter_dual_level()

    class Guard:
        def run_backward(self, *args, **kwargs):
            nonlocal running
            if running:
                refuse(
                    "HuberFunction.backward ran autograd (a backward pass inside the backward "
                    "pass): write the gradient yourself, clamp(d, -delta, delta) * grad_output"
                )
            running = True
            try:
                return engine.run_backward(*args, **kwargs)
            finally:
                running = False

        def __getattr__(self, name):
            return getattr(engine, name)

    torch.autograd.Variable._execution_engine = Guard()
    torch.autograd.forward_ad.enter_dual_level = dual_level_refused_in_backward
    try:
        yield
    finally:
        torch.autograd.Variable._execution_engine = engine
        torch.autograd.forward_ad.enter_dual_level = enter_dual_level
    if refused:
        raise AssertionError(refused[0])


def assert_gradcheck(fn, inputs, what):
    try:
        torch.autograd.gradcheck(fn, inputs)
    except GradcheckError as error:
        raise AssertionError(
            f"{what}: the analytic gradient does not match finite differences\n{error}"
        ) from error


def classification_batch(device, n=6, c=4, dtype=torch.float32, scale=2.0):
    logits = scale * torch.randn(n, c, device=device, dtype=dtype)
    target = torch.randint(0, c, (n,), device=device)
    return logits, target


# ---- settings and arguments that are refused, and the module's own state -----


def test_focal_loss_has_no_parameters(device):
    loss_fn = FocalLoss(gamma=1.5)
    loss_fn(*classification_batch(device))
    names = [name for name, _ in loss_fn.named_parameters()]
    assert not names, (
        f"FocalLoss has parameters {names}: the optimizer would train them; keep gamma and "
        "the reduction as plain attributes (self.gamma = gamma)"
    )


def tensors_on(module):
    """Every tensor the module's attributes hold (in dicts, lists and tuples too), by path."""
    found = {}

    def walk(value, path, depth=0):
        if isinstance(value, torch.Tensor):
            found[path] = value
        elif isinstance(value, dict) and depth < 3:
            for key, item in value.items():
                walk(item, f"{path}[{key!r}]", depth + 1)
        elif isinstance(value, (list, tuple)) and depth < 3:
            for index, item in enumerate(value):
                walk(item, f"{path}[{index}]", depth + 1)

    for name, value in vars(module).items():
        walk(value, name)
    return found


def test_focal_loss_keeps_no_tensor_of_a_call(device):
    loss_fn = FocalLoss(gamma=1.5)
    before = {path: id(tensor) for path, tensor in tensors_on(loss_fn).items()}
    for _ in range(2):
        logits, target = classification_batch(device)
        loss_fn(logits.requires_grad_(), target)
    kept = sorted(
        path for path, tensor in tensors_on(loss_fn).items() if before.get(path) != id(tensor)
    )
    assert not kept, (
        f"FocalLoss keeps {kept} from its last call: a tensor left on the module holds that "
        "call's graph (and memory) until the next call; keep what forward computes local"
    )


# The three reductions exactly as F.cross_entropy spells them: no other case or spacing,
# and no part of one or of several ("an", "sum none": a membership test in the string
# "mean sum none" instead of a tuple of the three accepts them).
BAD_SETTINGS = [
    {"gamma": -1.0},
    *(
        {"reduction": spelled}
        for spelled in ("average", "MEAN", "Sum", " mean", "none\n", "", None, "an", "sum none")
    ),
]


@pytest.mark.parametrize("kwargs", BAD_SETTINGS, ids=str)
def test_focal_loss_rejects_bad_settings(device, kwargs):
    with pytest.raises(ValueError):
        FocalLoss(**kwargs)


# (input shape, target shape, delta)
BAD_HUBER = {
    "shapes": ((3,), (4,), 1.0),
    "same size, other shape": ((2, 3), (3, 2), 1.0),
    # The same size, rank and last dim, the leading dims in another order.
    "leading dims swapped": ((2, 3, 4), (3, 2, 4), 1.0),
    "delta 0": ((3,), (3,), 0.0),
    "negative delta": ((3,), (3,), -1.0),
    # Shapes that broadcast are still different shapes.
    "target broadcasts along rows": ((2, 3), (3,), 1.0),
    "target of size 1": ((3,), (1,), 1.0),
    "0-dim target": ((3,), (), 1.0),
}


@pytest.mark.parametrize("case", BAD_HUBER)
def test_huber_rejects_bad_arguments(device, case):
    input_shape, target_shape, delta = BAD_HUBER[case]
    x, y = torch.randn(input_shape, device=device), torch.randn(target_shape, device=device)
    try:
        HuberFunction.apply(x, y, delta)
    except ValueError:
        return
    pytest.fail(
        f"input {input_shape}, target {target_shape}, delta {delta}: raise ValueError "
        "(the shapes must be equal, not only the sizes, and delta > 0)"
    )


# ---- FocalLoss values ------------------------------------------------------


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
def test_gamma_zero_is_cross_entropy(device, reduction, dtype):
    skip_unless_supported(device, dtype)
    logits, target = classification_batch(device, dtype=dtype)
    loss = FocalLoss(gamma=0.0, reduction=reduction)(logits, target)
    shape = (6,) if reduction == "none" else ()
    check_tensor(loss, shape=shape, dtype=dtype, device=device, name=f"the {reduction} loss")
    assert_close(
        loss,
        F.cross_entropy(logits, target, reduction=reduction),
        "with gamma = 0 the focal loss must equal cross-entropy",
    )


def test_focal_loss_defaults_to_gamma_2_and_the_mean(device):
    logits, target = classification_batch(device)
    loss = FocalLoss()(logits, target)
    check_tensor(loss, shape=(), dtype=torch.float32, device=device, name="FocalLoss()(...)")
    assert_close(
        loss.double().cpu(),
        focal_by_hand(logits, target, 2.0).mean(),
        "FocalLoss() defaults to gamma=2.0 and reduction='mean'",
        rtol=1e-5,
        atol=1e-6,
    )


@pytest.mark.parametrize(
    "gamma, dtype",
    [
        *((gamma, torch.float32) for gamma in (0.5, 1.0, 2.0, 5.0)),
        *((gamma, torch.float64) for gamma in (0.5, 2.0)),
    ],
)
def test_focal_loss_values(device, gamma, dtype):
    skip_unless_supported(device, dtype)
    logits, target = classification_batch(device, n=8, c=5, dtype=dtype)
    loss = FocalLoss(gamma=gamma, reduction="none")(logits, target)
    check_tensor(loss, shape=(8,), dtype=dtype, device=device, name="the loss")
    expected = focal_by_hand(logits, target, gamma)
    assert_close(
        loss.double().cpu(),
        expected,
        f"per-sample loss differs from -(1 - p_t)^gamma * log(p_t), gamma={gamma}; the "
        "weight is (1 - p_t)^gamma, with p_t the probability of the true class",
        rtol=1e-5,
        atol=1e-6,
    )
    mean = FocalLoss(gamma=gamma)(logits, target)
    total = FocalLoss(gamma=gamma, reduction="sum")(logits, target)
    for name, reduced in (("mean", mean), ("sum", total)):
        check_tensor(reduced, shape=(), dtype=dtype, device=device, name=f"the {name} loss")
    assert_close(mean.double().cpu(), expected.mean(), "the mean reduction", rtol=1e-5, atol=1e-6)
    assert_close(total.double().cpu(), expected.sum(), "the sum reduction", rtol=1e-5, atol=1e-6)


def test_easy_examples_count_less_than_in_cross_entropy(device):
    logits = torch.tensor([[4.0, 0.0], [0.0, 4.0]], device=device)
    target = torch.tensor([0, 0], device=device)  # the first is easy, the second hard
    focal = FocalLoss(gamma=2.0, reduction="none")(logits, target)
    ce = F.cross_entropy(logits, target, reduction="none")
    ratio = (focal / ce).cpu()
    assert ratio[0] < 1e-3 and ratio[1] > 0.9, (
        f"focal/CE ratios {ratio.tolist()}: a confident right answer (p_t near 1) must be "
        "weighted almost to zero, a confident wrong one (p_t near 0) almost not at all"
    )


@pytest.mark.parametrize("gamma", [0.0, 2.0, 0.5])
def test_focal_loss_passes_gradcheck(device, gamma):
    skip_unless_supported(device, torch.float64)
    logits, target = classification_batch(device, n=5, c=3, dtype=torch.float64)
    logits.requires_grad_()
    loss_fn = FocalLoss(gamma=gamma)
    loss_fn(logits, target)
    assert_gradcheck(lambda z: loss_fn(z, target), (logits,), f"FocalLoss(gamma={gamma})")


def test_focal_loss_is_stable_for_huge_logits(device):
    logits = torch.tensor(
        [[1e4, 0.0, -1e4], [1e4, 0.0, -1e4], [-1e4, 1e4, 0.0]], device=device, requires_grad=True
    )
    target = torch.tensor([0, 1, 0], device=device)
    loss = FocalLoss(gamma=2.0, reduction="none")(logits, target)
    (grad,) = torch.autograd.grad(loss.sum(), logits)
    assert torch.isfinite(loss).all() and torch.isfinite(grad).all(), (
        f"loss {loss.tolist()} or its gradient is not finite for logits of ±1e4: compute "
        "log p_t with log_softmax, never log(softmax)"
    )
    assert_close(
        loss.double().cpu(),
        focal_by_hand(logits.detach(), target, 2.0),
        "huge logits: the focal loss from a stable log_softmax",
        rtol=1e-5,
        atol=1e-3,
    )


def focal_gradient_oracle(logits, target, gamma):
    """d(sum of focal losses) / d logits, by hand in float64: with s = log p_t and
    u = 1 - p_t = -expm1(s), dL/ds = -u^gamma + gamma * s * u^(gamma - 1) * p_t, whose limit
    where u is 0 is 0 (and -1 for gamma = 0); ds/dz = one_hot(target) - softmax(z)."""
    z = logits.detach().double().cpu()
    log_p = torch.log_softmax(z, dim=1)
    target = target.cpu()
    s = log_p.gather(1, target.unsqueeze(1)).squeeze(1)
    u = -torch.expm1(s)
    safe = torch.where(u > 0, u, 1.0)
    d_s = -(safe**gamma) + gamma * s * safe ** (gamma - 1) * s.exp()
    d_s = torch.where(u > 0, d_s, -1.0 if gamma == 0 else 0.0)
    one_hot = F.one_hot(target, z.shape[1]).double()
    return d_s.unsqueeze(1) * (one_hot - log_p.exp())


@pytest.mark.parametrize("gamma", [0.0, 0.25, 0.5, 0.9, 2.0])
def test_focal_loss_gradients_for_confident_correct_logits(device, gamma):
    # p_t rounds to 1 here, so 1 - p_t is 0, and the derivative of (1 - p_t)^gamma there is
    # infinite for gamma < 1: 0 * inf = nan. The true gradient is finite (about 0).
    logits = torch.tensor(
        [[30.0, 0.0, 0.0], [200.0, 0.0, -5.0], [2.0, 0.0, 0.0], [0.0, 120.0, 3.0]],
        device=device,
        requires_grad=True,
    )
    target = torch.tensor([0, 0, 0, 1], device=device)
    loss = FocalLoss(gamma=gamma, reduction="sum")(logits, target)
    (grad,) = torch.autograd.grad(loss, logits)
    assert torch.isfinite(grad).all(), (
        f"FocalLoss(gamma={gamma}) gives gradients {grad.tolist()} for confident correct "
        "logits: p_t rounds to 1, and (1 - p_t) ** gamma has an infinite derivative at 0 for "
        "gamma < 1 (0 * inf = nan); compute 1 - p_t as -torch.expm1(log_pt), and keep the "
        "power's derivative out of the backward pass where 1 - p_t is 0"
    )
    assert_close(
        grad.double().cpu(),
        focal_gradient_oracle(logits, target, gamma),
        f"FocalLoss(gamma={gamma}) gradients for confident correct logits",
        rtol=1e-4,
        atol=1e-6,
    )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("gamma", [0.25, 0.5, 1.0, 2.0])
def test_focal_loss_gradients_at_moderate_margins(device, dtype, gamma):
    # Margins of 4 to 12: p_t is close to 1 but 1 - p_t (6e-2 to 1e-5) is not 0, and the
    # power's derivative still counts. Compared relative to the gradients' small size where
    # the contract asks for accuracy (margins up to 10).
    skip_unless_supported(device, dtype)
    margins = torch.tensor([4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 12.0], dtype=dtype)
    logits = torch.stack([margins, torch.zeros_like(margins), -margins / 2], dim=1)
    logits = logits.to(device).requires_grad_()
    target = torch.zeros(len(margins), dtype=torch.int64, device=device)
    loss = FocalLoss(gamma=gamma, reduction="sum")(logits, target)
    (grad,) = torch.autograd.grad(loss, logits)
    # float32 computes 1 - p_t to within about 1e-7 / (1 - p_t) relative: 5e-3 at margin 10.
    # Beyond 10 the contract asks for finite gradients only: log p_t is then below 1e-4, and
    # its rounding in the dtype (the target's logit less a logsumexp, say) sets the accuracy.
    assert torch.isfinite(grad).all(), f"FocalLoss(gamma={gamma}) gradients {grad.tolist()}"
    up_to_10 = margins <= 10
    assert_close(
        grad.double().cpu()[up_to_10],
        focal_gradient_oracle(logits, target, gamma)[up_to_10],
        f"FocalLoss(gamma={gamma}) gradients at margins {margins[up_to_10].tolist()}: the "
        "weight (1 - p_t)^gamma and its derivative count wherever 1 - p_t is not 0",
        rtol=2e-2 if dtype == torch.float32 else 1e-9,
        atol=0,
    )


def test_focal_loss_on_odd_inputs(device):
    base = torch.randn(4, 3, device=device)
    logits = base.t()  # [3, 4], non-contiguous
    target = torch.tensor([3, 0, 1], device=device)
    loss = FocalLoss(gamma=1.5, reduction="none")(logits, target)
    assert_close(
        loss.double().cpu(),
        focal_by_hand(logits, target, 1.5),
        "a non-contiguous logits tensor must give the same loss",
        rtol=1e-5,
        atol=1e-6,
    )
    single = FocalLoss()(torch.tensor([[3.0]], device=device), torch.tensor([0], device=device))
    check_tensor(single, shape=(), dtype=torch.float32, device=device, name="the loss")
    assert single.item() == 0.0, "with one class p_t = 1 and the loss is 0"
    assert torch.equal(logits, base.t()), "logits must not be modified"


@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_focal_loss_has_no_python_loops(device, reduction):
    # Samples and classes grow with n: a loop over either (for, map, functools.reduce,
    # recursion, a helper) shows as more work for more data.
    assert_no_python_loops(
        FocalLoss(gamma=2.0, reduction=reduction),
        lambda n: classification_batch(device, n=n, c=n),
        over="samples and classes",
    )


# ---- HuberFunction ----------------------------------------------------------


@pytest.mark.parametrize("delta", [0.5, 1.0, 2.5])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
def test_huber_values(device, delta, dtype):
    skip_unless_supported(device, dtype)
    x = 3 * torch.randn(4, 5, device=device, dtype=dtype)
    y = torch.randn(4, 5, device=device, dtype=dtype)
    assert_no_torch_internals(HuberFunction, reason=HUBER_RULE)
    with forbidden_ops(*HUBER.ops, reason=HUBER_RULE, aten=HUBER_ATEN):
        loss = HuberFunction.apply(x, y, delta)
    check_tensor(loss, shape=(4, 5), dtype=dtype, device=device, name="the Huber loss")
    assert_close(loss, F.huber_loss(x, y, reduction="none", delta=delta))


@pytest.mark.parametrize("delta", [0.5, 1.0, 2.5])
def test_huber_backward_passes_gradcheck(device, delta):
    skip_unless_supported(device, torch.float64)
    y = torch.randn(2, 3, device=device, dtype=torch.float64, requires_grad=True)
    # Differences inside the band and beyond it on both sides, for every delta above.
    diff = torch.tensor([[-4.0, -1.7, -0.3], [0.2, 1.6, 3.5]], dtype=torch.float64, device=device)
    x = (y.detach() + diff).requires_grad_()
    HuberFunction.apply(x, y, delta)
    assert_gradcheck(
        lambda a, b: HuberFunction.apply(a, b, delta), (x, y), f"HuberFunction (delta={delta})"
    )


def test_huber_backward_clamps_by_its_own_forwards_delta(device):
    # Two losses made before either backward (two heads with their own delta): each
    # backward clamps by the delta its own forward saw, kept on ctx, not where the next
    # forward overwrites it.
    diff = torch.tensor([-4.0, -1.5, -0.3, 0.2, 1.6, 3.5], device=device)
    x = diff.clone().requires_grad_()
    target = torch.zeros(6, device=device)
    losses = {delta: HuberFunction.apply(x, target, delta) for delta in (0.5, 2.5)}
    for delta, loss in losses.items():
        (grad,) = torch.autograd.grad(loss.sum(), x)
        assert_close(
            grad,
            diff.clamp(-delta, delta),
            f"the loss made with delta={delta} (another forward ran since): its backward "
            "must clamp by its own delta; keep it on ctx",
        )


def test_huber_backward_by_formula(device):
    x = torch.tensor([-4.0, -1.0, -0.3, 0.0, 0.2, 0.9, 2.0, 7.0], device=device)
    x.requires_grad_()
    y = torch.zeros(8, device=device, requires_grad=True)
    upstream = torch.linspace(0.5, 2.0, 8, device=device)
    with forbidden_ops(*HUBER.ops, reason=HUBER_RULE, aten=HUBER_ATEN):
        loss = HuberFunction.apply(x, y, 1.0)
        with no_nested_backward():
            grad_x, grad_y = torch.autograd.grad(loss, (x, y), upstream)
    assert type(loss.grad_fn).__name__ == "HuberFunctionBackward", (
        f"the output's grad_fn is {type(loss.grad_fn).__name__}; HuberFunction must be a "
        "torch.autograd.Function whose own backward autograd calls"
    )
    slope = torch.tensor([-1.0, -1.0, -0.3, 0.0, 0.2, 0.9, 1.0, 1.0], device=device)
    assert_close(
        grad_x,
        slope * upstream,
        "dloss/dinput = clamp(d, -delta, delta) * grad_output",
    )
    assert_close(
        grad_y,
        -slope * upstream,
        "dloss/dtarget has the opposite sign of dloss/dinput",
    )


def test_huber_input_without_grad(device):
    x = torch.randn(5, device=device)
    y = torch.randn(5, device=device, requires_grad=True)
    loss = HuberFunction.apply(x, y, 1.0)
    loss.sum().backward()
    assert x.grad is None
    assert y.grad is not None, (
        "target requires grad and got none: return grad_target when ctx.needs_input_grad[1]"
    )
    assert_close(y.grad, -(x - y).detach().clamp(-1, 1), "dloss/dtarget = -clamp(d, -delta, delta)")


@pytest.mark.parametrize("changed", ["input", "target"])
def test_huber_backward_sees_the_values_forward_saw(device, changed):
    # ctx.save_for_backward raises if a saved tensor changes in place; a tensor kept as a
    # plain ctx attribute changes silently under backward.
    x = torch.tensor([0.5, 3.0], device=device, requires_grad=True)
    y = torch.zeros(2, device=device, requires_grad=True)
    loss = HuberFunction.apply(x, y, 1.0)
    with torch.no_grad():
        (x if changed == "input" else y).sub_(torch.tensor([0.5, 3.0], device=device))
    try:
        (grad,) = torch.autograd.grad(loss.sum(), x)
    except RuntimeError:
        return  # refusing is fine: the saved values are gone
    assert_close(
        grad,
        torch.tensor([0.5, 1.0], device=device),
        f"the caller changed {changed} in place after forward: backward must use the values "
        "forward saw (save them with ctx.save_for_backward, or save the difference), or raise",
    )


def test_huber_target_without_grad(device):
    x = torch.randn(5, device=device, requires_grad=True)
    y = torch.randn(5, device=device)
    loss = HuberFunction.apply(x, y, 1.0)
    loss.sum().backward()
    assert y.grad is None
    assert_close(x.grad, (x - y).detach().clamp(-1, 1))


def test_huber_on_empty_and_large_inputs(device):
    empty = HuberFunction.apply(
        torch.empty(0, 3, device=device), torch.empty(0, 3, device=device), 1.0
    )
    check_tensor(empty, shape=(0, 3), dtype=torch.float32, device=device, name="empty loss")
    x = torch.tensor([1e30, -1e30], device=device, requires_grad=True)
    loss = HuberFunction.apply(x, torch.zeros(2, device=device), 2.0)
    (grad,) = torch.autograd.grad(loss.sum(), x)
    assert torch.isfinite(loss).all(), "the linear branch must not square huge differences"
    assert_close(grad, torch.tensor([2.0, -2.0], device=device))


def test_huber_inside_the_band_near_the_top(device):
    # |d| just below delta, d² past float32's largest value, 0.5 d² not: the contract takes
    # +inf (0.5 * d**2 as written) or the finite value (F.huber_loss), nothing else.
    delta = math.sqrt(torch.finfo(torch.float32).max / 0.8)
    x = torch.tensor([0.95, -0.99, 0.5], dtype=torch.float64) * delta
    loss = HuberFunction.apply(x.float().to(device), torch.zeros(3, device=device), delta)
    check_tensor(loss, shape=(3,), dtype=torch.float32, device=device, name="loss")
    exact = F.huber_loss(x, torch.zeros(3, dtype=torch.float64), reduction="none", delta=delta)
    finite = exact.float()
    for got, want in zip(loss.cpu().tolist(), finite.tolist(), strict=True):
        assert got == math.inf or math.isclose(got, want, rel_tol=1e-6), (
            f"inside the band near the top, got {got}: expected 0.5 * d**2, {want} "
            "(or inf where d**2 overflows)"
        )
    assert math.isclose(loss[2].item(), finite[2].item(), rel_tol=1e-6), (
        "where d**2 does not overflow, the loss is 0.5 * d**2"
    )


# ---------------------------------------------------------------- facets


# Below 1, and no float32 value: a gamma rounded to float32 shows in float64.
GAMMA = 0.7


def confident(dtype, device, requires_grad=False):
    """Logits with a margin of 20 at the target: 1 - p_t is about 4e-9, which rounds to 0
    in float32 (and below), though not in float64."""
    logits = torch.tensor(
        [[20.0, 0.0, 0.0], [0.0, 2.0, -1.0], [1.0, 0.5, 3.0]], dtype=torch.float64
    )
    logits = logits.to(dtype=dtype, device=device).requires_grad_(requires_grad)
    return facets.args(FocalLoss(gamma=GAMMA), logits, torch.tensor([0, 1, 0], device=device))


def spread_out(dtype, device):
    """Logits ±1e4 apart, in every dtype (float16 included): the loss is far from 0 for
    the samples whose target is not the largest logit. Four times over: the losses add up
    past float16's 65504 where their mean (1e4) fits."""
    logits = torch.tensor(
        [[1e4, 0.0, -1e4], [0.0, 3.0, -1e4], [-1e4, 1e4, 0.0]], dtype=torch.float64
    ).repeat(4, 1)
    target = torch.tensor([0, 2, 2], device=device).repeat(4)
    return facets.args(FocalLoss(gamma=GAMMA), logits.to(dtype=dtype, device=device), target)


def focal64(module, logits, target):
    log_p = torch.log_softmax(logits, -1).gather(-1, target[:, None])[:, 0]
    return (-((-torch.expm1(log_p)) ** GAMMA) * log_p).mean()


def batch_of_shape(reduction):
    """Logits of the named shape [N, C] (an empty batch included) and their targets."""

    def make(shape, device):
        n, c = shape
        logits = torch.linspace(-4, 4, n * c, device=device).reshape(n, c)
        target = torch.arange(n, device=device) % c
        return facets.args(FocalLoss(gamma=1.5, reduction=reduction), logits, target)

    return make


def focal_reduced(reduction):
    """The oracle for a FocalLoss(gamma=1.5, reduction=reduction): the contract names no
    attribute that keeps the reduction, so the oracle is told it, not the module."""

    def oracle(module, logits, target):
        log_pt = torch.log_softmax(logits, -1).gather(-1, target[:, None])[:, 0]
        per_sample = -((-torch.expm1(log_pt)) ** 1.5) * log_pt
        return per_sample.sum() if reduction == "sum" else per_sample

    return oracle


def huber_inputs(dtype, device, shape=(2, 3)):
    count = torch.Size(shape).numel()
    x = torch.linspace(-3, 3, max(count, 1), dtype=torch.float64)[:count].reshape(shape)
    # delta is no float32 value: one rounded to float32 shows in float64.
    return facets.args(
        x.to(dtype=dtype, device=device), (x / 3).to(dtype=dtype, device=device), delta=1.3
    )


def near_the_top(dtype, device):
    """delta² = 1.25 × the dtype's largest value. Outside the band (|d| of 1.05 to 1.2
    delta) delta × |d| overflows, the loss delta × (|d| - delta / 2) does not; inside it,
    |d| stays below 0.85 delta, where d² does not overflow either."""
    delta = math.sqrt(torch.finfo(dtype).max / 0.8)
    x = torch.tensor([[0.5, -0.8, 1.1], [-1.2, 1.05, -0.3]], dtype=torch.float64) * delta
    return facets.args(
        x.to(dtype=dtype, device=device), torch.zeros(2, 3, dtype=dtype, device=device), delta
    )


def far_out(dtype, device):
    """|d| from 0.6 to 0.9 of the dtype's largest value with a delta below 1: the loss
    delta × (|d| - delta / 2) is finite there, though 2 × |d| (or |d| + anything of its size)
    overflows; the band's values stay small."""
    top = torch.finfo(dtype).max
    x = torch.tensor([[0.6 * top, -0.9 * top, 0.5], [-0.3, 0.75 * top, -2.0]], dtype=torch.float64)
    return facets.args(
        x.to(dtype=dtype, device=device), torch.zeros(2, 3, dtype=dtype, device=device), 0.75
    )


def huber64(x, target, delta):
    return F.huber_loss(x, target, reduction="none", delta=delta)


FACETS = facets.declare(
    facets.of(
        FocalLoss,
        # "Raises ValueError if gamma < 0": the contract names the bound alone.
        facets.Setting(lambda device: facets.args(gamma=2.0), "gamma", low=0, nan=False),
        facets.Registered(
            lambda device: facets.args(gamma=2.0),
            forward=lambda loss, device: loss(
                torch.tensor([[2.0, 0.0, -1.0], [0.0, 2.0, -1.0]], device=device),
                torch.tensor([0, 2], device=device),
            ),
        ),
        facets.Defaults(
            values={"gamma": 2.0, "reduction": "mean"},
            key=lambda arguments, loss: loss(
                torch.tensor([[2.0, 0.0, -1.0], [0.0, 2.0, -1.0]]), torch.tensor([0, 2])
            ),
        ),
    ),
    facets.of(
        FocalLoss,
        facets.Dtypes(confident, oracle=focal64, ulps=4),
        facets.Dtypes(spread_out, oracle=focal64, ulps=4, label="spread out"),
        facets.Gradients(
            confident,
            oracle=focal64,
            wrt=1,
        ),
        facets.Unmodified(lambda device: confident(torch.float32, device), module_grads=True),
        # An empty batch is a batch: "none" gives [0] losses, "sum" gives 0 (the "mean" of
        # none is left open); strided logits and targets too.
        *(
            facets.Shapes(
                batch_of_shape(reduction),
                oracle=focal_reduced(reduction),
                shapes=("empty", "2-D", "size 1", "non-contiguous"),
                label=reduction,
            )
            for reduction in ("none", "sum")
        ),
        name="FocalLoss.forward",
        call=lambda module, logits, target: module(logits, target),
    ),
    facets.of(
        HuberFunction,
        facets.Dtypes(huber_inputs, oracle=huber64, ulps=2),
        # float64 is the oracle's own dtype: it has no wider one to be exact in.
        facets.Dtypes(
            near_the_top,
            oracle=huber64,
            dtypes=(torch.float16, torch.bfloat16, torch.float32),
            ulps=2,
            label="near the top",
        ),
        facets.Dtypes(
            far_out,
            oracle=huber64,
            dtypes=(torch.float16, torch.bfloat16, torch.float32),
            ulps=2,
            label="far out",
        ),
        facets.Gradients(huber_inputs, oracle=huber64),
        facets.Shapes(
            lambda shape, device: huber_inputs(torch.float32, device, shape),
            oracle=huber64,
            shapes=("0-dim", "empty", "empty inside", "size 1", "non-contiguous"),
        ),
        # "delta <= 0" raises: the contract names the bound alone.
        facets.Setting(
            lambda device: huber_inputs(torch.float32, device).replace(),
            "delta",
            low=0,
            low_open=True,
            nan=False,
        ),
        facets.Unmodified(lambda device: huber_inputs(torch.float32, device)),
        facets.BadShapes(lambda device: huber_inputs(torch.float32, device), names=(0, 1)),
        call=lambda x, target, delta: HuberFunction.apply(x, target, delta),
    ),
)
test_facets = FACETS.test
