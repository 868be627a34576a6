import copy
import dataclasses
from collections import OrderedDict, UserDict, UserList, defaultdict, deque, namedtuple

import numpy as np
import pytest
import torch
from torch import nn

from katas.q26_to_device import copy_to, pick_device, place_for_training, to_device
from torch_katas import facets
from torch_katas.testing import (
    assert_close,
    assert_downloads_block,
    check_tensor,
    copies_seen,
    same_device,
    seed_for,
)

# The meta device exists on every machine (tensors with shape and dtype but no data), so
# moving to it is a real move even where the only other device is the CPU.
META = torch.device("meta")

Pair = namedtuple("Pair", "image mask")
Sample = namedtuple("Sample", "inputs label meta")


class Tag:
    """A plain object that happens to travel in a batch."""


class Movable:
    """No tensor, though it has a `.to` as tensors do (so do modules and other objects)."""

    def to(self, *args, **kwargs):
        return Movable()


@dataclasses.dataclass
class Record:
    """A dataclass holding a tensor: no dict, list or tuple, so passed through as it is."""

    x: torch.Tensor
    name: str


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
    "make",
    [
        lambda: 3,
        lambda: 2.5,
        lambda: "text",
        lambda: None,
        lambda: b"raw",
        lambda: np.arange(3),
        Tag,
        Movable,
        # Containers that are no dict, list or tuple (other Mappings and Sequences).
        lambda: UserDict(x=torch.zeros(1)),
        lambda: UserList([torch.zeros(1)]),
        lambda: deque([torch.zeros(1)]),
        lambda: range(3),
        lambda: Record(torch.zeros(1), "r"),
        lambda: {torch.zeros(1)},
        lambda: frozenset([torch.zeros(1)]),
    ],
    ids=[
        "int",
        "float",
        "str",
        "None",
        "bytes",
        "numpy",
        "object",
        "object with .to",
        "UserDict",
        "UserList",
        "deque",
        "range",
        "dataclass",
        "set",
        "frozenset",
    ],
)
def test_non_tensors_pass_through_as_the_same_object(device, make):
    value = make()
    moved = to_device({"value": value, "x": torch.zeros(1, device=device)}, META)
    assert moved["value"] is value, (
        f"a {type(value).__name__} is no tensor, dict, list or tuple: return it as it is (the "
        "same object; test isinstance(batch, dict), not collections.abc.Mapping or Sequence, "
        "and isinstance(batch, torch.Tensor), not hasattr(batch, 'to'))"
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


class Features(dict):
    """A dict subclass of the caller's own: its copy() (dict's) returns a plain dict."""


def test_dict_subclasses_keep_their_class(device):
    ordered = OrderedDict(
        [("b", torch.ones(2, device=device)), ("a", [torch.zeros(1, device=device)])]
    )
    counts = defaultdict(list, {"x": torch.arange(3, device=device)})
    features = Features(x=torch.ones(2, device=device), name="f")
    batch = {"ordered": ordered, "counts": counts, "features": features}
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
    assert list(features) == ["x", "name"] and same_device(features["x"].device, device), (
        "the input dict subclass was changed"
    )


def test_dict_keys_stay_the_same_objects(device):
    key = torch.zeros(1, device=device)  # tensors hash by identity: a moved key is another key
    batch = {key: torch.ones(1, device=device), 3: "three"}
    moved = to_device(batch, META)
    keys = list(moved)
    assert len(keys) == 2 and keys[0] is key and keys[1] == 3, (
        "a dict keeps its keys, the very same objects (a tensor key included): move the values only"
    )
    check_tensor(moved[key], shape=(1,), dtype=torch.float32, device=META, name="batch[key]")


@pytest.mark.parametrize("empty", [[], (), {}], ids=["list", "tuple", "dict"])
def test_empty_containers(device, empty):
    moved = to_device(empty, device)
    assert type(moved) is type(empty) and len(moved) == 0


def test_moving_keeps_the_graph(device):
    leaf = torch.randn(3, device=device, requires_grad=True)
    moved = to_device({"x": leaf * 2, "leaf": leaf}, META)
    assert moved["x"].requires_grad and moved["x"].grad_fn is not None, (
        "a tensor in an autograd graph should stay in it when moved (tensor.to is "
        "differentiable); no detach"
    )
    assert to_device({"leaf": leaf}, device)["leaf"] is leaf


def test_to_device_copies_block(device):
    batch = nested_batch(device)
    targets = [torch.device("cpu"), META]
    if device.type != "cpu":
        # To the accelerator as well, from CPU tensors, a pinned one among them: every copy
        # blocks there too (the contract's rule, not only a safeguard for downloads).
        pinned = torch.randn(3).pin_memory()
        batch = {"here": batch, "cpu": nested_batch("cpu"), "pinned": [pinned]}
        targets.append(device)
    for target in targets:
        with copies_seen() as seen:
            to_device(batch, target)
        hurried = [c for c in seen.copies if c[1]]
        assert not hurried, (
            f"to_device to {target} made non-blocking copies {hurried}: a tensor becomes "
            "tensor.to(device), a blocking copy, even from pinned memory; a non-blocking copy "
            "to the CPU hands back values that may not have arrived"
        )


class Row(list):
    """A list subclass whose constructor takes other arguments than a list's."""

    def __init__(self, width):
        super().__init__([torch.zeros(width)] * 2)


class Pairish(tuple):
    __slots__ = ()


@pytest.mark.parametrize("make", [lambda: Row(2), lambda: Pairish((torch.zeros(2), 1))])
def test_list_and_tuple_subclasses_become_plain(device, make):
    value = make()
    moved = to_device(value, META)
    plain = list if isinstance(value, list) else tuple
    assert type(moved) is plain, (
        f"a {type(value).__name__} (a {plain.__name__} subclass, no namedtuple) should come "
        f"back as a plain {plain.__name__}, got {type(moved).__name__}"
    )
    assert moved[0].device == META


def test_tensor_subclasses_are_tensors(device):
    # A Parameter (a module's weight handed along in a batch) is a tensor: it moves too.
    weight = nn.Parameter(torch.randn(2, 3, device=device))
    moved = to_device({"weight": weight, "rows": [weight]}, META)
    for name, value in (
        ("batch['weight']", moved["weight"]),
        ("batch['rows'][0]", moved["rows"][0]),
    ):
        assert isinstance(value, torch.Tensor) and value.device == META, (
            f"{name}, an nn.Parameter, should be moved to meta, got {value!r}: a subclass of "
            "torch.Tensor is a tensor (test isinstance(batch, torch.Tensor), not its exact type)"
        )


def test_a_single_tensor(device):
    x = torch.randn(2, 3, device=device)
    moved = to_device(x, META)
    check_tensor(moved, shape=(2, 3), dtype=torch.float32, device=META, name="the result")


# ------------------------------------------------------------------ pick_device


def fake_accelerator(monkeypatch, built, available, index=0):
    """This machine as one whose torch was built for `built` (None: for none), with the
    device `available` or not at run time (a CUDA build on a machine without a GPU), and
    device `index` the current one."""

    def current_accelerator(check_available=False):
        if built is None or (check_available and not available):
            return None
        return torch.device(built)

    monkeypatch.setattr(torch.accelerator, "is_available", lambda: built is not None and available)
    monkeypatch.setattr(torch.accelerator, "current_accelerator", current_accelerator)
    monkeypatch.setattr(torch.accelerator, "current_device_index", lambda: index)


@pytest.mark.parametrize("index", [0, 1], ids=["device-0", "device-1"])
@pytest.mark.parametrize("kind", ["cuda", "xpu", "mps"])
def test_pick_device_takes_the_current_accelerator_whatever_its_kind(
    device, monkeypatch, kind, index
):
    fake_accelerator(monkeypatch, kind, available=True, index=index)
    chosen = pick_device()
    assert isinstance(chosen, torch.device), (
        f"pick_device should return a torch.device, got {chosen!r}"
    )
    assert chosen.type == kind and chosen.index in (None, index), (
        f"with {kind} device {index} the current accelerator pick_device should return it, got "
        f"{chosen}; ask torch.accelerator, which knows every kind of accelerator and which "
        "device is current (torch.cuda knows one kind; index 0 is not always current)"
    )


@pytest.mark.parametrize("built", [None, "cuda"], ids=["no-accelerator", "built-but-absent"])
def test_pick_device_falls_back_to_the_cpu(device, monkeypatch, built):
    fake_accelerator(monkeypatch, built, available=False)
    chosen = pick_device()
    assert chosen == torch.device("cpu"), (
        f"without an available accelerator pick_device should return torch.device('cpu'), got "
        f"{chosen!r}; current_accelerator() names the one torch was built for, available or not "
        "(check torch.accelerator.is_available())"
    )


def test_pick_device_on_this_machine(device):
    chosen = pick_device()
    available = torch.accelerator.current_accelerator(check_available=True)
    expected = available.type if available is not None else "cpu"
    assert isinstance(chosen, torch.device) and chosen.type == expected, (
        f"this machine's accelerator is {expected}; pick_device returned {chosen!r}"
    )


# ------------------------------------------------------------------ place_for_training


def small_model():
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))


def test_place_for_training_moves_the_model_in_place(device):
    torch.manual_seed(seed_for(0))
    model = small_model()
    reference = copy.deepcopy(model)
    params = list(model.parameters())  # what an optimizer built now would hold
    x, y = torch.randn(5, 3), torch.randn(5, 2)
    moved = place_for_training(model, [x, y], device)
    for name, tensor in [*model.named_parameters(), *model.named_buffers()]:
        assert same_device(tensor.device, device), (
            f"the caller's model should be on {device} after the call, but {name} is on "
            f"{tensor.device}; model.to(device) moves parameters and buffers in place"
        )
    assert all(a is b for a, b in zip(model.parameters(), params, strict=True)), (
        "the model's parameters should stay the same objects (model.to keeps them), so an "
        "optimizer built before the move still updates the model"
    )
    assert isinstance(moved, list) and len(moved) == 2, "return a list with each input moved"
    for name, value, original in [("x", moved[0], x), ("y", moved[1], y)]:
        check_tensor(value, shape=original.shape, dtype=original.dtype, device=device, name=name)
        assert_close(value.cpu(), original, f"moving {name} changed its values", rtol=0, atol=0)
        assert original.device.type == "cpu", (
            f"the caller's {name} should stay on the CPU: tensor.to returns a moved copy"
        )
    # One SGD step through the parameters held before the move, against the same step on
    # the CPU: it must change the moved model.
    nn.functional.mse_loss(model(moved[0]), moved[1]).backward()
    nn.functional.mse_loss(reference(x), y).backward()
    with torch.no_grad():
        for held, ref in zip(params, reference.parameters(), strict=True):
            held -= 0.1 * held.grad
            ref -= 0.1 * ref.grad
    for (name, value), expected in zip(
        model.state_dict().items(), reference.state_dict().values(), strict=True
    ):
        assert_close(value.cpu(), expected, f"{name} after one step", rtol=1e-5, atol=1e-6)


def test_place_for_training_to_another_device(device):
    model = small_model().to(device)
    inputs = [
        torch.randn(2, 3, device=device),
        torch.arange(2, device=device),
        torch.randn(2, 3, device=device).double(),  # not the model's dtype: kept as it is
    ]
    moved = place_for_training(model, inputs, META)
    for name, tensor in [*model.named_parameters(), *model.named_buffers()]:
        assert tensor.device == META, f"{name} should be on meta after the call"
    assert [t.device for t in moved] == [META] * 3, "every returned input should be on meta"
    assert [t.dtype for t in moved] == [torch.float32, torch.int64, torch.float64], (
        "moving should keep each input's dtype (a float64 input stays float64: no cast to the "
        "model's dtype)"
    )
    assert all(same_device(t.device, device) for t in inputs), (
        "the caller's inputs should stay where they were"
    )


def test_place_for_training_copies_to_the_cpu_block(device):
    # The caller reads the returned inputs right away: a non-blocking copy to the CPU could
    # hand back values that have not arrived yet.
    inputs = [torch.randn(2, 3, device=device), torch.arange(2, device=device)]
    with copies_seen() as seen:
        moved = place_for_training(small_model().to(device), inputs, "cpu")
    for tensor, original in zip(moved, inputs, strict=True):
        assert_close(tensor, original.cpu(), "moving an input changed its values", rtol=0, atol=0)
    assert_downloads_block(seen, "place_for_training")


@pytest.mark.parametrize("target", ["meta", "device"])
def test_place_for_training_changes_only_the_device(device, target):
    # A model being fine-tuned: float64, its first layer frozen, its BatchNorm in eval mode
    # (its running statistics kept), the rest training. Placing it moves it, nothing else.
    model = small_model().double().to(device)
    model[0].requires_grad_(False)
    model[1].eval()
    # Gradients from a step half done (accumulated over micro-batches, say): they move too.
    model(torch.randn(4, 3, dtype=torch.float64, device=device)).sum().backward()
    grads = {name: p.grad.clone() for name, p in model.named_parameters() if p.grad is not None}
    flags = {name: p.requires_grad for name, p in model.named_parameters()}
    modes = {name: m.training for name, m in model.named_modules()}
    dtypes = {name: t.dtype for name, t in [*model.named_parameters(), *model.named_buffers()]}
    place_for_training(
        model, [torch.randn(2, 3, device=device)], META if target == "meta" else device
    )
    moved = {name: t.dtype for name, t in [*model.named_parameters(), *model.named_buffers()]}
    assert moved == dtypes, (
        f"the model's dtypes changed from {dtypes} to {moved}: move it (model.to(device)), "
        "do not cast it (no .float())"
    )
    now = {name: m.training for name, m in model.named_modules()}
    assert now == modes, (
        f"the model's train/eval modes changed from {modes} to {now}: placing a model leaves "
        "its mode to the caller (no model.train() or model.eval())"
    )
    now = {name: p.requires_grad for name, p in model.named_parameters()}
    assert now == flags, (
        f"the parameters' requires_grad changed from {flags} to {now}: frozen layers stay frozen"
    )
    held = {name: p.grad for name, p in model.named_parameters() if p.grad is not None}
    assert held.keys() == grads.keys(), (
        f"the parameters holding a .grad changed from {sorted(grads)} to {sorted(held)}: "
        "placing a model keeps its gradients (module.to moves them; no zero_grad())"
    )
    for name, grad in held.items():
        check_tensor(grad, shape=grads[name].shape, dtype=torch.float64, name=f"{name}.grad")
        assert same_device(grad.device, META if target == "meta" else device), (
            f"{name}.grad is on {grad.device}: it moves with its parameter"
        )
        if target == "device":
            assert torch.equal(grad, grads[name]), f"{name}.grad changed in the move"


@pytest.mark.parametrize("container", [list, tuple])
def test_place_for_training_returns_a_new_list(device, container):
    inputs = container([torch.randn(2, 3, device=device)])
    moved = place_for_training(small_model().to(device), inputs, device)
    assert type(moved) is list and moved is not inputs and len(inputs) == 1, (
        f"return a new list, whatever sequence the inputs come in (got a "
        f"{type(moved).__name__} for a {container.__name__}); leave the caller's"
    )


# ------------------------------------------------------------------ copy_to


def test_copy_to_from_the_cpu(device):
    x = torch.randn(4, 3)
    with copies_seen() as seen:
        out = copy_to(x, device)
    check_tensor(out, shape=(4, 3), dtype=torch.float32, device=device, name="copy_to(x)")
    assert_close(out.cpu(), x, "copy_to changed the values", rtol=0, atol=0)
    if device.type == "cpu":
        assert out is x and seen.pins == 0, (
            "a CPU tensor copied to the CPU should come back as itself, not pinned: pinning "
            "is for copies to an accelerator"
        )
        return
    uploads = [c for c in seen.copies if c[2].type == "cpu" and c[4].type != "cpu"]
    assert uploads, f"no copy from the CPU to {device} was seen"
    for name, non_blocking, _, pinned, _ in uploads:
        assert non_blocking, (
            f"the copy to {device} ({name}) should be non_blocking=True so that it can run in "
            "the background"
        )
        assert pinned, (
            f"the non-blocking copy to {device} ({name}) should read from pinned memory "
            "(tensor.pin_memory()): from ordinary memory it cannot overlap"
        )


def test_copy_to_from_pinned_memory(device):
    if device.type == "cpu":
        x = torch.randn(3)
        assert copy_to(x, device) is x, "a tensor already on the device comes back as itself"
        return
    x = torch.randn(3).pin_memory()
    with copies_seen() as seen:
        out = copy_to(x, device)
    check_tensor(out, shape=(3,), dtype=torch.float32, device=device, name="copy_to(pinned)")
    assert_close(out.cpu(), x, "copy_to changed the values", rtol=0, atol=0)
    assert all(c[1] and c[3] for c in seen.copies if c[4].type != "cpu"), (
        "a pinned tensor should go to the accelerator with non_blocking=True"
    )


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_copy_to_the_device_it_is_on_returns_it(device, layout):
    x = (
        torch.randn(3, device=device)
        if layout == "contiguous"
        else torch.randn(2, 3, device=device).t()
    )
    index = x.device.index if x.device.index is not None else 0
    for spelled in (device.type, f"{device.type}:{index}", torch.device(device.type, index)):
        with copies_seen() as seen:
            out = copy_to(x, spelled)
        assert out is x and seen.pins == 0, (
            f"x ({layout}) is on {x.device}; copy_to(x, {spelled!r}) names that device too: "
            "return x itself, not pinned and not copied (nor made contiguous)"
        )


def test_copy_to_meta_blocks_and_does_not_pin(device):
    # meta is no accelerator: nothing runs there, so there is nothing to overlap with.
    x = torch.randn(3, device=device)
    with copies_seen() as seen:
        out = copy_to(x, "meta")
    check_tensor(out, shape=(3,), dtype=torch.float32, device=META, name="copy_to(x, 'meta')")
    assert seen.pins == 0 and not any(c[1] for c in seen.copies), (
        f"the copy from {device} to meta should be a plain blocking copy: neither pinned nor "
        "non_blocking (meta is not an accelerator, and copies between devices block)"
    )


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool], ids=str)
def test_copy_to_the_cpu_blocks(device, dtype):
    x = (torch.arange(6, device=device) % 3).to(dtype)
    with copies_seen() as seen:
        out = copy_to(x, "cpu")
    check_tensor(out, shape=(6,), dtype=dtype, device="cpu", name="copy_to(x, 'cpu')")
    assert_close(out, (torch.arange(6) % 3).to(dtype), "copy_to changed the values", rtol=0, atol=0)
    if device.type == "cpu":
        assert out is x and seen.pins == 0, "a CPU tensor copied to the CPU comes back as itself"
        return
    assert_downloads_block(seen, "copy_to")


# ---------------------------------------------------------------- facets


def nested(device):
    batch = {"x": torch.arange(3.0), "rest": [torch.ones(2), (torch.zeros(1), "tag")]}
    return facets.args(batch, device)


def model_and_inputs(device):
    """A model and inputs on the CPU, to be placed on the test's device."""
    return facets.args(nn.Linear(2, 1), [torch.ones(3, 2), torch.arange(3)], device)


FACETS = facets.declare(
    facets.of(
        to_device,
        facets.Unmodified(nested, inputs=lambda arguments: arguments.args[0]),
        facets.Returns(
            lambda device: facets.args(torch.ones(2, device=device), device), kind="same"
        ),
    ),
    facets.none(
        pick_device,
        "takes nothing and names the machine's accelerator: its own tests check the rule",
    ),
    facets.of(
        place_for_training,
        # The model moves in place by contract; the caller's input tensors stay put.
        facets.Unmodified(model_and_inputs, inputs=lambda arguments: arguments.args[1]),
        # "its train/eval mode ... stay as the caller set them"
        facets.Modes(model_and_inputs, module=lambda arguments: arguments.args[0]),
        # A model with nothing to move (no parameters, buffers only, frozen) is moved too.
        facets.Edges(
            facets.edge_models(
                lambda model, device: facets.args(model, [torch.arange(6.0).reshape(2, 3)], device)
            ),
            oracle=lambda model, inputs, device: list(inputs),
        ),
    ),
    facets.of(
        copy_to,
        facets.Unmodified(lambda device: facets.args(torch.arange(4.0), device)),
        facets.Returns(
            lambda device: facets.args(torch.arange(4.0, device=device), device), kind="same"
        ),
        # "the same values, shape and dtype": from the CPU, every dtype as it is.
        facets.Dtypes(
            lambda dtype, device: facets.args(
                facets.past_float32(torch.arange(6).reshape(2, 3).to(dtype)), device
            ),
            oracle=lambda tensor, device: tensor,
            dtypes=(*facets.FLOATING, torch.int64, torch.int32, torch.uint8, torch.bool),
            once=True,
        ),
    ),
)
test_facets = FACETS.test
