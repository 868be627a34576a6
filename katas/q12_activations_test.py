import contextlib
import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from katas.q12_activations import PreActivationBlock, class_probabilities, mlp, softplus
from torch_katas import facets
from torch_katas.op_families import SOFTPLUS
from torch_katas.testing import (
    assert_close,
    assert_no_torch_internals,
    check_tensor,
    default_dtype,
    forbidden_ops,
    largest_result,
    raises,
    skip_unless_supported,
)

# ---------------------------------------------------------------- softplus

REASON = "build softplus from primitives (exp, log1p, abs, clamp, where)"
LARGE = [-1e4, -100.0, -30.0, -20.0, -1.0, 1.0, 20.0, 30.0, 100.0, 1e4]
# The smallest normal number of each dtype: below it values lose relative precision, so
# tiny results are compared relative to their size down to it (a fixed atol would accept 0).
TINY = {dtype: torch.finfo(dtype).tiny for dtype in facets.FLOATING}


def call_softplus(x):
    """The kata's softplus with every way torch offers it forbidden (torch.logaddexp(x, 0)
    and a logsumexp of (0, x) are softplus under other names: the family holds them)."""
    assert_no_torch_internals(softplus, reason=REASON)
    with forbidden_ops(*SOFTPLUS.ops, reason=REASON, aten=SOFTPLUS.aten):
        return softplus(x)


def exact_softplus(x):
    """log(1 + exp(x)) in float64, without the switch to x that F.softplus makes at 20."""
    x = x.double()
    return torch.logaddexp(x, torch.zeros_like(x))


def softplus_and_grad(x):
    x = x.detach().clone().requires_grad_()
    y = call_softplus(x)
    (grad,) = torch.autograd.grad(y.sum(), x)
    return y.detach(), grad


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_softplus_values_match_torch(device, dtype):
    skip_unless_supported(device, dtype)
    x = torch.linspace(-8, 8, 161, dtype=dtype, device=device).reshape(7, 23)
    out = call_softplus(x)
    check_tensor(out, shape=(7, 23), dtype=dtype, device=device, name="softplus(x)")
    assert_close(out, F.softplus(x), "softplus values differ from log(1 + exp(x))")


def test_softplus_gradient_is_the_sigmoid(device):
    # 0 included: sigmoid(0) = 0.5, where a formula built from relu, clamp or abs gives 0 or 1.
    x = torch.cat([torch.randn(50, device=device) * 4, torch.zeros(3, device=device)])
    _, grad = softplus_and_grad(x)
    assert_close(grad, torch.sigmoid(x), "the gradient of softplus should be sigmoid(x)")


def test_softplus_large_inputs_give_finite_values_and_gradients(device):
    x = torch.tensor(LARGE, device=device)
    out, grad = softplus_and_grad(x)
    assert torch.isfinite(out).all(), (
        f"softplus gives {out.tolist()} for {LARGE}: not finite. exp(x) overflows to inf "
        "above about 88 in float32; softplus(x) is x + log1p(exp(-x)) for large x"
    )
    assert torch.isfinite(grad).all(), (
        f"the gradient of softplus is {grad.tolist()} for {LARGE}: not finite. A branch that "
        "torch.where discards still gets a zero gradient, and 0 * inf = nan; keep every "
        "branch finite"
    )
    assert_close(out, exact_softplus(x).float(), f"softplus values at {LARGE}")
    assert_close(grad, torch.sigmoid(x), f"softplus gradients at {LARGE}")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_softplus_keeps_tiny_results_for_very_negative_inputs(device, dtype):
    skip_unless_supported(device, dtype)
    # Down to where exp(x) reaches the dtype's smallest normal number (x about -87 in
    # float32, -708 in float64).
    lowest = math.log(TINY[dtype]) + 1
    x = torch.tensor([-15.0, -20.0, -30.0, -50.0, -60.0, -80.0, lowest], device=device)
    x = x.to(dtype)
    out, grad = softplus_and_grad(x)
    advice = (
        "softplus of a very negative x is about exp(x), tiny but not 0, and so is its "
        "gradient: use torch.log1p(z) rather than torch.log(1 + z), and round nothing to 0"
    )
    assert_close(out, exact_softplus(x).to(dtype), advice, rtol=1e-5, atol=0)
    assert_close(grad, torch.sigmoid(x.double()).to(dtype), advice, rtol=1e-5, atol=0)


def test_softplus_empty_and_non_contiguous_inputs_are_left_unmodified(device):
    x = torch.randn(6, 5, device=device).T  # a non-contiguous view
    before = x.clone()
    out = call_softplus(x)
    check_tensor(out, shape=(5, 6), dtype=torch.float32, device=device, name="softplus(x)")
    assert_close(out, F.softplus(before), "softplus is wrong for a non-contiguous input")
    assert torch.equal(x, before), "softplus modified its input; do not work in place on x"
    empty = call_softplus(torch.empty(0, 3, device=device))
    check_tensor(empty, shape=(0, 3), dtype=torch.float32, device=device, name="softplus(x)")


# ---------------------------------------------------------------- mlp

LAYERS = [nn.Linear, nn.ReLU, nn.Linear, nn.GELU, nn.Linear]


def mlp_by_hand(net, x):
    """The classifier written with functional calls, from the net's own weights."""
    first, _, second, _, third = list(net)
    h = F.relu(F.linear(x, first.weight, first.bias))
    h = F.gelu(F.linear(h, second.weight, second.bias), approximate="tanh")
    return F.linear(h, third.weight, third.bias)


def test_mlp_is_a_sequential_of_layers_and_activation_modules(device):
    net = mlp(4, 8, 3)
    assert type(net) is nn.Sequential, (
        f"mlp should return exactly an nn.Sequential, got {type(net).__name__}: a subclass "
        "can change forward (a softmax in eval mode), which the layers do not show"
    )
    kinds = [type(layer) for layer in net]
    assert kinds == LAYERS, (
        f"the layers should be {[k.__name__ for k in LAYERS]}, got "
        f"{[k.__name__ for k in kinds]}: the activations are modules (nn.ReLU(), nn.GELU()) "
        "in the Sequential, and the last Linear's logits come out as they are (no softmax)"
    )
    sizes = [(layer.in_features, layer.out_features) for layer in net[::2]]
    assert sizes == [(4, 8), (8, 8), (8, 3)], (
        f"the Linear layers should map 4 -> 8 -> 8 -> 3 features, got {sizes}"
    )
    assert all(layer.bias is not None for layer in net[::2]), "every Linear has its bias"
    assert net[1].inplace, (
        "the ReLU should work in place (nn.ReLU(inplace=True)): after a Linear nothing "
        "needs its input, so it can overwrite it instead of allocating a result"
    )
    assert net[3].approximate == "tanh", (
        f"the GELU should use the tanh approximation, nn.GELU(approximate='tanh'), got "
        f"approximate={net[3].approximate!r}"
    )
    owners = {name.rsplit(".", 1)[0] for name, _ in net.named_parameters()}
    assert all(isinstance(net.get_submodule(owner), nn.Linear) for owner in owners), (
        "only the Linear layers have parameters: an activation module holds settings only"
    )
    eval_mode = [name or "the Sequential" for name, m in net.named_modules() if not m.training]
    assert not eval_mode, (
        f"{eval_mode} of a new model are in eval mode: every nn.Module starts in training "
        "mode, and the caller picks the mode (model.eval() to evaluate); return the layers "
        "as constructed, without .eval()"
    )


def test_mlp_parameters_are_initialised_as_nn_linear_does(device):
    # fan_in differs from fan_out in the first and last layers (16 -> 64 and 64 -> 32), so a
    # bound from the wrong one is too narrow or too wide.
    with torch.device(device):
        net = mlp(16, 64, 32)
    for index in (0, 2, 4):
        layer = net[index]
        # nn.Linear draws weight and bias uniformly from +-1/sqrt(in_features).
        bound = 1 / math.sqrt(layer.in_features)
        values = torch.cat([layer.weight.detach().flatten(), layer.bias.detach()])
        spread = values.std().item() * math.sqrt(3)
        assert values.abs().max() <= bound and 0.8 * bound < spread < 1.2 * bound, (
            f"layer {index} ({layer.in_features} -> {layer.out_features}) should be "
            f"initialised as nn.Linear does it, uniform in +-1/sqrt(in_features) = +-{bound:.3g} "
            f"(spread {spread:.3g}): keep the layers' own initialisation, do not zero or redraw it"
        )


def test_mlp_models_share_no_module(device):
    first, second = mlp(4, 8, 3), mlp(4, 8, 3)
    shared = [
        type(module).__name__
        for module in first.modules()
        if any(module is other for other in second.modules())
    ]
    assert not shared, (
        f"two models from mlp() share {shared}: build new layers and activation modules on "
        "each call, so that a hook on one model's module fires for that model only"
    )


@pytest.mark.parametrize("make", [lambda: mlp(5, 8, 3), lambda: PreActivationBlock(5, 7)])
def test_parameters_follow_the_default_dtype(device, make):
    skip_unless_supported(device, torch.float64)
    with default_dtype(torch.float64), torch.device(device):
        module = make()
    dtypes = {name: p.dtype for name, p in module.named_parameters()}
    assert set(dtypes.values()) == {torch.float64}, (
        f"under torch.set_default_dtype(torch.float64) the parameters should be float64, got "
        f"{dtypes}: create the layers as nn.Linear does by default, without a dtype"
    )


def test_mlp_computes_linear_relu_linear_gelu_linear(device):
    net = mlp(5, 16, 4).to(device)
    x = torch.randn(10, 5, device=device)
    out = net(x)
    check_tensor(out, shape=(10, 4), dtype=torch.float32, device=device, name="mlp(x)")
    assert_close(
        out,
        mlp_by_hand(net, x),
        "the output should be Linear, ReLU, Linear, GELU (tanh), Linear applied in turn",
    )


def test_mlp_trains_with_its_relu_in_place(device):
    net = mlp(5, 16, 4).to(device)
    x = torch.randn(10, 5, device=device, requires_grad=True)
    net(x).square().sum().backward()
    expected = torch.autograd.grad(mlp_by_hand(net, x).square().sum(), (x, *net.parameters()))
    got = (x.grad, *(p.grad for p in net.parameters()))
    assert all(g is not None for g in got), "a backward pass should reach x and every parameter"
    assert_close(got, expected, "the gradients differ from those of the same layers by hand")


# ---------------------------------------------------------------- PreActivationBlock


def block_by_hand(block, x):
    h = F.linear(F.relu(x), block.fc1.weight, block.fc1.bias)
    return x + F.linear(F.relu(h), block.fc2.weight, block.fc2.bias)


def block_and_input(device, n=6, features=5, hidden=7):
    block = PreActivationBlock(features, hidden).to(device)
    # Values well beyond 6, in x and in fc1's output, where relu6 (or another clipped
    # activation) differs from relu.
    return block, torch.randn(n, features, device=device) * 10


def test_block_registers_only_its_two_linear_layers(device):
    block = PreActivationBlock(5, 7)
    children = [(name, type(m)) for name, m in block.named_children()]
    assert children == [("fc1", nn.Linear), ("fc2", nn.Linear)], (
        f"the block's submodules should be fc1 and fc2, two nn.Linear, got {children}; the "
        "ReLUs are calls in forward (F.relu, torch.relu), not registered modules"
    )
    assert (block.fc1.in_features, block.fc1.out_features) == (5, 7) and (
        block.fc2.in_features,
        block.fc2.out_features,
    ) == (7, 5), "fc1 maps features to hidden, fc2 hidden back to features"
    eval_mode = [name or "the block" for name, m in block.named_modules() if not m.training]
    assert not eval_mode, (
        f"{eval_mode} of a new block are in eval mode: every nn.Module starts in training "
        "mode, and the caller picks the mode; do not call .eval() in __init__"
    )


def test_block_adds_its_input_to_the_branch(device):
    block, x = block_and_input(device)
    expected = block_by_hand(block, x)  # before the call, which may overwrite x
    out = block(x)
    check_tensor(out, shape=(6, 5), dtype=torch.float32, device=device, name="block(x)")
    assert_close(
        out,
        expected,
        "block(x) should be x + fc2(relu(fc1(relu(x)))): the skip connection adds x itself, "
        "not relu(x), and no ReLU comes after the sum",
    )


def test_block_leaves_the_callers_input_alone(device):
    block, x = block_and_input(device)
    before = x.clone()
    block(x)
    assert torch.equal(x, before), (
        "block(x) changed the caller's x: the ReLU on x must work out of place (F.relu(x)), "
        "since the skip connection and the caller still read x"
    )


# The rule holds in every mode: in eval mode, and without a graph, a ReLU out of place
# allocates its tensor all the same.
@pytest.mark.parametrize("mode", ["training", "eval", "eval under no_grad"])
def test_block_relu_after_fc1_works_in_place(device, mode):
    block, x = block_and_input(device)
    block.train(mode == "training")
    grad_mode = torch.no_grad() if mode.endswith("no_grad") else contextlib.nullcontext()
    seen = {}
    handles = [
        module.register_forward_hook(
            lambda module, inputs, output, name=name: seen.setdefault(name, []).append(
                (inputs[0], output, output.detach().clone())
            )
        )
        for name, module in block.named_modules()
        if module is not block
    ]
    try:
        with largest_result() as record, grad_mode:
            block(x)
    finally:
        for handle in handles:
            handle.remove()
    runs = {name: len(seen.get(name, [])) for name, _ in block.named_children()}
    assert all(count == 1 for count in runs.values()), (
        f"each layer should run once per forward pass, as a module (self.fc1(...), "
        f"self.fc2(...), which runs its hooks; not F.linear with its weight), ran {runs}"
    )
    (_, output, original), (fc2_input, _, _) = seen["fc1"][0], seen["fc2"][0]
    assert (original < 0).any(), "the test's fc1 output should have negative values"
    in_place = torch.equal(output.detach(), original.clamp(min=0)) and (
        fc2_input.untyped_storage().data_ptr() == output.untyped_storage().data_ptr()
    )
    assert in_place, (
        "the ReLU on fc1's output should work in place on that tensor (F.relu(h, "
        "inplace=True) or h.relu_()), and fc2 read that same tensor: nothing else reads "
        "it, so no second tensor is needed (a ReLU out of place copied back is one)"
    )
    # fc1's output and the hook's copy of it are the only floating tensors of their size the
    # forward pass allocates (the others have x's size): a third is an out-of-place ReLU,
    # whatever is done with it.
    size = output.numel()
    # A mask of that size (bool) counts too: relu's backward needs only its result.
    copies = sum(1 for elements, _ in record.allocated if elements == size)
    assert copies == 2, (
        f"the forward pass allocated {copies - 1} tensors of fc1's output size: "
        "the ReLU on it should work in place (F.relu(h, inplace=True), h.relu_()), not "
        "compute a new tensor and copy it back (h.copy_(F.relu(h)), h[:] = F.relu(h)), nor "
        "with an op whose backward needs its input (h.clamp_(min=0)), which autograd copies, "
        "nor through a mask (h.mul_(h > 0), h.masked_fill_(h < 0, 0))"
    )


@pytest.mark.parametrize("source", ["leaf", "tanh"])
def test_block_backward_works_when_x_is_saved_for_backward(device, source):
    block, z = block_and_input(device)
    z.requires_grad_()
    # A leaf that requires grad may not be changed in place at all; tanh saves its result
    # for its backward, so changing that result in place makes backward raise.
    x = z if source == "leaf" else torch.tanh(z)
    block(x).square().sum().backward()
    params = list(block.parameters())
    got = (z.grad, *(p.grad for p in params))
    z_again = z.detach().clone().requires_grad_()
    x_again = z_again if source == "leaf" else torch.tanh(z_again)
    expected = torch.autograd.grad(block_by_hand(block, x_again).square().sum(), (z_again, *params))
    assert all(g is not None for g in got), "a backward pass should reach x and every parameter"
    assert_close(got, expected, "the gradients differ from those of the formula")


# ---------------------------------------------------------------- class_probabilities

# (layout, shape): classes and time steps equally many where both appear, so only the layout
# tells the class dimension.
LAYOUTS = [
    ("NC", (6, 4)),
    ("NCT", (3, 5, 5)),
    ("NTC", (3, 5, 5)),
    ("TNC", (5, 3, 5)),
    ("NCHW", (2, 3, 3, 3)),
    ("NHWC", (2, 3, 3, 3)),
    # The classes neither second nor last, first, alone; other letters than the examples'.
    ("NTCH", (2, 4, 4, 4)),
    ("CN", (5, 5)),
    ("C", (5,)),
    ("BLC", (3, 5, 5)),
]
LAYOUT_IDS = [layout for layout, _ in LAYOUTS]


def probabilities_by_hand(logits, dim, log=False):
    """exp(x) / sum(exp(x)) along dim (or its log), in float64 with the largest subtracted."""
    x = logits.double()
    x = x - x.amax(dim=dim, keepdim=True)
    total = x.exp().sum(dim=dim, keepdim=True)
    return x - total.log() if log else x.exp() / total


@pytest.mark.parametrize("layout, shape", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
def test_probabilities_over_the_class_dimension(device, layout, shape, log):
    logits = torch.randn(shape, device=device) * 3
    out = class_probabilities(logits, layout, log=log)
    check_tensor(out, shape=shape, dtype=torch.float32, device=device, name="the result")
    dim = layout.index("C")
    probabilities = out.exp() if log else out
    assert_close(
        probabilities.sum(dim=dim),
        torch.ones_like(logits.sum(dim=dim)),
        f"for layout {layout!r} the probabilities should sum to 1 along dim {dim}, where the "
        "'C' is; pass that dim to softmax",
        atol=1e-5,
        rtol=0,
    )
    assert_close(
        out,
        probabilities_by_hand(logits, dim, log).float(),
        f"{'log_softmax' if log else 'softmax'} over dim {dim} for layout {layout!r}",
    )


@pytest.mark.parametrize(
    "layout, shape",
    [("NC", (0, 4)), ("NTC", (2, 0, 3)), ("NCT", (0, 5, 2)), ("NCHW", (1, 3, 0, 2))],
    ids=str,
)
@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
def test_probabilities_of_empty_logits(device, layout, shape, log):
    # No samples or no time steps (the class dimension is never empty): an empty result.
    logits = torch.randn(shape, device=device)
    out = class_probabilities(logits, layout, log=log)
    check_tensor(out, shape=shape, dtype=torch.float32, device=device, name="the result")


def test_probabilities_default_to_softmax(device):
    logits = torch.randn(4, 3, device=device)
    assert_close(
        class_probabilities(logits, "NC"),
        probabilities_by_hand(logits, 1).float(),
        "log=False is the default: probabilities, not their logs",
    )


@pytest.mark.parametrize("dtype", facets.FLOATING)
@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
def test_probabilities_stay_finite_for_logits_far_apart(device, dtype, log):
    skip_unless_supported(device, dtype)
    # Exactly representable in every floating dtype.
    logits = torch.tensor([[0.0, 1000.0, 10.0], [-500.0, 500.0, 0.0]], dtype=dtype, device=device)
    out = class_probabilities(logits, "NC", log=log)
    assert torch.isfinite(out).all(), (
        f"{'log-' if log else ''}probabilities {out.tolist()} of {dtype} logits are not "
        "finite for logits far apart: exp(x) overflows to inf (subtract the largest logit "
        "first, as F.softmax does), and log(softmax(x)) underflows to log(0) = -inf, in "
        "float32 as well (F.log_softmax, x - logsumexp(x), stays finite)"
    )
    check_tensor(out, shape=(2, 3), dtype=dtype, device=device, name="the result")
    assert_close(out, probabilities_by_hand(logits, 1, log=log).to(dtype), "values")


@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
def test_probabilities_pass_gradients_to_the_logits(device, log):
    logits = (torch.randn(3, 4, 5, device=device) * 3).requires_grad_()
    weights = torch.randn(3, 4, 5, device=device)  # the sum alone has no gradient for softmax
    out = class_probabilities(logits, "NCT", log=log)
    assert out.requires_grad, (
        "the result carries no graph: gradients flow through the probabilities to the "
        "logits (a loss is computed from them), so compute them outside torch.no_grad()"
    )
    (grad,) = torch.autograd.grad((out * weights).sum(), logits)
    exact = logits.detach().cpu().double().requires_grad_()
    (expected,) = torch.autograd.grad(
        (probabilities_by_hand(exact, 1, log) * weights.cpu().double()).sum(), exact
    )
    assert_close(
        grad.cpu(), expected.float(), "gradients of the probabilities with respect to the logits"
    )


@pytest.mark.parametrize(
    "layout, shape",
    [("NC", (2, 3, 4)), ("NCT", (2, 3)), ("NT", (2, 3)), ("NCC", (2, 3, 3)), ("nc", (2, 3))],
    ids=["too short", "too long", "no C", "two C", "lower case"],
)
def test_probabilities_reject_a_layout_that_does_not_fit(device, layout, shape):
    with raises(ValueError):
        class_probabilities(torch.zeros(shape, device=device), layout)


# ---------------------------------------------------------------- facets

# Every half step from -40 to 40, 0 included (where formulas built from abs, clamp or relu
# may give another gradient): they reach the regions where a switch to x (gradient 1) or to
# exp(x) without the log1p costs more than the tolerance (up to about 12 and down to about
# -11 in float32, 23 and -23 in float64); then large ones and very negative ones with tiny
# results. All exactly representable.
SOFTPLUS_INPUTS = [*torch.linspace(-40, 40, 161).tolist(), *LARGE, -60.0, -80.0, -700.0]


def softplus_inputs(dtype, device):
    return facets.args(torch.tensor(SOFTPLUS_INPUTS, dtype=dtype, device=device))


def forward_of(module, device):
    return module.to(device)(torch.randn(4, 5, device=device))


def logits_in(dtype, device, log=False):
    logits = (torch.randn(3, 4, 5, dtype=torch.float64) * 3).clamp(-10, 10)
    return facets.args(logits.to(dtype=dtype, device=device), "NCT", log=log)


# A layout for each rank the Shapes facet names, the classes last where a flat [rows, C] view
# of the logits is tempting (it fails for strided ones).
LAYOUT_OF_RANK = {2: "NC", 3: "NTC"}


def logits_of_shape(shape, device):
    return facets.args(torch.randn(shape, device=device) * 3, LAYOUT_OF_RANK[len(shape)])


def probabilities_of_layout(logits, layout):
    return probabilities_by_hand(logits, layout.index("C"))


# log-probabilities near 0 come from cancellation (x - logsumexp(x), as correct as
# F.log_softmax): a few roundings of the logits' size (at most 10, plus log of 4 classes).
LOG_ATOL = {dtype: 16 * torch.finfo(dtype).eps for dtype in facets.FLOATING}


def probabilities_in_every_dtype():
    """float32 and float64 rounded once; float16 and bfloat16 within a few roundings of
    the dtype (computed in it, or in float32 and cast back once)."""
    for log in (False, True):
        for dtypes, ulps in (
            ((torch.float32, torch.float64), 1),
            ((torch.float16, torch.bfloat16), 8),
        ):
            yield facets.Dtypes(
                lambda dtype, device, log=log: logits_in(dtype, device, log=log),
                oracle=lambda logits, layout, log: probabilities_by_hand(logits, 1, log),
                dtypes=dtypes,
                ulps=ulps,
                atol=LOG_ATOL if log else None,
                label=("log" if log else "") + ("half" if ulps > 1 else ""),
            )
        # Weighted: the sum of the probabilities is 1 whatever the logits, so its gradient is 0.
        # Near 0 the gradient comes from cancellation: a few roundings of its size (about 1).
        yield facets.Gradients(
            lambda dtype, device, log=log: logits_in(dtype, device, log=log),
            oracle=lambda logits, layout, log: probabilities_by_hand(logits, 1, log),
            atol={dtype: 4 * torch.finfo(dtype).eps for dtype in facets.FLOATING},
            label="log" if log else "",
        )


FACETS = facets.declare(
    facets.of(
        softplus,
        facets.Dtypes(
            softplus_inputs,
            oracle=exact_softplus,
            dtypes=(torch.float32, torch.float64),
            atol=TINY,
        ),
        facets.Gradients(
            softplus_inputs,
            oracle=exact_softplus,
            dtypes=(torch.float32, torch.float64),
            atol=TINY,
            ulps=1,  # the contract's tolerance: relative 1e-5 (float32), 1e-10 (float64)
        ),
        facets.Unmodified(lambda device: softplus_inputs(torch.float32, device)),
        # Any shape, empty included: values and gradients (large ones on both sides).
        facets.Shapes(
            lambda shape, device: facets.args(torch.randn(shape, device=device) * 30),
            oracle=exact_softplus,
            shapes=("0-dim", "empty", "empty inside", "size 1", "non-contiguous 3-D"),
        ),
    ),
    facets.of(
        mlp,
        facets.DefaultDevice(lambda device: facets.args(5, 8, 3)),
        facets.Trains(lambda device: facets.args(5, 8, 3), forward=forward_of),
        facets.Registered(lambda device: facets.args(5, 8, 3), forward=forward_of),
        facets.Seeded(
            lambda device: facets.args(5, 8, 3),
            drawn=lambda arguments, net: list(net.parameters()),
            like=lambda: [nn.Linear(5, 8), nn.Linear(8, 8), nn.Linear(8, 3)],
        ),
    ),
    facets.of(
        PreActivationBlock,
        facets.DefaultDevice(lambda device: facets.args(5, 7)),
        facets.Trains(lambda device: facets.args(5, 7), forward=forward_of),
        facets.Registered(lambda device: facets.args(5, 7), forward=forward_of),
        # fc1 and fc2 initialised from the caller's generator, as nn.Linear draws them.
        facets.Seeded(
            lambda device: facets.args(5, 7),
            drawn=lambda arguments, block: list(block.parameters()),
        ),
    ),
    facets.of(
        class_probabilities,
        *probabilities_in_every_dtype(),
        # Any layout of the logits: strided ones too, empty ones (no samples).
        facets.Shapes(
            logits_of_shape,
            oracle=probabilities_of_layout,
            shapes=("empty", "2-D", "size 1", "non-contiguous", "non-contiguous 3-D"),
        ),
        # .to(float64) or .float() returns the caller's own tensor for that dtype.
        *(
            facets.Unmodified(
                lambda dtype, device, log=log: logits_in(dtype, device, log=log),
                dtypes=facets.FLOATING,
                label="log" if log else "",
            )
            for log in (False, True)
        ),
        facets.Defaults(values={"log": False}),
        # One letter per dimension: logits of another rank do not fit the layout.
        facets.BadShapes(
            lambda device: logits_in(torch.float32, device), names=(0,), dims=(), label="rank"
        ),
    ),
)
test_facets = FACETS.test
