import math

import numpy as np
import pytest
import torch

from katas.q35_tensor_creation import as_tensor_shared, from_data, scalar_like, zeros_for
from torch_katas import facets
from torch_katas.testing import (
    assert_close,
    check_tensor,
    default_dtype,
    same_device,
    skip_unless_supported,
)

DEFAULT = "default float dtype"


def shares_memory(a, b):
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


# ---------------------------------------------------------------- from_data


@pytest.mark.parametrize(
    "data, dtype, shape",
    [
        ([0, 2, 1, 1], torch.int64, (4,)),
        ((3, 4), torch.int64, (2,)),
        ([[1, 2, 3], [4, 5, 6]], torch.int64, (2, 3)),
        ([[1.5, 2.0]], DEFAULT, (1, 2)),
        ([1, 2.5], DEFAULT, (2,)),
        ([True, False], torch.bool, (2,)),
        ([], DEFAULT, (0,)),
        (3, torch.int64, ()),
        (2.5, DEFAULT, ()),
        (True, torch.bool, ()),
    ],
    ids=repr,
)
def test_from_data_infers_dtype_and_shape(device, data, dtype, shape):
    result = from_data(data, device)
    dtype = torch.get_default_dtype() if dtype == DEFAULT else dtype
    check_tensor(result, shape=shape, device=device, name=f"from_data({data!r})")
    assert result.dtype == dtype, (
        f"from_data({data!r}) should have dtype {dtype} (inferred from the data), got "
        f"{result.dtype}; torch.Tensor(...) always makes the default float dtype, "
        "torch.tensor(...) infers"
    )
    assert result.tolist() == (list(data) if isinstance(data, tuple) else data), (
        f"from_data({data!r}) holds {result.tolist()}; a number must become a 0-dim tensor "
        "holding that number (torch.Tensor(3) is three uninitialised values)"
    )


def test_from_data_of_labels_works_as_cross_entropy_targets(device):
    labels = from_data([0, 2, 1], device)
    logits = torch.zeros(3, 4, device=device)
    check_tensor(labels, shape=(3,), dtype=torch.int64, device=device, name="labels")
    loss = torch.nn.functional.cross_entropy(logits, labels)
    assert_close(loss.cpu(), torch.tensor(4.0).log(), "labels must be int64 class indices")


@pytest.mark.parametrize("make", [from_data, as_tensor_shared], ids=lambda f: f.__name__)
def test_python_floats_follow_the_default_float_dtype(device, make):
    skip_unless_supported(device, torch.float64)
    with default_dtype(torch.float64):
        floats, ints = make([0.5, 1.5], device=device), make([1, 2], device=device)
        number = make(0.1, device=device)
    name = make.__name__
    advice = "Python floats take torch.get_default_dtype(), here float64"
    check_tensor(floats, shape=(2,), dtype=torch.float64, device=device, name=f"{name}(floats)")
    check_tensor(ints, shape=(2,), dtype=torch.int64, device=device, name=f"{name}(ints)")
    check_tensor(number, shape=(), dtype=torch.float64, device=device, name=f"{name}(0.1)")
    assert number.item() == 0.1, f"{name}(0.1) holds {number.item()!r}: {advice}"


@pytest.mark.parametrize("np_dtype", [np.int32, np.float64, np.uint8], ids=lambda d: d.__name__)
def test_from_data_copies_a_numpy_array_and_keeps_its_dtype(device, np_dtype):
    skip_unless_supported(device, torch.from_numpy(np.zeros(1, np_dtype)).dtype)
    array = np.arange(6).reshape(2, 3).astype(np_dtype)
    result = from_data(array, device)
    check_tensor(result, shape=(2, 3), dtype=torch.from_numpy(array).dtype, device=device)
    array[0, 0] = 42
    assert result[0, 0].item() == 0, (
        "from_data must copy: changing the array afterwards changed the tensor "
        "(torch.as_tensor and torch.from_numpy share a CPU array's memory; torch.tensor copies)"
    )


# ---------------------------------------------------------------- as_tensor_shared


def test_as_tensor_shared_returns_a_matching_tensor_without_copying(device):
    t = torch.arange(6, device=device).reshape(2, 3)
    for result in (as_tensor_shared(t), as_tensor_shared(t, torch.int64, device)):
        check_tensor(result, shape=(2, 3), dtype=torch.int64, device=device, name="result")
        assert shares_memory(result, t), (
            "t already has the requested dtype and device: return it (or a view), no copy"
        )
    result[0, 0] = -5
    assert t[0, 0].item() == -5, "a tensor that needs no conversion must share memory"


def test_as_tensor_shared_keeps_a_tensor_attached_to_autograd(device):
    skip_unless_supported(device, torch.float64)
    t = torch.arange(3.0, device=device, requires_grad=True)
    same, converted = as_tensor_shared(t), as_tensor_shared(t, dtype=torch.float64)
    assert same.requires_grad and converted.requires_grad, (
        "a tensor that requires grad stays attached, as torch.as_tensor leaves it: do not detach it"
    )
    (same.sum() + converted.sum()).backward()
    assert t.grad is not None and t.grad.tolist() == [2.0, 2.0, 2.0], (
        f"gradients should reach data through both results, got {t.grad}"
    )


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.bool], ids=str)
def test_as_tensor_shared_converts_when_the_dtype_differs(device, dtype):
    t = torch.arange(4, device=device)
    result = as_tensor_shared(t, dtype=dtype)
    check_tensor(result, shape=(4,), dtype=dtype, device=device, name="converted tensor")
    assert result.tolist() == t.to(dtype).tolist()
    assert t.dtype == torch.int64 and t.tolist() == [0, 1, 2, 3], "t must not be modified"


def test_as_tensor_shared_moves_a_cpu_tensor_to_the_device(device):
    cpu = torch.arange(3.0)
    result = as_tensor_shared(cpu, device=device)
    check_tensor(result, shape=(3,), dtype=torch.float32, device=device, name="result")
    assert result.tolist() == [0.0, 1.0, 2.0]
    if device.type == "cpu":
        assert shares_memory(result, cpu), "no conversion needed on the CPU: do not copy"


def test_as_tensor_shared_of_a_numpy_array(device):
    array = np.arange(4, dtype=np.float32)
    result = as_tensor_shared(array, device=device)
    check_tensor(result, shape=(4,), dtype=torch.float32, device=device, name="result")
    array[1] = 10.0
    expected = 10.0 if device.type == "cpu" else 1.0
    assert result[1].item() == expected, (
        "a CPU array of the right dtype must be shared on the CPU (and copied to any other device)"
    )


@pytest.mark.parametrize("dtype", [None, torch.float32], ids=str)
def test_as_tensor_shared_shares_a_matching_array_and_strided_views(device, dtype):
    array = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = torch.arange(12.0, device=device).reshape(3, 4)
    cases = {"a CPU array": array, "a transposed array (array.T)": array.T, "t.T": t.T}
    results = {what: as_tensor_shared(data, dtype, device) for what, data in cases.items()}
    for what, result in results.items():
        data = cases[what]
        check_tensor(result, dtype=torch.float32, device=device, name=f"the result for {what}")
        assert result.tolist() == data.tolist()
        if isinstance(data, np.ndarray):
            if device.type != "cpu":
                continue  # an array must be copied to another device
            shared = np.shares_memory(result.numpy(), data)
        else:
            shared = shares_memory(result, t)
        assert shared, (
            f"{what} with dtype={dtype} already has the dtype and device asked for: the result "
            "must share its memory (torch.as_tensor does), also when the dtype is given and "
            "when the data is a strided view (no .contiguous() or np.ascontiguousarray)"
        )


@pytest.mark.parametrize(
    "data, dtype, expected",
    [
        ([1, 2], None, torch.int64),
        ([1, 2], torch.float16, torch.float16),
        (0.5, None, None),
        # Straight to the dtype asked for: through float32 first, 0.1 and 2**24 + 1 change.
        (0.1, torch.float64, torch.float64),
        ([1.5, 2**24 + 1], torch.float64, torch.float64),
    ],
    ids=repr,
)
def test_as_tensor_shared_of_python_data(device, data, dtype, expected):
    skip_unless_supported(device, dtype or torch.float32)
    result = as_tensor_shared(data, dtype=dtype, device=device)
    expected = expected or torch.get_default_dtype()
    check_tensor(result, dtype=expected, device=device, name=f"as_tensor_shared({data!r})")
    assert result.tolist() == data, (
        f"as_tensor_shared({data!r}, dtype={dtype}) holds {result.tolist()!r}: convert Python "
        "data to the dtype asked for directly (torch.as_tensor(data, dtype=dtype)), not "
        "through the default float dtype and .to(dtype) after"
    )


# ---------------------------------------------------------------- zeros_for


def dirty_memory(shape, dtypes, device):
    """Allocate and free blocks of this size filled with NaN (7 for an integer dtype), so
    that memory handed out next (without initialising it) is likely to hold them: NaN
    stays NaN when multiplied by 0, so `torch.empty(...) * 0` is no zeroing either."""
    for dtype in dtypes:
        junk = torch.full(
            shape, math.nan if dtype.is_floating_point else 7, dtype=dtype, device=device
        )
        del junk


@pytest.mark.parametrize(
    "dtype", [torch.float32, torch.float64, torch.int64, torch.float16], ids=str
)
def test_zeros_for_returns_zeros_even_in_reused_memory(device, dtype):
    skip_unless_supported(device, dtype)
    like = torch.ones(2, dtype=dtype, device=device)
    for shape in [(64, 64), (8, 16), (3, 5)] * 3:
        dirty_memory(shape, {torch.float32, dtype}, device)
        result = zeros_for(shape, like)
        check_tensor(result, shape=shape, dtype=dtype, device=device, name="zeros_for(...)")
        nonzero = (result != 0).sum().item()
        assert nonzero == 0, (
            f"{nonzero} of {result.numel()} elements are not 0: the memory was not "
            "initialised (torch.empty or torch.Tensor(*shape)), or was multiplied by 0, which "
            "leaves NaN and inf as they were (NaN * 0 is NaN); use zeros"
        )


@pytest.mark.parametrize("shape", [(), (0, 3), (1,)], ids=str)
def test_zeros_for_of_tiny_shapes(device, shape):
    result = zeros_for(shape, torch.ones(3, device=device))
    check_tensor(result, shape=shape, dtype=torch.float32, device=device, name="zeros_for")
    assert torch.equal(result.cpu(), torch.zeros(shape))


def test_zeros_for_a_bool_like(device):
    result = zeros_for((2, 2), torch.ones(1, dtype=torch.bool, device=device))
    check_tensor(result, shape=(2, 2), dtype=torch.bool, device=device, name="zeros_for")
    assert not result.any()


def test_zeros_for_does_not_require_grad_or_change_like(device):
    like = torch.ones(3, device=device, requires_grad=True)
    result = zeros_for((2,), like)
    check_tensor(result, shape=(2,), dtype=torch.float32, device=device, name="zeros_for")
    assert not result.requires_grad, "a fresh buffer must not require grad"
    assert like.requires_grad and torch.equal(like.detach().cpu(), torch.ones(3))


# ---------------------------------------------------------------- scalar_like


@pytest.mark.parametrize(
    "value, dtype",
    [
        (3, torch.float32),
        (3, torch.int64),
        (2**40 + 1, torch.int64),
        (2**53 + 1, torch.int64),  # no float64 holds it
        (2**63 - 1, torch.int64),
        (2.0**24 + 1, torch.int64),  # a float for an int like: float32 cannot hold it
        (0.5, torch.float16),
        (0.25, torch.float64),
        (0.1, torch.float64),
    ],
    ids=repr,
)
def test_scalar_like_holds_one_value(device, value, dtype):
    skip_unless_supported(device, dtype)
    like = torch.zeros(4, dtype=dtype, device=device)
    result = scalar_like(value, like)
    check_tensor(result, dtype=dtype, device=device, name=f"scalar_like({value!r}, ...)")
    assert result.shape == (), (
        f"scalar_like({value!r}, ...) has shape {tuple(result.shape)}: it must be 0-dim, "
        f"holding {value!r} (torch.Tensor({value!r}) makes a tensor of that many elements)"
    )
    assert result.item() == value, (
        f"scalar_like({value!r}, ...) holds {result.item()!r}: convert the number to like's "
        "dtype directly (dtype=like.dtype), not through the default float dtype"
    )
    assert (like + result).dtype == dtype, "combining the scalar with like must keep the dtype"


@pytest.mark.parametrize("shape", [(0,), (), (5, 0, 3)], ids=str)
def test_scalar_like_of_an_empty_or_0_dim_like(device, shape):
    like = torch.zeros(shape, device=device)
    result = scalar_like(2.5, like)
    check_tensor(result, shape=(), dtype=torch.float32, device=device, name="scalar_like")
    assert result.item() == 2.5, f"scalar_like(2.5, like of shape {shape}) holds {result.item()}"


def test_scalar_like_is_a_constant(device):
    like = torch.tensor([1.0, float("inf"), float("nan")], device=device, requires_grad=True)
    result = scalar_like(2.0, like)
    check_tensor(result, shape=(), dtype=torch.float32, device=device, name="scalar_like")
    assert result.item() == 2.0 and not result.requires_grad, (
        f"scalar_like(2.0, like) gave {result!r}: make a new tensor from the number with "
        "like's dtype and device only; like's values (here inf and NaN) and its graph play "
        "no part, and the result does not require grad"
    )


def test_scalar_like_of_a_bool(device):
    result = scalar_like(True, torch.zeros(2, dtype=torch.bool, device=device))
    check_tensor(result, shape=(), dtype=torch.bool, device=device, name="scalar_like(True)")
    assert result.item() is True


# ---------------------------------------------------------------- a default device


@pytest.fixture
def default_device_meta():
    """torch.set_default_device("meta") for the test: a device no input is on."""
    torch.set_default_device("meta")
    try:
        yield torch.device("meta")
    finally:
        torch.set_default_device(None)


def test_device_none_means_the_default_device(device, default_device_meta):
    meta = default_device_meta
    results = {
        "from_data([1, 2])": from_data([1, 2]),
        "from_data(a NumPy array)": from_data(np.arange(2, dtype=np.int64)),
        "as_tensor_shared([1, 2])": as_tensor_shared([1, 2]),
        "as_tensor_shared(a NumPy array)": as_tensor_shared(np.arange(3, dtype=np.int64)),
        "as_tensor_shared(a tensor)": as_tensor_shared(torch.arange(3, device=device)),
    }
    for call, result in results.items():
        check_tensor(result, dtype=torch.int64, device=meta, name=call)


@pytest.fixture
def default_device_cpu():
    """torch.set_default_device("cpu") for the test: set, and naming the CPU."""
    torch.set_default_device("cpu")
    try:
        yield torch.device("cpu")
    finally:
        torch.set_default_device(None)


def test_a_default_device_of_cpu_counts_as_set(device, default_device_cpu):
    t = torch.arange(3, device=device)
    result = as_tensor_shared(t)
    check_tensor(result, shape=(3,), dtype=torch.int64, device=default_device_cpu, name="result")
    assert same_device(t.device, device), "data must not be modified"
    assert result.tolist() == [0, 1, 2]
    assert device.type != "cpu" or shares_memory(result, t), "no copy on the CPU"


def test_like_decides_the_device_over_the_default_device(device, default_device_meta):
    like = torch.ones(2, device=device)
    check_tensor(zeros_for((2,), like), shape=(2,), device=device, name="zeros_for")
    check_tensor(scalar_like(2.0, like), shape=(), device=device, name="scalar_like")


# ---------------------------------------------------------------- facets

ANY_DTYPE = (*facets.FLOATING, torch.int64, torch.int8, torch.uint8, torch.bool)


def like(dtype, device, requires_grad=False):
    return torch.ones(2, 3, dtype=dtype, device=device).requires_grad_(requires_grad)


FACETS = facets.declare(
    facets.of(
        from_data,
        facets.DefaultDevice(lambda device: facets.args([[1, 2], [3, 4]])),
        facets.Returns(lambda device: facets.args(np.arange(4.0))),
        facets.Unmodified(lambda device: facets.args(np.arange(4.0), device)),
        facets.Edges(
            {"an empty list": lambda device: facets.args([], device)},
            oracle=lambda data, device: torch.tensor(data),
        ),
    ),
    facets.of(
        as_tensor_shared,
        facets.DefaultDevice(lambda device: facets.args([1.0, 2.0])),
        facets.Unmodified(lambda device: facets.args(np.arange(4.0), torch.float32)),
        # float64 data: None keeps its dtype (device=None: DefaultDevice's).
        facets.Defaults(lambda device: facets.args(np.arange(4.0)), values={"dtype": None}),
        # "gradients reach data": through data itself (float32) or the conversion.
        facets.Gradients(
            lambda dtype, device: facets.args(
                torch.linspace(-2, 2, 6, dtype=dtype, device=device), torch.float32
            ),
            oracle=lambda data, dtype: data.clone(),
        ),
        # An empty and a 0-dim tensor: gradients reach data there too.
        facets.Edges(
            {
                "an empty tensor": lambda device: facets.args(torch.zeros(0, 3, device=device)),
                "a 0-dim tensor": lambda device: facets.args(torch.tensor(2.5, device=device)),
            },
            oracle=lambda data: data,
            wrt=0,
        ),
    ),
    facets.of(
        zeros_for,
        facets.Dtypes(
            lambda dtype, device: facets.args(
                (2, 0, 3) if dtype == torch.int8 else (3, 2), like(dtype, device)
            ),
            oracle=lambda shape, like: torch.zeros(shape, dtype=like.dtype),
            dtypes=ANY_DTYPE,
            once=True,
        ),
        facets.DefaultDevice(
            lambda device: facets.args((2,), like(torch.float32, device)), where="input"
        ),
        facets.Unmodified(lambda device: facets.args((2,), like(torch.float32, device, True))),
        facets.Returns(lambda device: facets.args((2, 3), like(torch.float32, device))),
        facets.NoGraph(
            lambda device: facets.args((2,), like(torch.float32, device, True)),
            state=lambda arguments, result: result,
        ),
    ),
    facets.of(
        scalar_like,
        facets.Dtypes(
            lambda dtype, device: facets.args(
                0.1 if dtype.is_floating_point else 2**24 + 1 if dtype == torch.int64 else 3,
                like(dtype, device),
            ),
            oracle=lambda value, like: torch.tensor(value, dtype=torch.float64),
            dtypes=ANY_DTYPE,
            once=True,
        ),
        facets.DefaultDevice(
            lambda device: facets.args(2.5, like(torch.float32, device)), where="input"
        ),
        facets.Unmodified(lambda device: facets.args(2.5, like(torch.float32, device, True))),
        facets.NoGraph(
            lambda device: facets.args(2.5, like(torch.float32, device, True)),
            state=lambda arguments, result: result,
        ),
        facets.Edges(
            {
                "an empty like": lambda device: facets.args(
                    2.5, torch.zeros(0, 3, dtype=torch.float16, device=device)
                ),
                "a 0-dim like": lambda device: facets.args(
                    7, torch.zeros((), dtype=torch.int16, device=device)
                ),
            },
            oracle=lambda value, like: torch.tensor(value, dtype=like.dtype),
        ),
    ),
)
test_facets = FACETS.test
