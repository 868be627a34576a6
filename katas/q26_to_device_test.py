from collections import OrderedDict, defaultdict, namedtuple

import numpy as np
import pytest
import torch

from katas.q26_to_device import to_device
from torch_katas import facets
from torch_katas.testing import assert_close, check_tensor, same_device

# The meta device exists on every machine (tensors with shape and dtype but no data), so
# moving to it is a real move even where the only other device is the CPU.
META = torch.device("meta")

Pair = namedtuple("Pair", "image mask")
Sample = namedtuple("Sample", "inputs label meta")


class Tag:
    """A plain object that happens to travel in a batch."""


def nested_batch(device):
    return {
        "pair": Pair(
            torch.randn(2, 3, device=device), torch.ones(2, 3, dtype=torch.bool, device=device)
        ),
        "tokens": [torch.arange(4, device=device), torch.arange(2, device=device), "pad"],
        "shape": (torch.tensor([2, 3], device=device), 5),
        "samples": [
            Sample(
                (torch.randn(1, device=device), [torch.zeros(2, device=device)]), 3, {"id": "x1"}
            ),
            Sample(
                {"x": torch.randn(2, 2, device=device).t()}, torch.tensor(0, device=device), None
            ),
        ],
        "empty": ([], (), {}),
        "ids": np.array([4, 5]),
        "tag": Tag(),
        "name": "batch-0",
        "weight": 0.5,
    }


def assert_same_structure(out, ref, target, path="batch"):
    """`out` mirrors `ref`: same container types, keys and lengths; tensors on `target`
    with ref's shape and dtype; every other value the very same object."""
    if isinstance(ref, torch.Tensor):
        check_tensor(out, shape=ref.shape, dtype=ref.dtype, device=target, name=path)
        return
    if not isinstance(ref, (dict, list, tuple)):
        assert out is ref, (
            f"{path} is a {type(ref).__name__}, not a tensor or container: return it as it is"
        )
        return
    assert type(out) is type(ref), (
        f"{path} should stay a {type(ref).__name__}, got {type(out).__name__}; rebuild each "
        "container with its own type (a namedtuple with type(x)(*items))"
    )
    if isinstance(ref, (dict, list)):  # tuples cannot change, and () is a singleton anyway
        assert out is not ref, (
            f"{path}: build a new {type(ref).__name__} instead of changing the input"
        )
    if isinstance(ref, dict):
        assert list(out) == list(ref), f"{path} should keep the keys {list(ref)}, got {list(out)}"
        for key in ref:
            assert_same_structure(out[key], ref[key], target, f"{path}[{key!r}]")
    else:
        assert len(out) == len(ref), f"{path} should keep its {len(ref)} items"
        for i, (item, ref_item) in enumerate(zip(out, ref, strict=True)):
            assert_same_structure(item, ref_item, target, f"{path}[{i}]")


def leaves(batch):
    if isinstance(batch, dict):
        return [leaf for value in batch.values() for leaf in leaves(value)]
    if isinstance(batch, (list, tuple)):
        return [leaf for item in batch for leaf in leaves(item)]
    return [batch]


def test_moves_every_tensor_and_keeps_every_container(device):
    batch = nested_batch(device)
    moved = to_device(batch, META)
    assert_same_structure(moved, batch, META)


def test_moves_values_unchanged(device):
    batch = nested_batch(torch.device("cpu"))
    moved = to_device(batch, device)
    assert_same_structure(moved, batch, device)
    for value, expected in zip(leaves(moved), leaves(batch), strict=True):
        if isinstance(expected, torch.Tensor):
            assert_close(
                value.cpu(), expected, "moving must not change a tensor's values", rtol=0, atol=0
            )


def test_accepts_the_device_as_a_string(device):
    batch = [torch.randn(2, device=device), (torch.zeros(1, device=device),)]
    moved = to_device(batch, "meta")
    assert_same_structure(moved, batch, META)


def test_namedtuple_keeps_its_class_and_fields(device):
    sample = Sample(torch.randn(3, device=device), torch.tensor(1, device=device), "first")
    moved = to_device(sample, META)
    assert type(moved) is Sample, (
        f"a namedtuple should come back as the same namedtuple class, got {type(moved).__name__}; "
        "code downstream reads batch.inputs"
    )
    assert moved.inputs.device == META and moved.label.device == META and moved.meta == "first"


def test_tuple_stays_a_tuple_and_list_a_list(device):
    batch = (torch.zeros(2, device=device), [torch.ones(1, device=device)])
    moved = to_device(batch, META)
    assert type(moved) is tuple, f"a tuple should stay a tuple, got {type(moved).__name__}"
    assert type(moved[1]) is list, f"a list should stay a list, got {type(moved[1]).__name__}"


@pytest.mark.parametrize(
    "value",
    [3, 2.5, "text", None, b"raw", np.arange(3), Tag()],
    ids=["int", "float", "str", "None", "bytes", "numpy", "object"],
)
def test_non_tensors_pass_through_as_the_same_object(device, value):
    moved = to_device({"value": value, "x": torch.zeros(1, device=device)}, META)
    assert moved["value"] is value, (
        f"a {type(value).__name__} is not a tensor: return it as it is (the same object)"
    )


class Fielded:
    """Not a tuple, though it has the `_fields` that namedtuples have."""

    _fields = ("image",)
    image = None


def test_an_object_with_fields_that_is_no_tuple_passes_through(device):
    value = Fielded()
    moved = to_device({"value": value, "x": torch.zeros(1, device=device)}, META)
    assert moved["value"] is value, (
        "an object with a _fields attribute that is not a tuple is no namedtuple: return it "
        "as it is (check isinstance(batch, tuple) as well as _fields)"
    )


@pytest.mark.parametrize(
    "dtype", [torch.float16, torch.bfloat16, torch.float64, torch.int64, torch.int8, torch.bool]
)
def test_keeps_dtypes(device, dtype):
    batch = {"x": torch.zeros(3, device=device).to(dtype)}
    moved = to_device(batch, META)
    check_tensor(moved["x"], shape=(3,), dtype=dtype, device=META, name="batch['x']")


def test_moving_to_the_current_device_is_a_no_op(device):
    batch = nested_batch(device)
    moved = to_device(batch, device)
    assert_same_structure(moved, batch, device)
    for value, original in zip(leaves(moved), leaves(batch), strict=True):
        assert value is original, (
            "a tensor already on the target device should come back as the same object; "
            "tensor.to(device) does that, a clone or a dtype change does not"
        )


def test_does_not_modify_the_input(device):
    batch = nested_batch(device)
    structure = {key: value for key, value in batch.items()}
    originals = leaves(batch)
    to_device(batch, META)
    assert list(batch) == list(structure), "the input dict's keys were changed"
    assert all(batch[key] is structure[key] for key in structure), "the input dict was changed"
    for value, original in zip(leaves(batch), originals, strict=True):
        assert value is original, "the input's containers must keep their original items"
        if isinstance(value, torch.Tensor):
            assert same_device(value.device, device), (
                "the input's tensors must stay where they were"
            )


def test_dict_subclasses_keep_their_class(device):
    ordered = OrderedDict(
        [("b", torch.ones(2, device=device)), ("a", [torch.zeros(1, device=device)])]
    )
    counts = defaultdict(list, {"x": torch.arange(3, device=device)})
    batch = {"ordered": ordered, "counts": counts}
    moved = to_device(batch, META)
    assert_same_structure(moved, batch, META)
    assert moved["counts"].default_factory is list, (
        "a defaultdict must keep its default_factory (copy.copy keeps it)"
    )
    assert list(ordered) == ["b", "a"] and same_device(ordered["b"].device, device), (
        "the input OrderedDict was changed"
    )
    assert list(counts) == ["x"] and same_device(counts["x"].device, device), (
        "the input defaultdict was changed"
    )


@pytest.mark.parametrize("empty", [[], (), {}], ids=["list", "tuple", "dict"])
def test_empty_containers(device, empty):
    moved = to_device(empty, device)
    assert type(moved) is type(empty) and len(moved) == 0


def test_a_single_tensor(device):
    x = torch.randn(2, 3, device=device)
    moved = to_device(x, META)
    check_tensor(moved, shape=(2, 3), dtype=torch.float32, device=META, name="the result")


# ---------------------------------------------------------------- facets


def nested(device):
    batch = {"x": torch.arange(3.0), "rest": [torch.ones(2), (torch.zeros(1), "tag")]}
    return facets.args(batch, device)


FACETS = facets.declare(
    facets.of(
        to_device,
        facets.Unmodified(nested, inputs=lambda arguments: arguments.args[0]),
        facets.Returns(
            lambda device: facets.args(torch.ones(2, device=device), device), kind="same"
        ),
    ),
)
test_facets = FACETS.test
