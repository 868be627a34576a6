import numpy as np
import pytest
import torch

from katas.q43_views import merge_heads, shares_storage, split_heads
from torch_katas import facets
from torch_katas.testing import assert_close, check_tensor, skip_unless_supported


def same_storage(a, b):
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def heads(device, b, h, t, d, layout):
    """An attention-shaped [B, H, T, D] tensor: contiguous, or the transpose of [B, T, H, D]."""
    if layout == "contiguous":
        return torch.randn(b, h, t, d, device=device)
    return torch.randn(b, t, h, d, device=device).transpose(1, 2)


def merged_by_hand(x):
    b, h, t, d = x.shape
    out = torch.empty(b, t, h * d, dtype=x.dtype)
    x = x.cpu()
    for hh in range(h):
        out[:, :, hh * d : (hh + 1) * d] = x[:, hh]
    return out


def split_by_hand(x, num_heads):
    d = x.shape[-1] // num_heads
    x = x.cpu()
    return torch.stack([x[:, :, hh * d : (hh + 1) * d] for hh in range(num_heads)], dim=1)


# ---------------------------------------------------------------- merge_heads


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize(
    "shape",
    [
        *[(2, 3, 4, 5), (1, 2, 6, 1), (2, 4, 1, 3), (3, 1, 5, 2)],
        *[(0, 2, 3, 4), (2, 0, 3, 4), (2, 3, 0, 4), (2, 3, 4, 0)],  # B, H, T or D of size 0
    ],
    ids=str,
)
def test_merge_heads_matches_a_loop_over_heads(device, shape, layout):
    x = heads(device, *shape, layout)
    x_before = x.clone()
    out = merge_heads(x)
    b, h, t, d = shape
    check_tensor(out, shape=(b, t, h * d), dtype=x.dtype, device=device, name="merged heads")
    assert_close(
        out.cpu(),
        merged_by_hand(x),
        "out[b, t, h * D + d] must be x[b, h, t, d]: move T before H first, then merge "
        "H and D (a plain reshape of [B, H, T, D] mixes time steps)",
    )
    assert torch.equal(x, x_before), "x must not be modified"


def test_merge_heads_of_integer_values(device):
    x = torch.arange(8, device=device).view(1, 2, 2, 2)
    out = merge_heads(x)
    check_tensor(out, shape=(1, 2, 4), dtype=torch.int64, device=device, name="merged heads")
    assert out.tolist() == [[[0, 1, 4, 5], [2, 3, 6, 7]]]


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bool])
def test_merge_heads_keeps_any_dtype(device, dtype):
    skip_unless_supported(device, dtype)
    x = heads(device, 2, 3, 2, 2, "transposed")
    x = x > 0 if dtype == torch.bool else x.to(dtype)
    out = merge_heads(x)
    check_tensor(out, shape=(2, 2, 6), dtype=dtype, device=device, name="merged heads")
    assert torch.equal(out.cpu(), merged_by_hand(x)), f"wrong values for a {dtype} x"


def test_merge_heads_undoes_split_heads(device):
    x = torch.randn(2, 5, 12, device=device)
    out = merge_heads(split_heads(x, 3))
    check_tensor(out, shape=(2, 5, 12), dtype=x.dtype, device=device, name="round trip")
    assert_close(out, x, "the round trip must give x back exactly", rtol=0, atol=0)


# ---------------------------------------------------------------- split_heads


def layouts(device, b, t, e):
    """[B, T, E] inputs in the layouts attention code meets."""
    fused = torch.randn(b, t, 3 * e, device=device)  # a fused q|k|v projection
    return {
        "contiguous": (torch.randn(b, t, e, device=device), None),
        "q of fused qkv": (fused[..., e : 2 * e], fused),
        "time-major": (torch.randn(t, b, e, device=device).transpose(0, 1), None),
        "feature-major": (torch.randn(b, e, t, device=device).transpose(1, 2), None),
        "every other step": (torch.randn(b, 2 * t, e, device=device)[:, ::2], None),
    }


LAYOUTS = ["contiguous", "q of fused qkv", "time-major", "feature-major", "every other step"]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("num_heads", [1, 2, 4])
def test_split_heads_values(device, layout, num_heads):
    x, _ = layouts(device, 2, 3, 8)[layout]
    out = split_heads(x, num_heads)
    d = 8 // num_heads
    check_tensor(out, shape=(2, num_heads, 3, d), dtype=x.dtype, device=device, name="heads")
    assert_close(
        out.cpu(), split_by_hand(x, num_heads), "out[b, h, t, d] must be x[b, t, h * D + d]"
    )


@pytest.mark.parametrize("layout", LAYOUTS)
def test_split_heads_is_a_view_of_x(device, layout):
    x, base = layouts(device, 2, 3, 8)[layout]
    out = split_heads(x, 2)
    owner = x if base is None else base
    assert same_storage(out, owner), (
        f"split_heads copied the data for a {layout} input: the result must be a view of "
        "x (.view and .transpose never copy; .contiguous() and .clone() do)"
    )
    out[1, 1, 2, 3] = 1234.0  # head 1, time 2, feature 3 -> x[1, 2, 1 * 4 + 3]
    assert x[1, 2, 7].item() == 1234.0, "writing to the view must write to x"


@pytest.mark.parametrize("shape", [(0, 3, 8), (2, 0, 8), (2, 3, 0)], ids=str)
def test_split_heads_of_a_size_0_dim(device, shape):
    # Sizes come from x's shape and num_heads, not from -1: -1 cannot be inferred when
    # the tensor has no elements.
    x = torch.zeros(shape, device=device)
    out = split_heads(x, 2)
    b, t, e = shape
    check_tensor(out, shape=(b, 2, t, e // 2), dtype=x.dtype, device=device, name="heads")


@pytest.mark.parametrize("e, num_heads", [(8, 3), (5, 2), (4, 8), (8, 0), (8, -2)])
def test_split_heads_rejects_features_that_do_not_divide(device, e, num_heads):
    with pytest.raises(ValueError):
        split_heads(torch.zeros(2, 3, e, device=device), num_heads)


# ---------------------------------------------------------------- shares_storage


def related(x):
    """Pairs that share x's storage (True) and pairs that do not (False)."""
    flat = x.view(-1)
    pairs = [
        ("x and x", x, x, True),
        ("x and x.view(-1)", x, flat, True),
        ("x and x[1:]", x, x[1:], True),
        ("x and x.t()", x, x.t(), True),
        ("x[0] and x[1]", x[0], x[1], True),
        ("even and odd elements", flat[::2], flat[1::2], True),
        ("x[2:] and x.t()[1:]", x[2:], x.t()[1:], True),
        ("x and x.detach()", x, x.detach(), True),
        ("x.detach()[1:] and x[2:]", x.detach()[1:], x[2:], True),  # x.detach()._base is None
        ("x and x.contiguous()", x, x.contiguous(), True),
        # A dtype view is a view too: the same bytes read as another dtype, whose elements
        # (and storage offsets) have another size.
        ("x and x.view(torch.int32)", x, x.view(torch.int32), True),
        ("x[1:] and x.view(torch.uint8)[1:]", x[1:], x.view(torch.uint8)[1:], True),
        ("x and x.clone()", x, x.clone(), False),
        ("x.t() and x.t().contiguous()", x.t(), x.t().contiguous(), False),
        ("x and a copy of equal values", x, x.detach().clone(), False),
        ("x and zeros_like(x)", x, torch.zeros_like(x), False),
    ]
    return {name: (a, b, expected) for name, a, b, expected in pairs}


CASES = list(related(torch.zeros(3, 4)))


@pytest.mark.parametrize("name", CASES)
def test_shares_storage(device, name):
    x = torch.arange(12.0, device=device).view(3, 4)
    a, b, expected = related(x)[name]
    result = shares_storage(a, b)
    assert type(result) is bool, f"shares_storage must return a Python bool, got {type(result)}"
    assert result is expected, (
        f"shares_storage({name}) should be {expected}: compare the storages "
        "(a.untyped_storage()), not where the tensors start (a.data_ptr() moves with the offset, "
        "counted in elements of each tensor's own dtype) nor their ._base (x.detach() is no "
        "view of x, yet shares its storage) nor their dtypes"
    )


@pytest.mark.parametrize("name", CASES)
def test_shares_storage_of_meta_tensors(device, name):
    # Meta tensors have shapes and no memory: every data pointer is 0, so equal pointers
    # say nothing there. (The test's device plays no part: meta is a device of its own.)
    a, b, expected = related(torch.empty(3, 4, device="meta"))[name]
    result = shares_storage(a, b)
    assert type(result) is bool, f"shares_storage must return a Python bool, got {type(result)}"
    assert result is expected, (
        f"shares_storage of meta tensors ({name}) should be {expected}: a meta storage has no "
        "memory and data pointer 0, so compare the storage objects themselves there "
        "(a.untyped_storage() is b.untyped_storage()), not ._base (x.detach() has none)"
    )


def test_shares_storage_of_two_tensors_over_one_numpy_array(device):
    # Two torch.from_numpy calls make two storage objects over one memory block: that is
    # the memory shared, so the answer is True (a write through one shows in the other).
    # Of the first rows alone, the storage is shorter and begins at the same address.
    array = np.zeros((3, 4), dtype=np.float32)
    a = torch.from_numpy(array)
    for b in (torch.from_numpy(array)[1:], torch.from_numpy(array[:2])):
        assert shares_storage(a, b) is True, (
            "two torch.from_numpy tensors of one array share one memory block, whatever "
            "part of it each storage spans: compare where the storages' memory begins "
            "(untyped_storage().data_ptr()), nothing else"
        )


def test_shares_storage_of_two_tensors_over_one_block_on_the_device(device):
    # The device twin of two from_numpy calls: DLPack wraps the same memory in a storage
    # object of its own (on the CPU and on CUDA alike).
    # (Of a[:2], the storage is shorter and begins at the same address.)
    a = torch.zeros(3, 4, device=device)
    try:
        others = (torch.from_dlpack(a)[1:], torch.from_dlpack(a[:2]))
    except (RuntimeError, BufferError, TypeError, ValueError, NotImplementedError):
        pytest.skip(f"{a.device.type} tensors do not go through DLPack")
    for b in others:
        assert shares_storage(a, b) is True, (
            "torch.from_dlpack is a second storage object over a's memory block: on every "
            "device with memory, compare where the storages' memory begins "
            "(untyped_storage().data_ptr()), nothing else; the storage objects are compared "
            "on meta alone"
        )


# ---------------------------------------------------------------- facets

ANY_DTYPE = (*facets.FLOATING, torch.int64, torch.uint8, torch.bool)


def heads_of(dtype, device):
    x = facets.past_float32((torch.arange(2 * 3 * 4 * 2).reshape(2, 3, 4, 2) % 5).to(dtype=dtype))
    x = x.to(device)
    return facets.args(x)


def merged_by_loop(x):
    b, h, t, d = x.shape
    out = torch.empty(b, t, h * d, dtype=x.dtype)
    for head in range(h):
        out[:, :, head * d : (head + 1) * d] = x[:, head]
    return out


def features_of(dtype, device):
    return facets.args(merged_by_loop(heads_of(dtype, "cpu").args[0]).to(device), 3)


def split_by_unflatten(x, num_heads):
    return x.unflatten(-1, (num_heads, -1)).transpose(1, 2)


# Both keep autograd's graph: attention trains through them (no detach on the way).
FACETS = facets.declare(
    facets.of(
        merge_heads,
        facets.Dtypes(heads_of, oracle=merged_by_loop, dtypes=ANY_DTYPE, once=True),
        facets.Gradients(heads_of, oracle=merged_by_loop),
        facets.Unmodified(lambda device: heads_of(torch.float32, device)),
        facets.Edges(
            {
                "an empty batch (B = 0)": lambda device: facets.args(
                    torch.randn((0, 2, 3, 4), device=device)
                ),
                "empty heads (D = 0)": lambda device: facets.args(
                    torch.randn((2, 2, 3, 0), device=device)
                ),
                "one of each (size 1)": lambda device: facets.args(
                    torch.randn((1, 1, 1, 1), device=device)
                ),
            },
            oracle=lambda x: x.transpose(1, 2).reshape(
                x.shape[0], x.shape[2], x.shape[1] * x.shape[3]
            ),
            wrt=0,
        ),
    ),
    facets.of(
        split_heads,
        facets.Dtypes(features_of, oracle=split_by_unflatten, dtypes=ANY_DTYPE, once=True),
        facets.Gradients(features_of, oracle=split_by_unflatten),
        facets.Unmodified(lambda device: features_of(torch.float32, device)),
        # E is a multiple of num_heads: 1 and E + 1 are not.
        facets.BadShapes(lambda device: features_of(torch.float32, device), names=(0,), dims=(-1,)),
        facets.Edges(
            {
                "an empty batch (B = 0)": lambda device: facets.args(
                    torch.randn((0, 3, 4), device=device), 2
                ),
                "no features (empty, E = 0)": lambda device: facets.args(
                    torch.randn((2, 3, 0), device=device), 2
                ),
                "one of each (size 1)": lambda device: facets.args(
                    torch.randn((1, 1, 1), device=device), 1
                ),
            },
            oracle=split_by_unflatten,
            wrt=0,
        ),
    ),
    facets.of(
        shares_storage,
        facets.Number(lambda device: facets.args(*torch.zeros(2, 3, device=device)), bool),
        facets.Unmodified(lambda device: facets.args(*torch.arange(6.0, device=device).view(2, 3))),
    ),
)
test_facets = FACETS.test
