from itertools import pairwise

import pytest
import torch
from torch import nn

from katas.q09_mlp_module import MLP
from torch_katas import facets
from torch_katas.testing import (
    assert_close,
    check_tensor,
    raises,
    seed_for,
    skip_unless_supported,
)

# Any Sequence of ints: a tuple and a range too, not only a list.
SIZES = [[3, 2], [1, 1], [4, 16, 16, 3], [5, 7, 9, 1], (6, 5, 2), range(4, 1, -1)]


def linear_layers(model):
    return [m for m in model.modules() if isinstance(m, nn.Linear)]


def by_hand(model, x, activation=torch.relu):
    """The MLP's forward in eval mode, written out from its Linear layers."""
    layers = linear_layers(model)
    for layer in layers[:-1]:
        x = activation(x @ layer.weight.T + layer.bias)
    return x @ layers[-1].weight.T + layers[-1].bias


def expected_count(sizes):
    return sum(fan_in * fan_out + fan_out for fan_in, fan_out in pairwise(sizes))


@pytest.mark.parametrize("sizes", SIZES, ids=str)
def test_has_one_registered_linear_layer_per_pair_of_sizes(device, sizes):
    model = MLP(sizes).to(device)
    assert isinstance(model, nn.Module), "MLP should subclass nn.Module"
    shapes = [tuple(layer.weight.shape) for layer in linear_layers(model)]
    assert shapes == [(b, a) for a, b in pairwise(sizes)], (
        f"MLP({sizes}) should hold nn.Linear layers with weights shaped "
        f"{[(b, a) for a, b in pairwise(sizes)]}, in order; found {shapes}. Assign "
        "layers as attributes or keep them in nn.Sequential/nn.ModuleList so they are registered"
    )
    registered = sum(p.numel() for p in model.parameters())
    assert registered == expected_count(sizes), (
        f"model.parameters() holds {registered} numbers, expected {expected_count(sizes)}: "
        "every weight must be a registered nn.Parameter (inside a registered module)"
    )


@pytest.mark.parametrize(
    "batch", [(5,), (2, 3), (), (0,)], ids=["batch", "two-batch-dims", "no-batch", "empty"]
)
def test_output_shape_dtype_and_device(device, batch):
    model = MLP([4, 8, 3], dropout=0.5).to(device)
    out = model(torch.randn(*batch, 4, device=device))
    check_tensor(out, shape=(*batch, 3), dtype=torch.float32, device=device, name="MLP output")


@pytest.mark.parametrize(
    "activation, function",
    [(nn.ReLU, torch.relu), (nn.Tanh, torch.tanh), (lambda: nn.LeakyReLU(0.1), None)],
    ids=["relu", "tanh", "leaky"],
)
def test_eval_forward_is_linear_activation_linear(device, activation, function):
    model = MLP([6, 10, 8, 4], activation=activation, dropout=0.3).to(device).eval()
    x = torch.randn(7, 6, device=device)
    out = model(x)
    function = function or (lambda t: torch.nn.functional.leaky_relu(t, 0.1))
    assert_close(
        out,
        by_hand(model, x, function),
        "in eval mode the output should be Linear, activation, ..., Linear, with "
        "no activation after the last Linear and no dropout",
    )


@pytest.mark.parametrize("sizes", [[3, 2], [4, 8, 3], [5, 7, 9, 6, 1]], ids=str)
def test_calls_the_activation_factory_once_per_hidden_layer(device, sizes):
    made = []

    def activation():
        made.append(nn.Tanh())
        return made[-1]

    model = MLP(sizes, activation=activation).to(device)
    assert len(made) == len(sizes) - 2, (
        f"MLP({sizes}) has {len(sizes) - 2} hidden layers but called activation() "
        f"{len(made)} times; call it once for each hidden layer (none after the last Linear)"
    )
    registered = [m for m in model.modules() if isinstance(m, nn.Tanh)]
    assert all(any(m is r for r in registered) for m in made), (
        "register every activation module activation() returned"
    )


def test_each_hidden_layer_has_the_activation_made_for_it(device):
    slopes = []

    def activation():  # a different module each call: hidden layer i gets slope 0.1 * (i + 1)
        slopes.append(0.1 * (len(slopes) + 1))
        return nn.LeakyReLU(slopes[-1])

    model = MLP([5, 6, 7, 6, 3], activation=activation, dropout=0.2).to(device).eval()
    x = torch.randn(4, 5, device=device)
    out = model(x)
    model(x)
    assert len(slopes) == 3, (
        f"activation() was called {len(slopes)} times for 3 hidden layers over two forward "
        "passes; call it once per hidden layer while building the model, never in forward"
    )
    h = x
    layers = linear_layers(model)
    for layer, slope in zip(layers[:-1], slopes, strict=True):
        h = torch.nn.functional.leaky_relu(h @ layer.weight.T + layer.bias, slope)
    assert_close(
        out,
        h @ layers[-1].weight.T + layers[-1].bias,
        "hidden layer i must be followed by the module the i-th call of activation() "
        "returned (here LeakyReLU slopes 0.1, 0.2, 0.3, in that order)",
    )


# Not 0.5, where keeping each unit with probability p and scaling by 1 / p (p read as the
# keep probability) looks the same as dropping with probability p and scaling by 1 / (1 - p).
@pytest.mark.parametrize("p", [0.2, 0.7])
def test_training_forward_is_linear_activation_dropout(device, p):
    model = MLP([6, 40, 30, 4], activation=nn.Tanh, dropout=p).to(device)
    layers = linear_layers(model)
    seen = {}
    handles = [
        layer.register_forward_hook(
            lambda module, args, out, i=i: seen.update({f"in{i}": args[0], f"out{i}": out})
        )
        for i, layer in enumerate(layers)
    ]
    x = torch.randn(50, 6, device=device)
    try:
        with torch.no_grad():
            out = model(x)
    finally:
        for handle in handles:
            handle.remove()
    assert_close(
        seen["in0"],
        x,
        "in training mode the first Linear gets the input as it is: dropout follows each "
        "hidden layer's activation, not the input",
        rtol=0,
        atol=0,
    )
    for i in (1, 2):  # the input of each Linear after the first is a hidden layer's output
        hidden, before = seen[f"in{i}"], torch.tanh(seen[f"out{i - 1}"])
        kept = hidden != 0
        # Each sample draws its own mask: a mask shared by the batch leaves every unit either
        # kept in all 50 samples or dropped in all (a per-sample unit does so with chance
        # at most 0.8**50). Decided whatever the seed, unlike the kept fraction alone.
        varying = (kept.any(0) & ~kept.all(0)).float().mean().item()
        assert varying > 0.5, (
            f"hidden layer {i}: {1 - varying:.0%} of the units are kept in every sample of "
            "the batch or dropped in every one: dropout zeroes each unit of each sample "
            "independently (a mask of the hidden output's full shape, as nn.Dropout draws), "
            "not one mask of units shared by the batch"
        )
        assert abs(kept.float().mean().item() - (1 - p)) < 0.1, (
            f"hidden layer {i}: {kept.float().mean().item():.0%} of the units survived "
            f"dropout with p={p}, expected about {1 - p:.0%}: dropout must be active in "
            "training mode, and p is the probability of zeroing a unit, not of keeping it"
        )
        assert_close(
            hidden[kept],
            before[kept] / (1 - p),
            f"hidden layer {i} in training mode should be dropout(activation(linear)), the "
            "kept units scaled by 1 / (1 - p): the activation comes first, then dropout",
        )
    assert_close(
        out,
        seen["out2"],
        "in training mode too, the last Linear's output is returned as is: no dropout or "
        "activation after it",
    )


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bfloat16], ids=str)
def test_training_forward_keeps_the_parameters_dtype(device, dtype):
    # Dropout is on in training mode: its mask, drawn in float32 by default, must not turn
    # a float16 or bfloat16 hidden layer into float32 (the next Linear then refuses it).
    skip_unless_supported(device, dtype)
    model = MLP([4, 8, 8, 3], dropout=0.5).to(device=device, dtype=dtype)
    out = model(torch.randn(5, 4, device=device, dtype=dtype))
    check_tensor(out, shape=(5, 3), dtype=dtype, device=device, name="training-mode output")


def test_dropout_is_random_in_training_and_off_in_eval(device):
    model = MLP([16, 64, 64, 4], dropout=0.5).to(device)
    x = torch.randn(32, 16, device=device)
    first, second = model(x), model(x)  # a new module is in training mode
    assert not torch.allclose(first, second), (
        "in training mode dropout should zero different units on each call; use nn.Dropout "
        "(or pass training=self.training to F.dropout)"
    )
    model.eval()
    with torch.no_grad():
        third, fourth = model(x), model(x)
        assert_close(
            third,
            fourth,
            "after model.eval() the output must be deterministic: dropout switched off",
            rtol=0,
            atol=0,
        )
        assert_close(third, by_hand(model, x), "in eval mode no unit is dropped")
    model.train()
    with torch.no_grad():
        assert not torch.allclose(model(x), third), "model.train() should switch dropout back on"


# Views of shape [2, 3, 4]: batch dims that view(-1, 4) cannot merge, or every other feature.
NON_CONTIGUOUS = {
    "batch-dims-transposed": lambda device: torch.randn(3, 2, 4, device=device).transpose(0, 1),
    "features-strided": lambda device: torch.randn(2, 3, 8, device=device)[..., ::2],
}


@pytest.mark.parametrize("make", NON_CONTIGUOUS.values(), ids=NON_CONTIGUOUS.keys())
def test_forward_takes_a_non_contiguous_input(device, make):
    model = MLP([4, 8, 3]).to(device).eval()
    x = make(device)
    with torch.no_grad():
        out = model(x)
    check_tensor(out, shape=(2, 3, 3), dtype=torch.float32, device=device, name="MLP output")
    assert_close(
        out,
        by_hand(model, x),
        "x may be any view of shape [..., in_features] (a transposed or sliced tensor): "
        "nn.Linear takes any leading dims as they are; x.view(-1, in_features) fails on a "
        "view whose batch dims cannot be merged (reshape or flatten copies where needed)",
    )


def test_without_dropout_training_and_eval_agree(device):
    model = MLP([8, 32, 2]).to(device)
    x = torch.randn(4, 8, device=device)
    train_out = model(x)
    assert_close(train_out, by_hand(model, x), "dropout=0 (the default) drops nothing")


def test_dropout_scales_kept_units_so_the_expected_output_is_unchanged(device):
    hidden, p = 1000, 0.5
    model = MLP([1, hidden, 1], dropout=p).to(device)
    first, last = linear_layers(model)
    with torch.no_grad():
        # Every hidden unit is 1 and the output is their mean, so it is 1 without dropout.
        first.weight.fill_(1.0)
        first.bias.zero_()
        last.weight.fill_(1.0 / hidden)
        last.bias.zero_()
        out = model(torch.ones(300, 1, device=device))
    dropped = (out.mean() - 1).abs().item()
    assert dropped < 0.05, (
        f"averaged over many samples the training-mode output should stay near 1, got "
        f"{out.mean().item():.3f}: scale the kept units by 1 / (1 - p) as nn.Dropout does"
    )


def test_to_float64_converts_every_parameter(device):
    skip_unless_supported(device, torch.float64)
    model = MLP([4, 8, 8, 2], activation=nn.Tanh, dropout=0.1).to(device).to(torch.float64)
    x = torch.randn(3, 4, dtype=torch.float64, device=device)
    out = model.eval()(x)
    check_tensor(out, shape=(3, 2), dtype=torch.float64, device=device, name="MLP output")
    for name, parameter in model.named_parameters():
        check_tensor(parameter, dtype=torch.float64, device=device, name=f"parameter {name}")
    # .to() moves parameters and buffers only: a tensor kept as a plain attribute stays behind
    # (a 0-dim one even goes unnoticed: it mixes with tensors of any device and dtype).
    for name, module in model.named_modules():
        plain = [key for key, value in vars(module).items() if isinstance(value, torch.Tensor)]
        assert not plain, (
            f"module {name or 'MLP'} keeps the tensors {plain} as plain attributes, which "
            ".to() leaves behind: register them as buffers, or keep a Python number"
        )
    assert_close(out, by_hand(model, x, torch.tanh), "wrong output in float64")


@pytest.mark.parametrize(
    "sizes, dropout",
    [
        ([3], 0.0),
        ([], 0.0),
        ([3, 0, 2], 0.0),
        ([3, -2, 2], 0.0),
        ([0, 2], 0.0),
        ([3, 0], 0.0),
        ([3, 2], 1.0),
        ([3, 2], -0.1),
        ([3, 2], float("nan")),
    ],
    ids=[
        "one-size",
        "no-sizes",
        "zero-width",
        "negative-width",
        "zero-inputs",
        "zero-outputs",
        "dropout-1",
        "dropout-negative",
        "dropout-nan",
    ],
)
def test_rejects_bad_configurations(device, sizes, dropout):
    with raises(ValueError):
        MLP(sizes, dropout=dropout).to(device)


# ---------------------------------------------------------------- facets


def mlp64(model, x):
    linears = [m for m in model.modules() if isinstance(m, nn.Linear)]
    for index, linear in enumerate(linears):
        x = x @ linear.weight.detach().cpu().double().T + linear.bias.detach().cpu().double()
        if index < len(linears) - 1:
            x = x.relu()
    return x


def mlp_and_input(dtype, device):
    model = MLP([4, 6, 5, 3], activation=nn.ReLU, dropout=0.0).to(device=device, dtype=dtype)
    x = torch.linspace(-2, 2, 8 * 4, dtype=torch.float64).reshape(8, 4)
    return facets.args(model, x.to(device=device, dtype=dtype))


def train(model, device):
    return model.to(device)(torch.randn(5, 4, device=device))


def seeded_mlp(device):
    """A model with dropout, built with the same weights at every call: what its forward draws
    (the dropout masks) is all that a seed changes."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed_for(0))
        model = MLP([4, 6, 5, 3], dropout=0.5)
    return facets.args(model.to(device), torch.ones(8, 4, device=device))


FACETS = facets.declare(
    facets.of(
        MLP,
        facets.Setting(
            lambda device: facets.args([4, 6, 3], dropout=0.1),
            "dropout",
            low=0,
            high=1,
            high_open=True,
        ),
        facets.DefaultDevice(lambda device: facets.args([4, 6, 3], dropout=0.1)),
        facets.Trains(lambda device: facets.args([4, 6, 5, 3], dropout=0.1), forward=train),
        facets.Registered(lambda device: facets.args([4, 6, 5, 3], dropout=0.1), forward=train),
        # Each Linear initialised as nn.Linear creates it, from the caller's generator, in
        # the order the layers are applied: not from a generator of its own.
        facets.Seeded(
            lambda device: facets.args([4, 6, 5, 3], dropout=0.1),
            drawn=lambda arguments, model: list(model.parameters()),
            like=lambda: [nn.Linear(4, 6), nn.Linear(6, 5), nn.Linear(5, 3)],
        ),
        # The activation and the dropout show in what the model computes (in training mode).
        # The activation factory is the caller's code: MLP calls it once per hidden layer.
        facets.Propagates(lambda device, fault: facets.args([4, 6, 3], activation=fault)),
        facets.Defaults(
            values={"activation": nn.ReLU, "dropout": 0.0},
            key=lambda arguments, model: model(torch.randn(5, 4)),
        ),
    ),
    facets.of(
        MLP,
        facets.Dtypes(
            mlp_and_input, oracle=mlp64, ulps=8, atol={torch.bfloat16: 0.05, torch.float16: 0.01}
        ),
        facets.Unmodified(lambda device: mlp_and_input(torch.float32, device), module_grads=True),
        # Dropout in training mode draws its masks from the caller's generator: not from a
        # torch.Generator the model holds, which drops other units at each call but the
        # same ones on every run, whatever the caller's seed.
        facets.Seeded(seeded_mlp),
        # A forward calls each layer, each container too, as module(x), so that hooks
        # registered on any of them run: not container.forward(x).
        facets.ForwardModes(
            lambda device: mlp_and_input(torch.float32, device),
            module=lambda arguments: arguments.args[0],
            grad=None,
            calls=1,
        ),
        name="MLP.forward",
        call=lambda model, x: model(x),
    ),
)
test_facets = FACETS.test
