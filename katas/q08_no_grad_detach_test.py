import copy
from contextlib import contextmanager

import pytest
import torch
from torch import nn

from katas.q08_no_grad_detach import ema_update_, evaluate, round_ste
from torch_katas import facets
from torch_katas.testing import assert_close, check_tensor, raises, skip_unless_supported


@contextmanager
def count_saved_tensors():
    """Counts the tensors autograd saves for a backward pass while the block runs."""
    saved = []

    def pack(tensor):
        saved.append(tuple(tensor.shape))
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        yield saved


def small_net(device):
    """Linear, BatchNorm with trained running statistics, ReLU, Dropout, Linear."""
    model = nn.Sequential(
        nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 3)
    ).to(device)
    with torch.no_grad():
        for _ in range(3):
            model(torch.randn(16, 4, device=device) * 2 + 1)  # moves the running stats
    return model


def by_hand_eval(model, x):
    reference = copy.deepcopy(model).eval()
    with torch.no_grad():
        return reference(x)


# ---- evaluate ---------------------------------------------------------------


def test_evaluate_gives_the_eval_mode_output(device):
    model = small_net(device)
    x = torch.randn(5, 4, device=device)
    expected = by_hand_eval(model, x)
    out = evaluate(model, x)
    check_tensor(out, shape=(5, 3), dtype=torch.float32, device=device, name="evaluate's output")
    assert_close(out, expected, "the output differs from the model in eval mode; call model.eval()")


@pytest.mark.parametrize("x_requires_grad", [False, True], ids=["plain x", "x requiring grad"])
def test_evaluate_of_a_model_that_returns_its_input(device, x_requires_grad):
    x = torch.randn(3, 4, device=device, requires_grad=x_requires_grad)
    out = evaluate(nn.Identity(), x)
    check_tensor(out, shape=(3, 4), dtype=torch.float32, device=device, name="evaluate's output")
    assert out.grad_fn is None and not out.requires_grad, (
        "nn.Identity returns x itself, which requires grad; detach the output so evaluate "
        "never hands back a tensor attached to autograd"
    )
    assert torch.equal(out, x.detach()), "the output of nn.Identity should equal x"
    assert out is not x, (
        "evaluate handed back x itself; return x detached (a new tensor, it may share x's "
        "memory) whether or not x requires grad, so that nothing done to the result (such "
        "as requires_grad_()) changes the caller's x"
    )
    assert x.requires_grad == x_requires_grad, "x's requires_grad flag changed"


class _LearnedConstant(nn.Module):
    """Returns its own parameter whatever the input (a learned query, a prompt)."""

    def __init__(self):
        super().__init__()
        self.value = nn.Parameter(torch.randn(3, 4))

    def forward(self, x):
        return self.value


def test_evaluate_of_a_model_that_returns_its_parameter(device):
    # Not only the input: a tensor the model holds, made before no_grad, comes back as it is.
    model = _LearnedConstant().to(device)
    out = evaluate(model, torch.randn(3, 4, device=device))
    assert out.grad_fn is None and not out.requires_grad and out is not model.value, (
        "the model returned its own parameter, which requires grad, and evaluate handed it "
        "back attached to autograd; detach whatever the model returns, not only x"
    )
    assert torch.equal(out, model.value.detach()), "the output should equal the parameter"
    assert model.value.requires_grad, "the model's parameter must still require grad"


def test_evaluate_builds_no_graph_and_saves_nothing(device):
    model = small_net(device)
    x = torch.randn(5, 4, device=device, requires_grad=True)
    with count_saved_tensors() as saved:
        out = evaluate(model, x)
    assert out.grad_fn is None and not out.requires_grad, (
        "the output is attached to a graph; run the model inside torch.no_grad()"
    )
    assert not saved, (
        f"autograd saved {len(saved)} tensors for a backward pass that never comes: "
        "model(x).detach() records the whole graph first; torch.no_grad() records nothing"
    )


@pytest.mark.parametrize("start", ["train", "eval", "mixed"])
def test_evaluate_restores_every_modules_mode(device, start):
    model = small_net(device)
    if start == "eval":
        model.eval()
    elif start == "mixed":
        model[1].eval()  # batch norm frozen on purpose while the rest trains
    before = [module.training for module in model.modules()]
    evaluate(model, torch.randn(2, 4, device=device))
    after = [module.training for module in model.modules()]
    assert after == before, (
        f"train/eval modes before {before}, after {after}: remember each module's mode and "
        "put it back"
    )


class _Fails(nn.Module):
    def forward(self, x):
        raise RuntimeError("this model fails on purpose")


def test_evaluate_restores_the_modes_when_the_model_raises(device):
    model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5), _Fails()).to(device)
    model[1].eval()
    before = [module.training for module in model.modules()]
    with raises(RuntimeError) as error:
        evaluate(model, torch.randn(2, 4, device=device))
    assert "on purpose" in str(error.value), "evaluate must let the model's error through"
    after = [module.training for module in model.modules()]
    assert after == before, (
        f"train/eval modes before {before}, after the model raised {after}: restore them in "
        "a finally block"
    )


def test_evaluate_changes_no_state(device):
    model = small_net(device)
    model[0].weight.grad = torch.ones_like(model[0].weight)
    buffers = {name: b.clone() for name, b in model.named_buffers()}
    evaluate(model, torch.randn(6, 4, device=device))
    for name, b in model.named_buffers():
        assert torch.equal(b, buffers[name]), f"buffer {name} changed; evaluate in eval mode"
    assert torch.equal(model[0].weight.grad, torch.ones_like(model[0].weight)), ".grad changed"
    assert all(p.grad is None for p in model[4].parameters()), ".grad was written"


def test_evaluate_output_can_be_used_in_training_later(device):
    teacher, student = small_net(device), small_net(device)
    x = torch.randn(4, 4, device=device)
    target = evaluate(teacher, x)
    try:
        loss = (student(x) * target).sum()  # multiplication saves target for backward
        loss.backward()
    except RuntimeError as error:
        raise AssertionError(
            "the output of evaluate cannot be used in a recorded computation; tensors made "
            f"under torch.inference_mode() cannot; use torch.no_grad()\n{error}"
        ) from error
    assert student[0].weight.grad is not None


# ---- ema_update_ ------------------------------------------------------------


@pytest.mark.parametrize("decay", [0.0, 0.9, 0.999, 1.0])
def test_ema_moves_each_parameter_towards_the_source(device, decay):
    target, source = small_net(device), small_net(device)
    before = [p.detach().clone() for p in target.parameters()]
    result = ema_update_(target, source, decay)
    assert result is None, "ema_update_ works in place and returns None"
    names = [name for name, _ in target.named_parameters()]
    for name, t, t0, s in zip(names, target.parameters(), before, source.parameters(), strict=True):
        assert_close(
            t.detach(),
            decay * t0 + (1 - decay) * s.detach(),
            f"{name}: expected decay * target + (1 - decay) * source with decay={decay}",
        )
        if decay in (0.0, 1.0):  # the ends are exact: a copy of source, target as it was
            end = s.detach() if decay == 0.0 else t0
            assert torch.equal(t.detach(), end), (
                f"{name}: decay={decay} must give {'source' if decay == 0.0 else 'target'} "
                "exactly; t - (1 - decay) * (t - s) rounds, decay * t + (1 - decay) * s "
                "(or t.lerp_(s, 1 - decay)) does not"
            )


def test_ema_updates_the_parameters_target_holds_at_each_call(device):
    # An EMA runs every step: each call pairs the parameters the modules hold then. One the
    # caller replaced since the last call (a layer reloaded, load_state_dict(assign=True))
    # is the one updated, not the tensor the first call found (pairs kept by module id).
    target, source = small_net(device), small_net(device)
    ema_update_(target, source, 0.5)
    with torch.no_grad():
        target.load_state_dict({k: v + 1 for k, v in target.state_dict().items()}, assign=True)
    before = [p.detach().clone() for p in target.parameters()]
    ema_update_(target, source, 0.5)
    pairs = zip(target.named_parameters(), before, source.parameters(), strict=True)
    for (name, t), t0, s in pairs:
        assert_close(
            t.detach(),
            0.5 * t0 + 0.5 * s.detach(),
            f"{name}: the second call must update the parameter target holds now (it was "
            "replaced after the first call); find the pairs anew on every call",
        )


@pytest.mark.parametrize("preset", [False, True], ids=["grad-None", "grad-set"])
def test_ema_updates_in_place_and_records_nothing(device, preset):
    target, source = small_net(device), small_net(device)
    params = list(target.parameters())
    pointers = [p.data_ptr() for p in params]
    if preset:  # target has gradients of its own (an EMA of a model that still trains)
        for p in params:
            p.grad = torch.full_like(p, 0.25)
    source(torch.randn(4, 4, device=device)).sum().backward()  # source has gradients
    source_grads = [p.grad.clone() for p in source.parameters()]
    source_values = [p.detach().clone() for p in source.parameters()]
    with count_saved_tensors() as saved:
        ema_update_(target, source, 0.5)
    after = list(target.parameters())
    assert all(a is b for a, b in zip(after, params, strict=True)), (
        "target's parameters were replaced by new objects; update them in place "
        "(an optimizer still holds the old ones)"
    )
    assert [p.data_ptr() for p in after] == pointers, "update the existing storage in place"
    for p in after:
        assert p.is_leaf and p.grad_fn is None and p.requires_grad, (
            "target's parameters must stay leaves that require grad; update them inside "
            "torch.no_grad()"
        )
        if preset:
            assert p.grad is not None and torch.equal(p.grad, torch.full_like(p, 0.25)), (
                "target's .grad changed or was cleared; leave every .grad as it was "
                "(no zero_grad(), no backward)"
            )
        else:
            assert p.grad is None, "target's .grad was written"
    assert not saved, f"autograd saved {len(saved)} tensors; do the update under torch.no_grad()"
    for p, g, v in zip(source.parameters(), source_grads, source_values, strict=True):
        assert torch.equal(p.grad, g) and torch.equal(p.detach(), v), "source must not change"


def test_ema_leaves_buffers_and_frozen_flags_alone(device):
    target, source = small_net(device), small_net(device)
    target.requires_grad_(False)  # a frozen EMA copy is common
    buffers = {name: b.clone() for name, b in target.named_buffers()}
    before = [p.detach().clone() for p in target.parameters()]
    ema_update_(target, source, 0.9)
    for t, t0, s in zip(target.parameters(), before, source.parameters(), strict=True):
        assert_close(t, 0.9 * t0 + 0.1 * s.detach(), "a frozen parameter of target is updated too")
    for name, b in target.named_buffers():
        assert torch.equal(b, buffers[name]), (
            f"buffer {name} changed; the EMA here is over parameters() only"
        )
    assert not any(p.requires_grad for p in target.parameters()), "requires_grad was changed"


class _Wrapped(nn.Module):
    """The same network under another name, as DistributedDataParallel wraps it."""

    def __init__(self, module):
        super().__init__()
        self.module = module


RENAMED = {
    "module. prefix": lambda net: _Wrapped(net),
    "another container": lambda net: nn.ModuleDict({f"layer{i}": m for i, m in enumerate(net)}),
}


@pytest.mark.parametrize("renamed", list(RENAMED))
def test_ema_pairs_parameters_in_order_whatever_their_names(device, renamed):
    target, source = small_net(device), RENAMED[renamed](small_net(device))
    before = [p.detach().clone() for p in target.parameters()]
    ema_update_(target, source, 0.5)
    for t, t0, s in zip(target.parameters(), before, source.parameters(), strict=True):
        assert_close(t, 0.5 * t0 + 0.5 * s.detach(), "pair parameters() in order; names may differ")


def tied_net(device):
    """An embedding-like layer and a head that share one weight (weight tying)."""
    net = nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 3)).to(device)
    net[2].weight = net[0].weight
    return net


def test_ema_updates_a_tied_parameter_once(device):
    # A Parameter shared by two layers is one parameter: parameters() yields it once, and
    # it moves once. (The state_dict, or each module's own parameters, list it twice.)
    target, source = tied_net(device), tied_net(device)
    before = [p.detach().clone() for p in target.parameters()]
    ema_update_(target, source, 0.5)
    assert target[2].weight is target[0].weight, "the tied weight must stay one Parameter"
    for t, t0, s in zip(target.parameters(), before, source.parameters(), strict=True):
        assert_close(
            t.detach(),
            0.5 * t0 + 0.5 * s.detach(),
            "a tied weight was moved twice: update each of parameters() once",
        )


@pytest.mark.parametrize("decay", [-0.1, 1.5, float("nan")], ids=str)
def test_ema_rejects_a_decay_outside_0_1(device, decay):
    target = small_net(device)
    before = [p.detach().clone() for p in target.parameters()]
    with raises(ValueError):
        ema_update_(target, small_net(device), decay)
    for p, p0 in zip(target.parameters(), before, strict=True):
        assert torch.equal(p, p0), "target changed although the call was rejected"


def parameters(*shapes):
    return nn.ParameterList(nn.Parameter(torch.randn(shape)) for shape in shapes)


MISMATCHES = {
    "shapes": (lambda: nn.Linear(4, 3), lambda: nn.Linear(4, 2)),
    "counts": (lambda: nn.Linear(4, 3), lambda: nn.Linear(4, 3, bias=False)),
    "one more in source": (lambda: parameters((2,)), lambda: parameters((2,), (3,))),
    "same numel, other shape": (lambda: parameters((2,), (2, 3)), lambda: parameters((2,), (3, 2))),
    "last layer only": (
        lambda: nn.Sequential(nn.Linear(4, 3), nn.Linear(3, 2)),
        lambda: nn.Sequential(nn.Linear(4, 3), nn.Linear(3, 5)),
    ),
}


@pytest.mark.parametrize("mismatch", list(MISMATCHES))
def test_ema_rejects_modules_that_do_not_match(device, mismatch):
    make_target, make_source = MISMATCHES[mismatch]
    target, source = make_target().to(device), make_source().to(device)
    before = [p.detach().clone() for p in target.parameters()]
    with raises(ValueError):
        ema_update_(target, source, 0.5)
    for p, p0 in zip(target.parameters(), before, strict=True):
        assert torch.equal(p, p0), (
            "target changed although the modules do not match; check every pair before updating any"
        )


# ---- round_ste --------------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
def test_round_ste_rounds_half_to_even(device, dtype):
    skip_unless_supported(device, dtype)
    x = torch.tensor(
        [-2.5, -1.5, -0.7, -0.5, -0.2, 0.0, 0.4999, 0.5, 1.5, 2.5, 3.2, 1e6 + 0.7],
        dtype=dtype,
        device=device,
    )
    y = round_ste(x)
    check_tensor(y, shape=x.shape, dtype=dtype, device=device, name="round_ste(x)")
    assert_close(y, torch.round(x), "the values must be torch.round(x)", atol=0, rtol=0)


def test_round_ste_gradient_is_exactly_one(device):
    # Random values, and halves and integers where rounding jumps or is flat.
    halves = torch.tensor([-1.5, -0.5, 0.0, 0.5, 1.0, 2.5], device=device)
    x = torch.cat([4 * torch.randn(12, device=device), halves]).requires_grad_()
    y = round_ste(x)
    (grad,) = torch.autograd.grad(y.sum(), x)
    assert torch.equal(grad, torch.ones_like(x)), (
        f"the straight-through gradient must be exactly 1, got values like {grad.flatten()[:4]}; "
        "detach the (round(x) - x) term, so only the identity path is recorded"
    )


def test_round_ste_passes_the_incoming_gradient_through(device):
    a = torch.randn(6, device=device, requires_grad=True)
    x = (3 * a)[::2]  # a non-contiguous non-leaf
    upstream = torch.randn(3, device=device)
    y = round_ste(x)
    (grad,) = torch.autograd.grad((y * upstream).sum(), a)
    expected = torch.zeros(6, device=device)
    expected[::2] = 3 * upstream
    assert_close(grad, expected, "the incoming gradient must reach x unchanged")


def test_round_ste_is_built_from_ordinary_operations(device):
    x = torch.randn(5, device=device, requires_grad=True)
    y = round_ste(x)
    nodes, stack = set(), [y.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in nodes:
            continue
        nodes.add(node)
        stack.extend(parent for parent, _ in node.next_functions)
    custom = [
        type(n).__name__ for n in nodes if isinstance(n, torch.autograd.function.BackwardCFunction)
    ]
    assert not custom, (
        f"round_ste records a custom autograd.Function ({custom}); the rule is ordinary "
        "operations and detach: x + (torch.round(x) - x).detach()"
    )


def test_round_ste_without_grad_and_inputs_unchanged(device):
    x = torch.randn(4, device=device) * 3
    before = x.clone()
    y = round_ste(x)
    assert not y.requires_grad, "round_ste of a tensor without grad must not require grad"
    assert torch.equal(x, before), "x was modified"
    z = round_ste(torch.empty(0, 2, device=device))
    check_tensor(z, shape=(0, 2), dtype=torch.float32, device=device, name="round_ste(empty)")


# ---------------------------------------------------------------- facets


def model_and_input(device):
    # Nested: a mode put back on the children alone (whose train() sets their own children)
    # loses a grandchild's.
    model = nn.Sequential(nn.Linear(4, 3), nn.Sequential(nn.BatchNorm1d(3), nn.Dropout(0.5)))
    model = model.to(device)
    return facets.args(model, torch.randn(5, 4, device=device, requires_grad=True))


def model_in(dtype, device):
    model = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3), nn.Dropout(0.5))
    return facets.args(model.to(device, dtype), torch.randn(5, 4, dtype=dtype, device=device))


def evaluated64(model, x):
    """The model's float64 copy, in eval mode."""
    return copy.deepcopy(model).cpu().double().eval()(x).detach()


def pair(device, decay=0.5):
    target, source = nn.Linear(3, 2).to(device), nn.Linear(3, 2).to(device)
    return facets.args(target, source, decay=decay)


def frozen_pair(device):
    arguments = pair(device)
    arguments.args[0].requires_grad_(False)
    return arguments


def parameter_values(dtype, device):
    """A target's and a source's parameter values (in lists) and a decay: for
    ema_on_tensors, which wraps them in modules."""
    grid = torch.linspace(-2, 3, 18, dtype=torch.float64)
    targets, sources = [grid[:6].reshape(2, 3), grid[6:8]], [grid[8:14].reshape(2, 3), grid[14:16]]
    return facets.args(
        [t.to(dtype=dtype, device=device) for t in targets],
        [s.to(dtype=dtype, device=device) for s in sources],
        0.9,
    )


def ema_on_tensors(targets, sources, decay):
    # nn.Parameter(t) shares t's memory: the update in place is read back from it.
    target = nn.ParameterList([nn.Parameter(t) for t in targets])
    ema_update_(target, nn.ParameterList([nn.Parameter(s) for s in sources]), decay)
    return tuple(p.detach() for p in target)


def ema64(targets, sources, decay):
    return tuple(decay * t + (1 - decay) * s for t, s in zip(targets, sources, strict=True))


def values(dtype, device, requires_grad=False):
    x = torch.linspace(-3, 3, 25, dtype=torch.float64).to(dtype=dtype, device=device)
    return facets.args(x.requires_grad_(requires_grad))


def straight_through(x):
    return x + (x.round() - x).detach()


def edge_input(model, device):
    return facets.args(model, torch.randn(4, 3, device=device))


def evaluated_on_cpu(model, x):
    """The oracle: a float64 CPU copy of the model run in eval mode without a graph."""
    with torch.no_grad():
        return copy.deepcopy(model).cpu().double().eval()(x)


def edge_pair(model, device):
    """target (the edge model), source (its copy moved away) and target's values before."""
    source = copy.deepcopy(model)
    with torch.no_grad():
        for parameter in source.parameters():
            parameter.add_(1.0)
    before = [parameter.detach().clone() for parameter in model.parameters()]
    return facets.args(model, source, 0.25, before)


def ema_after(target, source, decay, before):
    ema_update_(target, source, decay)
    return [parameter.detach() for parameter in target.parameters()]


def ema_expected(target, source, decay, before):
    """The oracle: the formula on the values before the call, in float64."""
    return [
        decay * b + (1 - decay) * s.detach().cpu().double()
        for b, s in zip(before, source.parameters(), strict=True)
    ]


FACETS = facets.declare(
    # Models at the edges: nothing, no parameters, buffers only, all frozen.
    facets.of(
        evaluate,
        facets.Edges(facets.edge_models(edge_input), oracle=evaluated_on_cpu),
        name="evaluate(edge models)",
    ),
    facets.of(
        ema_update_,
        facets.Edges(facets.edge_models(edge_pair), oracle=ema_expected),
        name="ema_update_(edge models)",
        call=ema_after,
    ),
    facets.of(
        evaluate,
        facets.Modes(model_and_input, module=lambda arguments: arguments.args[0]),
        facets.ForwardModes(
            model_and_input,
            module=lambda arguments: arguments.args[0],
            runs="eval",
            grad=False,
            calls=1,
        ),
        facets.NoGraph(model_and_input, state=lambda arguments, result: result),
        facets.Unmodified(model_and_input, module_grads=True),
        # The model's dtype kept, under either default dtype.
        facets.Dtypes(model_in, oracle=evaluated64, dtypes=(torch.float32, torch.float64)),
        facets.Returns(model_and_input),
        # Called again after the model changed: read anew, nothing kept from the last call.
        facets.Changed(model_and_input),
    ),
    facets.of(
        ema_update_,
        facets.Setting(pair, "decay", low=0, high=1),
        facets.Number(pair, type(None)),
        facets.NoGraph(pair, state=lambda arguments, result: arguments.args[0]),
        facets.UpdatesAll(pair, params=lambda arguments: list(arguments.args[0].parameters())),
        facets.UpdatesAll(
            frozen_pair,
            params=lambda arguments: list(arguments.args[0].parameters()),
            label="frozen target",
        ),
        facets.Unmodified(pair, inputs=lambda arguments: arguments.args[1]),
    ),
    facets.of(
        ema_update_,
        # The parameters keep their dtype, updated in it: float64 ones with a float64 decay
        # (not a tensor made in the default dtype).
        facets.Dtypes(
            parameter_values, oracle=ema64, dtypes=(torch.float32, torch.float64), ulps=4
        ),
        name="ema_update_(parameters)",
        call=ema_on_tensors,
    ),
    facets.of(
        round_ste,
        facets.Dtypes(values, oracle=torch.round, once=True),
        facets.Gradients(
            lambda dtype, device: values(dtype, device, requires_grad=True),
            oracle=straight_through,
            ulps=0,
        ),
        facets.Unmodified(lambda device: values(torch.float32, device, requires_grad=True)),
        # Any shape: 0-dim and empty ones pass the gradient through too.
        facets.Shapes(
            lambda shape, device: facets.args(torch.randn(shape, device=device) * 3),
            oracle=straight_through,
            shapes=("0-dim", "empty", "size 1", "non-contiguous"),
        ),
    ),
)
test_facets = FACETS.test
