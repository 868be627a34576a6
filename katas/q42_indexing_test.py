import pytest
import torch
import torch.nn.functional as F

from katas.q42_indexing import batch_histogram, last_valid, rotate_pairs, valid_steps
from torch_katas import facets
from torch_katas.op_families import COUNTING
from torch_katas.testing import (
    assert_close,
    assert_no_python_loops,
    assert_no_torch_internals,
    built_from,
    check_tensor,
    forbidden_ops,
    skip_unless_supported,
)


def padded_batch(device, lengths, t=6, d=3, transposed=False):
    b = len(lengths)
    if transposed:  # same values, stored time-major: x is not contiguous
        x = torch.randn(t, b, d, device=device).transpose(0, 1)
    else:
        x = torch.randn(b, t, d, device=device)
    return x, torch.tensor(lengths, dtype=torch.int64, device=device)


# ---------------------------------------------------------------- the rule: no Python loops


def test_rule_no_python_loops(device):
    # Batch, time and features grow with n: a loop over any of them (for, map,
    # functools.reduce, recursion, a helper) shows as more work for more data.
    def padded(n, shortest):
        lengths = torch.arange(n, device=device) % (n + 1 - shortest) + shortest
        return torch.randn(n, n, n, device=device), lengths

    cases = [
        (last_valid, lambda n: padded(n, 1), "sequences, steps and features"),
        (valid_steps, lambda n: padded(n, 0), "sequences, steps and features"),
        (rotate_pairs, lambda n: torch.randn(n, n, 2 * n, device=device), "rows and pairs"),
        (
            batch_histogram,
            lambda n: (torch.arange(n * n, device=device).reshape(n, n) % n, n),
            "rows, labels and bins",
        ),
    ]
    for function, inputs, over in cases:
        assert_no_python_loops(function, inputs, over=over)


# ---------------------------------------------------------------- last_valid


@pytest.mark.parametrize(
    "lengths, t, d",
    [([1, 6, 3, 2], 6, 3), ([1], 1, 1), ([2, 2], 2, 5), ([5, 1, 4], 5, 1)],
    ids=str,
)
@pytest.mark.parametrize("transposed", [False, True], ids=["contiguous", "time-major"])
def test_last_valid_matches_a_loop(device, lengths, t, d, transposed):
    x, lengths_t = padded_batch(device, lengths, t, d, transposed)
    x_before, lengths_before = x.clone(), lengths_t.clone()
    out = last_valid(x, lengths_t)
    check_tensor(out, shape=(len(lengths), d), dtype=x.dtype, device=device, name="last steps")
    expected = torch.stack([x[b, n - 1] for b, n in enumerate(lengths)])
    assert_close(out, expected, "out[b] must be x[b, lengths[b] - 1], the last step before padding")
    assert torch.equal(x, x_before) and torch.equal(lengths_t, lengths_before), (
        "x and lengths must not be modified"
    )


def test_last_valid_of_integer_features(device):
    x = torch.arange(24, device=device).view(2, 4, 3)
    out = last_valid(x, torch.tensor([4, 2], device=device))
    check_tensor(out, shape=(2, 3), dtype=torch.int64, device=device, name="last steps")
    assert out.tolist() == [[9, 10, 11], [15, 16, 17]]


def features_of(dtype, shape, device):
    if dtype == torch.bool:
        return torch.rand(shape, device=device) < 0.5
    if dtype.is_floating_point:
        return torch.randn(shape, device=device).to(dtype)
    return torch.randint(-100, 100, shape, device=device).to(dtype)


# The aten operators that pick elements by index: what the rule asks the result be made by.
PICKS = ("gather", "index", "index_select", "take", "take_along_dim")


@pytest.mark.parametrize(
    "dtype", [torch.float16, torch.bfloat16, torch.float64, torch.int32, torch.uint8, torch.bool]
)
def test_last_valid_keeps_any_dtype_and_ignores_the_padding(device, dtype):
    skip_unless_supported(device, dtype)
    lengths = [2, 5, 1]
    x = features_of(dtype, (3, 5, 4), device)
    if dtype.is_floating_point:  # padding may hold anything, even inf and NaN
        x[0, 2:], x[2, 1:] = float("inf"), float("nan")
        x[1, 4, 0] = -0.0  # a value to pick as it is: a sum gives +0.0
    reason = "pick the step (gather or an integer index) rather than masking and summing"
    # The pick works on x itself (or a copy): a masked reduction over time, then a pick of
    # every row of its result, picks nothing.
    with built_from(
        *PICKS, spelled="gather or an integer index", reason=reason, reading=x
    ) as record:
        out = last_valid(x, torch.tensor(lengths, device=device))
    check_tensor(out, shape=(3, 4), dtype=dtype, device=device, name="last steps")
    expected = torch.stack([x[b, n - 1] for b, n in enumerate(lengths)])
    assert torch.equal(out, expected) and torch.equal(out.signbit(), expected.signbit()), (
        "out[b] must be x[b, lengths[b] - 1], in x's dtype, whatever the padding holds "
        f"(-0.0 included): {reason}"
    )
    record.check(out)


# ---------------------------------------------------------------- valid_steps


@pytest.mark.parametrize(
    "lengths", [[1, 6, 0, 2], [6], [0, 0], [3, 3, 3], []], ids=lambda v: f"lengths={v}"
)
def test_valid_steps_matches_a_loop(device, lengths):
    x, lengths_t = padded_batch(device, lengths, transposed=len(lengths) == 4)
    x_before = x.clone()
    out = valid_steps(x, lengths_t)
    check_tensor(out, shape=(sum(lengths), 3), dtype=x.dtype, device=device, name="steps")
    expected = torch.cat([x[b, :n] for b, n in enumerate(lengths)] + [x.new_zeros(0, 3)])
    assert_close(
        out,
        expected,
        "expected the valid steps of sequence 0, then sequence 1, ...; a step t is valid "
        "when t < lengths[b]",
    )
    assert torch.equal(x, x_before), "x must not be modified"


@pytest.mark.parametrize("dtype", [torch.float64, torch.int32, torch.bool])
def test_valid_steps_keeps_any_dtype_and_every_valid_step(device, dtype):
    skip_unless_supported(device, dtype)
    lengths = [2, 0, 3]
    x = features_of(dtype, (3, 4, 2), device)
    x[2, 1] = 0  # a valid step that happens to be all zeros
    if dtype.is_floating_point:  # padding may hold anything, even inf and NaN
        x[0, 2:], x[2, 3] = float("inf"), float("nan")
    out = valid_steps(x, torch.tensor(lengths, device=device))
    check_tensor(out, shape=(5, 2), dtype=dtype, device=device, name="steps")
    expected = torch.cat([x[b, :n] for b, n in enumerate(lengths)])
    assert torch.equal(out, expected), (
        "expected the valid steps of each sequence in order, in x's dtype, a step of zeros "
        "included: select with the mask t < lengths[b] (x[mask]), not by what the values are"
    )


# ---------------------------------------------------------------- rotate_pairs


def rotated_as_complex(x):
    """Each pair (a, b) as the complex number a + ib, multiplied by i: (-b, a)."""
    pairs = x.detach().cpu().double().reshape(*x.shape[:-1], x.shape[-1] // 2, 2).contiguous()
    rotated = torch.view_as_real(torch.view_as_complex(pairs) * 1j)
    return rotated.reshape(x.shape)


@pytest.mark.parametrize("shape", [(4,), (3, 6), (2, 3, 8), (2, 1, 3, 2), (0, 4), (3, 0)], ids=str)
def test_rotate_pairs_for_any_rank(device, shape):
    x = torch.randn(shape, device=device)
    x_before = x.clone()
    out = rotate_pairs(x)
    check_tensor(out, shape=shape, dtype=x.dtype, device=device, name="rotated")
    assert_close(
        out.double().cpu(),
        rotated_as_complex(x),
        "out[..., 2i] = -x[..., 2i+1] and out[..., 2i+1] = x[..., 2i]",
    )
    assert torch.equal(x, x_before), "x must not be modified; build a new tensor"


@pytest.mark.parametrize(
    "dtype", [torch.float16, torch.bfloat16, torch.float64, torch.int8, torch.int32]
)
def test_rotate_pairs_keeps_any_floating_or_signed_integer_dtype(device, dtype):
    skip_unless_supported(device, dtype)
    x = features_of(dtype, (3, 2, 6), device)
    out = rotate_pairs(x)
    check_tensor(out, shape=(3, 2, 6), dtype=dtype, device=device, name="rotated")
    expected = torch.empty_like(x)
    expected[..., 0::2], expected[..., 1::2] = -x[..., 1::2], x[..., 0::2]
    assert torch.equal(out, expected), (
        "out[..., 2i] = -x[..., 2i+1] and out[..., 2i+1] = x[..., 2i], in x's dtype"
    )


def test_rotate_pairs_negates_a_zero_into_minus_zero(device):
    # -x of +0.0 is -0.0 (and of -0.0, +0.0): 0 - x, or a sum with a zero product, gives +0.0.
    x = torch.tensor([[1.0, 0.0, 2.0, -0.0]], device=device)
    out = rotate_pairs(x)
    assert out.tolist() == [[-0.0, 1.0, 0.0, 2.0]] and out.signbit().tolist() == [
        [True, False, False, False]
    ], f"got {out.tolist()}: out[..., 2i] = -x[..., 2i+1], a negation (-0.0 for 0.0)"


def test_rotate_pairs_of_a_strided_integer_input(device):
    x = torch.arange(24, device=device).view(4, 6)[::2]  # rows 0 and 2: not contiguous
    out = rotate_pairs(x)
    check_tensor(out, shape=(2, 6), dtype=torch.int64, device=device, name="rotated")
    assert out.tolist() == [[-1, 0, -3, 2, -5, 4], [-13, 12, -15, 14, -17, 16]]


@pytest.mark.parametrize("shape", [(3,), (2, 5)], ids=str)
def test_rotate_pairs_rejects_an_odd_last_dim(device, shape):
    with pytest.raises(ValueError):
        rotate_pairs(torch.zeros(shape, device=device))


# ---------------------------------------------------------------- batch_histogram


# The aten operators that add at indices, counting a repeated index every time (with
# accumulate=True for index_put_ and put_; without it the counts come out wrong).
SCATTER_ADDS = (
    *("scatter_add", "scatter_add_", "scatter_reduce", "scatter_reduce_"),
    *("index_add", "index_add_", "index_put", "index_put_", "_index_put_impl_", "put", "put_"),
)


def histogram(labels, num_bins):
    reason = "count with a scatter-add along dim 1"
    assert_no_torch_internals(batch_histogram, reason=reason)
    # Built from a scatter-add: comparing with every bin and summing, or sorting and
    # searchsorted, reach the same counts another way; and each label goes through it (a
    # scatter-add of totals counted another way, one per bin, takes in too few elements).
    with (
        forbidden_ops(*COUNTING.ops, reason=reason, aten=COUNTING.aten),
        built_from(*SCATTER_ADDS, spelled="a scatter-add", reason=reason) as record,
    ):
        counts = batch_histogram(labels, num_bins)
    record.check(counts, each_of=labels)
    return counts


def counted_by_hand(labels, num_bins):
    counts = [[0] * num_bins for _ in range(labels.shape[0])]
    for b, row in enumerate(labels.tolist()):
        for label in row:
            counts[b][label] += 1
    return counts


@pytest.mark.parametrize(
    "b, n, num_bins", [(4, 50, 7), (1, 9, 3), (3, 5, 10), (2, 0, 4), (5, 1, 1)], ids=str
)
def test_batch_histogram_matches_counting_by_hand(device, b, n, num_bins):
    labels = torch.randint(0, num_bins, (b, n), device=device)
    labels_before = labels.clone()
    out = histogram(labels, num_bins)
    check_tensor(out, shape=(b, num_bins), dtype=torch.int64, device=device, name="counts")
    assert out.tolist() == counted_by_hand(labels, num_bins), (
        "counts differ from counting by hand; a repeated label must count every time "
        "(counts[rows, labels] += 1 and scatter_ count it once; scatter_add_ adds them all)"
    )
    assert torch.equal(labels, labels_before), "labels must not be modified"


@pytest.mark.slow
def test_batch_histogram_counts_past_float32_precision(device):
    # 2**24 + 1 labels in one bin: a count kept in float32 (ones of the default dtype, then
    # .long()) stops at 2**24, where float32 can no longer add 1; int64 counts are exact.
    labels = torch.zeros(1, 2**24 + 2, dtype=torch.int64, device=device)
    labels[0, -1] = 1
    out = histogram(labels, 2)
    check_tensor(out, shape=(1, 2), dtype=torch.int64, device=device, name="counts")
    assert out.tolist() == [[2**24 + 1, 1]], (
        "counts must be exact past 2**24: count in int64 (ones_like(labels)), not in float32"
    )


def test_batch_histogram_of_non_contiguous_labels(device):
    labels = torch.tensor([[0, 1], [0, 1], [2, 1]], device=device).t()  # [[0, 0, 2], [1, 1, 1]]
    out = histogram(labels, 3)
    check_tensor(out, shape=(2, 3), dtype=torch.int64, device=device, name="counts")
    assert out.tolist() == [[2, 0, 1], [0, 3, 0]]


# ---------------------------------------------------------------- facets

ANY_DTYPE = (*facets.FLOATING, torch.int64, torch.int8, torch.uint8, torch.bool)
SIGNED = (*facets.FLOATING, torch.int64, torch.int32, torch.int16, torch.int8)


def padded(dtype, device):
    x = facets.past_float32((torch.arange(2 * 4 * 3).reshape(2, 4, 3) % 7).to(dtype=dtype))
    x = x.to(device)
    return facets.args(x, torch.tensor([3, 1], device=device))


# Where .squeeze() drops a dimension the contract keeps: one sequence, one feature, one
# valid step in all.
ONE_OF_EACH = {
    "one sequence, one step, one feature (size 1)": lambda device: facets.args(
        torch.full((1, 1, 1), 2.5, device=device), torch.tensor([1], device=device)
    ),
    "two sequences of one valid step, one feature (size 1)": lambda device: facets.args(
        torch.arange(6.0, device=device).reshape(2, 3, 1), torch.tensor([1, 1], device=device)
    ),
    # [B, T, D] allows D = 0: x.view(-1, D) cannot infer the -1 there, x[...] picks fine.
    "steps of no features (D = 0)": lambda device: facets.args(
        torch.zeros(2, 3, 0, device=device), torch.tensor([3, 1], device=device)
    ),
}


# [B, T, D] allows B = 0: nothing to pick, a [0, D] result still in x's graph (a shortcut that
# returns new zeros there cuts it; torch.func.vmap maps over no empty batch: a vmap per
# sequence fails there). No valid step in all (valid_steps) is held to the same.
EMPTY_BATCH = {
    "an empty batch (B = 0)": lambda device: facets.args(
        torch.zeros(0, 3, 2, device=device), torch.zeros(0, dtype=torch.int64, device=device)
    ),
}


def last_by_loop(x, lengths):
    picks = [x[b, n - 1] for b, n in enumerate(lengths.tolist())]
    # x[:0, 0] (no rows, x's graph) where the loop picks nothing: stack needs one tensor.
    return torch.stack(picks) if picks else x[:0, 0]


def valid_by_loop(x, lengths):
    return torch.cat([x[b, :n] for b, n in enumerate(lengths.tolist())] + [x[:0, 0]])


def pairs_of(dtype, device):
    x = facets.past_float32(torch.tensor([[1, -2, 3, 4], [-5, 6, 0, 7]]).to(dtype=dtype)).to(device)
    if dtype.is_floating_point:  # each value moves as it is: inf and NaN too (no a·0 terms)
        x[0, 2], x[1, 1] = float("inf"), float("nan")
    return facets.args(x)


def pairs_of_shape(shape, device):
    """Pairs in the last dim (twice the named shape's), for any leading dims."""
    if not shape:
        shape = (1,)
    x = torch.randn(*shape[:-1], 2 * shape[-1], device=device)
    return facets.args(x)


def rotated_by_loop(x):
    out = torch.empty_like(x)
    for i in range(0, x.shape[-1], 2):
        out[..., i], out[..., i + 1] = -x[..., i + 1], x[..., i]
    return out


def labels(device):
    return facets.args(torch.tensor([[0, 2, 2], [1, 1, 1]], device=device), 3)


FACETS = facets.declare(
    facets.of(
        last_valid,
        facets.Dtypes(padded, oracle=last_by_loop, dtypes=ANY_DTYPE, once=True),
        # A pick keeps the graph: the gradient reaches x at the picked steps alone.
        facets.Gradients(padded, oracle=last_by_loop),
        facets.Unmodified(lambda device: padded(torch.float32, device)),
        facets.Edges({**ONE_OF_EACH, **EMPTY_BATCH}, oracle=last_by_loop, wrt=0),
    ),
    facets.of(
        valid_steps,
        facets.Dtypes(padded, oracle=valid_by_loop, dtypes=ANY_DTYPE, once=True),
        facets.Gradients(padded, oracle=valid_by_loop),
        facets.Unmodified(lambda device: padded(torch.float32, device)),
        facets.Edges(
            {
                **ONE_OF_EACH,
                **EMPTY_BATCH,
                "one valid step in all (K = 1)": lambda device: facets.args(
                    torch.arange(6.0, device=device).reshape(2, 3, 1),
                    torch.tensor([1, 0], device=device),
                ),
                "no valid step in all (K = 0)": lambda device: facets.args(
                    torch.arange(6.0, device=device).reshape(2, 3, 1),
                    torch.tensor([0, 0], device=device),
                ),
            },
            oracle=valid_by_loop,
            wrt=0,
        ),
    ),
    facets.of(
        rotate_pairs,
        facets.Dtypes(pairs_of, oracle=rotated_by_loop, dtypes=SIGNED, once=True),
        facets.Gradients(pairs_of, oracle=rotated_by_loop),
        facets.Unmodified(lambda device: pairs_of(torch.float32, device)),
        facets.Returns(lambda device: pairs_of(torch.float32, device)),
        # any layout: strided copies whose last dim is not contiguous either (no view of pairs)
        facets.Shapes(
            pairs_of_shape,
            oracle=rotated_by_loop,
            shapes=(
                "1-D",
                "empty",
                "empty inside",
                "2-D",
                "size 1",
                "non-contiguous",
                "non-contiguous 3-D",
            ),
        ),
        facets.BadShapes(lambda device: pairs_of(torch.float32, device), names=(0,), dims=(-1,)),
    ),
    facets.of(
        batch_histogram,
        facets.DefaultDevice(labels, where="input"),
        facets.Unmodified(labels),
        facets.Edges(
            {
                "empty rows (N = 0)": lambda device: facets.args(
                    torch.zeros(3, 0, dtype=torch.int64, device=device), 4
                ),
                "an empty batch (B = 0)": lambda device: facets.args(
                    torch.zeros(0, 5, dtype=torch.int64, device=device), 4
                ),
            },
            oracle=lambda labels, num_bins: torch.zeros(
                labels.shape[0], num_bins, dtype=torch.int64
            ),
        ),
        facets.Returns(labels),
        facets.Edges(
            {
                "one label in one bin (size 1)": lambda device: facets.args(
                    torch.zeros(1, 1, dtype=torch.int64, device=device), 1
                ),
            },
            oracle=lambda labels, num_bins: F.one_hot(labels, num_bins).sum(dim=1),
            label="one",
        ),
    ),
)
test_facets = FACETS.test
