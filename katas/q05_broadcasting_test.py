import functools
import random

import numpy as np
import pytest
import torch
from torch.overrides import TorchFunctionMode, resolve_name

from katas.q05_broadcasting import broadcast_shape, normalize_channels
from torch_katas import facets
from torch_katas.testing import (
    assert_close,
    assert_no_python_loops,
    check_tensor,
    forbidden_modules,
    raises,
    seed_for,
    skip_unless_supported,
)


class _NoTorchCalls(TorchFunctionMode):
    """Fails on any torch function called inside the block (including tensor creation)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise AssertionError(
            f"broadcast_shape called {resolve_name(func) or func}: work on the shapes with "
            "plain Python (tuples and ints), not with torch"
        )


PLAIN_PYTHON = "work on the shapes with plain Python (tuples and ints), not torch or NumPy"


@pytest.fixture
def plain_python(monkeypatch):
    """Calls broadcast_shape on each pair of shapes in a list with the broadcasting helpers
    of torch and NumPy disabled: the result for each pair, or the ValueError it raised."""

    def refuse(*args, **kwargs):
        raise AssertionError(
            "broadcast_shape must implement the rule itself, without torch.broadcast_shapes, "
            "torch.broadcast_tensors or np.broadcast_shapes"
        )

    monkeypatch.setattr(torch, "broadcast_shapes", refuse)
    monkeypatch.setattr(torch, "broadcast_tensors", refuse)
    monkeypatch.setattr(np, "broadcast_shapes", refuse)
    monkeypatch.setattr(np, "broadcast", refuse)

    def call(pairs):
        outcomes = []
        # By behaviour too: nothing from torch or NumPy runs, however it was imported.
        with _NoTorchCalls(), forbidden_modules(torch, np, reason=PLAIN_PYTHON):
            for a, b in pairs:
                try:
                    outcomes.append(broadcast_shape(a, b))
                except ValueError as error:
                    outcomes.append(error)
        return outcomes

    return call


@functools.cache  # the same on every device
def expected_shape(a, b):
    """torch's answer, or None when the shapes do not broadcast: the shape of a sum of two
    tensors of those shapes (zeros expanded, so nothing but the sum is allocated).
    torch.broadcast_shapes would say the same, but its first call imports torch's
    symbolic-shape machinery, and sympy with it: seconds."""
    try:
        return tuple((torch.zeros(()).expand(a) + torch.zeros(()).expand(b)).shape)
    except RuntimeError:
        return None


def check_broadcast(call, pairs):
    for (a, b), got in zip(pairs, call(pairs), strict=True):
        expected = expected_shape(a, b)
        if expected is None:
            assert isinstance(got, ValueError), (
                f"broadcast_shape({a}, {b}) returned {got}; these shapes do not broadcast: "
                "raise ValueError"
            )
            message = str(got)
            assert str(tuple(a)) in message and str(tuple(b)) in message, (
                f"the ValueError for shapes {a} and {b} must name both, as Python tuples; "
                f"its message was: {message!r}"
            )
        else:
            assert not isinstance(got, ValueError), (
                f"broadcast_shape({a}, {b}) raised ValueError({got}); it should be {expected}"
            )
            assert type(got) is tuple, f"return a plain tuple, got {type(got).__name__}"
            assert got == expected, f"broadcast_shape({a}, {b}) should be {expected}, got {got}"


# ---------------------------------------------------------------- broadcast_shape

COMPATIBLE = [
    ((), ()),
    ((), (2, 3)),
    ((4,), ()),
    ((5, 1, 4), (3, 1)),
    ((3, 1), (5, 1, 4)),
    ((1,), (7,)),
    ((2, 1, 3), (2, 4, 1)),
    ((0,), (1,)),
    ((1, 1), (0,)),
    ((2, 1), (1, 0)),
    ((8, 1, 6, 1), (7, 1, 5)),
]
INCOMPATIBLE = [
    ((3,), (4,)),
    ((0,), (2,)),
    ((2, 3), (3, 2)),
    ((4, 3), (2, 1, 4)),
    ((2, 1), (8, 4, 3)),
]


@pytest.mark.parametrize("a, b", COMPATIBLE + INCOMPATIBLE, ids=str)
def test_broadcast_shape_on_known_cases(device, plain_python, a, b):
    check_broadcast(plain_python, [(a, b)])


def random_pairs(count, seed):
    """Shape pairs of up to 4 dims of sizes 0-4, the same on every run: half drawn
    independently (often incompatible), half cut from one common shape with some dims set
    to 1 (always compatible)."""
    rng = random.Random(seed)
    pairs = []
    for i in range(count):
        if i % 2:
            pairs.append(
                tuple(
                    tuple(rng.choice([0, 1, 2, 3]) for _ in range(rng.randint(0, 4)))
                    for _ in range(2)
                )
            )
        else:
            base = [rng.choice([0, 2, 3, 4]) for _ in range(rng.randint(0, 4))]
            pair = []
            for _ in range(2):
                keep = rng.randint(0, len(base))
                pair.append(
                    tuple(1 if rng.random() < 0.4 else size for size in base[len(base) - keep :])
                )
            pairs.append(tuple(pair))
    return pairs


def test_broadcast_shape_agrees_with_torch_on_random_shapes(device, plain_python):
    check_broadcast(plain_python, random_pairs(300, seed_for(0)))


def test_broadcast_shape_of_torch_sizes(device, plain_python):
    a = torch.zeros(5, 1, 4, device=device).shape
    b = torch.zeros(3, 1, device=device).shape
    (result,) = plain_python([(a, b)])
    assert type(result) is tuple and result == (5, 3, 4), f"expected (5, 3, 4), got {result!r}"


def test_broadcast_shape_names_torch_sizes_as_python_tuples(device, plain_python):
    a = torch.zeros(2, 3, device=device).shape
    b = torch.zeros(4, device=device).shape
    check_broadcast(plain_python, [(a, b)])  # the message must read "(2, 3)" and "(4,)"


# ---------------------------------------------------------------- normalize_channels


def naive_normalize(images, mean, std):
    images, mean, std = images.cpu().double(), mean.cpu().double(), std.cpu().double()
    out = torch.empty_like(images)
    for c in range(images.shape[1]):
        out[:, c] = (images[:, c] - mean[c]) / std[c]
    return out


def stats(channels, device):
    mean = torch.randn(channels, device=device)
    std = 0.5 + torch.rand(channels, device=device)
    return mean, std


def test_normalize_channels_has_no_python_loops(device):
    # Images, channels, rows and columns all grow with n: a loop over any of them, however
    # it is written (for, map, recursion, a helper), shows as more work for more data.
    def inputs(n):
        mean, std = stats(n, device)
        return torch.randn(n, n, n, n, device=device), mean, std

    assert_no_python_loops(normalize_channels, inputs, over="images, channels and pixels")


# An empty batch is any size 0, the channels' included (mean and std of shape [0]): an
# empty result of its shape, as broadcasting gives it.
@pytest.mark.parametrize(
    "shape",
    [
        (2, 3, 4, 5),
        (2, 3, 3, 3),
        (2, 4, 5, 4),
        (1, 3, 1, 1),
        (3, 1, 2, 2),
        (0, 3, 2, 2),
        (2, 0, 3, 3),
        (2, 3, 0, 4),
    ],
    ids=str,
)
def test_normalize_channels_matches_a_loop_over_channels(device, shape):
    images = torch.randn(shape, device=device)
    mean, std = stats(shape[1], device)
    before = images.clone(), mean.clone(), std.clone()
    out = normalize_channels(images, mean, std)
    check_tensor(out, shape=shape, dtype=torch.float32, device=device, name="normalized images")
    assert_close(
        out.cpu().double(),
        naive_normalize(images, mean, std),
        "values differ from per-channel normalisation; a [C] tensor broadcasts against "
        "W, the last dim: give mean and std the shape [C, 1, 1]",
        rtol=1e-5,
        atol=1e-5,
    )
    for name, tensor, copy in zip(
        ("images", "mean", "std"), (images, mean, std), before, strict=True
    ):
        assert torch.equal(tensor, copy), f"{name} must not be modified"


def test_normalize_channels_of_channels_last_images(device):
    images = torch.randn(2, 3, 4, 5, device=device).to(memory_format=torch.channels_last)
    mean, std = stats(3, device)
    out = normalize_channels(images, mean, std)
    check_tensor(out, shape=(2, 3, 4, 5), dtype=torch.float32, device=device, name="output")
    assert_close(
        out.cpu().double(),
        naive_normalize(images, mean, std),
        "wrong for channels_last images: broadcasting works on the logical shape",
        rtol=1e-5,
        atol=1e-5,
    )


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bfloat16])
def test_normalize_channels_keeps_the_dtype(device, dtype):
    skip_unless_supported(device, dtype)
    images = torch.randn(2, 3, 4, 5, device=device).to(dtype)
    mean, std = (stat.to(dtype) for stat in stats(3, device))
    out = normalize_channels(images, mean, std)
    check_tensor(out, shape=(2, 3, 4, 5), dtype=dtype, device=device, name="normalized images")
    tolerance = 1e-12 if dtype == torch.float64 else 0.05
    assert_close(
        out.cpu().double(),
        naive_normalize(images, mean, std),
        f"wrong for {dtype} images; compute in their dtype",
        rtol=tolerance,
        atol=tolerance,
    )


@pytest.mark.parametrize(
    "images_shape, mean_shape, std_shape",
    [
        ((3, 4, 5), (3,), (3,)),
        ((2, 3, 4, 4, 1), (3,), (3,)),
        ((2, 3, 4, 4), (4,), (4,)),
        ((2, 3, 4, 4), (3,), (1,)),
        ((2, 3, 4, 4), (3, 1, 1), (3,)),
        ((2, 3, 4, 4), (3,), (1, 3)),
        ((2, 1, 4, 4), (), (1,)),
        ((2, 1, 4, 4), (1,), ()),
        # Both alike: a check of mean against std, not against [C], lets them broadcast.
        ((2, 3, 4, 4), (1,), (1,)),
        ((2, 3, 4, 4), (3, 1, 1), (3, 1, 1)),
    ],
    ids=[
        "3-D",
        "5-D",
        "C mismatch (mean and std match W)",
        "std of shape [1]",
        "mean [C,1,1]",
        "std [1,C]",
        "0-dim mean with C=1",
        "0-dim std with C=1",
        "mean and std of shape [1]",
        "mean and std [C,1,1]",
    ],
)
# An empty batch too: nothing to normalise is no reason to skip the checks.
@pytest.mark.parametrize("n", [2, 0], ids=["batch", "empty batch"])
def test_normalize_channels_rejects_wrong_shapes(device, images_shape, mean_shape, std_shape, n):
    images = torch.randn((n, *images_shape[1:]), device=device)
    mean = torch.zeros(mean_shape, device=device)
    std = torch.ones(std_shape, device=device)
    with raises(ValueError):
        normalize_channels(images, mean, std)


# ---------------------------------------------------------------- facets


def batch(dtype, device, n=2):
    images = torch.linspace(-3, 3, n * 3 * 4 * 5, dtype=torch.float64).reshape(n, 3, 4, 5)
    mean = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)
    std = torch.tensor([0.25, 2.0, 3.0], dtype=torch.float64)
    # past_float32: each float64 input holds values float32 does not, so one moved through
    # float32 (the statistics as well as the images) shows.
    return facets.args(
        *(facets.past_float32(t).to(dtype=dtype, device=device) for t in (images, mean, std))
    )


def normalized64(images, mean, std):
    return (images - mean[:, None, None]) / std[:, None, None]


def tiny_std(device):
    """Standard deviations far below any eps a clamp or a sum would bring in, each held
    exactly by float32: the values are those of the division by them, nothing else."""
    images, mean, _ = batch(torch.float32, device).args
    std = torch.tensor([2.0**-100, 0.5, 2.0**-60], device=device)
    return facets.args(images, mean, std)


FACETS = facets.declare(
    facets.of(
        broadcast_shape,
        facets.Number(lambda device: facets.args(torch.Size([2, 1]), (3,)), tuple),
        # torch.Size arguments: the result is a plain tuple even where it equals one of them.
        facets.Edges(
            {
                "an empty shape ()": lambda device: facets.args(torch.Size(), torch.Size([2, 3])),
                "an empty shape () second": lambda device: facets.args(
                    torch.Size([4, 1]), torch.Size()
                ),
                "equal shapes": lambda device: facets.args(torch.Size([2, 3]), torch.Size([2, 3])),
                "a dimension of size 0": lambda device: facets.args((4, 1), (0,)),
            },
            oracle=lambda a, b: tuple(torch.broadcast_shapes(a, b)),
        ),
    ),
    facets.of(
        normalize_channels,
        facets.Dtypes(batch, oracle=normalized64, ulps=2),
        facets.Shapes(
            lambda shape, device: batch(torch.float32, device, n=shape[0]),
            oracle=normalized64,
            shapes=("empty", "size 1", "non-contiguous"),  # images [N, 3, 4, 5], N from the shape
        ),
        # "differentiable with respect to images, mean and std"
        *(
            facets.Gradients(batch, oracle=normalized64, wrt=wrt, label=name)
            for wrt, name in enumerate(("images", "mean", "std"))
        ),
        # "std > 0, however small": no eps added to it or clamped in.
        facets.Edges({"a tiny std": tiny_std}, oracle=normalized64),
        facets.Unmodified(lambda device: batch(torch.float32, device)),
        facets.Returns(lambda device: batch(torch.float32, device)),
        # mean and std are [C]; images' channels are theirs (N, H and W are free).
        facets.BadShapes(lambda device: batch(torch.float32, device), names=(1, 2)),
        facets.BadShapes(
            lambda device: batch(torch.float32, device), names=(0,), dims=(1,), label="images"
        ),
        # images must be 4-D: fewer or more dims (a 0-dim or a flat one included) raise
        # ValueError too, not the IndexError of reading images.shape[1] before the check.
        facets.BadShapes(
            lambda device: batch(torch.float32, device), names=(0,), dims=(), label="images' dims"
        ),
    ),
)
test_facets = FACETS.test
