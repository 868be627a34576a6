import math

import pytest
import torch
import torch.nn.functional as F

from katas.q03_vectorised_ops import (
    batched_scores,
    interleave_rows,
    pairwise_sq_dists,
    standardize_columns,
    to_patches,
)
from torch_katas import facets
from torch_katas.op_families import EINSUM, PAIRWISE_DISTANCES
from torch_katas.testing import (
    assert_close,
    assert_no_python_loops,
    assert_no_torch_internals,
    check_tensor,
    forbidden_ops,
    largest_result,
    skip_unless_supported,
)


def naive_sq_dists(x, y):
    x, y = x.cpu().double(), y.cpu().double()
    out = torch.zeros(len(x), len(y), dtype=torch.float64)
    for i in range(len(x)):
        for j in range(len(y)):
            out[i, j] = ((x[i] - y[j]) ** 2).sum()
    return out


def naive_standardize(x, eps):
    x = x.cpu().double()
    out = torch.empty_like(x)
    for j in range(x.shape[1]):
        column = x[:, j]
        mean = column.sum() / len(column)
        var = ((column - mean) ** 2).sum() / len(column)
        out[:, j] = (column - mean) / torch.sqrt(var + eps)
    return out


def dists(x, y):
    reason = "build the distances from a matrix product"
    assert_no_torch_internals(pairwise_sq_dists, reason=reason)
    with forbidden_ops(*PAIRWISE_DISTANCES.ops, reason=reason, aten=PAIRWISE_DISTANCES.aten):
        return pairwise_sq_dists(x, y)


# ---------------------------------------------------------------- the rule: no Python loops


@pytest.mark.parametrize("function", ["pairwise_sq_dists", "standardize_columns", "batched_scores"])
def test_no_python_loops(device, function):
    # Every dimension grows with n, so a loop over any of them (written as for, map,
    # functools.reduce, recursion or in a helper) shows as more work for the bigger input.
    def randn(*shape):
        return torch.randn(shape, device=device)

    cases = {
        "pairwise_sq_dists": (
            pairwise_sq_dists,
            lambda n: (randn(n, n), randn(n + 1, n)),
            "rows and features",
        ),
        "standardize_columns": (standardize_columns, lambda n: randn(n, n), "rows and columns"),
        "batched_scores": (
            batched_scores,
            lambda n: (randn(n, 2, n, n), randn(n, 1, n + 1, n)),
            "batch entries, queries, keys and features",
        ),
    }
    func, inputs, over = cases[function]
    assert_no_python_loops(func, inputs, over=over)


# ---------------------------------------------------------------- pairwise_sq_dists


@pytest.mark.parametrize("n, m, d", [(7, 5, 3), (1, 1, 1), (6, 1, 4), (1, 9, 2), (12, 12, 8)])
@pytest.mark.parametrize("transposed", [False, True], ids=["contiguous", "transposed"])
def test_pairwise_sq_dists_matches_naive_loops(device, n, m, d, transposed):
    if transposed:  # same values, non-contiguous layout
        x = torch.randn(d, n, device=device).t()
        y = torch.randn(d, m, device=device).t()
    else:
        x, y = torch.randn(n, d, device=device), torch.randn(m, d, device=device)
    x_before, y_before = x.clone(), y.clone()
    out = dists(x, y)
    check_tensor(out, shape=(n, m), dtype=torch.float32, device=device, name="distances")
    assert_close(
        out.cpu().double(),
        naive_sq_dists(x, y),
        "out[i, j] should be the squared distance between x[i] and y[j]",
        rtol=1e-4,
        atol=1e-4,
    )
    assert torch.equal(x, x_before) and torch.equal(y, y_before), "x and y must not be modified"


def test_pairwise_sq_dists_in_float64(device):
    skip_unless_supported(device, torch.float64)
    x = torch.randn(5, 3, dtype=torch.float64, device=device)
    y = torch.randn(4, 3, dtype=torch.float64, device=device)
    out = dists(x, y)
    check_tensor(out, shape=(5, 4), dtype=torch.float64, device=device, name="distances")
    assert_close(out.cpu(), naive_sq_dists(x, y), "float64 inputs deserve float64 precision")


@pytest.mark.parametrize("n, m, d", [(0, 3, 2), (3, 0, 2), (3, 4, 0)])
def test_pairwise_sq_dists_with_an_empty_dimension(device, n, m, d):
    out = dists(torch.randn(n, d, device=device), torch.randn(m, d, device=device))
    check_tensor(out, shape=(n, m), dtype=torch.float32, device=device, name="distances")
    assert torch.equal(out.cpu(), torch.zeros(n, m)), "with D = 0 every distance is 0"


def test_pairwise_sq_dists_is_never_negative_for_coinciding_points(device):
    # Points far from the origin: |x|^2 + |y|^2 - 2 x.y cancels badly where x_i ~ y_j.
    x = 10 + torch.randn(20, 8, device=device)
    y = torch.cat([x, x + 1e-3 * torch.randn(20, 8, device=device)])
    out = dists(x, y)
    check_tensor(out, shape=(20, 40), dtype=torch.float32, device=device, name="distances")
    assert (out >= 0).all(), (
        f"{(out < 0).sum().item()} squared distances are negative (min {out.min().item():.3g}): "
        "round-off makes the identity dip below 0 for (nearly) equal points; clamp at 0"
    )
    assert_close(
        out.cpu().double(),
        naive_sq_dists(x, y),
        "clamp only the negatives at 0; every other distance stays as computed",
        rtol=1e-4,
        atol=1e-2,
    )


def identity_in_float32_every_way(a, b):
    """|a - b|^2 by the identity for 1-D points a and b (float32 vectors), in each order of
    the additions an answer may take, with 2 a.b rounded on its own or fused into the sum
    (addmm, baddbmm): float32 arithmetic, the fused ones as one rounding of the exact value."""
    s1, s2, p = a * a, b * b, a * b
    fused = lambda m: (m.double() - 2 * a.double() * b.double()).float()  # noqa: E731
    unfused = [(s1 + s2) - 2 * p, (s1 - 2 * p) + s2, (s2 - 2 * p) + s1]
    return torch.stack([*unfused, fused(s1 + s2), fused(s1) + s2, fused(s2) + s1])


def test_pairwise_sq_dists_turns_negative_round_off_into_0(device):
    # 1-D points near 3000 and the float32 two steps above each: the true squared distance
    # is about 2e-7, but |a|^2 and |b|^2 are rounded to whole numbers, so the identity comes
    # out a whole number. For the pairs where it is negative in float32 whichever way it is
    # summed, a clamp gives 0; an answer that computes more accurately (in float64, or
    # centring the points first) gives about the true 2e-7. `abs()` (or squaring, or a
    # reflection) gives the 1 or more the identity dipped below zero by.
    a = 3000 + 8 * torch.rand(256)
    up = torch.tensor(math.inf)
    b = torch.nextafter(torch.nextafter(a, up), up)
    below = (identity_in_float32_every_way(a, b) < 0).all(dim=0)
    assert below.sum() >= 4, "the test wants pairs whose identity is negative every way"
    out = dists(a[:, None].to(device), b[:, None].to(device)).cpu()
    check_tensor(out, shape=(256, 256), dtype=torch.float32, name="distances")
    got = out.diagonal()[below]
    assert (got < 1e-2).all(), (
        f"where the identity dips below 0 (by 1 or more), distances came out as "
        f"{got[got >= 1e-2].tolist()[:3]} where the true ones are about 2e-7: such entries "
        "must come out as 0; clamp the negatives at 0 (clamp_min(0)), not abs()"
    )


def test_pairwise_sq_dists_keeps_nan_distances(device):
    # "Every other distance stays as computed": a NaN coordinate gives NaN distances, which a
    # clamp keeps (NaN < 0 is false) and `torch.where(d > 0, d, 0)` or fmax turn into 0.
    # (Other entries are not asked about: an answer that centres the points first spreads it.)
    x, y = torch.randn(4, 3, device=device), torch.randn(5, 3, device=device)
    x[1, 2], y[3, 0] = float("nan"), float("nan")
    out = dists(x, y).cpu()
    lost = naive_sq_dists(x, y).isnan() & ~out.isnan()
    assert not lost.any(), (
        f"{lost.sum().item()} distances of a row or column holding NaN came out as numbers "
        f"({out[lost].tolist()[:3]}); they are NaN as computed: clamp only the negatives at 0 "
        "(clamp_min(0) or torch.where(d < 0, 0, d)), never a NaN"
    )


def test_pairwise_sq_dists_never_builds_all_differences(device):
    n, m, d = 40, 30, 16
    x, y = torch.randn(n, d, device=device), torch.randn(m, d, device=device)
    with largest_result() as record:
        out = dists(x, y)
    check_tensor(out, shape=(n, m), dtype=torch.float32, device=device, name="distances")
    assert record.largest <= max(n * m, n * d, m * d), (
        f"a tensor of {record.largest} elements was built for N={n}, M={m}, D={d}: that is "
        "(part of) the [N, M, D] tensor of all differences; use |x|^2 + |y|^2 - 2 x @ y.T"
    )
    expected = torch.cdist(
        x.cpu().double(), y.cpu().double(), compute_mode="donot_use_mm_for_euclid_dist"
    )
    assert_close(out.cpu().double(), expected**2, "wrong distances", rtol=1e-4, atol=1e-4)


def test_pairwise_sq_dists_keeps_small_distances(device):
    # Points near the origin: the identity is accurate there, so nothing needs rounding.
    x = 0.1 * torch.randn(10, 4, device=device)
    y = x + 3e-3 * torch.randn(10, 4, device=device)
    out = dists(x, y)
    expected = naive_sq_dists(x, y)
    assert expected.diagonal().max() < 1e-3, "the test wants true distances below 1e-3"
    assert_close(
        out.cpu().double(),
        expected,
        "small distances are lost: clamp only the negatives at 0; every other distance stays "
        "as computed",
        rtol=1e-3,
        atol=1e-7,
    )


# ---------------------------------------------------------------- standardize_columns


@pytest.mark.parametrize("n", [2, 5, 64])
@pytest.mark.parametrize("eps", [1e-5, 0.5])
def test_standardize_columns_matches_naive_loops(device, n, eps):
    x = 3 * torch.randn(n, 4, device=device) + torch.arange(4.0, device=device)
    out = standardize_columns(x, eps=eps)
    check_tensor(out, shape=(n, 4), dtype=torch.float32, device=device, name="standardized x")
    assert_close(
        out.cpu().double(),
        naive_standardize(x, eps),
        "use the mean and the population variance (divide by N) per column",
        rtol=1e-4,
        atol=1e-4,
    )


def test_standardize_columns_default_eps(device):
    # Column variances near 1e-5, so the default eps changes the result noticeably.
    x = 3e-3 * torch.randn(6, 3, device=device)
    out = standardize_columns(x)
    assert_close(
        out.cpu().double(),
        naive_standardize(x, 1e-5),
        "standardize_columns(x) should use eps=1e-5 by default",
        rtol=1e-4,
        atol=1e-4,
    )


def test_standardize_columns_with_eps_0_adds_nothing(device):
    # Column variances near 1e-5: adding any eps of that size would show.
    x = 3e-3 * torch.randn(6, 3, device=device)
    out = standardize_columns(x, eps=0.0)
    check_tensor(out, shape=(6, 3), dtype=torch.float32, device=device, name="standardized x")
    assert_close(
        out.cpu().double(),
        naive_standardize(x, 0.0),
        "with eps=0 divide by sqrt(var) itself: 0 is a valid eps, not a missing one "
        "(`eps or 1e-5` replaces it)",
        rtol=1e-4,
        atol=1e-4,
    )


def test_standardize_columns_of_constant_columns_and_a_single_row(device):
    single = standardize_columns(torch.randn(1, 3, device=device))
    constant = standardize_columns(torch.full((5, 2), 0.1, device=device))
    check_tensor(single, shape=(1, 3), dtype=torch.float32, device=device, name="one row")
    check_tensor(constant, shape=(5, 2), dtype=torch.float32, device=device, name="constant")
    for name, out in (("a single row", single), ("constant columns", constant)):
        assert_close(
            out.cpu(),
            torch.zeros_like(out.cpu()),
            f"{name} must standardize to zeros (variance 0, + eps)",
            atol=1e-3,
            rtol=0,
        )


@pytest.mark.parametrize("dtype, offset", [(torch.float32, 1e4), (torch.float64, 1e8)], ids=str)
def test_standardize_columns_with_a_large_offset(device, dtype, offset):
    skip_unless_supported(device, dtype)
    # Each column its own offset, of either sign: one shift for all the columns is not enough.
    offsets = torch.tensor([offset, -offset, 0.3 * offset, 0.0], dtype=torch.float64)
    x = (offsets + torch.randn(256, 4, dtype=torch.float64)).to(dtype=dtype, device=device)
    out = standardize_columns(x)
    check_tensor(out, shape=(256, 4), dtype=dtype, device=device, name="standardized x")
    assert_close(
        out.cpu().double(),
        naive_standardize(x, 1e-5),
        f"wrong for columns around +-{offset:g} in {dtype}: mean(x**2) - mean(x)**2 cancels "
        "catastrophically (in float64 too, for a larger offset); compute the variance from "
        "x - the column's mean (torch.var does)",
        rtol=1e-2,
        atol=1e-2,
    )


def test_standardize_columns_in_float16_whose_sums_overflow(device):
    # 256 values around 300 sum past float16's 65504, and so do the squares of values spread
    # by 30, though every mean and variance fits: torch's mean and var accumulate in float32.
    skip_unless_supported(device, torch.float16)
    z = torch.randn(256, 3, dtype=torch.float64)
    x = (z * torch.tensor([10.0, 30.0, 1.0]) + torch.tensor([300.0, 0.0, 0.0])).half()
    out = standardize_columns(x.to(device))
    check_tensor(out, shape=(256, 3), dtype=torch.float16, device=device, name="standardized x")
    # The float16 mean of values near 300 rounds by up to 0.125: about 0.0125 spreads of 10.
    assert_close(
        out.cpu().double(),
        naive_standardize(x, 1e-5),
        "wrong for float16 columns whose sum (or sum of squares) passes 65504: x.sum(0) / N "
        "overflows to inf there; use torch's mean and var (they accumulate in float32), or "
        "compute in float32 and convert back",
        rtol=0.02,
        atol=0.05,
    )


def test_standardize_columns_of_a_non_contiguous_input_leaves_it_alone(device):
    x = torch.randn(3, 7, device=device).t()  # [7, 3], not contiguous
    x_before = x.clone()
    out = standardize_columns(x)
    check_tensor(out, shape=(7, 3), dtype=torch.float32, device=device, name="standardized x")
    assert_close(
        out.cpu().double(),
        naive_standardize(x, 1e-5),
        "wrong for a non-contiguous x: reduce over dim 0 whatever the layout",
        rtol=1e-4,
        atol=1e-4,
    )
    assert torch.equal(x, x_before), "x must not be modified; compute a new tensor"


def test_standardize_columns_in_float64(device):
    skip_unless_supported(device, torch.float64)
    x = torch.randn(8, 2, dtype=torch.float64, device=device)
    out = standardize_columns(x)
    check_tensor(out, shape=(8, 2), dtype=torch.float64, device=device, name="standardized x")
    assert_close(out.cpu(), naive_standardize(x, 1e-5), "float64 inputs deserve float64 precision")


# ---------------------------------------------------------------- batched_scores


@pytest.mark.parametrize(
    "q_shape, k_shape, out_shape",
    [
        ((5, 3), (4, 3), (5, 4)),
        ((2, 5, 3), (2, 4, 3), (2, 5, 4)),
        ((2, 3, 5, 8), (2, 3, 4, 8), (2, 3, 5, 4)),
        ((2, 3, 5, 8), (2, 1, 4, 8), (2, 3, 5, 4)),
        ((5, 8), (2, 3, 4, 8), (2, 3, 5, 4)),
        ((2, 3, 5, 8), (4, 8), (2, 3, 5, 4)),
        ((1, 1, 8), (3, 1, 8), (3, 1, 1)),
        ((2, 0, 3), (2, 4, 3), (2, 0, 4)),
        ((2, 5, 0), (2, 4, 0), (2, 5, 4)),
    ],
    ids=str,
)
def test_batched_scores_matches_elementwise_products(device, q_shape, k_shape, out_shape):
    q, k = torch.randn(q_shape, device=device), torch.randn(k_shape, device=device)
    q_before, k_before = q.clone(), k.clone()
    with forbidden_ops(
        *EINSUM.ops, reason="write it as one `@` with k's last dims swapped", aten=EINSUM.aten
    ):
        out = batched_scores(q, k)
    check_tensor(out, shape=out_shape, dtype=torch.float32, device=device, name="scores")
    expected = (q.cpu().double().unsqueeze(-2) * k.cpu().double().unsqueeze(-3)).sum(-1)
    assert_close(
        out.cpu().double(),
        expected,
        "out[..., t, s] should be the dot product of q[..., t, :] and k[..., s, :]",
        rtol=1e-4,
        atol=1e-4,
    )
    assert torch.equal(q, q_before) and torch.equal(k, k_before), "q and k must not be modified"


def test_batched_scores_of_non_contiguous_inputs(device):
    q = torch.randn(2, 4, 6, 3, device=device).transpose(1, 2)  # [2, 6, 4, 3]
    k = torch.randn(2, 5, 6, 3, device=device).transpose(1, 2)  # [2, 6, 5, 3]
    out = batched_scores(q, k)
    check_tensor(out, shape=(2, 6, 4, 5), dtype=torch.float32, device=device, name="scores")
    expected = (q.cpu().double().unsqueeze(-2) * k.cpu().double().unsqueeze(-3)).sum(-1)
    assert_close(
        out.cpu().double(),
        expected,
        "wrong for non-contiguous q and k: swap k's last two dims (k.mT), whatever the layout",
        rtol=1e-4,
        atol=1e-4,
    )


def test_batched_scores_builds_nothing_larger_than_its_operands(device):
    q, k = torch.randn(2, 5, 32, device=device), torch.randn(2, 6, 32, device=device)
    with largest_result() as record:
        out = batched_scores(q, k)
    check_tensor(out, shape=(2, 5, 6), dtype=torch.float32, device=device, name="scores")
    assert record.largest <= max(out.numel(), q.numel(), k.numel()), (
        f"a tensor of {record.largest} elements was built: that is the [..., T, S, D] tensor "
        "of all products; write one matrix product, q @ k.mT"
    )


# ---------------------------------------------------------------- every function


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bfloat16])
def test_every_function_keeps_the_input_dtype(device, dtype):
    skip_unless_supported(device, dtype)
    tolerance = (
        {"rtol": 1e-6, "atol": 1e-6} if dtype == torch.float64 else {"rtol": 0.05, "atol": 0.1}
    )
    x = torch.randn(6, 3, device=device).to(dtype)
    y = torch.randn(4, 3, device=device).to(dtype)
    q, k = (
        torch.randn(2, 5, 3, device=device).to(dtype),
        torch.randn(2, 4, 3, device=device).to(dtype),
    )
    results = {
        "pairwise_sq_dists": (dists(x, y), naive_sq_dists(x, y)),
        "standardize_columns": (standardize_columns(x), naive_standardize(x, 1e-5)),
        "batched_scores": (batched_scores(q, k), q.cpu().double() @ k.cpu().double().mT),
    }
    for name, (out, expected) in results.items():
        check_tensor(out, shape=expected.shape, dtype=dtype, device=device, name=name)
        assert_close(
            out.cpu().double(),
            expected,
            f"{name} is wrong for {dtype} inputs; compute in the input's dtype",
            **tolerance,
        )


# ---------------------------------------------------------------- to_patches, interleave_rows


def unfolded(images, patch):
    """The oracle: F.unfold's columns are the flattened squares, channel first."""
    return F.unfold(images.cpu().double(), patch, stride=patch).mT


def interleaved_by_loop(a, b):
    out = []
    for row_a, row_b in zip(a.cpu(), b.cpu(), strict=True):
        out += [row_a, row_b]
    return torch.stack(out) if out else a.cpu().new_empty((0, *a.shape[1:]))


@pytest.mark.parametrize(
    "shape, patch", [((2, 3, 4, 6), 2), ((1, 2, 6, 3), 3), ((2, 1, 5, 5), 1), ((1, 3, 4, 4), 4)]
)
@pytest.mark.parametrize("layout", ["contiguous", "channels_last"])
def test_to_patches_matches_unfold(device, shape, patch, layout):
    images = torch.randn(shape, device=device)
    if layout == "channels_last":
        images = images.contiguous(memory_format=torch.channels_last)
    with forbidden_ops(
        F.unfold,
        torch.Tensor.unfold,
        F.pixel_unshuffle,
        reason="rearrange with reshape and permute",
        aten=["im2col", "unfold", "pixel_unshuffle"],
    ):
        out = to_patches(images, patch)
    n, c, h, w = shape
    check_tensor(
        out,
        shape=(n, (h // patch) * (w // patch), c * patch * patch),
        dtype=images.dtype,
        device=device,
        name="to_patches(...)",
    )
    assert torch.equal(out.cpu().double(), unfolded(images, patch)), (
        "the patches hold the wrong pixels: split H and W into (grid, patch), then permute "
        "the two grid dims in front of the channels before merging (a reshape alone moves "
        "no element)"
    )


def test_to_patches_keeps_integer_images(device):
    images = torch.arange(2 * 2 * 4 * 4, device=device).reshape(2, 2, 4, 4).to(torch.uint8)
    out = to_patches(images, 2)
    check_tensor(out, shape=(2, 4, 8), dtype=torch.uint8, device=device, name="to_patches(...)")
    assert torch.equal(out.cpu().double(), unfolded(images.cpu().double(), 2))


# (3, 0): rows of no elements, where reshape(-1, *a.shape[1:]) cannot tell what -1 is.
@pytest.mark.parametrize("shape", [(4, 3), (3,), (2, 3, 2), (0, 5), (3, 0), (2, 0, 4)])
def test_interleave_rows_alternates_a_and_b(device, shape):
    a = torch.arange(math.prod(shape), device=device).reshape(shape)
    b = -1 - a
    out = interleave_rows(a, b)
    check_tensor(
        out,
        shape=(2 * shape[0], *shape[1:]),
        dtype=a.dtype,
        device=device,
        name="interleave_rows(a, b)",
    )
    assert torch.equal(out.cpu(), interleaved_by_loop(a, b)), (
        "rows go a[0], b[0], a[1], b[1], ...: torch.cat((a, b)) puts all of a first; stack "
        "on a new dim 1, then merge it with dim 0"
    )


@pytest.mark.parametrize("function", ["to_patches", "interleave_rows"])
def test_rearranging_without_python_loops(device, function):
    def randn(*shape):
        return torch.randn(shape, device=device)

    cases = {
        "to_patches": (
            to_patches,
            lambda n: (randn(n, n, 2 * n, 2 * n), 2),
            "images, channels and squares",
        ),
        "interleave_rows": (
            interleave_rows,
            lambda n: (randn(n, n), randn(n, n)),
            "rows and columns",
        ),
    }
    func, inputs, over = cases[function]
    assert_no_python_loops(func, inputs, over=over)


# ---------------------------------------------------------------- facets

# Distances by the identity cancel: a few units of the dtype's precision of |x|^2 (about 4).
CANCEL = {torch.float16: 16 * 2.0**-10, torch.bfloat16: 16 * 2.0**-7, torch.float32: 1e-5}


def points(dtype, device, n=5, m=4, d=3):
    grid = torch.linspace(-1, 1, (n + m) * d, dtype=torch.float64).reshape(n + m, d)
    grid = grid.to(dtype=dtype, device=device)
    return facets.args(grid[:n].clone(), grid[n:].flip(0).clone())


def columns(dtype, device):
    x = torch.linspace(-2, 3, 24, dtype=torch.float64).reshape(6, 4) ** 2
    # The last column's variance is of eps's order, so eps rounded to float32 (a tensor made
    # of it in the default dtype) shows in the float64 case.
    x[:, -1] *= 0.03
    return facets.args(x.to(dtype=dtype, device=device), eps=1e-3)


def queries(dtype, device):
    q = torch.linspace(-1, 1, 2 * 3 * 4, dtype=torch.float64).reshape(2, 3, 4)
    k = torch.linspace(1, -1, 5 * 4, dtype=torch.float64).reshape(5, 4)
    return facets.args(q.to(dtype=dtype, device=device), k.to(dtype=dtype, device=device))


def by_shape(shape, device):
    """x [N, D] and y [M, D] from one named shape [N, D]: y the rows of x reversed."""
    if len(shape) < 2:
        shape = (*shape, 1) if shape else (1, 1)
    x = torch.linspace(-1, 1, torch.Size(shape).numel()).reshape(shape).to(device)
    return facets.args(x, x.flip(0))


def standardize64(x, eps):
    return (x - x.mean(0)) / (x.var(0, unbiased=False) + eps).sqrt()


def image_batch(dtype, device):
    return (
        torch.linspace(-3, 3, 2 * 3 * 4 * 6, dtype=torch.float64)
        .reshape(2, 3, 4, 6)
        .to(device, dtype)
    )


def row_pair(dtype, device):
    a = torch.linspace(-2, 2, 12, dtype=torch.float64).reshape(4, 3)
    return facets.args(a.to(device, dtype), (a * 3 + 1).to(device, dtype))


FACETS = facets.declare(
    facets.of(
        pairwise_sq_dists,
        facets.Dtypes(points, oracle=naive_sq_dists, ulps=4, atol=CANCEL),
        facets.Shapes(
            by_shape, oracle=naive_sq_dists, shapes=("empty", "2-D", "size 1", "non-contiguous")
        ),
        facets.Unmodified(lambda device: points(torch.float32, device)),
    ),
    facets.of(
        standardize_columns,
        facets.Dtypes(columns, oracle=standardize64, ulps=8, atol=CANCEL),
        facets.Unmodified(lambda device: columns(torch.float32, device)),
        facets.Defaults(values={"eps": 1e-5}),
        # eps > 0: a constant column, and every column of one row, comes out as zeros.
        facets.Edges(
            {
                "a constant column": lambda device: facets.args(
                    torch.tensor([[3.0, 1.0], [3.0, 2.0], [3.0, 4.0]], device=device), eps=1e-5
                ),
                "one row (N = 1)": lambda device: facets.args(
                    torch.tensor([[1e4, -2.0, 0.5]], device=device), eps=1e-5
                ),
            },
            oracle=standardize64,
        ),
    ),
    facets.of(
        batched_scores,
        facets.Dtypes(queries, oracle=lambda q, k: q @ k.mT, ulps=4),
        facets.Edges(
            {
                "one query, one key, one feature (size 1)": lambda device: facets.args(
                    torch.full((1, 1, 1), 2.0, device=device),
                    torch.full((1, 1), -3.0, device=device),
                ),
            },
            oracle=lambda q, k: q @ k.mT,
        ),
        facets.Unmodified(lambda device: queries(torch.float32, device)),
    ),
    facets.of(
        to_patches,
        facets.Dtypes(
            lambda dtype, device: facets.args(image_batch(dtype, device), 2),
            oracle=unfolded,
            once=True,  # values moved, never computed: exact in every dtype
        ),
        facets.Unmodified(lambda device: facets.args(image_batch(torch.float32, device), 2)),
        facets.Edges(
            {
                "one image, one channel, one patch of one pixel (size 1)": lambda device: (
                    facets.args(torch.full((1, 1, 1, 1), 2.0, device=device), 1)
                ),
            },
            oracle=unfolded,
        ),
    ),
    facets.of(
        interleave_rows,
        facets.Dtypes(row_pair, oracle=interleaved_by_loop, once=True),
        facets.Edges(
            {
                "an empty input (N = 0)": lambda device: facets.args(
                    torch.randn((0, 3), device=device), torch.randn((0, 3), device=device)
                ),
                "one row of one value (size 1)": lambda device: facets.args(
                    torch.full((1, 1), 2.0, device=device), torch.full((1, 1), -1.0, device=device)
                ),
            },
            oracle=interleaved_by_loop,
        ),
        facets.Unmodified(lambda device: row_pair(torch.float32, device)),
    ),
)
test_facets = FACETS.test
