import pytest
import torch
from torch import nn

from katas.q14_param_groups import decay_groups, make_optimizer
from torch_katas import facets
from torch_katas.testing import assert_close, raises


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.ln = nn.LayerNorm(width)
        self.fc = nn.Linear(width, width)
        self.gn = nn.GroupNorm(2, width)

    def forward(self, x):
        return self.gn(self.fc(self.ln(x)))


class Zoo(nn.Module):
    """One of everything the rule talks about, with names that do not give the type away."""

    def __init__(self, width=8):
        super().__init__()
        self.tokens = nn.Embedding(10, width)
        self.conv = nn.Conv1d(width, width, 3, padding=1)
        self.stats = nn.BatchNorm1d(width)
        self.instance = nn.InstanceNorm1d(width, affine=True)
        self.blocks = nn.ModuleList([Block(width), Block(width)])
        self.normalizer = nn.Linear(width, width)  # a Linear, whatever its name says
        self.heads = nn.ModuleDict(
            {
                "plain": nn.Linear(width, 3, bias=False),
                "scaled": nn.Sequential(nn.Linear(width, 4), nn.RMSNorm(4)),
            }
        )
        self.attention = nn.MultiheadAttention(width, 2)
        self.scale = nn.Parameter(torch.ones(width))  # a custom 1-D parameter: decays
        self.offsets = nn.Parameter(torch.zeros(width))  # its own name does not end in bias

    def expected(self):
        """(decay, no_decay) written out by hand, each as a set of ids."""
        decay = [
            self.conv.weight,
            *(block.fc.weight for block in self.blocks),
            self.normalizer.weight,
            self.heads["plain"].weight,
            self.heads["scaled"][0].weight,
            self.attention.in_proj_weight,
            self.attention.out_proj.weight,
            self.scale,
            self.offsets,
        ]
        no_decay = [
            self.tokens.weight,
            self.conv.bias,
            self.stats.weight,
            self.stats.bias,
            self.instance.weight,
            self.instance.bias,
            *(p for block in self.blocks for p in (block.ln.weight, block.ln.bias)),
            *(p for block in self.blocks for p in (block.fc.bias, block.gn.weight, block.gn.bias)),
            self.normalizer.bias,
            self.heads["scaled"][0].bias,
            self.heads["scaled"][1].weight,
            self.attention.in_proj_bias,
            self.attention.out_proj.bias,
        ]
        return {id(p) for p in decay}, {id(p) for p in no_decay}


class OutputFirst(nn.Module):
    """The tied table is registered first by a Linear, then by the Embedding.

    A LayerNorm sits between them, so a no-decay list built in the order the no-decay
    holders are met (the table last) is out of the order of model.parameters().
    """

    def __init__(self, vocab=12, width=6):
        super().__init__()
        self.unembed = nn.Linear(width, vocab, bias=False)
        self.norm = nn.LayerNorm(width)
        self.embed = nn.Embedding(vocab, width)
        self.embed.weight = self.unembed.weight


class Scale(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(width))


class SharedOffset(nn.Module):
    """One vector that a custom layer calls "weight" and a Linear uses as its bias."""

    def __init__(self, width=5):
        super().__init__()
        self.scale = Scale(width)
        self.fc = nn.Linear(width, width)
        self.fc.bias = self.scale.weight


class TiedLanguageModel(nn.Module):
    """The output layer reuses the embedding table (weight tying)."""

    def __init__(self, vocab=12, width=6):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.mix = nn.Linear(width, width)
        self.norm = nn.LayerNorm(width)
        self.unembed = nn.Linear(width, vocab, bias=False)
        self.unembed.weight = self.embed.weight


def names(model):
    return {id(p): name for name, p in model.named_parameters()}


def in_model_order(model, ids):
    """The model's parameters whose id is in `ids`, in the order of model.parameters()."""
    return [p for p in model.parameters() if id(p) in ids]


def assert_same_parameters(model, actual, expected, group):
    """`actual` must be exactly the Parameter objects of `expected`, in that order."""
    label = names(model)
    assert isinstance(actual, list), f"the {group} group should be a list, got {type(actual)}"
    actual_ids, expected_ids = [id(p) for p in actual], [id(p) for p in expected]
    unknown = [p for p in actual if id(p) not in label]
    assert not unknown, (
        f"the {group} group holds {len(unknown)} tensors that are not the model's own "
        "parameters; put the Parameter objects themselves in it, not copies"
    )
    missing = [label[i] for i in expected_ids if i not in actual_ids]
    extra = [label[i] for i in actual_ids if i not in expected_ids]
    assert not missing and not extra, (
        f"{group} group: missing {missing}, should not contain {extra}"
    )
    assert len(actual_ids) == len(set(actual_ids)), f"the {group} group lists a parameter twice"
    assert actual_ids == expected_ids, (
        f"the {group} group should keep the order of model.parameters(): "
        f"{[label[i] for i in expected_ids]}, got {[label[i] for i in actual_ids]}"
    )


def test_splits_by_layer_type_and_parameter_name(device):
    model = Zoo().to(device)
    decay, no_decay = decay_groups(model)
    expected_decay, expected_no_decay = model.expected()
    assert_same_parameters(model, decay, in_model_order(model, expected_decay), "decay")
    assert_same_parameters(model, no_decay, in_model_order(model, expected_no_decay), "no-decay")


def test_every_trainable_parameter_lands_in_exactly_one_group(device):
    model = Zoo().to(device)
    decay, no_decay = decay_groups(model)
    ids = [id(p) for p in decay + no_decay]
    label = names(model)
    twice = {label.get(i, "?") for i in ids if ids.count(i) > 1}
    assert not twice, f"parameters in both groups (or twice in one): {sorted(twice)}"
    left_out = [name for name, p in model.named_parameters() if id(p) not in ids]
    assert not left_out, f"trainable parameters in neither group: {left_out}"


def test_frozen_parameters_are_in_neither_group(device):
    model = Zoo().to(device)
    model.tokens.requires_grad_(False)
    model.blocks[0].requires_grad_(False)
    model.scale.requires_grad_(False)
    decay, no_decay = decay_groups(model)
    expected_decay, expected_no_decay = model.expected()
    trainable = {id(p) for p in model.parameters() if p.requires_grad}
    assert_same_parameters(model, decay, in_model_order(model, expected_decay & trainable), "decay")
    assert_same_parameters(
        model, no_decay, in_model_order(model, expected_no_decay & trainable), "no-decay"
    )


def test_tied_weights_are_listed_once_without_decay(device):
    model = TiedLanguageModel().to(device)
    decay, no_decay = decay_groups(model)
    tied = model.embed.weight
    assert_same_parameters(model, decay, [model.mix.weight], "decay")
    assert_same_parameters(
        model, no_decay, [tied, model.mix.bias, model.norm.weight, model.norm.bias], "no-decay"
    )
    optimizer = make_optimizer(model, lr=1e-2, weight_decay=0.1)
    held = [p for group in optimizer.param_groups for p in group["params"]]
    assert sum(p is tied for p in held) == 1, "the tied embedding must be in the optimizer once"


class FP32LayerNorm(nn.LayerNorm):
    """A LayerNorm subclass, as many code bases have (it normalises in float32)."""

    def forward(self, x):
        return super().forward(x.float()).to(x.dtype)


class PositionTable(nn.Embedding):
    pass


def test_subclasses_of_the_no_decay_layers_get_no_decay(device):
    model = nn.Sequential(PositionTable(6, 4), FP32LayerNorm(4), nn.Linear(4, 2)).to(device)
    decay, no_decay = decay_groups(model)
    assert_same_parameters(model, decay, [model[2].weight], "decay")
    assert_same_parameters(
        model,
        no_decay,
        [model[0].weight, model[1].weight, model[1].bias, model[2].bias],
        "no-decay (a subclass of nn.LayerNorm or nn.Embedding is one too: isinstance, "
        "not type(module) in ...)",
    )


class LearnedPositionalEmbedding(nn.Module):
    """A custom layer, not an nn.Embedding, whatever its class name says."""

    def __init__(self, length=6, width=4):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(length, width))


class ByOwnName(nn.Module):
    """Names in which "bias" stands elsewhere than at the end of the parameter's own name,
    and one that ends with it after no "_" (it ends with bias all the same), a 2-D one."""

    def __init__(self, width=4):
        super().__init__()
        self.bias_proj = nn.Linear(width, width)  # its weight's own name is "weight"
        self.attention = nn.MultiheadAttention(width, 2, add_bias_kv=True)  # bias_k, bias_v
        self.lstm = nn.LSTM(width, width)  # bias_ih_l0, bias_hh_l0
        self.positions = LearnedPositionalEmbedding(width=width)
        # No decay: it ends with "bias", whatever its shape (a 2-D table of biases too).
        self.posbias = nn.Parameter(torch.zeros(3, width))


def test_the_rule_reads_the_own_name_and_the_class_only(device):
    model = ByOwnName().to(device)
    decay, no_decay = decay_groups(model)
    ends_in_bias = {id(p) for name, p in model.named_parameters() if name.endswith("bias")}
    assert len(ends_in_bias) == 4, (
        "test model: bias_proj.bias, in_proj_bias, out_proj.bias, posbias"
    )
    assert_same_parameters(
        model,
        decay,
        in_model_order(model, {id(p) for p in model.parameters()} - ends_in_bias),
        "decay (by the letter: a name that does not end with bias decays, bias_k and "
        "bias_ih_l0 too, and so does a layer that is none of the listed classes, whatever its "
        "class or attribute is called)",
    )
    assert_same_parameters(
        model,
        no_decay,
        in_model_order(model, ends_in_bias),
        'no-decay (every own name that ends with "bias", with or without a "_" before it, '
        "of any shape)",
    )


class CaseMatters(nn.Module):
    """Names ending in "Bias" or "BIAS", not "bias": they decay (the rule goes by the letter)."""

    def __init__(self, width=4):
        super().__init__()
        self.logitBias = nn.Parameter(torch.zeros(width))
        self.Bias = nn.Parameter(torch.zeros(width))
        self.fc = nn.Linear(width, width)
        self.fc.register_parameter("BIAS", nn.Parameter(torch.zeros(width)))


def test_a_name_ending_in_bias_with_capitals_decays(device):
    model = CaseMatters().to(device)
    decay, no_decay = decay_groups(model)
    expected = [model.logitBias, model.Bias, model.fc.weight, model.fc.BIAS]
    assert_same_parameters(model, decay, expected, "decay (case counts: Bias is not bias)")
    assert_same_parameters(model, no_decay, [model.fc.bias], "no-decay")


class Modulated(nn.LayerNorm):
    """A normalisation layer holding a Linear of its own (adaptive LayerNorm), and a
    parameter of its own besides weight and bias (no decay: the layer holds it itself)."""

    def __init__(self, width=4):
        super().__init__(width)
        self.gate = nn.Parameter(torch.ones(width))
        self.adapter = nn.Linear(width, 2 * width)


class TableWithProjection(nn.Embedding):
    def __init__(self, width=4):
        super().__init__(6, width)
        self.temperature = nn.Parameter(torch.ones(()))
        self.projection = nn.Linear(width, width)


@pytest.mark.parametrize("make", [Modulated, TableWithProjection], ids=["norm", "embedding"])
def test_a_module_inside_a_no_decay_layer_follows_its_own_class(device, make):
    model = nn.Sequential(make(), nn.Linear(4, 4)).to(device)
    decay, no_decay = decay_groups(model)
    inner = next(child for child in model[0].children())
    assert_same_parameters(
        model,
        decay,
        [inner.weight, model[1].weight],
        "decay (the no-decay layer's own parameters only: a Linear inside it decays its weight)",
    )
    own = list(model[0].parameters(recurse=False))  # its gate or temperature too
    assert_same_parameters(
        model,
        no_decay,
        [*own, inner.bias, model[1].bias],
        "no-decay (every parameter the layer holds itself, named_parameters(recurse=False), "
        "not its weight and bias alone)",
    )


def test_a_lazy_layers_uninitialised_parameters_are_in_the_groups(device):
    # Before its first forward a lazy layer holds UninitializedParameter objects: trainable
    # parameters like any other, which that forward fills in place, so an optimizer built now
    # trains them. Each is in a group by the rule (LazyBatchNorm1d is no BatchNorm1d yet: its
    # weight decays), none is left out.
    model = nn.Sequential(nn.LazyLinear(4), nn.LazyBatchNorm1d())
    decay, no_decay = decay_groups(model)
    assert_same_parameters(
        model,
        decay,
        [model[0].weight, model[1].weight],
        "decay (uninitialised parameters are trainable parameters: leave none out)",
    )
    assert_same_parameters(model, no_decay, [model[0].bias, model[1].bias], "no-decay")


def test_each_call_reads_the_model_as_it_is_now(device):
    model = Zoo().to(device)
    decay_groups(model)
    make_optimizer(model, lr=1e-3, weight_decay=0.1)
    model.blocks[0].requires_grad_(False)
    model.extra = nn.Linear(8, 8).to(device)
    decay, no_decay = decay_groups(model)
    expected_decay, expected_no_decay = model.expected()
    expected_decay |= {id(model.extra.weight)}
    expected_no_decay |= {id(model.extra.bias)}
    trainable = {id(p) for p in model.parameters() if p.requires_grad}
    groups = [g["params"] for g in make_optimizer(model, lr=1e-3, weight_decay=0.1).param_groups]
    for found in ((decay, no_decay), groups):
        assert_same_parameters(
            model, found[0], in_model_order(model, expected_decay & trainable), "decay"
        )
        assert_same_parameters(
            model, found[1], in_model_order(model, expected_no_decay & trainable), "no-decay"
        )


class TwoNames(nn.Module):
    """One parameter registered twice in the same module, the second name ending in bias."""

    def __init__(self, width=4):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(width))
        self.shift_bias = self.scale
        self.fc = nn.Linear(width, width)


def test_a_parameter_registered_twice_gets_no_decay_from_either_name(device):
    model = TwoNames().to(device)
    decay, no_decay = decay_groups(model)
    assert_same_parameters(model, decay, [model.fc.weight], "decay")
    assert_same_parameters(
        model,
        no_decay,
        [model.scale, model.fc.bias],
        "no-decay (a parameter one module holds under two names, one ending in bias; "
        "named_parameters(recurse=False) lists it once unless remove_duplicate=False)",
    )


@pytest.mark.parametrize("make", [OutputFirst, SharedOffset], ids=["linear-first", "named-bias"])
def test_a_tied_parameter_gets_no_decay_from_any_holder(device, make):
    model = make().to(device)
    decay, no_decay = decay_groups(model)
    tied, other, later = (
        (model.unembed.weight, [], [model.norm.weight, model.norm.bias])
        if isinstance(model, OutputFirst)
        else (model.scale.weight, [model.fc.weight], [])
    )
    assert_same_parameters(model, decay, other, "decay")
    assert_same_parameters(model, no_decay, [tied, *later], "no-decay")
    assert len(list(model.named_parameters())) == 1 + len(other) + len(later), "test model is tied"
    # named_parameters() lists a tied parameter once, under the first name only: ask every
    # module about the parameters it holds (named_parameters(recurse=False)).


@pytest.mark.parametrize("lr, weight_decay", [(1e-3, 0.1), (0.5, 0.0), (2e-4, 0.05)])
def test_make_optimizer_builds_two_adamw_groups(device, lr, weight_decay):
    model = Zoo().to(device)
    optimizer = make_optimizer(model, lr=lr, weight_decay=weight_decay)
    assert isinstance(optimizer, torch.optim.AdamW), (
        f"make_optimizer should return a torch.optim.AdamW, got {type(optimizer).__name__}"
    )
    groups = optimizer.param_groups
    assert len(groups) == 2, f"expected exactly two parameter groups, got {len(groups)}"
    expected_decay, expected_no_decay = model.expected()
    assert_same_parameters(
        model, groups[0]["params"], in_model_order(model, expected_decay), "decay"
    )
    assert_same_parameters(
        model, groups[1]["params"], in_model_order(model, expected_no_decay), "no-decay"
    )
    assert groups[0]["weight_decay"] == weight_decay, (
        f"param_groups[0] should have weight_decay={weight_decay}, got {groups[0]['weight_decay']}"
    )
    assert groups[1]["weight_decay"] == 0.0, (
        f"param_groups[1] should have weight_decay=0.0, got {groups[1]['weight_decay']}"
    )
    assert [group["lr"] for group in groups] == [lr, lr], "both groups should use lr"
    assert optimizer.defaults["lr"] == lr, (
        f"optimizer.defaults['lr'] is {optimizer.defaults['lr']}, not lr={lr}: a group added "
        "later with add_param_group gets the defaults; pass lr to AdamW as a keyword"
    )
    defaults = torch.optim.AdamW([torch.zeros(1, requires_grad=True)]).defaults
    for index, group in enumerate(groups):
        for option, value in defaults.items():
            if option not in ("lr", "weight_decay"):
                assert group[option] == value, (
                    f"param_groups[{index}] has {option}={group[option]!r}; leave AdamW's "
                    f"other options at their defaults ({option}={value!r})"
                )


def test_a_step_shrinks_only_the_decay_group(device):
    model = Zoo().to(device)
    optimizer = make_optimizer(model, lr=0.1, weight_decay=0.5)
    before = {name: p.detach().clone() for name, p in model.named_parameters()}
    for p in model.parameters():
        p.grad = torch.zeros_like(p)  # with zero gradients, only weight decay moves anything
    optimizer.step()
    expected_decay, _ = model.expected()
    for name, p in model.named_parameters():
        assert p.device.type == device.type
        factor = 1 - 0.1 * 0.5 if id(p) in expected_decay else 1.0
        assert_close(
            p.detach(),
            before[name] * factor,
            f"after one step with zero gradients, {name} should be scaled by {factor}",
        )


def test_a_model_without_biases_or_norms_gets_an_empty_second_group(device):
    model = nn.Sequential(nn.Linear(3, 4, bias=False), nn.ReLU(), nn.Linear(4, 2, bias=False))
    model.to(device)
    optimizer = make_optimizer(model, lr=1e-3, weight_decay=0.1)
    groups = optimizer.param_groups
    assert len(groups) == 2, f"expected exactly two parameter groups, got {len(groups)}"
    assert_same_parameters(model, groups[0]["params"], [model[0].weight, model[2].weight], "decay")
    assert_same_parameters(model, groups[1]["params"], [], "no-decay")


def test_a_model_of_norms_and_biases_only_gets_an_empty_first_group(device):
    model = nn.LayerNorm(4).to(device)
    optimizer = make_optimizer(model, lr=1e-3, weight_decay=0.1)
    groups = optimizer.param_groups
    assert len(groups) == 2, f"expected exactly two parameter groups, got {len(groups)}"
    assert_same_parameters(model, groups[0]["params"], [], "decay")
    assert_same_parameters(model, groups[1]["params"], [model.weight, model.bias], "no-decay")
    assert groups[0]["weight_decay"] == 0.1 and groups[1]["weight_decay"] == 0.0


def test_does_not_change_the_model(device):
    model = Zoo().to(device)
    model.blocks[1].requires_grad_(False)
    flags = {name: p.requires_grad for name, p in model.named_parameters()}
    values = {name: p.detach().clone() for name, p in model.state_dict().items()}
    make_optimizer(model, lr=1e-3, weight_decay=0.1)
    assert flags == {name: p.requires_grad for name, p in model.named_parameters()}, (
        "requires_grad flags must stay as they were"
    )
    for name, value in model.state_dict().items():
        assert torch.equal(value, values[name]), f"{name} must not be modified"


@pytest.mark.parametrize("lr, weight_decay", [(-1e-3, 0.1), (1e-3, -0.1)], ids=["lr", "wd"])
def test_rejects_negative_hyperparameters(device, lr, weight_decay):
    model = nn.Linear(3, 2).to(device)
    with raises(ValueError):
        make_optimizer(model, lr=lr, weight_decay=weight_decay)


def test_takes_a_zero_learning_rate(device):
    model = nn.Linear(3, 2).to(device)
    optimizer = make_optimizer(model, lr=0.0, weight_decay=0.0)
    assert [group["lr"] for group in optimizer.param_groups] == [0.0, 0.0], (
        "lr=0 is allowed (only lr < 0 is an error): both groups should have lr 0.0"
    )


# ---------------------------------------------------------------- facets

# Constructor arguments of each layer kind the rule names, and of others (whose weight decays).
LAYER_ARGUMENTS = {
    nn.BatchNorm1d: (4,),
    nn.BatchNorm2d: (4,),
    nn.BatchNorm3d: (4,),
    nn.SyncBatchNorm: (4,),
    nn.InstanceNorm1d: (4, 1e-5, 0.1, True),
    nn.InstanceNorm2d: (4, 1e-5, 0.1, True),
    nn.InstanceNorm3d: (4, 1e-5, 0.1, True),
    nn.LayerNorm: (4,),
    nn.GroupNorm: (2, 4),
    nn.RMSNorm: (4,),
    nn.Embedding: (5, 4),
    nn.EmbeddingBag: (5, 4),
    nn.Linear: (4, 4),
    nn.Conv1d: (4, 4, 3),
    nn.Bilinear: (4, 4, 2),
    nn.PReLU: (4,),
    # Lazy layers are none of the listed classes until their first forward.
    nn.LazyBatchNorm1d: (),
    nn.LazyInstanceNorm1d: (1e-5, 0.1, True),
}


def layer(cls, device):
    base = next(kind for kind in cls.__mro__ if kind in LAYER_ARGUMENTS)
    model = nn.Sequential(cls(*LAYER_ARGUMENTS[base]))
    # A lazy layer's parameters hold no data yet, on any device (and not every device
    # moves them).
    lazy = issubclass(cls, nn.modules.lazy.LazyModuleMixin)
    return facets.args(model if lazy else model.to(device))


def weight_without_decay(arguments, result):
    weight = arguments.args[0][0].weight
    return any(parameter is weight for parameter in result[1])


def small_model(device):
    return facets.args(nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8)).to(device))


def nothing_trains(model):
    """The oracle for a model without trainable parameters (every edge model): no group
    holds any."""
    assert not any(p.requires_grad for p in model.parameters())
    return [], []


def edge_optimizer(model, device):
    return facets.args(model, 1e-3, 0.1)


def groups_of(model, lr, weight_decay):
    optimizer = make_optimizer(model, lr, weight_decay)
    # A no-decay group given "weight_decay": 0 (an int) decays nothing, as 0.0 does.
    return [(len(g["params"]), float(g["weight_decay"]), g["lr"]) for g in optimizer.param_groups]


FACETS = facets.declare(
    # Models at the edges: nothing, no parameters, buffers only, all frozen.
    facets.of(
        decay_groups,
        facets.Edges(
            facets.edge_models(lambda model, device: facets.args(model)), oracle=nothing_trains
        ),
        name="decay_groups(edge models)",
    ),
    facets.of(
        make_optimizer,
        facets.Edges(
            facets.edge_models(edge_optimizer),
            oracle=lambda model, lr, weight_decay: [
                (len(nothing_trains(model)[0]), weight_decay, lr),
                (len(nothing_trains(model)[1]), 0.0, lr),
            ],
        ),
        name="make_optimizer(groups)",
        call=groups_of,
    ),
    facets.of(
        decay_groups,
        facets.Classes(
            layer,
            treated=weight_without_decay,
            covered=tuple(LAYER_ARGUMENTS)[:12],
            others=tuple(LAYER_ARGUMENTS)[12:],
        ),
        facets.Unmodified(small_model, module_grads=True),
        facets.Number(small_model, tuple),
        # Called again after the model changed: read anew, nothing kept from the last call.
        facets.Changed(small_model, lambda arguments: arguments.args[0].append(nn.LayerNorm(8))),
    ),
    facets.of(
        make_optimizer,
        *(
            facets.Setting(
                lambda device: small_model(device).replace(lr=1e-3, weight_decay=0.1), name, low=0
            )
            for name in ("lr", "weight_decay")
        ),
        facets.Unmodified(
            lambda device: small_model(device).replace(lr=1e-3, weight_decay=0.1),
            module_grads=True,
        ),
    ),
)
test_facets = FACETS.test
