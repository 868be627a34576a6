import io
from collections.abc import Mapping

import pytest
import torch
from torch import nn

from katas.q27_state_dict import buffer_keys, count_parameters, load_checkpoint
from torch_katas import facets
from torch_katas.testing import assert_close, check_tensor, raises, skip_unless_supported


class Net(nn.Module):
    """A small model with BatchNorm statistics and buffers of its own."""

    def __init__(self):
        super().__init__()
        self.register_buffer("class_weights", torch.ones(3))
        self.register_buffer("scratch", torch.zeros(3), persistent=False)
        self.features = nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8), nn.ReLU())
        self.head = nn.Linear(8, 3)
        # Non-persistent in a submodule too: persistence is each module's own record.
        self.head.register_buffer("cache", torch.zeros(3), persistent=False)

    def forward(self, x):
        return self.head(self.features(x)) * self.class_weights


NET_PARAMETERS = (6 * 8 + 8) + (8 + 8) + (8 * 3 + 3)
NET_BUFFERS = [
    "class_weights",
    "features.1.running_mean",
    "features.1.running_var",
    "features.1.num_batches_tracked",
]


class TiedLM(nn.Module):
    """The output layer shares its weight with the embedding."""

    def __init__(self, vocab=20, dim=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.norm = nn.LayerNorm(dim)
        self.out = nn.Linear(dim, vocab, bias=False)
        self.out.weight = self.embed.weight


class Wrapper(nn.Module):
    """Keeps the model as `self.module`, as nn.DataParallel and DDP do."""

    def __init__(self, model):
        super().__init__()
        self.module = model


class NestedModuleName(nn.Module):
    """A model that has a submodule called `module` of its own."""

    def __init__(self):
        super().__init__()
        self.block = Wrapper(nn.Linear(4, 4))
        self.bn = nn.BatchNorm1d(4)


def trained_net():
    """A Net whose weights and BatchNorm statistics differ from a fresh one's."""
    net = Net()
    with torch.no_grad():
        for parameter in net.parameters():
            parameter.normal_()
        net.class_weights.fill_(2.0)
        net.train()
        for _ in range(3):
            net(torch.randn(16, 6) + 1.0)  # updates running stats and num_batches_tracked
    return net


def saved_and_loaded(state_dict):
    """A round trip through torch.save / torch.load, as a checkpoint file would make."""
    buffer = io.BytesIO()
    torch.save(state_dict, buffer)
    buffer.seek(0)
    return torch.load(buffer, weights_only=True)


def test_count_parameters_excludes_buffers(device):
    model = Net().to(device)
    total = count_parameters(model)
    assert type(total) is int, f"return a Python int, got {type(total).__name__}"
    assert total == NET_PARAMETERS, (
        f"Net has {NET_PARAMETERS} parameter values, got {total}; count model.parameters() "
        "(buffers such as running_mean are in state_dict but are not parameters)"
    )


def test_count_trainable_parameters(device):
    model = Net().to(device)
    model.features.requires_grad_(False)
    # A buffer that requires grad (a tensor from a graph registered as is) is still no
    # parameter: requires_grad does not make one.
    model.class_weights.requires_grad_(True)
    trainable = count_parameters(model, trainable_only=True)
    assert trainable == 8 * 3 + 3, (
        f"only the head is trainable (27 values), got {trainable}; keep the parameters "
        "with requires_grad=True (model.parameters(), not every tensor that requires grad: "
        "the buffer class_weights does here)"
    )
    assert count_parameters(model) == NET_PARAMETERS, "without trainable_only count them all"


@pytest.mark.parametrize("trainable_only", [False, True], ids=["all", "trainable only"])
def test_count_parameters_counts_tied_weights_once(device, trainable_only):
    model = TiedLM().to(device)
    total = count_parameters(model, trainable_only=trainable_only)
    assert total == 20 * 8 + 8 + 8, (
        f"the embedding and output layer share one 20×8 weight, so 176 values, got {total} "
        f"(trainable_only={trainable_only}); model.parameters() yields a shared parameter "
        "once, state_dict() lists it twice"
    )


@pytest.mark.parametrize("trainable_only", [False, True], ids=["all", "trainable only"])
def test_count_parameters_counts_each_parameter_object(device, trainable_only):
    # One Parameter under two names counts once; two Parameters count twice, even when
    # one was made from the other's memory (an optimizer would update both).
    model = nn.Linear(4, 4, bias=False).to(device)
    model.alias = nn.Parameter(model.weight.data)
    total = count_parameters(model, trainable_only=trainable_only)
    assert total == 2 * 16, (
        f"two distinct nn.Parameter objects of 16 values each, got {total}: a parameter is "
        "an nn.Parameter object (what model.parameters() yields), not a block of memory"
    )


def test_count_parameters_counts_a_complex_element_once(device):
    model = nn.Linear(2, 2, bias=False).to(device)
    model.phase = nn.Parameter(torch.zeros(3, dtype=torch.complex64, device=device))
    total = count_parameters(model)
    assert total == 4 + 3, (
        f"4 real weights and 3 complex values are 7 elements, got {total}: count numel(), "
        "whatever the dtype (a complex element is one value, not two)"
    )


def test_buffer_keys_of_a_model_with_batch_norm(device):
    model = Net().to(device)
    keys = buffer_keys(model)
    assert keys == NET_BUFFERS, (
        f"expected {NET_BUFFERS}, got {keys}: the state_dict entries that are not parameters, "
        "in state_dict order (non-persistent buffers are not in the state_dict)"
    )


def test_buffer_keys_leave_out_buffers_set_to_none(device):
    # A BatchNorm without running statistics registers them as None: no state_dict entry.
    class Masked(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("mask", None)
            self.register_buffer("steps", torch.zeros((), dtype=torch.int64))

    model = nn.Sequential(
        nn.Linear(2, 2), nn.BatchNorm1d(2, track_running_stats=False), Masked(), nn.BatchNorm1d(2)
    ).to(device)
    expected = ["2.steps", "3.running_mean", "3.running_var", "3.num_batches_tracked"]
    keys = buffer_keys(model)
    assert keys == expected, (
        f"expected {expected}, got {keys}: a buffer registered as None (a BatchNorm with "
        "track_running_stats=False) is not in the state_dict, so it is not listed"
    )


class WithExtraState(nn.Module):
    """A module that saves a Python object next to its tensors (get_extra_state)."""

    def __init__(self, extra):
        super().__init__()
        self.scale = nn.Linear(2, 2)
        self.register_buffer("steps", torch.zeros((), dtype=torch.int64))
        self.extra = extra

    def get_extra_state(self):
        return self.extra

    def set_extra_state(self, state):
        self.extra = state


# Extra state is any picklable object, a tensor too; the model itself may carry one (its key is
# then "_extra_state", without a dot).
EXTRA_STATES = {"a dict": lambda: {"version": 2}, "a tensor": lambda: torch.arange(3.0)}


@pytest.mark.parametrize("extra", EXTRA_STATES, ids=list(EXTRA_STATES))
@pytest.mark.parametrize("where", ["submodule", "top"])
def test_buffer_keys_leave_out_extra_state(device, extra, where):
    model = WithExtraState(EXTRA_STATES[extra]())
    if where == "top":
        expected = ["steps"]
    else:
        model = nn.Sequential(model, nn.BatchNorm1d(2))
        expected = ["0.steps", "1.running_mean", "1.running_var", "1.num_batches_tracked"]
    model.to(device)
    keys = buffer_keys(model)
    assert keys == expected, (
        f"expected {expected}, got {keys}: the '_extra_state' entry ({extra} here) is what "
        "get_extra_state returns, neither a parameter nor a buffer, whatever its type and "
        "wherever the module sits; keep the keys that name buffers"
    )


class NamedLikeExtraState(nn.Module):
    """Buffers and a parameter whose names end like an extra-state key; this module defines
    no get_extra_state, so even its buffer called `_extra_state` is a buffer."""

    def __init__(self):
        super().__init__()
        self.saved_extra_state = nn.Parameter(torch.zeros(2))
        self.register_buffer("last_extra_state", torch.zeros(2))
        self.register_buffer("_extra_state", torch.ones(1))


def test_buffer_keys_go_by_what_an_entry_is_not_by_its_name(device):
    model = nn.Sequential(WithExtraState({"version": 2}), NamedLikeExtraState()).to(device)
    expected = ["0.steps", "1.last_extra_state", "1._extra_state"]
    keys = buffer_keys(model)
    assert keys == expected, (
        f"expected {expected}, got {keys}: a buffer whose name ends in '_extra_state' is still "
        "a buffer, and only a module that defines get_extra_state has an extra-state entry; "
        "keep the keys that name buffers (named_buffers) rather than matching names"
    )


@pytest.mark.parametrize("sharing", ["one buffer", "one module"])
def test_buffer_keys_list_a_shared_buffer_under_each_name(device, sharing):
    if sharing == "one module":  # named_modules() lists it once, state_dict() twice
        norm = nn.BatchNorm1d(2)
        model = nn.Sequential(norm, norm).to(device)
    else:
        model = nn.Sequential(nn.BatchNorm1d(2), nn.BatchNorm1d(2)).to(device)
        model[1].running_mean = model[0].running_mean
    keys = buffer_keys(model)
    stats = ["running_mean", "running_var", "num_batches_tracked"]
    expected = [f"{i}.{name}" for i in (0, 1) for name in stats]
    assert keys == expected, (
        f"got {keys}: a shared buffer ({sharing} under two names) is in the state_dict under "
        "both names; list both"
    )


def test_buffer_keys_leave_out_tied_parameters(device):
    model = TiedLM().to(device)
    keys = buffer_keys(model)
    assert keys == [], (
        f"got {keys}: 'out.weight' is the embedding's weight under a second name, a "
        "parameter; compare with named_parameters(remove_duplicate=False)"
    )


def test_load_a_checkpoint_saved_from_a_wrapped_model(device):
    source = trained_net()
    checkpoint = saved_and_loaded(Wrapper(source).state_dict())
    assert all(key.startswith("module.") for key in checkpoint)
    target = Net().to(device)
    parameters_before = dict(target.named_parameters())
    buffers_before = dict(target.named_buffers())
    returned = load_checkpoint(target, checkpoint)
    assert returned is target, "return the model you loaded into"
    for key, value in source.state_dict().items():
        loaded = target.state_dict()[key]
        check_tensor(loaded, dtype=value.dtype, device=device, name=key)
        assert_close(loaded.cpu(), value, f"{key} was not loaded")
    for name, parameter in target.named_parameters():
        assert parameter is parameters_before[name], (
            f"{name} was replaced; load into the existing tensors (no assign=True)"
        )
    for name, buffer in target.named_buffers():
        assert buffer is buffers_before[name], (
            f"the buffer {name} was replaced (by the checkpoint's own tensor?): copy the values "
            "into the existing buffers, so training later leaves the checkpoint as it was"
        )


def test_load_a_checkpoint_without_prefix(device):
    source = trained_net()
    checkpoint = saved_and_loaded(source.state_dict())
    target = load_checkpoint(Net().to(device), checkpoint)
    running_var = target.features[1].running_var
    assert_close(running_var.cpu(), source.features[1].running_var, "buffers are loaded as well")
    assert target.features[1].num_batches_tracked.item() == 3


@pytest.mark.parametrize("name", ["_orig_mod", "model", "net"])
def test_only_the_module_prefix_is_stripped(device, name):
    # "otherwise the keys are used as they are": a model whose keys all start with another
    # wrapper's prefix (torch.compile's `_orig_mod.`) loads its own checkpoint unchanged.
    source, target = nn.Module(), nn.Module()
    for model in (source, target):
        model.add_module(name, nn.Linear(3, 3))
    target.to(device)
    checkpoint = source.state_dict()
    assert all(key.startswith(f"{name}.") for key in checkpoint)
    try:
        load_checkpoint(target, checkpoint)
    except NotImplementedError:
        raise
    except RuntimeError as error:
        raise AssertionError(
            f"keys that all start with {name!r}. did not load into the model they came from: "
            f"only a leading 'module.' is removed, every other key is used as it is ({error})"
        ) from None
    key = f"{name}.weight"
    assert_close(target.state_dict()[key].cpu(), checkpoint[key], f"{key} was not loaded")


class TopLevelModule(nn.Module):
    """An unwrapped model whose first submodule happens to be called `module`."""

    def __init__(self):
        super().__init__()
        self.module = nn.Linear(3, 3)
        self.bn = nn.BatchNorm1d(3)


class OnlyChildModule(nn.Module):
    """Every key of its own starts with "module.": its only submodule is called `module`."""

    def __init__(self):
        super().__init__()
        self.module = nn.Linear(3, 3)


class ModuleListChild(nn.Module):
    """Every key starts with "module", but not with "module."."""

    def __init__(self):
        super().__init__()
        self.module_list = nn.ModuleList([nn.Linear(3, 3), nn.BatchNorm1d(3)])


class ModuleAndModuleList(nn.Module):
    """Every key starts with "module", some with "module." and some without the dot."""

    def __init__(self):
        super().__init__()
        self.module = nn.Linear(3, 3)
        self.module_list = nn.ModuleList([nn.Linear(3, 2)])


# Key layouts where the ways of stripping a prefix disagree: keys starting with letters of
# "module." (embed, out), a submodule called "module" at any depth, some or all keys of the
# bare model starting with "module.", keys starting with "module" without the dot, and both.
LAYOUTS = {
    cls.__name__: cls
    for cls in (
        Net,
        TiedLM,
        NestedModuleName,
        TopLevelModule,
        OnlyChildModule,
        ModuleListChild,
        ModuleAndModuleList,
    )
}


# Saved bare, OnlyChildModule's keys all start with "module.": the rule strips them, as it
# must for a wrapped checkpoint, and such a checkpoint does not load.
KEY_LAYOUTS = [
    (layout, wrapped)
    for layout in LAYOUTS
    for wrapped in (True, False)
    if wrapped or layout != "OnlyChildModule"
]


@pytest.mark.parametrize(
    ("layout", "wrapped"),
    KEY_LAYOUTS,
    ids=[f"{layout} saved {'wrapped' if wrapped else 'bare'}" for layout, wrapped in KEY_LAYOUTS],
)
def test_loads_every_key_layout(device, layout, wrapped):
    source = LAYOUTS[layout]()
    with torch.no_grad():
        for parameter in source.parameters():
            parameter.normal_()
    checkpoint = (Wrapper(source) if wrapped else source).state_dict()
    target = LAYOUTS[layout]().to(device)
    try:
        load_checkpoint(target, checkpoint)
    except RuntimeError as error:
        if isinstance(error, NotImplementedError):
            raise
        raise AssertionError(
            f"a checkpoint of {layout} saved {'wrapped' if wrapped else 'bare'} did not load "
            f"(keys here: {list(checkpoint)[:3]}...): when every key starts with 'module.', "
            "remove that leading 'module.' once (str.removeprefix, not lstrip, not a count "
            "of characters, not in a loop), whatever the model's own keys look like; "
            f"otherwise use the keys as they are\n{error}"
        ) from error
    for key, value in source.state_dict().items():
        assert_close(target.state_dict()[key].cpu(), value, f"{layout}: {key} was not loaded")


def test_the_keys_alone_decide_no_second_try(device):
    # Saved bare, OnlyChildModule's keys all start with "module.": they lose it, as the
    # contract says, and the load fails, whatever the model's own keys would take. Loading
    # the keys as they are after the stripped ones failed (or before) decides by the model.
    source = OnlyChildModule()
    with torch.no_grad():
        for parameter in source.parameters():
            parameter.normal_()
    checkpoint = source.state_dict()
    with raises(RuntimeError):
        load_checkpoint(OnlyChildModule().to(device), checkpoint)
        pytest.fail(
            f"the bare checkpoint {list(checkpoint)} has every key starting with 'module.': "
            "they lose the prefix and no longer match the model, so the strict load raises "
            "RuntimeError; do not try the keys as they are too (the model's own keys play "
            "no part)"
        )


@pytest.mark.parametrize("prefix", ["module.", ""], ids=["with prefix", "without prefix"])
def test_loads_strictly(device, prefix):
    full = (Wrapper(trained_net()) if prefix else trained_net()).state_dict()
    broken = {
        "a missing key": {key: value for key, value in full.items() if key != f"{prefix}head.bias"},
        "an unexpected key": {**full, f"{prefix}head.scale": torch.ones(3)},
        "a shape mismatch": {**full, f"{prefix}head.bias": torch.zeros(4)},
        "a shape that only broadcasts": {**full, f"{prefix}head.bias": torch.zeros(1)},
    }
    for what, checkpoint in broken.items():
        with raises(RuntimeError):
            load_checkpoint(Net().to(device), checkpoint)
            pytest.fail(
                f"a checkpoint {'with' if prefix else 'without'} the 'module.' prefix and "
                f"{what} should raise RuntimeError: load strictly (strict=True) in every case"
            )


def test_keeps_the_models_dtype(device):
    skip_unless_supported(device, torch.float64)
    source = trained_net()  # float32
    target = Net().to(device=device, dtype=torch.float64)
    load_checkpoint(target, saved_and_loaded(Wrapper(source).state_dict()))
    for key, value in source.state_dict().items():
        loaded = target.state_dict()[key]
        dtype = torch.float64 if value.is_floating_point() else value.dtype
        check_tensor(loaded, dtype=dtype, device=device, name=f"{key} (a float64 model's)")
        assert_close(loaded.cpu(), value.to(dtype), f"{key} was not loaded")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("prefix", ["module.", ""], ids=["with prefix", "without prefix"])
def test_does_not_modify_the_checkpoint(device, prefix, dtype):
    # A float64 model takes float32 values: converted on the way in, not in the checkpoint.
    skip_unless_supported(device, dtype)
    checkpoint = (Wrapper(trained_net()) if prefix else trained_net()).state_dict()
    keys_before = list(checkpoint)
    entries_before = dict(checkpoint)
    values_before = {key: value.clone() for key, value in checkpoint.items()}
    load_checkpoint(Net().to(device, dtype), checkpoint)
    assert list(checkpoint) == keys_before, (
        "the checkpoint's keys were changed; build a new dict with the stripped keys"
    )
    for key, value in checkpoint.items():
        assert value is entries_before[key] and value.dtype == values_before[key].dtype, (
            f"checkpoint[{key!r}] was replaced or converted: the caller's dict stays as it was"
        )
        assert torch.equal(value, values_before[key]), f"checkpoint[{key!r}] was modified"


# ---------------------------------------------------------------- edge models

# facets.EDGE_MODELS: models holding nothing, no parameters, buffers only, all frozen.
EDGE_MODELS = facets.EDGE_MODELS


class ReadOnlyCheckpoint(Mapping):
    """A Mapping that is not a dict (the contract's type): no copy(), no item assignment."""

    def __init__(self, entries):
        self._entries = dict(entries)

    def __getitem__(self, key):
        return self._entries[key]

    def __iter__(self):
        return iter(self._entries)

    def __len__(self):
        return len(self._entries)


def unique_parameters(model):
    """The oracle: the model's Parameter objects, each once, by a walk over its modules."""
    seen = {}
    for module in model.modules():
        for parameter in module._parameters.values():
            if parameter is not None:
                seen.setdefault(id(parameter), parameter)
    return list(seen.values())


@pytest.mark.parametrize("kind", EDGE_MODELS)
def test_edge_models_are_counted_and_listed(device, kind):
    model = EDGE_MODELS[kind]().to(device)
    parameters = unique_parameters(model)
    for trainable_only in (False, True):
        expected = sum(p.numel() for p in parameters if p.requires_grad or not trainable_only)
        got = count_parameters(model, trainable_only=trainable_only)
        assert type(got) is int and got == expected, (
            f"a model with {kind}, trainable_only={trainable_only}: expected {expected}, got "
            f"{got!r}; a model may hold no (trainable) parameters at all"
        )
    # non-persistent buffers are absent from state_dict, so this keeps the persistent ones
    buffers = {name for name, _ in model.named_buffers(remove_duplicate=False)}
    expected_keys = [key for key in model.state_dict() if key in buffers]
    assert buffer_keys(model) == expected_keys, f"a model with {kind}: expected {expected_keys}"


@pytest.mark.parametrize("mapping", [dict, ReadOnlyCheckpoint], ids=["dict", "other Mapping"])
@pytest.mark.parametrize("prefix", ["module.", ""], ids=["with prefix", "without prefix"])
@pytest.mark.parametrize("kind", EDGE_MODELS)
def test_edge_models_load(device, kind, prefix, mapping):
    source = EDGE_MODELS[kind]()
    with torch.no_grad():
        for tensor in source.state_dict().values():
            tensor.add_(1)  # other values than a fresh model's, num_batches_tracked too
    model = EDGE_MODELS[kind]().to(device)

    def own():
        return {**dict(model.named_parameters()), **dict(model.named_buffers())}

    kept = own()
    checkpoint = mapping({prefix + key: value for key, value in source.state_dict().items()})
    assert load_checkpoint(model, checkpoint) is model, "return the model itself"
    for key, value in source.state_dict().items():
        loaded = own()[key]
        assert loaded is kept[key], f"{key}: copy into the model's own tensor, do not replace it"
        assert_close(loaded.detach().cpu(), value, f"a model with {kind}: {key} was not loaded")


def test_an_empty_checkpoint_loads_into_a_model_without_state_only(device):
    assert load_checkpoint(nn.ReLU().to(device), {}) is not None, "nothing to load, no error"
    with raises(RuntimeError):  # strict: every key of the model is missing
        load_checkpoint(nn.BatchNorm1d(3, affine=False).to(device), {})


# ---------------------------------------------------------------- facets


def with_buffers(device):
    return facets.args(nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3)).to(device))


def frozen_head(device):
    model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.Linear(3, 1)).to(device)
    model[2].requires_grad_(False)
    return facets.args(model)


def grown(arguments):
    """A layer appended, with parameters and a buffer of its own."""
    model = arguments.args[0]
    device = next(model.parameters()).device
    model.append(nn.BatchNorm1d(3).to(device))


def frozen(arguments):
    arguments.args[0][0].requires_grad_(False)


def wrapped_checkpoint(device):
    # A real state_dict, with the version records (`_metadata`) it carries as an attribute.
    return facets.args(nn.Linear(3, 2).to(device), Wrapper(nn.Linear(3, 2)).state_dict())


FACETS = facets.declare(
    facets.of(
        count_parameters,
        facets.Number(with_buffers, int),
        facets.Unmodified(with_buffers, module_grads=True),
        facets.Defaults(frozen_head, values={"trainable_only": False}),
        # A model changes between calls: counted anew at each one.
        facets.Changed(with_buffers, grown),
        facets.Changed(
            lambda device: with_buffers(device).replace(trainable_only=True),
            frozen,
            label="frozen",
        ),
    ),
    facets.of(
        buffer_keys,
        facets.Number(with_buffers, list),
        facets.Unmodified(with_buffers, module_grads=True),
        facets.Changed(with_buffers, grown),
    ),
    facets.of(
        load_checkpoint,
        facets.Returns(wrapped_checkpoint, kind="same"),
        facets.Unmodified(wrapped_checkpoint, inputs=lambda arguments: arguments.args[1]),
        facets.Modes(wrapped_checkpoint, module=lambda arguments: arguments.args[0]),
    ),
)
test_facets = FACETS.test
