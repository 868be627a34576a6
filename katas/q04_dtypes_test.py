import math
import warnings

import pytest
import torch
from torch.overrides import TorchFunctionMode

from katas.q04_dtypes import nbytes, result_dtype, safe_mean, time_bucket
from torch_katas import facets
from torch_katas.testing import (
    assert_close,
    assert_no_torch_internals,
    check_tensor,
    default_dtype,
    every_dtype,
    forbidden_calls,
    forbidden_ops,
    largest_result,
    raises,
    skip_unless_supported,
)

DTYPES = [
    torch.float64,
    torch.float32,
    torch.float16,
    torch.bfloat16,
    torch.int64,
    torch.int32,
    torch.int16,
    torch.int8,
    torch.uint8,
    torch.bool,
    torch.complex64,
    torch.complex128,
]


# ---------------------------------------------------------------- nbytes


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(3, 5), (), (0, 4), (2, 3, 4)], ids=str)
def test_nbytes_matches_a_real_tensor(device, dtype, shape):
    result = nbytes(shape, dtype)
    expected = torch.empty(shape, dtype=dtype, device="meta").nbytes  # meta: no memory used
    assert type(result) is int, f"nbytes must return a Python int, got {type(result).__name__}"
    assert result == expected, f"a {dtype} tensor of shape {shape} holds {expected} bytes"


# Every dtype torch has, the exotic ones included (float8, uint16, complex32, int4, qint8, ...).
EVERY_DTYPE = every_dtype()


@pytest.mark.parametrize("dtype", EVERY_DTYPE, ids=str)
def test_nbytes_of_every_torch_dtype(device, dtype):
    with warnings.catch_warnings():  # torch warns that complex32 and quantized are experimental
        warnings.simplefilter("ignore")
        expected = torch.empty((2, 3), dtype=dtype, device="meta").nbytes
    assert nbytes((2, 3), dtype) == expected, (
        f"a {dtype} tensor of shape (2, 3) holds {expected} bytes: "
        "ask the dtype for its element size rather than listing dtypes"
    )


def test_nbytes_of_a_torch_size(device):
    size = torch.zeros(4, 6, device=device).shape
    assert nbytes(size, torch.float32) == 96


@pytest.mark.parametrize(
    "dtype, expected",
    [(torch.float64, 8 * 10**16), (torch.bfloat16, 2 * 10**16), (torch.bool, 10**16)],
    ids=str,
)
# 10**16 elements is far beyond any machine's memory; 10**20 and 2**64 are beyond int64 too,
# where a product in NumPy or torch.Size wraps silently.
# (10**9 + 7) * (10**9 + 9) and 3**40 have more digits than a float64 holds: a product
# taken in floating point loses the last ones.
@pytest.mark.parametrize(
    "shape",
    [
        (10**8, 10**8),
        (10**10, 10**10),
        (2**32, 2**32),
        (2**62, 4),
        (10**9 + 7, 10**9 + 9),
        (3**40,),
    ],
    ids=str,
)
def test_nbytes_of_a_tensor_too_big_to_allocate(device, dtype, expected, shape):
    expected = expected // 10**16 * math.prod(shape)  # bytes per element times elements
    result = nbytes(shape, dtype)
    assert result == expected, (
        f"expected {expected} bytes for a {dtype} tensor of shape {shape}, got {result}; "
        "compute it from the shape and the dtype's element size, do not build the tensor"
    )


# ---------------------------------------------------------------- safe_mean


@pytest.mark.parametrize("dim", [None, 0, 1, -1], ids=str)
def test_safe_mean_of_float16_values_whose_sum_overflows(device, dim):
    # Every row sums to 150 * 600 = 90000 > 65504, the largest float16.
    x = torch.full((3, 600), 200.0, dtype=torch.float16, device=device)
    x[:, ::2] = 100.0  # the mean is 150, exactly representable in float16
    result = safe_mean(x, dim)
    shape = {None: (), 0: (600,), 1: (3,), -1: (3,)}[dim]
    check_tensor(result, shape=shape, dtype=torch.float16, device=device, name="safe_mean(x)")
    assert torch.isfinite(result).all(), (
        "the float16 mean came out inf: a float16 sum above 65504 overflows; accumulate in "
        "float32 and convert the mean back to float16"
    )
    exact = x.cpu().double()  # on the CPU: MPS has no float64
    expected = exact.mean() if dim is None else exact.mean(dim)
    assert_close(
        result.cpu().double(),
        expected,
        "wrong float16 mean: accumulate in float32, convert the mean back to float16",
        rtol=1e-3,
        atol=0,
    )


def test_safe_mean_of_float16_values_near_the_top_of_the_range(device):
    x = torch.tensor([65504.0, 56544.0, 65504.0, 56544.0], dtype=torch.float16, device=device)
    result = safe_mean(x)
    check_tensor(result, shape=(), dtype=torch.float16, device=device, name="safe_mean(x)")
    assert result.item() == 61024.0, f"the mean of these four values is 61024, got {result.item()}"


def test_safe_mean_of_bfloat16_rounds_only_once(device):
    # 16 rows of 1000 small integers each: exact in bfloat16 and their float32 sums are
    # exact too, so the right answer is the exact mean rounded once to bfloat16. A
    # bfloat16 sum (about 3000, in steps of 16) is already rounded before the division.
    n = 1000
    values = (
        torch.arange(n, device=device) * 37 + torch.arange(16, device=device)[:, None] * 11
    ) % 7
    x = values.to(torch.bfloat16)
    result = safe_mean(x, dim=1)
    check_tensor(result, shape=(16,), dtype=torch.bfloat16, device=device, name="safe_mean(x, 1)")
    expected = (values.sum(1).cpu().double() / n).to(torch.bfloat16)
    assert_close(
        result.cpu(),
        expected.cpu(),
        "the bfloat16 means are off by a bfloat16 step: the sum was rounded to bfloat16 "
        "before dividing; accumulate and divide in float32, round once at the end",
        rtol=0,
        atol=0,
    )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("dim", [None, 0, 2, -2], ids=str)
def test_safe_mean_of_float32_and_float64(device, dtype, dim):
    skip_unless_supported(device, dtype)
    x = torch.randn(4, 5, 6, dtype=dtype, device=device)
    x_before = x.clone()
    result = safe_mean(x, dim)
    exact = x.cpu().double()  # on the CPU: MPS has no float64
    expected = exact.mean() if dim is None else exact.mean(dim)
    check_tensor(result, shape=expected.shape, dtype=dtype, device=device, name="safe_mean(x)")
    # Compare in x's dtype: float32 tolerances for float32 (summation order differs by device).
    assert_close(result.cpu(), expected.to(dtype), f"wrong mean of a {dtype} tensor")
    assert torch.equal(x, x_before), "x must not be modified"


def test_safe_mean_keeps_float64_precision(device):
    skip_unless_supported(device, torch.float64)
    # Differences of 1e-12 around 1: float64 holds them, float32 rounds them all to 1.
    x = 1 + 1e-12 * torch.arange(8, dtype=torch.float64, device=device)
    result = safe_mean(x)
    check_tensor(result, shape=(), dtype=torch.float64, device=device, name="safe_mean(x)")
    assert_close(
        result.cpu(),
        torch.tensor(1 + 3.5e-12, dtype=torch.float64),
        "the float64 mean lost its low digits: average float64 (and float32) as they are, "
        "only float16 and bfloat16 go through float32",
        rtol=0,
        atol=1e-15,
    )


@pytest.mark.parametrize("value", [1e5, 1e30, 1e-6, 1e-30], ids=str)
def test_safe_mean_of_bfloat16_beyond_float16s_range(device, value):
    # bfloat16 has float32's range: float16 (max 65504, smallest normal 6e-5) is no place to
    # accumulate it, whatever its longer mantissa.
    x = torch.full((64,), value, device=device).to(torch.bfloat16)
    result = safe_mean(x)
    check_tensor(result, shape=(), dtype=torch.bfloat16, device=device, name="safe_mean(x)")
    assert result.item() == x[0].item(), (
        f"the mean of 64 equal bfloat16 values {x[0].item():g} is that value, got "
        f"{result.item():g}: accumulate bfloat16 in float32 (float16 has too small a range)"
    )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=str)
def test_safe_mean_of_nan_is_nan(device, dtype):
    x = torch.tensor([[1.0, math.nan, 3.0], [1.0, 2.0, 3.0]], device=device).to(dtype)
    result = safe_mean(x, dim=1)
    check_tensor(result, shape=(2,), dtype=dtype, device=device, name="safe_mean(x, 1)")
    assert math.isnan(result[0].item()) and result[1].item() == 2.0, (
        f"the mean of [1, nan, 3] is nan (and of [1, 2, 3] is 2), got {result.tolist()}: "
        "a mean does not skip NaN (that is nanmean)"
    )
    assert math.isnan(safe_mean(x).item()), "the mean of a tensor holding a NaN is nan"


@pytest.mark.parametrize(
    "shape, dim, expected",
    [((1, 5), 1, (1,)), ((5, 1), 0, (1,)), ((1, 4, 1), -2, (1, 1)), ((1, 1), None, ())],
    ids=str,
)
def test_safe_mean_keeps_every_other_dim_of_size_1(device, shape, dim, expected):
    x = torch.arange(torch.Size(shape).numel(), device=device).reshape(shape).to(torch.float16)
    result = safe_mean(x, dim)
    check_tensor(result, shape=expected, dtype=torch.float16, device=device, name="safe_mean")


class _DtypesMade(TorchFunctionMode):
    """The dtypes of the tensors that torch functions return inside the block."""

    def __init__(self):
        super().__init__()
        self.seen = set()

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for item in out if isinstance(out, (tuple, list)) else (out,):
            if isinstance(item, torch.Tensor):
                self.seen.add(item.dtype)
        return out


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=str)
def test_safe_mean_makes_no_float64(device, dtype):
    x = torch.linspace(-3, 3, 60, device=device).reshape(6, 10).to(dtype)
    with _DtypesMade() as made:
        safe_mean(x)
        safe_mean(x, 1)
    assert torch.float64 not in made.seen, (
        f"safe_mean of {dtype} made a float64 tensor: MPS has no float64; float32 is averaged "
        "as it is, float16 and bfloat16 in float32"
    )


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_safe_mean_keeps_the_low_precision_dtype_and_leaves_x_alone(device, dtype):
    x = torch.randn(6, 7, device=device).to(dtype)
    x_before = x.clone()
    result = safe_mean(x, 0)
    check_tensor(result, shape=(7,), dtype=dtype, device=device, name="safe_mean(x, 0)")
    assert_close(
        result.cpu().double(),
        x.cpu().double().mean(0),
        f"wrong {dtype} mean over dim 0",
        rtol=1e-2,
        atol=1e-3,
    )
    assert torch.equal(x, x_before), "x must not be modified; .float() makes a new tensor"


# ---------------------------------------------------------------- time_bucket


def floor_div(values, width):
    return [value // width for value in values]  # Python ints: exact, rounding down


@pytest.mark.parametrize("width", [1, 3, 10, 60])
@pytest.mark.parametrize("dtype", [torch.int64, torch.int32], ids=str)
def test_time_bucket_rounds_down_and_keeps_the_integer_dtype(device, width, dtype):
    values = [-121, -61, -60, -59, -11, -10, -9, -1, 0, 1, 9, 10, 11, 59, 60, 61, 3599, 3600]
    timestamps = torch.tensor(values, dtype=dtype, device=device)
    result = time_bucket(timestamps, width)
    check_tensor(result, shape=(len(values),), dtype=dtype, device=device, name="buckets")
    assert result.tolist() == floor_div(values, width), (
        f"with width {width} bucket k holds [k * width, (k + 1) * width): negative times "
        "round down (floor), not toward zero"
    )
    assert timestamps.tolist() == values, "timestamps must not be modified"


@pytest.mark.parametrize("dtype", [torch.int16, torch.int8, torch.uint8], ids=str)
def test_time_bucket_takes_every_integer_dtype(device, dtype):
    values = [0, 1, 9, 10, 11, 99, 100, 127] + ([] if dtype == torch.uint8 else [-1, -11, -128])
    timestamps = torch.tensor(values, dtype=dtype, device=device)
    result = time_bucket(timestamps, 10)
    check_tensor(result, shape=(len(values),), dtype=dtype, device=device, name="buckets")
    assert result.tolist() == floor_div(values, 10), (
        f"wrong buckets for {dtype} timestamps: every integer dtype is accepted and kept; "
        "test for integers by what the dtype is not (floating, complex, bool), not by a list "
        "of two or three integer dtypes"
    )


@pytest.mark.parametrize(
    "dtype", [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8], ids=str
)
def test_time_bucket_with_a_width_beyond_the_dtypes_range(device, dtype):
    info = torch.iinfo(dtype)
    candidates = {info.min, info.min + 1, -5, -1, 0, 1, 5, info.max}
    values = sorted(value for value in candidates if info.min <= value <= info.max)
    timestamps = torch.tensor(values, dtype=dtype, device=device)
    for width in (info.max, info.max + 1, 1000, 2**40, 2**63, 2**70):
        result = time_bucket(timestamps, width)
        check_tensor(result, shape=(len(values),), dtype=dtype, device=device, name="buckets")
        assert result.tolist() == floor_div(values, width), (
            f"{dtype} timestamps with width {width}: the bucket is floor(t / width) even when "
            "the width does not fit the dtype (then every t is in bucket 0, or -1 before the "
            "epoch); torch converts a Python number to the tensor's dtype, where it wraps"
        )


def test_time_bucket_is_exact_for_nanosecond_timestamps(device):
    values = [1_700_000_000_123_456_789, 1_700_000_000_999_999_999, -1_234_567_890_123_456_789]
    timestamps = torch.tensor(values, device=device).reshape(3, 1)
    result = time_bucket(timestamps, 1000)
    check_tensor(result, shape=(3, 1), dtype=torch.int64, device=device, name="buckets")
    assert result.flatten().tolist() == floor_div(values, 1000), (
        "large int64 timestamps were bucketed inexactly: a float64 has 53 significant bits "
        "(float32 only 24), so dividing with `/` loses the low digits; divide in int64"
    )


def test_time_bucket_of_empty_and_0_dim_tensors(device):
    empty = time_bucket(torch.zeros(0, 3, dtype=torch.int64, device=device), 5)
    scalar = time_bucket(torch.tensor(-7, device=device), 5)
    check_tensor(empty, shape=(0, 3), dtype=torch.int64, device=device, name="empty buckets")
    check_tensor(scalar, shape=(), dtype=torch.int64, device=device, name="0-dim bucket")
    assert scalar.item() == -2


@pytest.mark.parametrize("width", [0, -10])
def test_time_bucket_rejects_a_width_below_1(device, width):
    with raises(ValueError):
        time_bucket(torch.arange(5, device=device), width)


@pytest.mark.parametrize(
    "dtype",
    [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.bool, torch.complex64],
    ids=str,
)
@pytest.mark.parametrize("size", [4, 0], ids=["values", "empty"])
def test_time_bucket_rejects_a_non_integer_tensor(device, dtype, size):
    skip_unless_supported(device, dtype)
    with raises(TypeError):
        time_bucket(torch.ones(size, device=device).to(dtype), 2)


PROMOTED = [
    torch.bool,
    torch.uint8,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
]


def operands(device):
    """Tensors with dimensions and a 0-dim tensor of every dtype, then Python numbers. Those
    with dimensions have one element too: their rank is their dimensions, not their number
    of elements (a [1] tensor is no scalar)."""
    tensors = []
    for shape in [(2,), (1,), (1, 1), ()]:
        for dtype in PROMOTED:
            try:
                tensors.append(torch.ones(shape, dtype=dtype, device=device))
            except (TypeError, RuntimeError):  # a dtype the device lacks (MPS: float64)
                continue
    return [*tensors, True, 3, 2.5]


def describe(operand):
    if isinstance(operand, torch.Tensor):
        kind = "0-dim tensor" if operand.dim() == 0 else f"{list(operand.shape)} tensor"
        return f"{kind} of {str(operand.dtype).removeprefix('torch.')}"
    return f"Python {type(operand).__name__} {operand!r}"


# The operators that would compute the dtype instead of reasoning it out: arithmetic on the
# operands, and the tensors made to do it on (a size-0 one allocates nothing).
COMPUTING = [
    "add",
    "sub",
    "mul",
    "div",
    "true_divide",
    "floor_divide",
    "result_type",
    "empty",
    "zeros",
    "ones",
    "full",
    "scalar_tensor",
    "lift_fresh",
    "_to_copy",
    "empty_like",
    "zeros_like",
    "ones_like",
    "full_like",
    "new_empty",
    "new_zeros",
    "new_ones",
    "new_full",
    "empty_strided",
]


@pytest.mark.parametrize("default", [torch.float32, torch.float64])
@pytest.mark.parametrize("divide", [False, True], ids=["add", "divide"])
def test_result_dtype_agrees_with_torch(device, default, divide):
    wrong = []
    with default_dtype(default):
        every = operands(device)
        for a in every:
            for b in every:
                if not isinstance(a, torch.Tensor) and not isinstance(b, torch.Tensor):
                    continue
                got = result_dtype(a, b, divide=divide)
                expected = (a / b if divide else a + b).dtype
                if got != expected:
                    wrong.append(
                        f"{describe(a)} {'/' if divide else '+'} {describe(b)}: "
                        f"{expected}, not {got}"
                    )
    assert not wrong, (
        f"under the default dtype {default}, {len(wrong)} results are wrong, e.g.\n"
        + "\n".join(wrong[:6])
    )


def test_result_dtype_reasons_instead_of_computing(device):
    cases = [
        (torch.ones(2, dtype=torch.int32, device=device), 2.5),
        (
            torch.ones((), dtype=torch.float64, device=device),
            torch.ones(2, dtype=torch.uint8, device=device),
        ),
        (
            torch.ones(2, dtype=torch.uint8, device=device),
            torch.ones(2, dtype=torch.int8, device=device),
        ),
    ]
    expected = [torch.get_default_dtype(), torch.float64, torch.int16]
    reason = "the kata asks for torch's promotion rules, reasoned out on the dtypes"
    # torch's private modules (torch._prims_common) hold promotion tables of their own.
    assert_no_torch_internals(result_dtype, reason=reason)
    with (
        largest_result() as record,
        forbidden_ops(torch.result_type, reason=reason, aten=COMPUTING),
        forbidden_calls(
            (torch, "result_type"),
            (torch, "promote_types"),
            (torch, "can_cast"),
            reason=reason,
        ),
    ):
        got = [result_dtype(a, b) for a, b in cases]
    assert not record.allocated, f"no tensor is made to work out a dtype: {reason}"
    assert got == expected, f"expected {expected}, got {got}"


# ---------------------------------------------------------------- facets


def spread(shape, dtype, device):
    """Values up to 200 whose float16 sum overflows: the mean is not."""
    count = max(1, torch.Size(shape).numel())
    values = torch.linspace(1.0, 200.0, count, dtype=torch.float64).reshape(shape)
    return values.to(dtype=dtype, device=device)


def tiny(shape, dtype, device):
    """Values from the dtype's smallest normal number to twice it: each one divided by the
    count before the sum (x / n) falls below the dtype's range, the mean does not."""
    count = torch.Size(shape).numel()
    values = torch.linspace(1.0, 2.0, count, dtype=torch.float64) * torch.finfo(dtype).tiny
    return values.reshape(shape).to(dtype=dtype, device=device)


def timestamps(dtype, device):
    info = torch.iinfo(dtype)
    values = [0, 9, 10, 999, 1000, 1001, min(info.max, 2**63 - 1)]
    if info.min < 0:
        values += [-1, -11, -1000, -1001, info.min]
    return torch.tensor(values, dtype=torch.int64).to(dtype=dtype, device=device)


def floor_div_oracle(stamps, width):
    return torch.tensor([t // width for t in stamps.tolist()])


# The integer dtypes time_bucket's contract covers.
COVERED = (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8)

FACETS = facets.declare(
    facets.of(
        nbytes,
        facets.Number(lambda device: facets.args(torch.zeros(2, 3).shape, torch.int8), int),
        facets.Edges(
            {
                "a single element ()": lambda device: facets.args((), torch.float64),
                "an empty shape (0, 3)": lambda device: facets.args((0, 3), torch.int32),
            },
            oracle=lambda shape, dtype: torch.zeros(shape, dtype=dtype).nbytes,
        ),
    ),
    facets.of(
        safe_mean,
        facets.Dtypes(
            lambda dtype, device: facets.args(spread((3, 600), dtype, device)),
            oracle=lambda x: x.mean(),
            once=True,
        ),
        facets.Dtypes(
            lambda dtype, device: facets.args(spread((3, 600), dtype, device), dim=-1),
            oracle=lambda x, dim: x.mean(dim),
            once=True,
            label="dim",
        ),
        facets.Dtypes(
            lambda dtype, device: facets.args(tiny((3, 600), dtype, device)),
            oracle=lambda x: x.mean(),
            atol=0.0,  # the values are near 0 by nature: compare them relatively
            once=True,
            label="tiny",
        ),
        facets.Shapes(
            lambda shape, device: facets.args(spread(shape, torch.float32, device)),
            oracle=lambda x: x.mean(),
            shapes=("0-dim", "1-D", "2-D", "size 1", "non-contiguous"),
        ),
        facets.Unmodified(lambda device: facets.args(spread((4, 5), torch.float16, device), 0)),
        facets.Defaults(values={"dim": None}),
    ),
    facets.of(
        time_bucket,
        facets.Dtypes(
            lambda dtype, device: facets.args(timestamps(dtype, device), 7),
            oracle=floor_div_oracle,
            dtypes=COVERED,
        ),
        facets.Dtypes(
            lambda dtype, device: facets.args(timestamps(dtype, device), 1000),
            oracle=floor_div_oracle,
            dtypes=COVERED,
            label="wide",
        ),
        facets.Shapes(
            lambda shape, device: facets.args(
                torch.arange(-30, -30 + torch.Size(shape).numel(), device=device).reshape(shape),
                7,
            ),
            oracle=lambda stamps, width: floor_div_oracle(stamps.flatten(), width).reshape(
                stamps.shape
            ),
        ),
        facets.Setting(
            lambda device: facets.args(torch.arange(-5, 5, device=device), width=3),
            "width",
            low=1,
            integer=True,
        ),
        facets.Unmodified(lambda device: facets.args(torch.arange(-5, 5, device=device), 3)),
        facets.Returns(
            lambda device: facets.args(torch.arange(-6, 6, device=device).reshape(3, 4), 1)
        ),
    ),
    facets.of(
        result_dtype,
        facets.Defaults(
            lambda device: facets.args(torch.ones(2, dtype=torch.int32, device=device), 2),
            values={"divide": False},
        ),
        facets.Unmodified(
            lambda device: facets.args(
                torch.ones(2, dtype=torch.int32, device=device), torch.tensor(1.5, device=device)
            )
        ),
    ),
)
test_facets = FACETS.test
