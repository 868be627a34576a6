import copy
import math
import random

import pytest
import torch
import torch.nn.utils.clip_grad as torch_clip_grad
from torch import nn

from katas.q30_grad_clipping import clip_grad_norm, layer_grad_norms
from torch_katas import facets
from torch_katas.testing import (
    assert_close,
    assert_no_torch_internals,
    check_tensor,
    default_dtype,
    forbidden_calls,
    raises,
    seed_for,
    skip_unless_supported,
)


class WithOwnParameter(nn.Module):
    """A model that owns a parameter itself (its layer name is ""), with nested layers,
    a frozen layer, a layer with one frozen parameter (a .grad on its weight, none on its
    bias) and a layer the forward pass never uses."""

    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.tensor(1.5))
        self.body = nn.Sequential(nn.Linear(5, 6), nn.Tanh(), nn.LayerNorm(6), nn.Linear(6, 6))
        self.body[3].bias.requires_grad_(False)  # the layer stays, with its weight's norm
        self.frozen = nn.Linear(6, 6).requires_grad_(False)
        self.unused = nn.Linear(6, 2)
        self.head = nn.Linear(6, 3)

    def forward(self, x):
        return self.head(self.frozen(self.body(x)) * self.scale)


def model_with_grads(device, dtype=torch.float32, loss_scale=1.0):
    model = WithOwnParameter().to(device=device, dtype=dtype)
    x = torch.randn(7, 5, device=device, dtype=dtype)
    (loss_scale * model(x).pow(2).mean()).backward()
    return model


def copy_with_grads(model):
    """A deep copy with the same gradients (deepcopy leaves parameters' .grad behind)."""
    twin = copy.deepcopy(model)
    for p, q in zip(model.parameters(), twin.parameters(), strict=True):
        q.grad = None if p.grad is None else p.grad.clone()
    return twin


def grads_of(model):
    return [None if p.grad is None else p.grad.clone() for p in model.parameters()]


def assert_same_grads(model, expected_model, what):
    for (name, p), q in zip(model.named_parameters(), expected_model.parameters(), strict=True):
        if q.grad is None:
            assert p.grad is None, f"{name}.grad was None and must stay None"
            continue
        assert_close(
            p.grad, q.grad, f"{name}.grad after clipping differs from {what}", equal_nan=True
        )


def refuse_torch_clipping():
    names = (
        "clip_grad_norm_",
        "clip_grad_norm",
        "get_total_norm",
        "clip_grads_with_norm_",
        "_get_total_norm",
        "_clip_grads_with_norm_",
    )
    assert_no_torch_internals(clip_grad_norm, reason="write gradient clipping by hand")
    return forbidden_calls(
        *((module, name) for module in (torch.nn.utils, torch_clip_grad) for name in names),
        reason="this kata asks for gradient clipping written by hand",
    )


# ---- layer_grad_norms -------------------------------------------------------


def test_layer_grad_norms_per_module_that_owns_parameters(device):
    model = model_with_grads(device)
    norms = layer_grad_norms(model)
    expected = {}
    for name, module in model.named_modules():
        squares = [
            (p.grad.double() ** 2).sum()
            for p in module.parameters(recurse=False)
            if p.grad is not None
        ]
        if squares:
            expected[name] = math.sqrt(sum(s.item() for s in squares))
    assert isinstance(norms, dict), f"return a dict, got {type(norms).__name__}"
    assert list(norms) == list(expected), (
        f"keys {list(norms)}, expected {list(expected)}: one key per module that owns "
        "parameters with gradients, named as in named_modules() ('' is the model itself), "
        "in that order; frozen and unused layers have no gradient and are left out, a layer "
        "with a gradient on some of its parameters is kept (those without one are skipped)"
    )
    for name, value in norms.items():
        check_tensor(value, shape=(), dtype=torch.float32, device=device, name=f"norms[{name!r}]")
        assert value.grad_fn is None, "layer_grad_norms must not record a graph"
        assert math.isclose(value.item(), expected[name], rel_tol=1e-5), (
            f"norm of layer {name!r}: {value.item()}, expected {expected[name]}: the 2-norm "
            "of the layer's own parameters' gradients taken together"
        )


def test_layer_grad_norms_show_vanishing_gradients_in_a_deep_sigmoid_stack(device):
    layers = []
    for _ in range(12):
        layers += [nn.Linear(16, 16), nn.Sigmoid()]
    model = nn.Sequential(*layers).to(device)
    model(torch.randn(32, 16, device=device)).sum().backward()
    grads_before = grads_of(model)
    norms = layer_grad_norms(model)
    assert list(norms) == [str(i) for i in range(0, 24, 2)], "one entry per Linear layer"
    first, last = norms["0"].item(), norms["22"].item()
    assert first < 1e-3 * last, (
        f"first layer {first:.3g}, last layer {last:.3g}: through 12 sigmoids the first "
        "layer's gradient should be thousands of times smaller"
    )
    for p, g in zip(model.parameters(), grads_before, strict=True):
        assert torch.equal(p.grad, g), "layer_grad_norms must not change any gradient"


def test_layer_grad_norms_keep_float64(device):
    skip_unless_supported(device, torch.float64)
    model = model_with_grads(device, dtype=torch.float64)
    norms = layer_grad_norms(model)
    assert norms, "the model's layers have gradients: there are norms to report"
    for name, value in norms.items():
        check_tensor(value, shape=(), dtype=torch.float64, device=device, name=f"norms[{name!r}]")
        module = model.get_submodule(name)
        grads = [p.grad for p in module.parameters(recurse=False) if p.grad is not None]
        expected = torch.cat([g.flatten() for g in grads]).norm()
        assert_close(value, expected, f"norm of layer {name!r}, computed in float64")


class TiedLM(nn.Module):
    """The output layer (no bias) shares its weight with the embedding."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(6, 3)
        self.out = nn.Linear(3, 6, bias=False)
        self.out.weight = self.embed.weight

    def forward(self, tokens):
        return self.out(self.embed(tokens))


def test_layer_grad_norms_with_a_tied_weight(device):
    model = TiedLM().to(device)
    model(torch.tensor([[1, 4, 2]], device=device)).pow(2).sum().backward()
    norms = layer_grad_norms(model)
    assert list(norms) == ["embed", "out"], (
        f"keys {list(norms)}, expected ['embed', 'out']: both modules own the shared weight "
        "(module.parameters(recurse=False) yields it for each), although named_parameters() "
        "lists it only once"
    )
    expected = model.embed.weight.grad.norm()
    for name in ("embed", "out"):
        assert_close(norms[name], expected, f"norm of layer {name!r}: the shared weight's")


def test_layer_grad_norms_with_a_shared_module_and_a_dead_layer(device):
    shared = nn.Linear(3, 3)
    model = nn.Sequential(shared, nn.ReLU(), shared, nn.Linear(3, 2)).to(device)
    for p in model.parameters():
        p.grad = torch.zeros_like(p)  # a dead layer: its gradients are all exactly zero
    model[3].weight.grad[0, 0] = 2.0
    norms = layer_grad_norms(model)
    assert list(norms) == ["0", "3"], (
        f"keys {list(norms)}, expected ['0', '3']: a module used twice is one layer, under "
        "the one name named_modules() gives it; a layer whose gradients are all zero is "
        "kept (a norm of 0 is what shows it is dead)"
    )
    assert norms["0"].item() == 0.0 and norms["3"].item() == 2.0


def give_gradients_a_graph(model, device):
    """Gradients that carry an autograd graph, as backward(create_graph=True) leaves them."""
    scale = torch.ones((), device=device, requires_grad=True)
    for p in model.parameters():
        if p.grad is not None:
            p.grad = p.grad.detach() * scale


def test_nothing_is_recorded_for_gradients_that_carry_a_graph(device):
    model = model_with_grads(device, loss_scale=10.0)
    give_gradients_a_graph(model, device)
    norms = layer_grad_norms(model)
    recorded = [name for name, value in norms.items() if value.grad_fn is not None]
    assert not recorded, (
        f"the norms of layers {recorded} recorded an autograd graph; compute them under "
        "torch.no_grad()"
    )
    graphs = [None if p.grad is None else p.grad.grad_fn for p in model.parameters()]
    total = clip_grad_norm(model.parameters(), 0.01)
    assert total.grad_fn is None, "the total norm recorded a graph: clip under torch.no_grad()"
    for (name, p), before in zip(model.named_parameters(), graphs, strict=True):
        assert p.grad is None or p.grad.grad_fn is before, (
            f"scaling {name}.grad was recorded by autograd; clip under torch.no_grad()"
        )


# ---- clip_grad_norm ---------------------------------------------------------


@pytest.mark.parametrize(
    "norm_type", [2.0, 1.0, math.inf, 3.0, None], ids=["L2", "L1", "Linf", "L3", "Lp drawn"]
)
@pytest.mark.parametrize("max_norm", [0.05, 1e4], ids=["clips", "no-clip"])
def test_equals_torch_clip_grad_norm(device, norm_type, max_norm):
    if norm_type is None:  # any float >= 1, not a whole number (grading draws others too)
        norm_type = random.uniform(1.0, 8.0)
    model = model_with_grads(device, loss_scale=10.0)
    expected_model = copy_with_grads(model)
    total = clip_grad_norm(model.parameters(), max_norm, norm_type=norm_type)
    expected = torch.nn.utils.clip_grad_norm_(
        expected_model.parameters(), max_norm, norm_type=norm_type
    )
    check_tensor(total, shape=(), dtype=torch.float32, device=device, name="the total norm")
    assert_close(
        total,
        expected,
        f"total {norm_type}-norm differs from torch's: it is the norm of all gradients "
        "taken together (for inf: the largest absolute value), before clipping",
    )
    assert_same_grads(model, expected_model, f"torch's clip_grad_norm_ (max_norm={max_norm})")


def test_clipped_gradients_have_the_norm_max_norm(device):
    model = model_with_grads(device, loss_scale=10.0)
    before = grads_of(model)
    clip_grad_norm(model.parameters(), 0.5)
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    total_after = torch.linalg.vector_norm(torch.cat([g.flatten() for g in grads]))
    assert_close(
        total_after.item(), 0.5, "after clipping the total norm is max_norm", rtol=1e-4, atol=0
    )
    ratios = [
        (p.grad / g)[g.abs() > 1e-6]
        for p, g in zip(model.parameters(), before, strict=True)
        if g is not None
    ]
    ratios = torch.cat(ratios)
    assert_close(
        ratios,
        torch.full_like(ratios, ratios[0].item()),
        "every gradient must be scaled by the same factor",
    )


@pytest.mark.parametrize("drawn", [False, True], ids=["norm 1e-5", "norm drawn"])
def test_the_factor_adds_1e_6_to_the_norm(device, drawn):
    # For gradients as small as 1e-6 the constant in max_norm / (total + 1e-6) shows: a norm
    # equal to max_norm, or (drawn from the seeded generator) a max_norm from 1e-6 to 1e-4 and
    # a norm just below it, is still scaled down, by max_norm / (norm + 1e-6) < 1.
    max_norm = 10 ** random.uniform(-6, -4) if drawn else 1e-5
    norm = max_norm * (1 - 2**-10) if drawn else max_norm
    w = torch.zeros(2, device=device, requires_grad=True)
    w.grad = torch.tensor([0.6 * norm, 0.8 * norm], device=device)  # 6e-6, 8e-6: norm 1e-5
    reference = w.detach().clone().requires_grad_()
    reference.grad = w.grad.clone()
    clip_grad_norm([w], max_norm=max_norm)
    torch.nn.utils.clip_grad_norm_([reference], max_norm=max_norm)
    assert_close(
        w.grad,
        reference.grad,
        "the factor is min(max_norm / (total_norm + 1e-6), 1.0), exactly that constant",
        rtol=1e-5,
        atol=0,  # the gradients are ~1e-6: only a relative tolerance sees the difference
    )


def test_scales_the_existing_grad_tensors_in_place(device):
    model = model_with_grads(device, loss_scale=10.0)
    grads = [p.grad for p in model.parameters()]
    pointers = [None if g is None else g.data_ptr() for g in grads]
    clip_grad_norm(model.parameters(), 0.01)
    for p, g, ptr in zip(model.parameters(), grads, pointers, strict=True):
        assert p.grad is g, "clip in place: multiply each .grad with mul_, do not assign new ones"
        assert g is None or g.data_ptr() == ptr


def make_bad(model, bad):
    """A gradient entry inf or nan, ("overflow") finite entries whose total norm overflows
    float32 (each norm alone is finite), or ("inf_and_nan") an inf in one gradient and a nan
    in another: the total is nan, as a sum or a max over both gives it, though a fold that
    lets inf win (torch.hypot(inf, nan) is inf, Python's max(inf, nan) too) makes it inf."""
    if bad == "overflow":
        model.body[0].weight.grad[1, 2] = 3e38
        model.head.weight.grad[0, 0] = -3e38
    elif bad == "inf_and_nan":
        model.body[0].weight.grad[1, 2] = math.inf
        model.head.weight.grad[0, 0] = math.nan
    else:
        model.body[0].weight.grad[1, 2] = bad


BAD = [math.inf, math.nan, "overflow", "inf_and_nan"]
BAD_IDS = ["inf", "nan", "overflow", "inf_and_nan"]


@pytest.mark.parametrize("bad", BAD, ids=BAD_IDS)
@pytest.mark.parametrize("norm_type", [2.0, math.inf], ids=["L2", "Linf"])
def test_non_finite_gradients_are_scaled_like_torch(device, bad, norm_type):
    model = model_with_grads(device)
    make_bad(model, bad)
    expected_model = copy_with_grads(model)
    total = clip_grad_norm(model.parameters(), 1.0, norm_type=norm_type)
    expected = torch.nn.utils.clip_grad_norm_(expected_model.parameters(), 1.0, norm_type)
    assert_close(total, expected, "the total norm differs from torch's", equal_nan=True)
    assert_same_grads(
        model,
        expected_model,
        "torch's (the factor min(max_norm / (total + 1e-6), 1) is 0 for an infinite norm and "
        "nan for a nan norm, and is applied all the same)",
    )


@pytest.mark.parametrize("bad", BAD, ids=BAD_IDS)
def test_error_if_nonfinite_raises_and_changes_nothing(device, bad):
    model = model_with_grads(device)
    make_bad(model, bad)
    before = grads_of(model)
    with raises(RuntimeError):
        clip_grad_norm(model.parameters(), 1.0, error_if_nonfinite=True)
    for p, g in zip(model.parameters(), before, strict=True):
        if g is not None:
            assert_close(p.grad, g, "raise before scaling any gradient", equal_nan=True)


def test_finite_norm_with_error_if_nonfinite_clips_normally(device):
    model = model_with_grads(device, loss_scale=10.0)
    expected_model = copy_with_grads(model)
    total = clip_grad_norm(model.parameters(), 0.1, error_if_nonfinite=True)
    expected = torch.nn.utils.clip_grad_norm_(expected_model.parameters(), 0.1)
    assert_close(total, expected, "a finite norm is returned as usual")
    assert_same_grads(model, expected_model, "torch's")


def test_gradients_in_channels_last_layout(device):
    # A model in channels_last memory format (as for mixed-precision convolutions) has
    # gradients that are not contiguous: a flat .view(-1) of them fails, or reads them in
    # another order.
    torch.manual_seed(seed_for(0))
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.Conv2d(4, 2, 1)).to(device)
    model = model.to(memory_format=torch.channels_last)
    x = torch.randn(2, 3, 6, 6, device=device).to(memory_format=torch.channels_last)
    expected_model = copy.deepcopy(model)
    for each in (model, expected_model):
        each(x).square().sum().backward()
    assert not model[0].weight.grad.is_contiguous(), "the test needs strided gradients"
    norms = layer_grad_norms(model)
    for name in ("0", "1"):
        grads = [p.grad for p in model.get_submodule(name).parameters()]
        expected = torch.stack([torch.linalg.vector_norm(g.double()) for g in grads]).norm()
        assert_close(
            norms[name],
            expected.float(),
            f"layer {name}'s norm, channels_last grads",
            rtol=1e-5,
            atol=0,
        )
    total = clip_grad_norm(model.parameters(), 0.5)
    expected = torch.nn.utils.clip_grad_norm_(expected_model.parameters(), 0.5)
    assert_close(total, expected, "the total norm of channels_last gradients")
    assert_same_grads(model, expected_model, "torch's")


def test_a_single_tensor_and_parameters_without_gradients(device):
    w = torch.zeros(3, 2, device=device, requires_grad=True)
    w.grad = torch.full((3, 2), 2.0, device=device)
    total = clip_grad_norm(w, 1.0)
    assert_close(total.item(), math.sqrt(24), "one tensor's norm", rtol=1e-6, atol=0)
    assert_close(
        w.grad,
        torch.full((3, 2), 2.0 / (math.sqrt(24) + 1e-6), device=device),
        "a single tensor is clipped like a list of one",
    )
    nothing = [torch.zeros(2, device=device, requires_grad=True) for _ in range(2)]
    # Under a default dtype other than float32, so that a float32 written out shows (the
    # default device: the facets below).
    with default_dtype(torch.float64):
        total = clip_grad_norm(nothing, 1.0)
    check_tensor(
        total,
        shape=(),
        dtype=torch.float64,
        device=torch.get_default_device(),
        name="the total norm without gradients under the default dtype float64 "
        "(torch.tensor(0.0), as torch returns: the default dtype)",
    )
    assert total.item() == 0.0 and all(p.grad is None for p in nothing), (
        "with no gradients the total norm is 0 and nothing changes"
    )
    assert clip_grad_norm([], 1.0).item() == 0.0


def test_a_parameter_listed_twice_counts_twice(device):
    # Tied weights: list(embed.parameters()) + list(out.parameters()) holds the shared
    # weight twice. torch takes the list as given: its gradient counts twice in the norm
    # and is scaled twice.
    model = TiedLM().to(device)
    model(torch.tensor([[1, 4, 2]], device=device)).pow(2).sum().backward()
    twin = copy_with_grads(model)
    listed = [*model.embed.parameters(), *model.out.parameters()]
    total = clip_grad_norm(listed, 0.01)
    expected = torch.nn.utils.clip_grad_norm_(
        [*twin.embed.parameters(), *twin.out.parameters()], 0.01
    )
    assert_close(total, expected, "a tensor listed twice: its gradient counts twice in the norm")
    assert_close(
        model.embed.weight.grad,
        twin.embed.weight.grad,
        "a tensor listed twice is scaled twice, as torch does: take the parameters as given",
    )


@pytest.mark.parametrize("first", ["device", "cpu"], ids=["device first", "cpu first"])
def test_gradients_on_two_devices(device, first):
    # A model split across devices: the per-tensor norms meet on the first gradient's device.
    on_device = torch.zeros(3, 2, device=device, requires_grad=True)
    on_cpu = torch.zeros(4, requires_grad=True)
    on_device.grad = torch.full((3, 2), 2.0, device=device)
    on_cpu.grad = torch.arange(4.0)
    params = [on_device, on_cpu] if first == "device" else [on_cpu, on_device]
    twins = [p.detach().clone().requires_grad_() for p in params]
    for p, twin in zip(params, twins, strict=True):
        twin.grad = p.grad.clone()
    total = clip_grad_norm(params, 1.0)
    expected = torch.nn.utils.clip_grad_norm_(twins, 1.0)
    check_tensor(
        total, shape=(), dtype=torch.float32, device=params[0].device, name="the total norm"
    )
    assert_close(total, expected, "the total norm of gradients on two devices differs")
    for p, twin in zip(params, twins, strict=True):
        check_tensor(p.grad, device=twin.device, name="a clipped gradient")
        assert_close(
            p.grad,
            twin.grad,
            "gradients on two devices: move each per-tensor norm to the first gradient's "
            "device before combining them, and the factor to each gradient's device",
        )


def test_float64_gradients(device):
    skip_unless_supported(device, torch.float64)
    model = model_with_grads(device, dtype=torch.float64, loss_scale=10.0)
    expected_model = copy_with_grads(model)
    total = clip_grad_norm(model.parameters(), 0.2, norm_type=3.0)
    expected = torch.nn.utils.clip_grad_norm_(expected_model.parameters(), 0.2, 3.0)
    check_tensor(total, shape=(), dtype=torch.float64, device=device, name="the total norm")
    assert_close(total, expected, "float64 gradients: compute the norm in float64")
    assert_same_grads(model, expected_model, "torch's")


def test_written_by_hand(device):
    model = model_with_grads(device, loss_scale=10.0)
    with refuse_torch_clipping():
        clip_grad_norm(model.parameters(), 0.1)


# ---------------------------------------------------------------- facets


def graded_model(device, dtype=torch.float32, create_graph=False):
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)).to(
        device=device, dtype=dtype
    )
    x = torch.linspace(-1, 1, 15, dtype=dtype, device=device).reshape(5, 3)
    parameters = list(model.parameters())
    grads = torch.autograd.grad((model(x) ** 2).sum() * 10, parameters, create_graph=create_graph)
    for parameter, grad in zip(parameters, grads, strict=True):
        parameter.grad = grad
    return model


def regraded(arguments):
    """New gradient values in the same .grad tensors, and one layer's gradients gone."""
    model = arguments.args[0]
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.grad.mul_(3)
    for parameter in model[2].parameters():
        parameter.grad = None


def grads_in(arguments):
    return [p.grad for p in arguments.args[0].parameters()]


def large_grads(dtype, device):
    """A model whose gradients, in float16, have entries whose squares overflow float16
    (torch's norms accumulate in float32: their results are finite)."""
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)).to(device, dtype)
    scale = facets.past_square_overflow(dtype)
    for p in model.parameters():
        ramp = torch.linspace(-1, 1, p.numel(), dtype=torch.float64).reshape(p.shape)
        p.grad = (ramp * scale).to(device, dtype)
    return model


def layer_norms64(model):
    return tuple(
        torch.linalg.vector_norm(torch.cat([p.grad.double().cpu().flatten() for p in own]))
        for own in (list(m.parameters(recurse=False)) for m in model.modules())
        if own
    )


def clipping(dtype, device, norm_type=2.0):
    """The parameters, their gradients (for the oracle, which sees copies), max_norm and
    norm_type. max_norm is no float32 value: one rounded to float32 shows in float64."""
    parameters = list(large_grads(dtype, device).parameters())
    return facets.args(parameters, [p.grad for p in parameters], max_norm=0.3, norm_type=norm_type)


def total_norm64(parameters, grads, max_norm, norm_type):
    return torch.linalg.vector_norm(torch.cat([grad.flatten() for grad in grads]), norm_type)


def clipped64(parameters, grads, max_norm, norm_type):
    """The total norm, then each gradient scaled by min(max_norm / (total + 1e-6), 1)."""
    total = total_norm64(parameters, grads, max_norm, norm_type)
    factor = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    return (total, *(grad * factor for grad in grads))


def norm_and_grads(parameters, grads, max_norm, norm_type):
    """The total norm clip_grad_norm returns, then the gradients it scaled in place."""
    return (clip_grad_norm(parameters, max_norm, norm_type), *(p.grad for p in parameters))


def clipping_with(norm_type):
    return lambda dtype, device: clipping(dtype, device, norm_type)


def gradients(device, nonfinite):
    parameters = clipping(torch.float32, device).args[0]
    if nonfinite:
        parameters[0].grad.view(-1)[0] = math.inf
    return parameters


def edge_graded(model, device):
    """The edge model with a gradient on each parameter (frozen after its backward pass)."""
    for parameter in model.parameters():
        parameter.grad = torch.randn_like(parameter)
    return facets.args(model)


def layer_norms_loop(model):
    """The oracle: a loop over the distinct modules and their own gradients, in float64."""
    norms, seen = {}, set()
    for name, module in model.named_modules():
        if id(module) in seen:
            continue
        seen.add(id(module))
        grads = [p.grad for p in module.parameters(recurse=False) if p.grad is not None]
        if grads:
            total = sum(g.detach().cpu().double().pow(2).sum() for g in grads)
            norms[name] = torch.as_tensor(total).sqrt()
    return norms


FACETS = facets.declare(
    # Models at the edges: nothing, no parameters, buffers only, all frozen.
    facets.of(
        layer_grad_norms,
        facets.Edges(facets.edge_models(edge_graded), oracle=layer_norms_loop),
        name="layer_grad_norms(edge models)",
    ),
    facets.of(
        layer_grad_norms,
        facets.NoGraph(
            lambda device: facets.args(graded_model(device, create_graph=True)),
            state=lambda arguments, result: result,
        ),
        # Gradients that carry a graph: one replaced by its detached copy loses it.
        facets.Unmodified(
            lambda device: facets.args(graded_model(device, create_graph=True)),
            inputs=grads_in,
            label="grads",
        ),
        # The model itself: its parameters, buffers, hooks and modes.
        facets.Unmodified(lambda device: facets.args(graded_model(device)), module_grads=True),
        # Gradients change after every backward: the norms are taken anew at each call.
        facets.Changed(lambda device: facets.args(graded_model(device)), regraded),
        facets.Dtypes(
            lambda dtype, device: facets.args(large_grads(dtype, device)),
            oracle=layer_norms64,
            ulps=4,
        ),
        call=lambda model: tuple(layer_grad_norms(model).values()),
    ),
    facets.of(
        clip_grad_norm,
        # (Strided gradients: test_gradients_in_channels_last_layout; copies of the
        # parameters would have no .grad.)
        facets.Dtypes(clipping, oracle=total_norm64, ulps=4, strided=False),
        # Not only the 2-norm: a 3-norm in the dtype overflows float16 (cubes) as well.
        facets.Dtypes(clipping_with(3.0), oracle=total_norm64, ulps=4, label="L3", strided=False),
        facets.UpdatesAll(
            lambda device: clipping(torch.float32, device),
            params=lambda arguments: [p.grad for p in arguments.args[0]],
        ),
        # No gradient at all: torch.tensor(0.0), on the default device.
        facets.DefaultDevice(
            lambda device: facets.args(
                [torch.zeros(2, device=device, requires_grad=True)], None, 1.0, 2.0
            )
        ),
        call=lambda parameters, grads, max_norm, norm_type: clip_grad_norm(
            parameters, max_norm, norm_type
        ),
    ),
    facets.of(
        clip_grad_norm,
        # The gradients it scaled, in their dtype: a max_norm or a factor rounded to float32
        # shows in float64.
        facets.Dtypes(
            clipping, oracle=clipped64, dtypes=(torch.float32, torch.float64), ulps=4, strided=False
        ),
        name="clip_grad_norm, the gradients",
        call=norm_and_grads,
    ),
    facets.of(
        clip_grad_norm,
        # The norm and the gradients it scaled; an infinite gradient, which does not raise.
        *(
            facets.Defaults(
                lambda device, nonfinite=nonfinite: facets.args(
                    gradients(device, nonfinite=nonfinite), 0.5
                ),
                values={name: value},
                key=lambda arguments, norm: (norm, [p.grad for p in arguments.args[0]]),
            )
            for name, value, nonfinite in (
                ("norm_type", 2.0, False),
                ("error_if_nonfinite", False, True),
            )
        ),
        # Refused: an infinite norm with error_if_nonfinite raises, every gradient as it was.
        facets.Refused(
            {
                "an infinite gradient": lambda device: facets.args(
                    gradients(device, nonfinite=True), 0.5, error_if_nonfinite=True
                )
            },
            error=RuntimeError,
        ),
        name="clip_grad_norm(defaults)",
    ),
)
test_facets = FACETS.test
