import numpy as np
import pytest
import torch

from katas.q02_numpy_bridge import to_numpy, to_numpy_copy, to_tensor
from torch_katas import facets
from torch_katas.testing import (
    assert_close,
    assert_downloads_block,
    check_array,
    check_tensor,
    copies_seen,
    same_device,
    skip_unless_supported,
)

# NumPy dtype -> the torch dtype the bridge must keep: every width and kind, complex and the
# wide unsigned ones included (the same path for all, no table of the "usual" dtypes with a
# copy or a wider dtype for the rest: torch has uint16, uint32 and uint64 too).
DTYPES = {
    np.float64: torch.float64,
    np.float32: torch.float32,
    np.float16: torch.float16,
    np.int64: torch.int64,
    np.int32: torch.int32,
    np.int16: torch.int16,
    np.int8: torch.int8,
    np.uint8: torch.uint8,
    np.uint16: torch.uint16,
    np.uint32: torch.uint32,
    np.uint64: torch.uint64,
    np.bool_: torch.bool,
    np.complex64: torch.complex64,
    np.complex128: torch.complex128,
}


def sample_array(np_dtype, shape=(3, 4)):
    values = np.arange(int(np.prod(shape))).reshape(shape) % 5
    return np.array(values, dtype=np_dtype)  # an array even for shape (), not a NumPy scalar


def same_memory(t, array):
    """Whether a CPU tensor and an array share memory, seen from NumPy's side."""
    return np.shares_memory(t.detach().numpy(), array)


@pytest.mark.parametrize("np_dtype", list(DTYPES), ids=lambda d: np.dtype(d).name)
def test_to_tensor_keeps_shape_values_and_dtype(device, np_dtype):
    skip_unless_supported(device, DTYPES[np_dtype])
    array = sample_array(np_dtype)
    t = to_tensor(array, device)
    check_tensor(t, shape=array.shape, dtype=DTYPES[np_dtype], device=device, name="to_tensor")
    np.testing.assert_array_equal(t.cpu().numpy(), array)
    np.testing.assert_array_equal(
        array, sample_array(np_dtype), err_msg="to_tensor must not modify the array"
    )


def test_to_tensor_shares_memory_on_the_cpu_and_copies_elsewhere(device):
    skip_unless_supported(device, torch.float64)
    array = np.arange(6.0).reshape(2, 3)
    t = to_tensor(array, device)
    check_tensor(t, shape=(2, 3), dtype=torch.float64, device=device, name="to_tensor")
    if device.type == "cpu":
        assert t.data_ptr() == torch.from_numpy(array).data_ptr(), (
            "on the CPU to_tensor must wrap the array's memory, not copy it: "
            "use torch.from_numpy or torch.as_tensor, not torch.tensor"
        )
        array[0, 1] = 100.0
        assert t[0, 1].item() == 100.0, "a write to the array must show in the tensor"
        t[1, 2] = -7.0
        assert array[1, 2] == -7.0, "a write to the tensor must show in the array"
        default = to_tensor(array)
        check_tensor(default, dtype=torch.float64, device="cpu", name="to_tensor(array)")
        assert same_memory(default, array), "to_tensor(array) with no device must not copy"
    else:
        np.testing.assert_array_equal(t.cpu().numpy(), array)
        array[0, 1] = 100.0
        assert t[0, 1].item() == 1.0, f"the tensor on {device} must be a copy of the array"


@pytest.mark.parametrize(
    "make",
    [lambda a: a[:, ::2], lambda a: a.T, lambda a: a[1:, 2:]],
    ids=["strided", "transposed", "offset"],
)
def test_to_tensor_of_an_array_slice(device, make):
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    array = make(base)
    t = to_tensor(array, device)
    check_tensor(t, shape=array.shape, dtype=torch.float32, device=device, name="to_tensor")
    np.testing.assert_array_equal(t.cpu().numpy(), array)
    if device.type == "cpu":
        assert same_memory(t, base), "on the CPU the tensor must be a view of the array slice"
        array[0, 0] = -1.0
        assert t[0, 0].item() == -1.0, "a write to the array slice must show in the tensor"


@pytest.mark.parametrize(
    "dtype",
    [
        torch.float32,
        torch.float64,
        torch.float16,
        torch.int64,
        torch.int32,
        torch.uint16,
        torch.uint32,
        torch.uint64,
        torch.bool,
    ],
    ids=str,
)
@pytest.mark.parametrize("convert", [to_numpy, to_numpy_copy], ids=lambda f: f.__name__)
def test_numpy_array_keeps_shape_values_and_dtype(device, dtype, convert):
    skip_unless_supported(device, dtype)
    t = (torch.arange(12, device=device).reshape(3, 4) % 5).to(dtype)
    array = convert(t)
    expected = {value: key for key, value in DTYPES.items()}[dtype]
    check_array(array, name=convert.__name__)
    assert array.dtype == np.dtype(expected), (
        f"{convert.__name__} turned {dtype} into {array.dtype}; keep the dtype "
        f"(expected {np.dtype(expected)}), do not go through Python lists or .float()"
    )
    np.testing.assert_array_equal(array, (np.arange(12).reshape(3, 4) % 5).astype(expected))


@pytest.mark.parametrize("convert", [to_numpy, to_numpy_copy], ids=lambda f: f.__name__)
def test_numpy_array_of_a_tensor_in_the_autograd_graph(device, convert):
    weight = torch.randn(4, 3, device=device, requires_grad=True)
    scaled = (weight * 2).t()  # not a leaf, requires grad, not contiguous
    leaf_array, scaled_array = convert(weight), convert(scaled)
    for name, tensor, array in (("leaf", weight, leaf_array), ("result", scaled, scaled_array)):
        check_array(array, name=convert.__name__)
        assert array.shape == tuple(tensor.shape), f"wrong shape for the {name} tensor"
        np.testing.assert_array_equal(array, tensor.detach().cpu().numpy())
    assert weight.requires_grad and same_device(weight.device, device), (
        f"{convert.__name__} must leave its argument as it was (still requiring grad, "
        "on its device); detach() returns a new tensor instead of changing t"
    )
    assert scaled.grad_fn is not None, f"{convert.__name__} must not cut t out of the graph"


@pytest.mark.parametrize("convert", [to_numpy, to_numpy_copy], ids=lambda f: f.__name__)
def test_numpy_array_from_a_device_is_complete_when_returned(device, convert):
    # The caller reads the array at once: a non-blocking copy to the CPU returns before its
    # values have arrived (on the CPU and on `sim` they are there anyway; on a GPU not yet).
    t = torch.arange(6.0, device=device).reshape(2, 3).requires_grad_()
    with copies_seen() as seen:
        array = convert(t)
    np.testing.assert_array_equal(array, np.arange(6.0, dtype=np.float32).reshape(2, 3))
    assert_downloads_block(seen, convert.__name__)


def test_to_numpy_shares_memory_on_the_cpu_and_copies_elsewhere(device):
    t = torch.zeros(2, 3, device=device, requires_grad=True)
    array = to_numpy(t)
    if device.type == "cpu":
        array[0, 0] = 5.0
        assert t[0, 0].item() == 5.0, (
            "on the CPU to_numpy must share the tensor's memory (a write to the array must "
            "show in the tensor); detach() does not copy, clone() does"
        )
        with torch.no_grad():
            t[1, 2] = -3.0
        assert array[1, 2] == -3.0, "a write to the tensor must show in the array"
    else:
        array[0, 0] = 5.0
        assert t[0, 0].item() == 0.0, f"an array made from a tensor on {device} is a copy"


def test_to_numpy_of_a_transposed_tensor_shares_memory_on_the_cpu(device):
    base = torch.arange(12.0, device=device).reshape(3, 4)
    array = to_numpy(base.t())
    np.testing.assert_array_equal(array, np.arange(12.0, dtype=np.float32).reshape(3, 4).T)
    if device.type == "cpu":
        base[0, 1] = 50.0
        assert array[1, 0] == 50.0, "on the CPU to_numpy must not copy, even for a transpose"


@pytest.mark.parametrize("requires_grad", [False, True], ids=["plain", "requires_grad"])
def test_to_numpy_copy_never_shares_memory(device, requires_grad):
    t = torch.arange(6.0, device=device).reshape(2, 3).requires_grad_(requires_grad)
    array = to_numpy_copy(t)
    np.testing.assert_array_equal(array, np.arange(6.0, dtype=np.float32).reshape(2, 3))
    with torch.no_grad():
        t.add_(10)
    np.testing.assert_array_equal(
        array,
        np.arange(6.0, dtype=np.float32).reshape(2, 3),
        err_msg="changing the tensor changed the 'copy': to_numpy_copy must copy the values",
    )
    array[:] = -1.0
    assert_close(
        t.detach().cpu(),
        torch.arange(6.0).reshape(2, 3) + 10,
        "writing to the 'copy' changed the tensor: to_numpy_copy must copy the values",
    )
    if device.type == "cpu":
        assert not same_memory(t, array), "the copy must not share memory with the tensor"


def test_to_tensor_takes_the_device_as_a_string(device):
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = to_tensor(array, str(device))
    check_tensor(t, shape=(2, 3), dtype=torch.float32, device=device, name="to_tensor")
    np.testing.assert_array_equal(t.cpu().numpy(), array)
    if device.type == "cpu":
        assert same_memory(t, array), (
            'to_tensor(array, "cpu") must not copy either; compare torch.device(device), '
            "not the string, or let torch.as_tensor decide"
        )


@pytest.mark.parametrize("as_string", [True, False], ids=["string", "torch.device"])
def test_to_tensor_on_a_device_named_with_an_index(device, as_string):
    # torch.as_tensor(array, device="cpu:0") copies, where "cpu" does not: the contract
    # leaves sharing open there, and asks for a tensor on that device with the array's values.
    named = torch.device(device.type, 0)
    array = np.arange(6, dtype=np.int32).reshape(2, 3)
    t = to_tensor(array, str(named) if as_string else named)
    check_tensor(t, shape=(2, 3), dtype=torch.int32, device=named, name=f"to_tensor on {named}")
    np.testing.assert_array_equal(t.cpu().numpy(), array)


@pytest.mark.parametrize("np_dtype", list(DTYPES), ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize(
    "shape", [(), (0, 3), (1,), (2, 1, 3)], ids=["0-D", "empty", "one element", "size-1 dim"]
)
def test_the_bridge_keeps_any_shape_and_dtype(device, shape, np_dtype):
    # Every dtype and shape takes the same path: a 0-D or one-element array is no scalar to
    # rebuild from .item() (that changes the dtype and copies), and ints and bools are shared too.
    skip_unless_supported(device, DTYPES[np_dtype])
    array = sample_array(np_dtype, shape)
    t = to_tensor(array, device)
    check_tensor(t, shape=shape, dtype=DTYPES[np_dtype], device=device, name="to_tensor")
    if device.type == "cpu" and array.size:
        assert same_memory(t, array), (
            f"on the CPU to_tensor must wrap a {shape} {array.dtype} array too, not copy it"
        )
    for convert in (to_numpy, to_numpy_copy):
        back = convert(t)
        check_array(back, name=convert.__name__)
        assert back.shape == shape and back.dtype == array.dtype, (
            f"{convert.__name__} of a {shape} {t.dtype} tensor gave {back.shape} {back.dtype}"
        )
        np.testing.assert_array_equal(back, array)
        if device.type == "cpu" and array.size:
            shared = np.shares_memory(back, array)
            if convert is to_numpy:
                assert shared, f"on the CPU to_numpy of a {shape} {t.dtype} tensor must not copy"
            else:
                assert not shared, f"to_numpy_copy of a {shape} {t.dtype} tensor must copy"


def test_to_tensor_with_no_device_is_on_the_cpu_whatever_the_default_device(device):
    # None means the CPU, not torch's current default device: set another default (the
    # test's device, or "meta" when that is the CPU) and the tensor must still wrap the array.
    array = np.arange(6.0).reshape(2, 3)
    with torch.device("meta" if device.type == "cpu" else device):
        t = to_tensor(array)
    check_tensor(t, shape=(2, 3), dtype=torch.float64, device="cpu", name="to_tensor(array)")
    assert same_memory(t, array), (
        "to_tensor(array) must wrap the array on the CPU even under another default device "
        "(torch.set_default_device, `with torch.device(...)`): pass device='cpu' for None"
    )


@pytest.mark.parametrize("convert", [to_numpy, to_numpy_copy], ids=lambda f: f.__name__)
def test_numpy_array_of_a_lazily_conjugated_or_negated_tensor(device, convert):
    skip_unless_supported(device, torch.complex64)
    z = torch.tensor([1 + 2j, 3 - 1j], device=device)
    conjugated = z.conj()  # the conjugate bit: no copy, a flag NumPy cannot represent
    cases = [(conjugated, np.array([1 - 2j, 3 + 1j], dtype=np.complex64))]
    if conjugated.is_conj():  # (`sim` conjugates at once, so it has no lazy negative bit)
        cases.append((conjugated.imag, np.array([-2.0, 1.0], dtype=np.float32)))  # negative bit
    for tensor, expected in cases:
        array = convert(tensor)
        check_array(array, name=convert.__name__)
        np.testing.assert_array_equal(
            array,
            expected,
            err_msg=f"{convert.__name__} of z.conj() (or its .imag) must hold the conjugated "
            "values: resolve the conjugate and negative bits (resolve_conj, resolve_neg, or "
            "t.numpy(force=True), which does it all)",
        )
        assert array.dtype == expected.dtype


# ---------------------------------------------------------------- facets


def array_of(dtype):
    array = sample_array(torch.empty(0, dtype=dtype).numpy().dtype.type)
    return facets.past_float32(torch.from_numpy(array)).numpy()


KEPT = tuple(DTYPES.values())


def grad_tensor(device):
    return facets.args(torch.arange(6.0, device=device).reshape(2, 3).requires_grad_())


FACETS = facets.declare(
    facets.of(
        to_tensor,
        facets.Dtypes(
            lambda dtype, device: facets.args(array_of(dtype), device),
            oracle=lambda array, device: torch.from_numpy(array),
            dtypes=KEPT,
            once=True,
        ),
        facets.DefaultDevice(
            lambda device: facets.args(array_of(torch.float32)),
            where="cpu",
        ),
        facets.Unmodified(lambda device: facets.args(array_of(torch.float32), device)),
        facets.Edges(
            {
                "an empty array": lambda device: facets.args(
                    np.zeros((0, 3), dtype=np.int16), device
                ),
                "a 0-D array": lambda device: facets.args(np.array(2.5), device),
            },
            oracle=lambda array, device: torch.from_numpy(array),
        ),
    ),
    facets.of(
        to_numpy,
        facets.Unmodified(grad_tensor),
        facets.Unmodified(
            lambda device: facets.args(torch.tensor([1 + 2j, 3 - 1j], device=device).conj()),
            label="conjugate",
        ),
    ),
    facets.of(
        to_numpy_copy,
        facets.Unmodified(grad_tensor),
        facets.Returns(grad_tensor),
    ),
)
test_facets = FACETS.test
