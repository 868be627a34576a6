import pytest
import torch
import torch.nn.functional as F

from katas.q22_masked_sequence_loss import length_mask, masked_cross_entropy, masked_mse
from torch_katas import facets
from torch_katas.testing import assert_close, check_tensor, raises, skip_unless_supported

HUGE = torch.finfo(torch.float32).max  # finite, but its square, or a sum of two, is inf


def prefix_mask(lengths, max_len, device):
    return (
        torch.tensor([[t < length for t in range(max_len)] for length in lengths], dtype=torch.bool)
        .reshape(len(lengths), max_len)
        .to(device)
    )


def regression_batch(mask, features=(3,), dtype=torch.float32):
    """pred and target with normal values at real tokens and at padding the dtype's largest
    finite values, whose sum is inf (so is any sum that takes in two padded values)."""
    shape = (*mask.shape, *features)
    pred = torch.randn(shape, dtype=dtype, device=mask.device)
    target = torch.randn(shape, dtype=dtype, device=mask.device)
    pred[~mask] = torch.finfo(dtype).max
    target[~mask] = -torch.finfo(dtype).max
    return pred, target


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


def oracle_mse(pred, target, mask):
    """Per-token mean squared error averaged over the real tokens, one token at a time."""
    losses = [
        ((pred[b, t] - target[b, t]) ** 2).mean()
        for b in range(mask.shape[0])
        for t in range(mask.shape[1])
        if mask[b, t]
    ]
    return torch.stack(losses).mean() if losses else pred.sum() * 0


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


# --- length_mask ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "lengths, max_len",
    [([3, 1, 0, 5], 5), ([1], 1), ([0, 0], 0), ([], 3), ([2, 4], 7)],
    ids=str,
)
def test_length_mask_marks_the_first_length_positions(device, lengths, max_len):
    mask = length_mask(torch.tensor(lengths, dtype=torch.int64, device=device), max_len)
    check_tensor(mask, shape=(len(lengths), max_len), dtype=torch.bool, device=device)
    assert torch.equal(mask.cpu(), prefix_mask(lengths, max_len, "cpu")), (
        f"mask[b, t] must be True exactly when t < lengths[b]; got {mask.tolist()}"
    )


@pytest.mark.parametrize(
    "lengths, max_len",
    [([2, 6], 5), ([2**32 + 1], 5), ([-1, 2], 4), ([], -1), ([[1, 2]], 3), (2, 3)],
    ids=["too long", "beyond int32", "negative", "max_len", "2-D lengths", "0-dim lengths"],
)
def test_length_mask_rejects_impossible_lengths(device, lengths, max_len):
    with raises(ValueError):
        length_mask(torch.tensor(lengths, dtype=torch.int64, device=device), max_len)
        pytest.fail(
            f"length_mask(torch.tensor({lengths}), {max_len}) should raise ValueError: lengths "
            "is a 1-D tensor (not 0-dim, not 2-D) of values in [0, max_len], and max_len >= 0"
        )


@pytest.mark.parametrize("dtype", [torch.int32, torch.int16, torch.uint8])
def test_length_mask_accepts_every_integer_dtype(device, dtype):
    mask = length_mask(torch.tensor([3, 0, 1], dtype=dtype, device=device), 4)
    check_tensor(mask, shape=(3, 4), dtype=torch.bool, device=device)
    assert torch.equal(mask.cpu(), prefix_mask([3, 0, 1], 4, "cpu")), (
        f"lengths of dtype {dtype} are integers too: accept any integer dtype"
    )


@pytest.mark.parametrize("dtype", [torch.uint16, torch.uint32, torch.uint64], ids=str)
def test_length_mask_accepts_the_unsigned_storage_dtypes(device, dtype):
    # torch has hardly any arithmetic for these dtypes (no comparisons): convert first.
    mask = length_mask(torch.tensor([3, 0, 1], device=device).to(dtype), 4)
    check_tensor(mask, shape=(3, 4), dtype=torch.bool, device=device)
    assert torch.equal(mask.cpu(), prefix_mask([3, 0, 1], 4, "cpu")), (
        f"lengths of dtype {dtype} are integers too: accept any integer dtype"
    )


def test_length_mask_compares_lengths_with_a_max_len_beyond_their_dtype(device):
    # max_len need not fit the lengths' dtype: uint8 lengths up to 255 with max_len 512.
    mask = length_mask(torch.tensor([100, 255, 0], dtype=torch.uint8, device=device), 512)
    check_tensor(mask, shape=(3, 512), dtype=torch.bool, device=device)
    assert torch.equal(mask.cpu(), prefix_mask([100, 255, 0], 512, "cpu")), (
        "uint8 lengths with max_len 512: compare the values as integers (torch converts a "
        "Python number to the tensor's dtype, where 512 does not fit)"
    )
    with raises(ValueError):
        length_mask(torch.tensor([200], dtype=torch.uint8, device=device), 100)
        pytest.fail("a uint8 length of 200 with max_len 100 should raise ValueError")


@pytest.mark.parametrize("lengths", [[1.0, 2.0], [True, False]], ids=["float", "bool"])
def test_length_mask_rejects_float_and_bool_lengths(device, lengths):
    with raises(ValueError):
        length_mask(torch.tensor(lengths, device=device), 3)
        pytest.fail(
            f"lengths of dtype {torch.tensor(lengths).dtype} should raise ValueError: only "
            "integer dtypes are lengths, and bool is not one here (a bool tensor is a mask)"
        )


def test_length_mask_rejects_complex_lengths(device):
    # Not floating point, and still no integer: complex lengths are refused as well.
    with raises(ValueError):
        length_mask(torch.tensor([1 + 0j, 2 + 0j], device=device), 3)


# --- masked_mse -------------------------------------------------------------------------


@pytest.mark.parametrize("features", [(), (3,), (2, 2)], ids=["[B,T]", "[B,T,3]", "[B,T,2,2]"])
def test_mse_averages_over_real_tokens(device, features):
    mask = prefix_mask([5, 2, 3], 6, device)
    pred, target = regression_batch(mask, features)
    loss, grad = loss_and_grad(masked_mse, pred, target, mask)
    check_tensor(loss, shape=(), dtype=torch.float32, device=device, name="the loss")
    expected, expected_grad = oracle_loss_and_grad(oracle_mse, pred, target, mask)
    assert torch.isfinite(loss), (
        f"the loss is {loss.item()}: padding leaked in (huge padded values squared give inf, "
        "and inf * 0 = nan); select the real tokens instead of multiplying by the mask"
    )
    assert_close(
        loss.cpu(),
        expected,
        "the loss is not the mean over real tokens; each token counts once, so do not "
        "average per sequence first",
    )
    assert_close(grad.cpu(), expected_grad, "the gradient differs from the per-token oracle's")


def test_mse_counts_tokens_not_sequences(device):
    pred = torch.tensor([[2.0, 9.0, 9.0], [0.0, 0.0, 0.0]], device=device)
    mask = torch.tensor([[True, False, False], [True, True, True]], device=device)
    loss = masked_mse(pred, torch.zeros_like(pred), mask)
    assert loss.item() == pytest.approx(1.0), (
        f"4 real tokens with squared errors 4, 0, 0, 0 have mean loss 1.0, got {loss.item()}; "
        "the mean of per-sequence means (2.0) weights the short sequence too much"
    )


def test_mse_with_holes_in_the_mask(device):
    mask = torch.rand(4, 7, device=device) < 0.6
    pred, target = regression_batch(mask, (2,))
    loss, grad = loss_and_grad(masked_mse, pred, target, mask)
    expected, expected_grad = oracle_loss_and_grad(oracle_mse, pred, target, mask)
    assert_close(loss.cpu(), expected, "the loss differs from the mean over the real tokens")
    assert_close(grad.cpu(), expected_grad, "the gradient differs from the per-token oracle's")


def test_mse_gradient_is_zero_at_padding(device):
    mask = prefix_mask([4, 1, 3], 5, device)
    pred, target = regression_batch(mask, (3,))
    _, grad = loss_and_grad(masked_mse, pred, target, mask)
    padded = grad[~mask]
    assert torch.equal(padded, torch.zeros_like(padded)), (
        "the gradient at padded positions must be exactly 0 (and not nan)"
    )


def test_mse_does_not_depend_on_padding_length(device):
    mask = prefix_mask([4, 1, 3], 4, device)
    pred, target = regression_batch(mask, (2,))
    short = masked_mse(pred, target, mask)
    extra = torch.full((3, 5, 2), HUGE, device=device)
    long = masked_mse(
        torch.cat([pred, extra], dim=1),
        torch.cat([target, -extra], dim=1),
        torch.cat([mask, torch.zeros(3, 5, dtype=torch.bool, device=device)], dim=1),
    )
    assert_close(long, short, "padding the same batch longer changed the loss")


@pytest.mark.parametrize("shape", [(2, 3), (0, 4), (3, 0)], ids=str)
def test_mse_without_real_tokens_is_zero(device, shape):
    mask = torch.zeros(shape, dtype=torch.bool, device=device)
    pred, target = regression_batch(mask, (2,))
    loss, grad = loss_and_grad(masked_mse, pred, target, mask)
    check_tensor(loss, shape=(), dtype=torch.float32, device=device, name="the loss")
    assert loss.item() == 0.0, (
        f"with no real token the loss must be 0, got {loss.item()}; guard the division "
        "(e.g. count.clamp(min=1))"
    )
    assert torch.equal(grad, torch.zeros_like(grad)), "with no real token the gradient is 0"


def test_mse_size_one(device):
    mask = torch.ones(1, 1, dtype=torch.bool, device=device)
    pred, target = regression_batch(mask, ())
    loss = masked_mse(pred, target, mask)
    assert_close(
        loss, (pred - target).square().reshape(()), "one real token: the loss is its squared error"
    )


def test_mse_keeps_float64(device):
    skip_unless_supported(device, torch.float64)
    mask = prefix_mask([3, 2], 4, device)
    pred, target = regression_batch(mask, (2,), dtype=torch.float64)
    loss = masked_mse(pred, target, mask)
    check_tensor(loss, shape=(), dtype=torch.float64, device=device, name="the loss")
    assert_close(
        loss.cpu(),
        oracle_mse(pred.cpu(), target.cpu(), mask.cpu()),
        "the loss differs from the mean over the real tokens",
    )


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_mse_in_half_precision_does_not_overflow_where_the_mean_does_not(device, dtype):
    # 1000 real tokens with a squared error of 100: their sum, 1e5, is inf in float16
    # (max 65504); the mean is 100.
    mask = torch.ones(2, 500, dtype=torch.bool, device=device)
    mask[1, 400:] = False
    pred = torch.full((2, 500), 10.0, device=device).to(dtype).requires_grad_()
    target = torch.zeros(2, 500, device=device).to(dtype)
    loss = masked_mse(pred, target, mask)
    check_tensor(loss, shape=(), dtype=dtype, device=device, name="the loss")
    assert_close(
        loss.float().cpu(),
        torch.tensor(100.0),
        f"a {dtype} loss of 900 squared errors of 100 must be 100: their sum overflows (or "
        "loses its low bits) where the mean would not; accumulate in float32 and convert "
        "back, or divide before summing",
        rtol=1e-2,
        atol=0.0,
    )
    loss.backward()
    assert pred.grad is not None and torch.isfinite(pred.grad).all(), "finite gradients"


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_mse_in_half_precision_is_the_float32_mean_rounded_once(device, dtype):
    # Errors that are small integers (and one of 300, whose square is inf in float16), exact
    # in both dtypes, with exact float32 sums: the right loss is the exact mean rounded once.
    # Its square or a sum in the dtype is already rounded (or inf) before the division.
    positions = torch.arange(1000, device=device)
    errors = (positions * 37 + torch.arange(4, device=device)[:, None] * 11) % 7
    errors[0, 0] = 300
    mask = positions < torch.tensor([[1000], [999], [998], [997]], device=device)
    pred = errors.to(dtype).requires_grad_()
    loss = masked_mse(pred, torch.zeros_like(pred), mask)
    check_tensor(loss, shape=(), dtype=dtype, device=device, name="the loss")
    exact = (errors.double().square() * mask).sum() / mask.sum()
    assert_close(
        loss.cpu(),
        exact.to(dtype).cpu(),
        f"the {dtype} loss is off: square, sum and divide in float32, round once at the end",
        rtol=0,
        atol=0,
    )


def test_mse_non_contiguous_inputs(device):
    mask = prefix_mask([5, 2, 4], 6, device)
    pred, target = regression_batch(mask, (3,))
    pred_t = pred.transpose(0, 1).contiguous().transpose(0, 1)  # same values, other strides
    mask_t = mask.t().contiguous().t()
    loss = masked_mse(pred_t, target, mask_t)
    assert not pred_t.is_contiguous() and not mask_t.is_contiguous()
    assert_close(
        loss.cpu(),
        oracle_mse(pred.cpu(), target.cpu(), mask.cpu()),
        "the loss differs from the mean over the real tokens",
    )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=str)
def test_mse_does_not_modify_its_inputs(device, dtype):
    mask = prefix_mask([3, 1], 4, device)
    pred, target = regression_batch(mask, (2,), dtype)
    before = [t.clone() for t in (pred, target, mask)]
    masked_mse(pred, target, mask)
    for name, tensor, old in zip(
        ("pred", "target", "mask"), (pred, target, mask), before, strict=True
    ):
        assert torch.equal(tensor, old), f"{name} must not be modified"


@pytest.mark.parametrize(
    "pred_shape, target_shape, mask_shape, mask_dtype",
    [
        ((2, 3), (2, 4), (2, 3), torch.bool),
        ((2, 3, 4), (2, 3), (2, 3), torch.bool),
        ((2, 3), (2, 3), (2, 3), torch.float32),
        ((2, 3, 4), (2, 3, 4), (2, 3, 4), torch.bool),
        ((2, 3), (2, 3), (3, 2), torch.bool),
        ((5,), (5,), (5,), torch.bool),
    ],
    ids=["target length", "target dims", "float mask", "mask dims", "mask shape", "1-D pred"],
)
def test_mse_rejects_mismatched_arguments(device, pred_shape, target_shape, mask_shape, mask_dtype):
    pred = torch.randn(pred_shape, device=device)
    target = torch.randn(target_shape, device=device)
    mask = torch.ones(mask_shape, dtype=mask_dtype, device=device)
    with raises(ValueError):
        masked_mse(pred, target, mask)


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


@pytest.mark.parametrize("shape", [(2, 3), (0, 4), (3, 0)], ids=str)
def test_cross_entropy_without_real_tokens_is_zero(device, shape):
    mask = torch.zeros(shape, dtype=torch.bool, device=device)
    logits, target = classification_batch(mask, 3)
    loss, grad = loss_and_grad(masked_cross_entropy, logits, target, mask)
    check_tensor(loss, shape=(), dtype=torch.float32, device=device, name="the loss")
    assert loss.item() == 0.0, (
        f"with no real token the loss must be 0, got {loss.item()}; guard the division "
        "(e.g. count.clamp(min=1))"
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


# ---------------------------------------------------------------- facets


def lengths_of(dtype, device):
    top = min(torch.iinfo(dtype).max, 300)
    return facets.args(torch.tensor([0, 1, 100, top], dtype=torch.int64).to(device, dtype), 300)


def mask_by_loop(lengths, max_len):
    return torch.tensor([[t < n for t in range(max_len)] for n in lengths.tolist()]).reshape(
        len(lengths), max_len
    )


def long_batch(dtype, device, classes=None, length=1000):
    """Real tokens enough that a float16 sum of their squared errors (about 100 each)
    overflows."""
    mask = (torch.arange(length) < torch.tensor([[length - 3], [length // 2]])).to(device)
    size = (2, length, *((classes,) if classes else ()))
    grid = torch.linspace(-3, 3, torch.Size(size).numel(), dtype=torch.float64).reshape(size)
    if classes:
        target = (torch.arange(2 * length).reshape(2, length) % classes).to(device)
        return facets.args(grid.to(dtype=dtype, device=device), target, mask)
    return facets.args(
        (grid * 4).to(dtype=dtype, device=device),
        -(grid * 3).flip(1).to(dtype=dtype, device=device),
        mask,
    )


def mse64(pred, target, mask):
    errors = ((pred - target) ** 2).reshape(*mask.shape, -1).mean(-1)
    return (errors * mask).sum() / mask.sum().clamp(min=1)


def cross_entropy64(logits, target, mask):
    losses = F.cross_entropy(logits.flatten(0, 1), target.flatten(), reduction="none")
    return (losses * mask.flatten()).sum() / mask.sum().clamp(min=1)


FACETS = facets.declare(
    facets.of(
        length_mask,
        facets.Dtypes(
            lengths_of,
            oracle=mask_by_loop,
            dtypes=facets.INTEGER,
            result=lambda dtype: torch.bool,
        ),
        facets.Setting(
            lambda device: facets.args(torch.zeros(2, dtype=torch.int64, device=device), max_len=3),
            "max_len",
            low=0,
            integer=True,
        ),
        facets.Unmodified(lambda device: lengths_of(torch.int64, device)),
    ),
    facets.of(
        masked_mse,
        facets.Dtypes(
            long_batch,
            oracle=mse64,
            ulps=4,  # dividing before summing rounds more than once
        ),
        facets.Unmodified(lambda device: long_batch(torch.float32, device, length=5)),
    ),
    facets.of(
        masked_cross_entropy,
        facets.Dtypes(
            lambda dtype, device: long_batch(dtype, device, classes=4),
            oracle=cross_entropy64,
            ulps=4,
        ),
        facets.Unmodified(lambda device: long_batch(torch.float32, device, classes=4, length=5)),
    ),
)
test_facets = FACETS.test
