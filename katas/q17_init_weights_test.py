import math

import pytest
import torch
from torch import nn

from katas.q17_init_weights import init_layer, init_weights
from torch_katas import facets
from torch_katas.testing import check_tensor, skip_unless_supported

# Every weight checked below has at least 18,000 entries: the sample std of a correct
# initialisation (uniform or normal) is within 2% of the formula over hundreds of seeds.
# The tolerance leaves a wide margin on every device and seed; each wrong scheme (another
# formula, the default init, a wrong fan) is off by 40% or more on at least one of the
# layers below. The sample mean of n independent draws has standard deviation std / sqrt(n):
# it is checked within 6 of those (a false alarm about once in 500 million checks), which
# catches a distribution shifted by a few percent of its std on the larger layers.
STD_TOLERANCE = 0.05
MEAN_SIGMAS = 6


def xavier_std(weight):
    fan_out, fan_in = weight.shape[0], weight[0].numel()
    return math.sqrt(2 / (fan_in + fan_out))


def kaiming_std(weight):
    return math.sqrt(2 / weight[0].numel())  # weight is (out, in / groups, *kernel)


def assert_zero_mean_and_std(weight, expected, what):
    values = weight.detach().double().cpu()
    std, mean = values.std().item(), values.mean().item()
    assert abs(std / expected - 1) < STD_TOLERANCE, (
        f"{what}: weight std is {std:.4g}, expected {expected:.4g}; check the scheme "
        "(Xavier for Linear, Kaiming fan-in for ReLU for Conv)"
    )
    assert abs(mean) < MEAN_SIGMAS * expected / math.sqrt(values.numel()), (
        f"{what}: weight mean is {mean:.3g}, expected 0 (a distribution centred on 0)"
    )


def fill_randomly(module, diverged=False):
    """Values no initialisation gives; `diverged`: a NaN and an inf among them too, as a
    model that blew up in training holds (zeros and ones are set, not multiplied in)."""
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.uniform_(2.0, 3.0)
            if diverged:
                parameter.view(-1)[0] = float("nan")
                parameter.view(-1)[-1] = float("inf")


@pytest.mark.parametrize("fan_in, fan_out", [(256, 256), (64, 1024), (1024, 64)])
def test_linear_weight_is_xavier(device, fan_in, fan_out):
    layer = nn.Linear(fan_in, fan_out, device=device)
    init_layer(layer)
    assert_zero_mean_and_std(layer.weight, xavier_std(layer.weight), f"{layer}")


@pytest.mark.parametrize(
    "make_conv",
    [
        lambda device: nn.Conv1d(32, 128, 5, device=device),
        lambda device: nn.Conv2d(32, 64, 3, device=device),
        lambda device: nn.Conv2d(128, 64, 3, groups=4, device=device),
        lambda device: nn.Conv3d(16, 32, 3, device=device),
        # fan_in counts every kernel element: (1, 5) is 5 of them, not 1 * 1 or 5 * 5.
        lambda device: nn.Conv2d(32, 64, (1, 5), device=device),
        lambda device: nn.Conv3d(16, 32, (3, 1, 2), device=device),
    ],
    ids=["conv1d", "conv2d", "conv2d-groups", "conv3d", "conv2d-1x5", "conv3d-3x1x2"],
)
def test_conv_weight_is_kaiming_fan_in_for_relu(device, make_conv):
    conv = make_conv(device)
    init_layer(conv)
    assert_zero_mean_and_std(conv.weight, kaiming_std(conv.weight), f"{conv}")


@pytest.mark.parametrize(
    "make_layer",
    [
        lambda device: nn.Linear(8, 4, device=device),
        lambda device: nn.Conv1d(3, 4, 3, device=device),
        lambda device: nn.Conv2d(3, 4, 3, device=device),
        lambda device: nn.Conv3d(3, 4, 3, device=device),
    ],
    ids=["linear", "conv1d", "conv2d", "conv3d"],
)
def test_biases_are_zero(device, make_layer):
    layer = make_layer(device)
    fill_randomly(layer, diverged=True)
    init_layer(layer)
    assert torch.count_nonzero(layer.bias) == 0, (
        f"{layer}: set its bias to zeros, whatever it held (NaN * 0 is NaN: fill, not multiply)"
    )
    assert torch.isfinite(layer.weight).all(), f"{layer}: the new weight holds NaN or inf"


@pytest.mark.parametrize(
    "make_norm",
    [
        lambda device: nn.BatchNorm1d(6, device=device),
        lambda device: nn.BatchNorm2d(6, device=device),
        lambda device: nn.BatchNorm3d(6, device=device),
        lambda device: nn.LayerNorm((3, 6), device=device),
        lambda device: nn.GroupNorm(2, 6, device=device),
    ],
    ids=["batchnorm1d", "batchnorm2d", "batchnorm3d", "layernorm", "groupnorm"],
)
def test_norm_layers_start_as_the_identity(device, make_norm):
    norm = make_norm(device)
    # As if it had been trained (the defaults 1 and 0 are gone), and had diverged: NaN, inf.
    fill_randomly(norm, diverged=True)
    init_layer(norm)
    assert torch.all(norm.weight == 1), (
        f"{norm}: set its weight (scale) to ones, whatever it held (fill, not w * 0 + 1)"
    )
    assert torch.all(norm.bias == 0), (
        f"{norm}: set its bias (shift) to zeros, whatever it held (NaN * 0 is NaN)"
    )


def test_layers_without_bias_or_affine_parameters(device):
    layers = [
        nn.Linear(256, 128, bias=False, device=device),
        nn.Conv2d(32, 64, 3, bias=False, device=device),
        nn.BatchNorm2d(4, affine=False, device=device),
        nn.LayerNorm(4, elementwise_affine=False, device=device),
        nn.LayerNorm(4, bias=False, device=device),
        nn.GroupNorm(2, 4, affine=False, device=device),
    ]
    for layer in layers:
        fill_randomly(layer)
        init_layer(layer)  # bias or weight is None here: skip it, do not fail
    assert_zero_mean_and_std(layers[0].weight, xavier_std(layers[0].weight), "Linear(bias=False)")
    assert_zero_mean_and_std(layers[1].weight, kaiming_std(layers[1].weight), "Conv2d(bias=False)")
    assert torch.all(layers[4].weight == 1), (
        "LayerNorm(bias=False): set its weight to ones even though it has no bias"
    )


def test_other_modules_keep_their_parameters(device):
    class Scale(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.randn(4, 4, device=device))
            self.bias = nn.Parameter(torch.randn(4, device=device))

    modules = [
        nn.Embedding(10, 4, device=device),
        nn.PReLU(device=device),
        Scale(),
        nn.ConvTranspose2d(3, 4, 3, device=device),  # not a subclass of nn.Conv2d
        nn.InstanceNorm2d(4, affine=True, device=device),  # not one of the norms listed
        nn.Sequential(nn.Linear(4, 4, device=device), nn.BatchNorm1d(4, device=device)),
    ]
    for module in modules:
        fill_randomly(module)
        before = {name: p.clone() for name, p in module.named_parameters()}
        init_layer(module)
        for name, parameter in module.named_parameters():
            assert torch.equal(parameter, before[name]), (
                f"init_layer({type(module).__name__}) changed {name}; leave modules of other "
                "types alone, and do not visit children (model.apply does that)"
            )


def test_norm_running_statistics_are_left_alone(device):
    norm = nn.BatchNorm2d(4, device=device)
    with torch.no_grad():
        norm.running_mean.uniform_(2.0, 3.0)
        norm.running_var.uniform_(2.0, 3.0)
        norm.num_batches_tracked.fill_(7)
    before = {name: buffer.clone() for name, buffer in norm.named_buffers()}
    init_layer(norm)
    for name, buffer in norm.named_buffers():
        assert torch.equal(buffer, before[name]), (
            f"init_layer(BatchNorm2d) changed the buffer {name}; set only weight and bias "
            "(nn.init.ones_ / zeros_), not reset_parameters(), which also resets the running "
            "statistics"
        )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_init_layer_fills_the_parameters_in_place(device, dtype):
    skip_unless_supported(device, dtype)
    layers = [
        nn.Linear(8, 4, device=device, dtype=dtype),
        nn.Conv2d(3, 4, 3, device=device, dtype=dtype),
        nn.LayerNorm(4, device=device, dtype=dtype),
    ]
    for layer in layers:
        before = dict(layer.named_parameters())
        init_layer(layer)
        for name, parameter in layer.named_parameters():
            what = f"{type(layer).__name__}.{name}"
            assert parameter is before[name], (
                f"{what} is a new Parameter; fill the existing one in place"
            )
            check_tensor(parameter, dtype=dtype, device=device, name=what)
            assert parameter.requires_grad and parameter.grad_fn is None, (
                f"{what} should stay a leaf that requires grad; initialise under torch.no_grad()"
            )


def test_subclasses_and_materialised_lazy_layers(device):
    class Dense(nn.Linear):
        pass

    class Conv(nn.Conv2d):
        pass

    class Norm(nn.LayerNorm):
        pass

    attention = nn.MultiheadAttention(256, 4, device=device)
    # The first forward gives lazy layers a shape; materialised on the CPU, then moved
    # (the simulated device cannot hold an uninitialised parameter).
    lazy_linear, lazy_conv = nn.LazyLinear(256), nn.LazyConv2d(64, 3)
    lazy_linear(torch.zeros(1, 128))
    lazy_conv(torch.zeros(1, 32, 5, 5))
    lazy_linear.to(device), lazy_conv.to(device)
    linears = [Dense(256, 128, device=device), attention.out_proj, lazy_linear]
    convs = [Conv(32, 64, 3, device=device), lazy_conv]
    norm = Norm(6, device=device)
    for layer in [*linears, *convs, norm]:
        fill_randomly(layer)
        init_layer(layer)
        what = f"{type(layer).__name__} (a {type(layer).__mro__[1].__name__})"
        if layer in convs:
            assert_zero_mean_and_std(layer.weight, kaiming_std(layer.weight), what)
        elif layer is norm:
            assert torch.all(norm.weight == 1), f"{what}: subclasses count, test with isinstance"
        else:
            assert_zero_mean_and_std(layer.weight, xavier_std(layer.weight), what)
        assert torch.count_nonzero(layer.bias) == 0, f"{what}: set its bias to zeros"


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv2d(32, 64, 3), nn.Conv2d(64, 32, 3, bias=False)])
        self.norms = nn.ModuleDict({"bn": nn.BatchNorm2d(64), "ln": nn.LayerNorm(32)})


def nested_model(device):
    model = nn.Sequential(
        Block(),
        nn.Sequential(nn.Linear(256, 128), nn.Tanh(), nn.Sequential(nn.Linear(128, 512))),
        nn.GroupNorm(4, 32),
    )
    fill_randomly(model)
    return model.to(device)


def assert_initialised(model):
    for name, module in model.named_modules():
        if isinstance(module, nn.Linear):
            assert_zero_mean_and_std(module.weight, xavier_std(module.weight), name)
        elif isinstance(module, nn.Conv2d):
            assert_zero_mean_and_std(module.weight, kaiming_std(module.weight), name)
        if isinstance(module, nn.BatchNorm2d | nn.LayerNorm | nn.GroupNorm):
            assert torch.all(module.weight == 1), f"{name}: norm weight should be ones"
        if getattr(module, "bias", None) is not None:
            assert torch.count_nonzero(module.bias) == 0, f"{name}: bias should be zeros"


def test_init_weights_reaches_every_nested_layer(device):
    model = nested_model(device)
    returned = init_weights(model)
    assert returned is model, "return the model itself (model.apply returns it)"
    assert_initialised(model)


def test_a_second_init_reinitialises_a_model_that_diverged(device):
    # Initialised, trained until it diverged (NaN, inf), initialised again: the second call
    # does all that the first did. Nothing remembers the modules an earlier call has seen.
    model = nested_model(device)
    init_weights(model)
    fill_randomly(model, diverged=True)
    init_weights(model)
    for name, parameter in model.named_parameters():
        assert torch.isfinite(parameter).all(), (
            f"{name} still holds the NaN or inf it had before the second init_weights: each "
            "call initialises every layer again, whatever an earlier call did (keep no record "
            "of the modules already seen)"
        )
    assert_initialised(model)


def test_init_weights_walks_the_model_with_apply(device):
    calls = []

    def state(model):
        return {name: value.detach().clone() for name, value in model.state_dict().items()}

    class Recording(nn.Sequential):
        def apply(self, fn):
            calls.append(state(self))  # before this walk
            prefixes = {id(module): name for name, module in self.named_modules()}

            def visit(module):
                # Each visit treats the module it is given: a walk of the function's own
                # from one visit (the root's, which apply makes last) is no walk by apply.
                before = state(self)
                fn(module)
                prefix = prefixes[id(module)] + "." if prefixes[id(module)] else ""
                own = {prefix + key for key, _ in module.named_parameters(recurse=False)}
                own |= {prefix + key for key, _ in module.named_buffers(recurse=False)}
                after = state(self)
                changed = sorted(k for k in before if not torch.equal(before[k], after[k]))
                assert set(changed) <= own, (
                    f"visiting {prefixes[id(module)] or 'the model'}, the function passed to "
                    f"model.apply changed {sorted(set(changed) - own)}: it treats the module "
                    "it is given; let model.apply(init_layer) walk the model, not a walk of "
                    "your own"
                )

            out = super().apply(visit)
            calls.append(state(self))  # after it
            return out

    model = Recording(nn.Linear(4, 4), nn.ReLU(), nn.Sequential(nn.Linear(4, 2))).to(device)
    model[0].bias.data.fill_(0.5)
    model[2][0].bias.data.fill_(0.5)
    untouched = state(model)
    init_weights(model)
    assert calls, "walk the model with model.apply(init_layer) instead of a loop of your own"
    done = state(model)
    # By behaviour: the walk that apply makes is the one that initialises the layers.
    # Nothing may change before it or after it (a loop of your own over model.modules()
    # around a model.apply call would), and apply's walk does change them.
    for name in untouched:
        assert torch.equal(calls[0][name], untouched[name]), (
            f"{name} changed before model.apply ran: initialise inside the function you "
            "pass to model.apply, not in a loop of your own"
        )
        assert torch.equal(done[name], calls[-1][name]), (
            f"{name} changed after model.apply returned: let model.apply(init_layer) walk "
            "the model, not a loop of your own"
        )
    assert not torch.equal(calls[-1]["2.0.bias"], untouched["2.0.bias"]), (
        "model.apply ran, but the walk did not initialise the nested Linear: pass init_layer "
        "to model.apply on the whole model"
    )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_initialises_in_place(device, dtype):
    skip_unless_supported(device, dtype)
    model = nested_model(device).to(dtype)
    before = dict(model.named_parameters())
    init_weights(model)
    after = dict(model.named_parameters())
    assert after.keys() == before.keys(), "init_weights must not add or remove parameters"
    for name, parameter in after.items():
        assert parameter is before[name], (
            f"{name} is a new Parameter; fill the existing one in place (torch.nn.init's "
            "functions ending in _ do) so that optimizers holding it still see it"
        )
        check_tensor(parameter, dtype=dtype, device=device, name=name)
        assert parameter.requires_grad and parameter.grad_fn is None, (
            f"{name} should stay a leaf that requires grad; initialise under torch.no_grad()"
        )


# ---------------------------------------------------------------- facets

# Constructor arguments of the layers the rule names, and of others it leaves alone.
LAYER_ARGUMENTS = {
    nn.Linear: (4, 3),
    nn.modules.linear.NonDynamicallyQuantizableLinear: (4, 3),
    nn.Conv1d: (2, 3, 3),
    nn.Conv2d: (2, 3, 3),
    nn.Conv3d: (2, 3, 3),
    nn.BatchNorm1d: (3,),
    nn.BatchNorm2d: (3,),
    nn.BatchNorm3d: (3,),
    nn.LayerNorm: (3,),
    nn.GroupNorm: (1, 3),
    nn.ConvTranspose1d: (2, 3, 3),
    nn.ConvTranspose2d: (2, 3, 3),
    nn.InstanceNorm1d: (3, 1e-5, 0.1, True),
    nn.Embedding: (5, 3),
    nn.Bilinear: (2, 2, 3),
    nn.SyncBatchNorm: (3,),  # shares BatchNorm's private base, but is not listed
    nn.RMSNorm: (3,),
    nn.MultiheadAttention: (4, 2),  # only its out_proj (a Linear subclass) is covered
    # Recurrent layers often get an init of their own (orthogonal weight_hh), not this one.
    nn.LSTM: (2, 3),
    nn.GRU: (2, 3),
    nn.RNN: (2, 3),
}
COVERED = tuple(LAYER_ARGUMENTS)[:10]
DRAWN = (nn.Linear, nn.Conv1d, nn.Conv2d, nn.Conv3d)


def preset_layer(cls, device, nested=False, frozen=False):
    """A layer of `cls` whose parameters hold values no initialisation gives (2.5);
    `frozen`: none of them requires grad (a pretrained layer is initialised all the same)."""
    base = next(kind for kind in cls.__mro__ if kind in LAYER_ARGUMENTS)
    layer = cls(*LAYER_ARGUMENTS[base]).to(device)
    with torch.no_grad():
        for parameter in layer.parameters():
            parameter.fill_(2.5)
    layer.requires_grad_(not frozen)
    return facets.args(nn.Sequential(nn.Sequential(layer)) if nested else layer)


def changed(arguments, result):
    return any(not bool((p == 2.5).all()) for p in arguments.args[0].parameters())


def edge_layer(model, device):
    """The edge model and its buffers' values before the call."""
    return facets.args(model, {name: b.clone() for name, b in model.named_buffers()})


def edge_kept(model, before):
    """The oracle: buffers as they were; every parameter of an edge model stays frozen."""
    return dict(before), [False for _ in model.parameters()]


def after_init(function):
    def call(model, before):
        result = function(model)
        flags = [p.requires_grad for p in model.parameters()]
        return result is model if result is not None else None, *(
            dict(model.named_buffers()),
            flags,
        )

    return call


FACETS = facets.declare(
    # Models at the edges: nothing, no parameters, buffers only, all frozen.
    facets.of(
        init_layer,
        facets.Edges(
            facets.edge_models(edge_layer),
            oracle=lambda model, before: (None, *edge_kept(model, before)),
        ),
        name="init_layer(edge models)",
        call=after_init(init_layer),
    ),
    facets.of(
        init_weights,
        facets.Edges(
            facets.edge_models(edge_layer),
            oracle=lambda model, before: (True, *edge_kept(model, before)),
        ),
        name="init_weights(edge models)",
        call=after_init(init_weights),
    ),
    facets.of(
        init_layer,
        facets.Classes(
            preset_layer,
            treated=changed,
            covered=COVERED,
            others=tuple(LAYER_ARGUMENTS)[10:],
            own=True,  # children are not visited
        ),
        facets.Classes(  # the type decides, not requires_grad: a frozen layer is initialised
            lambda cls, device: preset_layer(cls, device, frozen=True),
            treated=changed,
            covered=COVERED,
            label="frozen",
        ),
        # Every layer that draws, from the caller's generator; every layer the rule names,
        # filled in place (one class checked would leave the other branches unchecked).
        *(
            facets.Seeded(
                lambda device, cls=cls: preset_layer(cls, device),
                drawn=lambda arguments, result: arguments.args[0],
                label=cls.__name__,
            )
            for cls in DRAWN
        ),
        facets.Number(lambda device: preset_layer(nn.Linear, device), type(None)),
        facets.Modes(
            lambda device: preset_layer(nn.Linear, device),
            module=lambda arguments: arguments.args[0],
        ),
        *(
            facets.UpdatesAll(
                lambda device, cls=cls: preset_layer(cls, device),
                params=lambda arguments: list(arguments.args[0].parameters()),
                label=cls.__name__,
            )
            for cls in COVERED
        ),
    ),
    facets.of(
        init_weights,
        facets.Classes(
            lambda cls, device: preset_layer(cls, device, nested=True),
            treated=changed,
            covered=(nn.Linear, nn.Conv2d, nn.LayerNorm),
            others=(nn.ConvTranspose2d, nn.Embedding),
        ),
        facets.Classes(  # the model itself is a layer of it
            preset_layer,
            treated=changed,
            covered=(nn.Linear,),
            label="root",
        ),
        facets.Returns(lambda device: preset_layer(nn.Linear, device, nested=True), kind="same"),
        facets.Modes(
            lambda device: preset_layer(nn.BatchNorm1d, device, nested=True),
            module=lambda arguments: arguments.args[0],
        ),
    ),
)
test_facets = FACETS.test
