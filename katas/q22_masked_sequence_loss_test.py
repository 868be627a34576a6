import functools
import itertools

import pytest
import torch
import torch.nn.functional as F

from katas.q22_masked_sequence_loss import masked_cross_entropy, task_loss
from torch_katas import facets
from torch_katas.testing import assert_close, check_tensor, raises, skip_unless_supported


def prefix_mask(lengths, max_len, device):
    return (
        torch.tensor([[t < length for t in range(max_len)] for length in lengths], dtype=torch.bool)
        .reshape(len(lengths), max_len)
        .to(device)
    )


def classification_batch(mask, n_classes=5, dtype=torch.float32):
    """Logits and targets that are sensible at real tokens and hostile at padding: logits
    of ±the dtype's largest finite value (more of + than -, so their sum is inf) and
    targets that are no valid class (-1, or n_classes + 2)."""
    b, t = mask.shape
    logits = 2 * torch.randn(b, t, n_classes, dtype=dtype, device=mask.device)
    target = torch.randint(0, n_classes, (b, t), device=mask.device)
    garbage = torch.zeros(n_classes, dtype=dtype, device=mask.device)
    garbage[:] = torch.finfo(dtype).max
    garbage[0] = -torch.finfo(dtype).max
    logits[~mask] = garbage
    hostile = torch.where(torch.arange(t, device=mask.device) % 2 == 0, -1, n_classes + 2)
    target = torch.where(mask, target, hostile)
    return logits, target


def oracle_cross_entropy(logits, target, mask):
    losses = [
        F.cross_entropy(logits[b, t].unsqueeze(0), target[b, t].unsqueeze(0))
        for b in range(mask.shape[0])
        for t in range(mask.shape[1])
        if mask[b, t]
    ]
    return torch.stack(losses).mean() if losses else logits.sum() * 0


def loss_and_grad(loss_fn, inputs, target, mask):
    """loss_fn's loss and its gradient with respect to inputs (a fresh leaf copy)."""
    inputs = inputs.detach().clone().requires_grad_()
    loss = loss_fn(inputs, target, mask)
    (grad,) = torch.autograd.grad(loss, inputs)
    return loss, grad


def oracle_loss_and_grad(oracle, inputs, target, mask):
    cpu = [tensor.detach().cpu() for tensor in (inputs, target, mask)]
    return loss_and_grad(oracle, *cpu)


# --- task_loss --------------------------------------------------------------------------

# The torch builtin that is each task's loss (the oracle).
BUILTIN = {
    "regression": F.mse_loss,
    "regression_with_outliers": F.huber_loss,  # delta=1 by default
    "multiclass": F.cross_entropy,
    "multilabel": F.binary_cross_entropy_with_logits,
}


def regression_pair(shape, device, dtype=torch.float32):
    """Errors of every size: below 1, around 1, and outliers of about 20."""
    output = torch.randn(shape, dtype=torch.float64)
    target = output + torch.linspace(-3, 3, output.numel(), dtype=torch.float64).reshape(shape)
    target.view(-1)[::3] += 20
    return output.to(device, dtype), target.to(device, dtype)


def multiclass_pair(shape, device, dtype=torch.float32):
    """Logits [N, C, *d] and int64 targets [N, *d]."""
    output = 3 * torch.randn(shape, dtype=torch.float64)
    target = torch.randint(0, shape[1], (shape[0], *shape[2:]))
    return output.to(device, dtype), target.to(device)


def multilabel_pair(shape, device, dtype=torch.float32):
    """Logits and 0/1 float targets of the same shape, several labels on per sample."""
    output = 3 * torch.randn(shape, dtype=torch.float64)
    target = (torch.rand(shape) < 0.4).to(torch.float64)
    return output.to(device, dtype), target.to(device, dtype)


PAIRS = {
    "regression": regression_pair,
    "regression_with_outliers": regression_pair,
    "multiclass": multiclass_pair,
    "multilabel": multilabel_pair,
}


def check_task_loss(task, output, target, message):
    """task_loss's loss and gradient against the builtin's, computed on the CPU."""
    leaf = output.detach().clone().requires_grad_()
    loss = task_loss(task, leaf, target)
    check_tensor(loss, shape=(), dtype=output.dtype, device=output.device, name="the loss")
    (grad,) = torch.autograd.grad(loss, leaf)
    cpu = output.detach().cpu().requires_grad_()
    expected = BUILTIN[task](cpu, target.cpu())
    (expected_grad,) = torch.autograd.grad(expected, cpu)
    assert torch.isfinite(loss), f"the {task} loss is {loss.item()}, the builtin's {expected}"
    assert_close(loss.cpu(), expected, message)
    assert_close(grad.cpu(), expected_grad, f"{message} (the gradient differs)")


@pytest.mark.parametrize("shape", [(8,), (4, 3), (2, 3, 4)], ids=str)
def test_regression_is_the_mean_squared_error(device, shape):
    output, target = regression_pair(shape, device)
    check_task_loss(
        "regression",
        output,
        target,
        "regression's loss is the mean squared error, F.mse_loss (not L1, not Huber)",
    )


@pytest.mark.parametrize("shape", [(8,), (4, 3), (2, 3, 4)], ids=str)
def test_regression_with_outliers_is_the_huber_loss(device, shape):
    output, target = regression_pair(shape, device)
    check_task_loss(
        "regression_with_outliers",
        output,
        target,
        "with outliers the loss is Huber's with delta 1 (F.huber_loss): squared below an "
        "error of 1, linear beyond; MSE lets the outliers dominate, L1 is linear everywhere",
    )


def test_huber_loss_by_hand(device):
    # error 0.5: 0.5**2 / 2 = 0.125; error 10: 10 - 0.5 = 9.5; mean 4.8125
    loss = task_loss(
        "regression_with_outliers",
        torch.zeros(2, device=device),
        torch.tensor([0.5, 10.0], device=device),
    )
    assert loss.item() == pytest.approx(4.8125), (
        f"errors 0.5 and 10 cost 0.125 and 9.5 under Huber (delta 1), mean 4.8125; got "
        f"{loss.item()} (MSE gives 50.125, L1 5.25)"
    )


@pytest.mark.parametrize(
    "shape",
    [(6, 4), (3, 5, 7), (2, 4, 4), (2, 3, 4, 5), (5, 1)],
    ids=["[N, C]", "[B, C, T]", "[B, C, T] with C = T", "[N, C, H, W]", "one class"],
)
def test_multiclass_is_cross_entropy_over_dim_1(device, shape):
    output, target = multiclass_pair(shape, device)
    check_task_loss(
        "multiclass",
        output,
        target,
        "multiclass's loss is F.cross_entropy of the raw logits (no softmax first), with the "
        "classes in dim 1 and int64 class indices as targets",
    )


def test_multiclass_takes_raw_logits(device):
    # log_softmax([4, 0, 0])[0] = -log(1 + 2 exp(-4)), for both samples
    output = torch.tensor([[4.0, 0.0, 0.0], [0.0, 4.0, 0.0]], device=device)
    loss = task_loss("multiclass", output, torch.tensor([0, 1], device=device))
    expected = torch.tensor(1 + 2 * torch.e**-4.0).log()
    assert_close(
        loss.cpu(),
        expected,
        "logits [4, 0, 0] of the right class cost log(1 + 2 exp(-4)) = 0.036; a softmax "
        "before F.cross_entropy applies it twice (and gives 0.59)",
    )


def test_multiclass_sequence_logits_have_the_classes_in_dim_1(device):
    # [B=1, C=2, T=3]: at every position class 0 has logit 5 and class 1 logit 0.
    output = torch.tensor([[[5.0, 5.0, 5.0], [0.0, 0.0, 0.0]]], device=device)
    loss = task_loss("multiclass", output, torch.zeros(1, 3, dtype=torch.long, device=device))
    expected = torch.tensor(1 + torch.e**-5.0).log()
    assert_close(
        loss.cpu(),
        expected,
        "sequence logits [B, C, T] have the classes in dim 1, as F.cross_entropy wants them; "
        "reshaping them to [B*T, C] (or moving the last dim to dim 1) mixes time and classes",
    )


@pytest.mark.parametrize("shape", [(6, 4), (5,), (2, 3, 4), (3, 1)], ids=str)
def test_multilabel_is_binary_cross_entropy_with_logits(device, shape):
    output, target = multilabel_pair(shape, device)
    check_task_loss(
        "multilabel",
        output,
        target,
        "multilabel's loss is F.binary_cross_entropy_with_logits: one sigmoid per label, "
        "not a softmax over the labels (they do not compete)",
    )


def test_multilabel_is_exact_at_large_logits(device):
    # Wrong by a logit of x costs |x|, right costs almost 0: mean (30 + 1e4 + 0 + 0 + 3e4 +
    # 2e4) / 6, past any clamp to ±1e4.
    output = torch.tensor([[30.0, -1e4, 1e4, -30.0, 3e4, -2e4]], device=device)
    target = torch.tensor([[0.0, 1.0, 1.0, 0.0, 0.0, 1.0]], device=device)
    check_task_loss(
        "multilabel",
        output,
        target,
        "a logit of 1e4 on the wrong side costs 1e4: sigmoid then F.binary_cross_entropy "
        "rounds sigmoid to 0 or 1, clamps the log at -100 and loses the gradient; use "
        "F.binary_cross_entropy_with_logits",
    )


def test_multiclass_is_exact_at_large_logits(device):
    output = torch.tensor([[1e4, 0.0, -1e4], [0.0, 50.0, 0.0]], device=device)
    check_task_loss(
        "multiclass",
        output,
        torch.tensor([2, 1], device=device),
        "a class logit 2e4 below the best costs 2e4: log(softmax(x)) underflows to -inf; "
        "F.cross_entropy works from the logits",
    )


def near_names(task):
    """Names a prefix, case-folding or stripping match would take for `task`."""
    return [task + "_l1", task + "s", task[:-1], task.upper(), task.title(), f" {task}", f"{task} "]


@pytest.mark.parametrize(
    "tasks",
    [["classification", "mse", "cross_entropy", "", "huber", "bce"]]
    + [near_names(task) for task in BUILTIN],
    ids=["unrelated", *(f"near {task}" for task in BUILTIN)],
)
def test_rejects_an_unknown_task(device, tasks):
    output, target = regression_pair((4,), device)
    for task in tasks:
        with raises(ValueError):
            task_loss(task, output, target)
            pytest.fail(
                f"task {task!r} is none of the four and should raise ValueError (compare the "
                "whole name, exactly: no prefix, no case folding, no stripping)"
            )


@pytest.mark.parametrize(
    "task, output_shape, target_shape, target_dtype",
    [
        ("regression", (4, 1), (4,), torch.float32),
        ("regression", (4,), (4, 1), torch.float32),
        ("regression", (4,), (4,), torch.float64),
        ("regression", (4, 3), (4,), torch.int64),
        ("regression_with_outliers", (4, 1), (4,), torch.float32),
        ("regression_with_outliers", (4,), (4,), torch.int64),
        ("multiclass", (4, 3), (4, 3), torch.float32),
        ("multiclass", (4, 3), (4,), torch.float32),
        ("multiclass", (4, 3), (4,), torch.int32),
        ("multiclass", (4, 3), (4,), torch.uint8),
        ("multiclass", (4, 3), (4, 1), torch.int64),
        ("multiclass", (2, 5, 3), (2, 5), torch.int64),
        ("multiclass", (2, 3, 5), (2, 3), torch.int64),
        ("multiclass", (3,), (), torch.int64),
        ("multiclass", (3,), (3,), torch.int64),
        ("multiclass", (), (), torch.int64),
        ("multilabel", (4, 3), (4,), torch.int64),
        ("multilabel", (4, 3), (4, 3), torch.int64),
        ("multilabel", (4, 3), (4, 3), torch.bool),
        ("multilabel", (4, 3), (4, 3), torch.float64),
        ("multilabel", (4, 3), (4, 4), torch.float32),
        ("multilabel", (4, 1), (4,), torch.float32),
    ],
    ids=[
        "regression [N, 1] against [N]",
        "regression [N] against [N, 1]",
        "regression float64 target",
        "regression class indices",
        "outliers [N, 1] against [N]",
        "outliers integer target",
        "multiclass one-hot float target",
        "multiclass float indices",
        "multiclass int32 indices",
        "multiclass uint8 indices",
        "multiclass target [N, 1]",
        "multiclass classes last [B, T, C]",
        "multiclass target [B, C]",
        "multiclass 1-D logits",
        "multiclass 1-D logits, target [N]",
        "multiclass 0-dim logits",
        "multilabel class indices",
        "multilabel int64 0/1",
        "multilabel bool",
        "multilabel float64 target",
        "multilabel target shape",
        "multilabel [N, 1] against [N]",
    ],
)
def test_rejects_a_target_that_does_not_fit_the_task(
    device, task, output_shape, target_shape, target_dtype
):
    output = torch.randn(output_shape, device=device)
    target = torch.zeros(target_shape, dtype=target_dtype, device=device)
    with raises(ValueError):
        task_loss(task, output, target)
        pytest.fail(
            f"{task} with output {output_shape} and a {target_dtype} target {target_shape} "
            "should raise ValueError: the target does not fit the task (see the contract)"
        )


# Every dtype a tensor may have here: the floating ones, the integer ones, bool and complex.
ALL_DTYPES = (*facets.FLOATING, *facets.INTEGER, torch.bool, torch.complex64)


def zeros_of(shape, dtype, device):
    skip_unless_supported(device, dtype)
    return torch.zeros(shape, dtype=dtype, device=device)


@pytest.mark.parametrize("task", list(BUILTIN))
def test_rejects_an_output_that_is_not_floating(device, task):
    # The target fits in every other way: int64 indices [N] for multiclass, else output's
    # shape and dtype.
    for dtype in ALL_DTYPES:
        if dtype.is_floating_point:
            continue
        output = zeros_of((4, 3), dtype, device)
        target = zeros_of(4, torch.int64, device) if task == "multiclass" else output.clone()
        with raises(ValueError):
            task_loss(task, output, target)
            pytest.fail(f"{task}: a {dtype} output is no prediction or logits; raise ValueError")


@pytest.mark.parametrize("task", list(BUILTIN))
def test_rejects_a_target_of_any_other_dtype(device, task):
    for output_dtype, dtype in itertools.product((torch.float32, torch.float16), ALL_DTYPES):
        output = zeros_of((4, 3), output_dtype, device)
        expected = torch.int64 if task == "multiclass" else output_dtype
        if dtype == expected:
            continue
        target = zeros_of(4 if task == "multiclass" else (4, 3), dtype, device)
        with raises(ValueError):
            task_loss(task, output, target)
            pytest.fail(
                f"{task}: a {dtype} target against a {output_dtype} output should raise "
                f"ValueError: the target's dtype must be exactly {expected} (check equality, "
                "not is_floating_point)"
            )


# (output's shape, target shapes that are not the task's shape: some broadcast against it,
# some hold as many elements in another layout, such as [T, B] for [B, T])
BROADCASTING = {
    "element-wise": [
        ((4, 3), [(3,), (1,), (), (1, 3), (4, 1), (1, 1), (1, 4, 3), (3, 4), (12,), (2, 6)]),
        ((4, 1), [(4,), (1, 4)]),
        ((4,), [(4, 1), (1,), ()]),
    ],
    "multiclass": [
        ((4, 3), [(1,), (), (4, 1), (1, 4), (2, 2)]),
        ((2, 3, 5), [(1, 5), (5,), (2, 1), (5, 2), (10,)]),
        ((2, 3, 4, 5), [(2, 5, 4), (4, 2, 5)]),
    ],
}


@pytest.mark.parametrize("task", list(BUILTIN))
def test_rejects_a_target_that_only_broadcasts(device, task):
    kind = "multiclass" if task == "multiclass" else "element-wise"
    dtype = torch.int64 if task == "multiclass" else torch.float32
    for output_shape, target_shapes in BROADCASTING[kind]:
        output = torch.zeros(output_shape, device=device)
        for target_shape in target_shapes:
            target = torch.zeros(target_shape, dtype=dtype, device=device)
            with raises(ValueError):
                task_loss(task, output, target)
                pytest.fail(
                    f"{task}: a target {target_shape} against an output {output_shape} "
                    "should raise ValueError: the shapes must be equal (for multiclass, "
                    "output's without dim 1), not merely broadcastable or of the same size"
                )


@pytest.mark.parametrize("shape", [(), (1,), (2, 3, 4)], ids=["0-dim", "one element", "3-D"])
@pytest.mark.parametrize("task", ["regression", "regression_with_outliers", "multilabel"])
def test_elementwise_losses_take_an_output_of_any_shape(device, task, shape):
    output, target = PAIRS[task](shape, device)
    check_task_loss(task, output, target, f"{task} of an output of shape {shape} (any shape)")


@pytest.mark.parametrize("task", list(BUILTIN))
def test_empty_output_gives_the_builtins_nan(device, task):
    output, target = PAIRS[task]((0, 3), device)
    output.requires_grad_()
    loss = task_loss(task, output, target)
    check_tensor(loss, shape=(), dtype=torch.float32, device=device, name="the loss")
    assert loss.isnan(), (
        f"{task} of an empty output is the mean of no elements: nan, as {BUILTIN[task].__name__} "
        f"gives it; got {loss.item()}"
    )
    assert loss.requires_grad, f"{task} of an empty output is still differentiable in output"
    loss.backward()
    assert output.grad is not None and output.grad.shape == output.shape


@pytest.mark.parametrize("task", list(BUILTIN))
def test_takes_expanded_and_transposed_inputs(device, task):
    # Views the caller may pass: a target expanded from one row (it cannot be written in
    # place) and a transposed output.
    output, target = PAIRS[task]((3, 4), device)
    output = output.t().contiguous().t()
    target = target[:1].expand(target.shape)
    check_task_loss(task, output, target, f"{task} of expanded or transposed inputs")


# --- masked_cross_entropy ---------------------------------------------------------------


@pytest.mark.parametrize(
    "lengths, max_len, n_classes",
    [([5, 2, 3], 6, 5), ([3, 4], 4, 4), ([1], 1, 3), ([2, 1], 3, 1)],
    ids=["uneven", "T equals C", "one token", "one class"],
)
def test_cross_entropy_averages_over_real_tokens(device, lengths, max_len, n_classes):
    mask = prefix_mask(lengths, max_len, device)
    logits, target = classification_batch(mask, n_classes)
    loss, grad = loss_and_grad(masked_cross_entropy, logits, target, mask)
    check_tensor(loss, shape=(), dtype=torch.float32, device=device, name="the loss")
    expected, expected_grad = oracle_loss_and_grad(oracle_cross_entropy, logits, target, mask)
    assert torch.isfinite(loss), (
        f"the loss is {loss.item()}: padding leaked in; select the real tokens "
        "(logits[mask], target[mask]) instead of multiplying per-token losses by the mask"
    )
    assert_close(
        loss.cpu(),
        expected,
        "the loss is not the mean cross-entropy over real tokens (classes are the last "
        "dim of logits; each token counts once)",
    )
    assert_close(grad.cpu(), expected_grad, "the gradient differs from the per-token oracle's")


def test_cross_entropy_with_holes_in_the_mask(device):
    mask = torch.rand(3, 8, device=device) < 0.5
    logits, target = classification_batch(mask, 4)
    loss, grad = loss_and_grad(masked_cross_entropy, logits, target, mask)
    expected, expected_grad = oracle_loss_and_grad(oracle_cross_entropy, logits, target, mask)
    assert_close(loss.cpu(), expected, "the loss differs from the mean over the real tokens")
    assert_close(grad.cpu(), expected_grad, "the gradient differs from the per-token oracle's")


def test_cross_entropy_gradient_is_zero_at_padding(device):
    mask = prefix_mask([4, 1, 3], 5, device)
    logits, target = classification_batch(mask, 4)
    _, grad = loss_and_grad(masked_cross_entropy, logits, target, mask)
    padded = grad[~mask]
    assert torch.equal(padded, torch.zeros_like(padded)), (
        "the gradient at padded positions must be exactly 0 (and not nan)"
    )


def test_cross_entropy_does_not_depend_on_padding_length(device):
    mask = prefix_mask([4, 1, 3], 4, device)
    logits, target = classification_batch(mask, 5)
    short = masked_cross_entropy(logits, target, mask)
    long_mask = torch.cat([mask, torch.zeros(3, 6, dtype=torch.bool, device=device)], dim=1)
    long_logits, long_target = classification_batch(long_mask, 5)
    long_logits[:, :4], long_target[:, :4] = logits, target
    long = masked_cross_entropy(long_logits, long_target, long_mask)
    assert_close(long, short, "padding the same batch longer changed the loss")


@pytest.mark.parametrize("dtype", facets.FLOATING, ids=str)
def test_cross_entropy_without_real_tokens_is_zero(device, dtype):
    skip_unless_supported(device, dtype)
    for shape in [(2, 3), (0, 4), (3, 0)]:
        mask = torch.zeros(shape, dtype=torch.bool, device=device)
        logits, target = classification_batch(mask, 3, dtype)
        loss, grad = loss_and_grad(masked_cross_entropy, logits, target, mask)
        check_tensor(loss, shape=(), dtype=dtype, device=device, name=f"the loss of a {shape} mask")
        assert loss.item() == 0.0, (
            f"with no real token ({shape}) the loss must be 0, got {loss.item()}; guard the "
            "division (e.g. count.clamp(min=1))"
        )
        assert torch.equal(grad, torch.zeros_like(grad)), "with no real token the gradient is 0"


def test_cross_entropy_keeps_float64(device):
    skip_unless_supported(device, torch.float64)
    mask = prefix_mask([3, 2], 4, device)
    logits, target = classification_batch(mask, 3, dtype=torch.float64)
    loss = masked_cross_entropy(logits, target, mask)
    check_tensor(loss, shape=(), dtype=torch.float64, device=device, name="the loss")
    expected = oracle_cross_entropy(logits.cpu(), target.cpu(), mask.cpu())
    assert_close(loss.cpu(), expected, "the loss differs from the mean over the real tokens")


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_cross_entropy_in_half_precision_does_not_overflow_where_the_mean_does_not(device, dtype):
    # 900 real tokens that each cost 100 (logits [100, 0], target 1): their sum is inf in
    # float16 (max 65504); the mean is 100.
    mask = torch.ones(2, 500, dtype=torch.bool, device=device)
    mask[1, 400:] = False
    logits = torch.zeros(2, 500, 2, device=device)
    logits[..., 0] = 100.0
    logits = logits.to(dtype).requires_grad_()
    target = torch.ones(2, 500, dtype=torch.int64, device=device)
    loss = masked_cross_entropy(logits, target, mask)
    check_tensor(loss, shape=(), dtype=dtype, device=device, name="the loss")
    assert_close(
        loss.float().cpu(),
        torch.tensor(100.0),
        f"a {dtype} loss of 900 tokens that cost 100 each must be 100: their sum overflows "
        "where the mean would not; accumulate in float32 and convert back, or average",
        rtol=1e-2,
        atol=0.0,
    )


def test_cross_entropy_non_contiguous_inputs(device):
    mask = prefix_mask([5, 2, 4], 6, device)
    logits, target = classification_batch(mask, 4)
    logits_t = logits.permute(2, 0, 1).contiguous().permute(1, 2, 0)
    target_t = target.t().contiguous().t()
    loss = masked_cross_entropy(logits_t, target_t, mask)
    assert not logits_t.is_contiguous() and not target_t.is_contiguous()
    expected = oracle_cross_entropy(logits.cpu(), target.cpu(), mask.cpu())
    assert_close(loss.cpu(), expected, "the loss differs from the mean over the real tokens")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=str)
def test_cross_entropy_does_not_modify_its_inputs(device, dtype):
    mask = prefix_mask([3, 1], 4, device)
    logits, target = classification_batch(mask, 3, dtype)
    before = [t.clone() for t in (logits, target, mask)]
    masked_cross_entropy(logits, target, mask)
    for name, tensor, old in zip(
        ("logits", "target", "mask"), (logits, target, mask), before, strict=True
    ):
        assert torch.equal(tensor, old), (
            f"{name} must not be modified (padded targets too: fill a copy, not the input)"
        )


@pytest.mark.parametrize(
    "logits_shape, target_shape, target_dtype, mask_shape, mask_dtype",
    [
        ((6, 4), (6,), torch.int64, (6,), torch.bool),
        ((2, 3), (2, 3), torch.int64, (2, 3), torch.bool),
        ((2, 3, 4, 5), (2, 3), torch.int64, (2, 3), torch.bool),
        ((2, 3, 4), (2, 4), torch.int64, (2, 3), torch.bool),
        ((2, 3, 4), (2, 3), torch.float32, (2, 3), torch.bool),
        ((2, 3, 4), (2, 3), torch.int32, (2, 3), torch.bool),
        ((2, 3, 4), (2, 3), torch.uint8, (2, 3), torch.bool),
        ((2, 3, 4), (2, 3), torch.int64, (2, 3), torch.int64),
        ((2, 3, 4), (2, 3), torch.int64, (2, 4), torch.bool),
    ],
    ids=[
        "2-D logits",
        "2-D logits, [B, T] target",
        "4-D logits",
        "target shape",
        "float target",
        "int32 target",
        "uint8 target",
        "int mask",
        "mask shape",
    ],
)
def test_cross_entropy_rejects_mismatched_arguments(
    device, logits_shape, target_shape, target_dtype, mask_shape, mask_dtype
):
    logits = torch.randn(logits_shape, device=device)
    target = torch.zeros(target_shape, dtype=target_dtype, device=device)
    mask = torch.ones(mask_shape, dtype=mask_dtype, device=device)
    with raises(ValueError):
        masked_cross_entropy(logits, target, mask)


@pytest.mark.parametrize("name", ["target", "mask"])
def test_cross_entropy_rejects_a_target_or_mask_of_any_other_dtype(device, name):
    logits = torch.zeros(2, 3, 4, device=device)
    expected = {"target": torch.int64, "mask": torch.bool}
    for dtype in ALL_DTYPES:
        if dtype == expected[name]:
            continue
        given = {key: zeros_of((2, 3), value, device) for key, value in expected.items()}
        given[name] = zeros_of((2, 3), dtype, device)
        with raises(ValueError):
            masked_cross_entropy(logits, given["target"], given["mask"])
            pytest.fail(
                f"a {dtype} {name} should raise ValueError: target must be exactly int64 "
                "and mask exactly bool"
            )


def test_cross_entropy_rejects_a_target_or_mask_that_only_broadcasts(device):
    logits = torch.zeros(2, 3, 4, device=device)
    good = {"target": torch.zeros(2, 3, dtype=torch.int64, device=device)}
    good["mask"] = torch.ones(2, 3, dtype=torch.bool, device=device)
    for name in good:
        # Shapes that broadcast to [2, 3], and ones of 6 elements in another layout ([T, B]).
        for shape in [(2, 1), (1, 3), (3,), (1,), (), (1, 1), (1, 2, 3), (2, 3, 1), (3, 2), (6,)]:
            given = dict(good)
            given[name] = torch.zeros(shape, dtype=good[name].dtype, device=device)
            with raises(ValueError):
                masked_cross_entropy(logits, given["target"], given["mask"])
                pytest.fail(
                    f"a {name} {shape} with logits [2, 3, 4] should raise ValueError: its "
                    "shape must be exactly [B, T], not one that broadcasts to it or holds as "
                    "many elements"
                )


# More real tokens than float16's largest finite value (65504): neither their count nor the
# sum of their losses may be kept in float16.
MANY_TOKENS = 35_000


@functools.cache
def many_tokens(length, confident):
    """float64 logits [2, length, 2], targets and mask on the CPU, built once. The logits
    run from -3 to 3, or (confident) give the target a margin of 8 to 9 over the other
    class: each token costs about 2e-4, and its share of the mean, 3e-9, is below float16's
    smallest, so it must not be taken before the sum."""
    mask = torch.arange(length) < torch.tensor([[length - 3], [length - 7]])
    grid = torch.linspace(-3, 3, 4 * length, dtype=torch.float64).reshape(2, length, 2)
    target = torch.arange(2 * length).reshape(2, length) % 2
    if confident:
        margin = 8 + (grid[..., :1] + 3) / 6
        grid = torch.zeros_like(grid).scatter_(-1, target.unsqueeze(-1), margin)
    return grid, target, mask


def long_batch(dtype, device, length=MANY_TOKENS, confident=False):
    """Real tokens enough that a float16 sum of their losses, and their count, overflow."""
    logits, target, mask = many_tokens(length, confident)
    # Copies: the function under test must not reach the cached tensors.
    return facets.args(
        logits.to(device, dtype, copy=True),
        target.to(device, copy=True),
        mask.to(device, copy=True),
    )


def confident_batch(dtype, device):
    return long_batch(dtype, device, confident=True)


def edge_batch(dtype, device):
    """Real tokens with logits of exactly 0 and of ±1e4 (exp overflows even float64), padded
    tokens with the hostile logits and targets of classification_batch."""
    mask = prefix_mask([4, 2, 3], 4, device)
    logits, target = classification_batch(mask, 3, dtype)
    logits[0, :2] = 0.0
    logits[0, 2:] = torch.tensor([1e4, 0.0, -1e4], dtype=dtype)
    logits[1, 0] = torch.tensor([-1e4, 1e4, 1e4], dtype=dtype)
    target[0, 2:] = torch.tensor([0, 2])
    return facets.args(logits, target, mask)


def cross_entropy64(logits, target, mask):
    return F.cross_entropy(logits[mask], target[mask], reduction="sum") / mask.sum().clamp(min=1)


# ---------------------------------------------------------------- facets


def task_args(task, shape):
    def make(dtype, device):
        return facets.args(task, *PAIRS[task](shape, device, dtype))

    return make


def builtin64(task, output, target):
    return BUILTIN[task](output, target)


def edge_args(task):
    """Inputs at exactly 0 (a kink of abs and clamp) and at large values: errors of 4e4 (their
    square and its gradient's 2 * error overflow float16) and logits of ±1e4 and ±3e4 (past
    a clamp to ±1e4)."""

    def make(dtype, device):
        if task in ("regression", "regression_with_outliers"):
            output = torch.tensor([0.0, 0.0, 0.5, -3.0, 0.0, 1.0, 2.0, -4e4])
            target = torch.tensor([0.0, 4e4, 0.0, -3.0, -4e4, 0.0, 1.0, 0.0])
        elif task == "multiclass":
            output = torch.tensor([[0.0, 0.0, 0.0], [1e4, 0.0, -3e4], [0.0, 3e4, 0.0]])
            target = torch.tensor([1, 2, 1])
        else:
            output = torch.tensor([[0.0, 0.0, 3e4, -1e4], [0.0, -3e4, 3.0, 0.0]])
            target = torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 1.0, 1.0]])
        if target.is_floating_point():
            target = target.to(dtype)
        return facets.args(task, output.to(device, dtype), target.to(device))

    return make


FACETS = facets.declare(
    facets.of(
        task_loss,
        *(
            facets.Dtypes(task_args(task, shape), oracle=builtin64, ulps=4, label=task)
            for task, shape in [
                ("regression", (4, 3)),
                ("regression_with_outliers", (4, 3)),
                ("multiclass", (3, 4, 5)),
                ("multilabel", (4, 3)),
            ]
        ),
        *(
            facets.Gradients(edge_args(task), builtin64, wrt=1, label=f"{task} edges")
            for task in BUILTIN
        ),
        *(
            facets.Unmodified(
                lambda device, task=task: task_args(task, (3, 4))(torch.float32, device), label=task
            )
            for task in BUILTIN
        ),
        # The same at the edges: a clamp written into the caller's logits through .data
        # (no version bump) changes values only past it.
        *(
            facets.Unmodified(
                lambda device, task=task: edge_args(task)(torch.float32, device),
                label=f"{task} edges",
            )
            for task in BUILTIN
        ),
        *(
            facets.BadShapes(
                lambda device, task=task: task_args(task, (3, 4, 5))(torch.float32, device),
                names=(2,),
                label=task,
            )
            for task in BUILTIN
        ),
        # An empty output: nan, the builtin's mean of no elements (a differentiable nan).
        facets.Edges(
            {
                f"an empty output ({task})": lambda device, task=task: task_args(task, (0, 3))(
                    torch.float32, device
                )
                for task in ("regression", "multilabel")
            },
            oracle=builtin64,
            wrt=1,
        ),
    ),
    facets.of(
        masked_cross_entropy,
        facets.Dtypes(long_batch, oracle=cross_entropy64, ulps=4),
        facets.Dtypes(confident_batch, oracle=cross_entropy64, ulps=4, label="small losses"),
        facets.Dtypes(edge_batch, oracle=cross_entropy64, ulps=4, label="edges"),
        facets.Gradients(edge_batch, cross_entropy64, label="edges"),
        facets.Unmodified(lambda device: long_batch(torch.float32, device, length=5)),
        facets.BadShapes(lambda device: long_batch(torch.float32, device, length=8), names=(1, 2)),
        facets.BadShapes(
            lambda device: long_batch(torch.float32, device, length=8),
            names=(0,),
            dims=(),
            label="3-D",
        ),
        # No real token (padding of any finite size), no sample, no time step: 0, and no gradient.
        facets.Edges(
            {
                "no real token": lambda device: facets.args(
                    torch.tensor([[[3e38, 3e38], [1.0, -2.0]]], device=device),
                    torch.tensor([[-1, 7]], device=device),
                    torch.zeros(1, 2, dtype=torch.bool, device=device),
                ),
                "an empty batch (B = 0)": lambda device: facets.args(
                    torch.zeros(0, 3, 4, device=device),
                    torch.zeros(0, 3, dtype=torch.int64, device=device),
                    torch.zeros(0, 3, dtype=torch.bool, device=device),
                ),
            },
            oracle=cross_entropy64,
            wrt=0,
        ),
    ),
)
test_facets = FACETS.test
