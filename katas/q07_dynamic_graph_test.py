import inspect
import itertools
import math

import pytest
import torch
from torch import nn

from katas.q07_dynamic_graph import apply_until_small, graph_size
from torch_katas import facets
from torch_katas.testing import (
    assert_close,
    check_tensor,
    deepest_nesting,
    raises,
    skip_unless_supported,
)


def nodes_by_naive_walk(t):
    """Every node reachable from t.grad_fn, found by a plain breadth-first search."""
    if t.grad_fn is None:
        return set()
    seen, frontier = {t.grad_fn}, [t.grad_fn]
    while frontier:
        frontier = [
            node
            for current in frontier
            for node, _ in current.next_functions
            if node is not None and node not in seen
        ]
        seen.update(frontier)
    return seen


def shrinking_layer(device, dtype=torch.float32):
    """A small tanh layer that shrinks its input at every application."""
    layer = nn.Sequential(nn.Linear(4, 4), nn.Tanh()).to(device=device, dtype=dtype)
    with torch.no_grad():
        q, _ = torch.linalg.qr(torch.randn(4, 4, dtype=torch.float64))
        layer[0].weight.copy_(0.6 * q)
        layer[0].bias.uniform_(-0.01, 0.01)
    return layer


def norms_along_the_way(layer, x, count):
    """The norms of x, layer(x), layer(layer(x)), ... (count + 1 values)."""
    norms, h = [], x
    with torch.no_grad():
        for _ in range(count + 1):
            norms.append(torch.linalg.vector_norm(h).item())
            h = layer(h)
    return norms


def threshold_for(layer, x, steps):
    """A threshold between the norms before and after the layer number `steps`, far from both."""
    norms = norms_along_the_way(layer, x, steps)
    assert all(a > b for a, b in itertools.pairwise(norms)), "the test layer must shrink"
    if steps == 0:
        return norms[0] * 2  # x is already small
    return (norms[steps - 1] * norms[steps]) ** 0.5


def unrolled(layer, x, steps):
    h = x
    for _ in range(steps):
        h = layer(h)
    return h


@pytest.mark.parametrize("steps", [0, 1, 3, 7])
def test_stops_at_the_first_small_result(device, steps):
    layer = shrinking_layer(device)
    x = 3 * torch.randn(2, 4, device=device)
    out, taken = apply_until_small(layer, x, threshold_for(layer, x, steps), max_steps=20)
    assert isinstance(taken, int) and not isinstance(taken, bool), (
        f"steps should be a Python int, got {type(taken).__name__}"
    )
    assert taken == steps, (
        f"took {taken} steps, expected {steps}: test the norm BEFORE each layer and stop at "
        "the first h whose norm is below the threshold"
    )
    check_tensor(out, shape=(2, 4), dtype=x.dtype, device=device, name="h")
    with torch.no_grad():
        assert_close(out, unrolled(layer, x, steps), f"h should be the layer applied {steps} times")


def test_an_input_exactly_at_the_threshold_gets_a_layer(device):
    x = torch.tensor([3.0, 4.0], device=device)  # norm exactly 5
    out, taken = apply_until_small(lambda h: h / 2, x, 5.0, max_steps=10)
    assert taken == 1, (
        f"took {taken} steps for a norm exactly at the threshold, expected 1: the loop goes on "
        "while the norm is >= threshold"
    )
    assert_close(out, x / 2, "h should be x with one layer applied")


@pytest.mark.parametrize("steps", [0, 2])
def test_calls_the_layer_once_per_step(device, steps):
    layer = shrinking_layer(device)
    x = 3 * torch.randn(2, 4, device=device)
    threshold = threshold_for(layer, x, steps)
    calls = []

    def counted(h):
        calls.append(1)
        return layer(h)

    _, taken = apply_until_small(counted, x, threshold, max_steps=10)
    assert taken == steps, f"took {taken} steps, expected {steps}"
    assert len(calls) == steps, (
        f"the layer ran {len(calls)} times for {steps} steps; apply it only when the loop "
        "goes on (a layer may have side effects: dropout draws, BatchNorm statistics)"
    )


def test_under_no_grad_the_layers_record_no_graph(device):
    layer = shrinking_layer(device)
    x = 3 * torch.randn(2, 4, device=device, requires_grad=True)
    with torch.no_grad():
        out, taken = apply_until_small(layer, x, threshold_for(layer, x, 2), max_steps=10)
    assert taken == 2, f"took {taken} steps, expected 2"
    assert out.grad_fn is None and not out.requires_grad, (
        "under the caller's torch.no_grad() the layers record no graph: run them in the "
        "caller's grad mode, not inside torch.enable_grad()"
    )


def test_with_no_steps_h_is_x_itself(device):
    x = torch.randn(3, device=device, requires_grad=True)
    out, taken = apply_until_small(torch.tanh, x, 1e9, max_steps=5)
    assert taken == 0, f"x is already small, expected 0 steps, got {taken}"
    assert out is x, "with no steps h is x itself: start from h = x, no copy"


def test_a_nan_norm_stops_the_loop_or_goes_on_to_max_steps(device):
    # Either reading of "while the norm is >= threshold" at NaN is allowed; h must match it.
    # The layers change the finite values at every step and count their calls, so the
    # steps reported must be the layers actually applied.
    calls = []

    def poison(h):
        calls.append(1)
        return h * torch.tensor([float("nan"), 0.5], device=device)

    x = torch.full((2,), 8.0, device=device)
    out, taken = apply_until_small(poison, x, 1.0, 5)
    assert taken in (1, 5), f"took {taken} steps: stop at the NaN norm (1) or go on (5)"
    assert len(calls) == taken, f"reported {taken} steps but the layer ran {len(calls)} times"
    assert_close(
        out, unrolled(poison, x, taken), f"h should be {taken} layers applied to x", equal_nan=True
    )
    calls.clear()

    def halve(h):
        calls.append(1)
        return h / 2

    x = torch.full((2,), float("nan"), device=device)
    out, taken = apply_until_small(halve, x, 1.0, 5)
    assert taken in (0, 5), f"x holds NaN: expected 0 or 5 steps, took {taken}"
    assert len(calls) == taken, f"reported {taken} steps but the layer ran {len(calls)} times"
    assert torch.isnan(out).all() and (taken or out is x)


def steps_in_float64(layer, x, threshold, max_steps):
    """The steps the loop takes when each norm is the float64 one of h's values."""
    h, steps = x, 0
    while steps < max_steps and torch.linalg.vector_norm(h.double()) >= threshold:
        h, steps = layer(h), steps + 1
    return steps


@pytest.mark.parametrize(
    "dtype, value, threshold",
    [
        (torch.float16, 300.0, 1000.0),
        (torch.float16, 1e-4, 6e-5),
        (torch.float64, 1e200, 1e201),
        (torch.float64, 1e-60, 6e-61),
    ],
    ids=[
        "squares overflow float16",
        "squares underflow float16",
        "float64 beyond float32's range",
        "float64 below float32's range",
    ],
)
def test_the_norm_is_taken_without_overflow_or_underflow(device, dtype, value, threshold):
    skip_unless_supported(device, dtype)
    x = torch.tensor([value] * 4, dtype=dtype, device=device)
    expected = steps_in_float64(lambda h: h / 2, x, threshold, 5)
    out, taken = apply_until_small(lambda h: h / 2, x, threshold, 5)
    assert taken == expected, (
        f"took {taken} steps for {dtype} values of {value}, expected {expected}: squares of "
        "float16 values overflow (above 256) or underflow (below 2.4e-4), and float64 values "
        "this size are inf or 0 in float32; use torch.linalg.vector_norm(h) as it is (it "
        "accumulates float16 in float32, float64 in float64)"
    )
    assert out.dtype == dtype


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=str)
def test_the_norm_is_compared_in_the_dtype_of_x(device, dtype):
    # |[1, 2]| = sqrt(5) rounds up in float32 and in float16: at a threshold equal to that
    # rounded norm, the norm in x's dtype is >= threshold (a step), while a norm taken in
    # a wider dtype is below it (no step).
    skip_unless_supported(device, dtype)
    x = torch.tensor([1.0, 2.0], dtype=dtype, device=device)
    threshold = torch.linalg.vector_norm(x).item()
    assert threshold > math.sqrt(5), "the test wants a norm that rounds up in the dtype"
    out, taken = apply_until_small(lambda h: h / 2, x, threshold, 3)
    assert taken == 1, (
        f"took {taken} steps for a {dtype} x whose vector_norm equals the threshold, expected "
        "1: the norm is torch.linalg.vector_norm(h) in h's own dtype, compared as it is "
        "(not recomputed in float32 or float64, where it falls just below the threshold)"
    )
    assert_close(out, x / 2, "h should be x with one layer applied")


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_a_threshold_between_two_values_of_the_dtype_is_compared_either_way(device, dtype):
    # |x| = 1 and a threshold just above 1 that rounds to 1 in the dtype: the tensor
    # comparison (norm >= threshold) takes a step, the exact one (norm.item()) does not.
    skip_unless_supported(device, dtype)
    x = torch.tensor([1.0, 0.0], dtype=dtype, device=device)
    out, taken = apply_until_small(lambda h: h / 2, x, 1.0 + 2**-12, 3)
    assert taken in (0, 1), (
        f"took {taken} steps for a norm of 1 and a threshold of 1 + 2**-12: expected 1 (the "
        "threshold rounded to the dtype) or 0 (compared exactly)"
    )
    assert_close(out, unrolled(lambda h: h / 2, x, taken), f"h should be {taken} layers on x")


@pytest.mark.parametrize("max_steps", [0, 1, 5])
def test_never_applies_more_than_max_steps(device, max_steps):
    x = torch.randn(3, device=device)
    out, taken = apply_until_small(lambda h: 0.9 * h + 1.0, x, 0.0, max_steps)
    assert taken == max_steps, f"with threshold 0 the loop must stop at max_steps={max_steps}"
    expected = unrolled(lambda h: 0.9 * h + 1.0, x, max_steps)
    assert_close(out, expected, f"h should be the layer applied {max_steps} times")
    if max_steps == 0:
        assert out is x, "with no steps h is x itself"


@pytest.mark.parametrize("threshold", [0.5, 1e9], ids=["x large", "x already small"])
def test_rejects_a_negative_max_steps(device, threshold):
    # The argument is wrong whatever the data: check it before looking at x.
    with raises(ValueError):
        apply_until_small(torch.tanh, torch.ones(2, device=device), threshold, -1)


@pytest.mark.parametrize("steps", [1, 2, 5])
def test_gradients_equal_the_unrolled_computation(device, steps):
    layer = shrinking_layer(device)
    x = (3 * torch.randn(2, 4, device=device)).requires_grad_()
    weights = torch.randn(2, 4, device=device)
    out, taken = apply_until_small(layer, x, threshold_for(layer, x, steps), max_steps=10)
    assert taken == steps, f"took {taken} steps, expected {steps}"
    inputs = [x, *layer.parameters()]
    got = torch.autograd.grad((out * weights).sum(), inputs)
    expected = torch.autograd.grad((unrolled(layer, x, steps) * weights).sum(), inputs)
    for name, g, e in zip(["x", "weight", "bias"], got, expected, strict=True):
        assert_close(
            g,
            e,
            f"the gradient for {name} differs from {steps} layers written out; keep every "
            "step on the graph (no detach, no torch.no_grad around the layer)",
        )


def test_gradcheck_through_the_data_dependent_loop(device):
    skip_unless_supported(device, torch.float64)
    x = torch.randn(2, 3, dtype=torch.float64, device=device, requires_grad=True)
    w = (0.5 * torch.randn(3, 3, dtype=torch.float64, device=device)).requires_grad_()

    def forward(x, w):
        out, _ = apply_until_small(lambda h: torch.tanh(h @ w), 4 * x, 0.05, max_steps=4)
        return out

    assert torch.autograd.gradcheck(forward, (x, w)), "gradients through the loop are wrong"


def deep_chain(x, depth):
    for _ in range(depth):
        x = x * 1.0001
    return x


def diamond(x):
    a = x * 2  # used three times below
    return (a * a + a).sum()


def split_product(x):
    first, second = (x * 3).split(3)  # one node with two outputs
    return (first * second).sum()


def linear_twice(x):
    lin = nn.Linear(6, 6).to(x.device)
    return lin(torch.relu(lin(x))).sum()


GRAPHS = {
    "chain": lambda x, w, c: (x * 2 + 1).sum(),
    "diamond": lambda x, w, c: diamond(x),
    "constant and two leaves": lambda x, w, c: (x * c + w).exp().mean(),
    "split": lambda x, w, c: split_product(x),
    "same leaf many times": lambda x, w, c: x * x * x,
    "linear layer twice": lambda x, w, c: linear_twice(x),
}  # a graph deeper than Python's recursion limit is counted in the next test


@pytest.mark.parametrize("name", list(GRAPHS))
def test_graph_size_counts_each_reachable_node_once(device, name):
    x = torch.randn(6, device=device, requires_grad=True)
    w = torch.randn(6, device=device, requires_grad=True)
    c = torch.randn(6, device=device)  # needs no grad: a None in next_functions
    t = GRAPHS[name](x, w, c)
    size = graph_size(t)
    expected = len(nodes_by_naive_walk(t))
    assert size == expected, (
        f"graph_size gave {size} for the '{name}' graph, which has {expected} distinct "
        "nodes (grad_fn included, AccumulateGrad included, each node once)"
    )


def test_graph_size_walks_with_its_own_stack_not_recursion(device):
    # A chain deeper than Python's recursion limit (1000) is counted exactly, and the walk
    # is watched by behaviour: how deep the Python calls of the learner's code nest.
    # A recursive walk nests once per node of the 1500-deep chain, whatever recursion
    # limit it sets; a walk with its own stack or queue stays a few calls deep.
    y = deep_chain(torch.ones(2, device=device, requires_grad=True), 1500).sum()
    size, deepest = deepest_nesting(graph_size, y)
    assert size == 1500 + 2, f"1500 MulBackward0, SumBackward0 and AccumulateGrad: got {size}"
    assert deepest <= 5, (
        f"the walk nested {deepest} calls deep for a 1500-deep graph: that is recursion; walk "
        "with a stack or queue of your own (a list and a while loop)"
    )


class Twice(torch.autograd.Function):
    """a + b as a node of its own, so a test can watch who reads its next_functions."""

    @staticmethod
    def forward(ctx, a, b):
        return a + b

    @staticmethod
    def backward(ctx, grad):
        return grad, grad


def test_graph_size_visits_a_node_once_not_once_per_path(device, monkeypatch):
    # 16 diamonds in a row: the deepest node is reached by 2**15 paths. Each node is
    # counted once, and a walk that marks what it has seen reads each node's parents a
    # few times at most; one that pushes a node again for every path takes exponential time.
    x = torch.ones(2, device=device, requires_grad=True)
    y = x * 1
    for _ in range(16):
        y = Twice.apply(y, y)
    reads = {}
    node_class = type(y.grad_fn)  # TwiceBackward
    read_parents = inspect.getattr_static(node_class, "next_functions")

    def counted(node):
        reads[id(node)] = reads.get(id(node), 0) + 1
        return read_parents.__get__(node)

    monkeypatch.setattr(node_class, "next_functions", property(counted), raising=False)
    size = graph_size(y)
    assert size == 16 + 2, f"16 TwiceBackward, MulBackward0 and AccumulateGrad: 18, got {size}"
    most = max(reads.values(), default=0)
    assert most <= 3, (
        f"one node's parents were read {most} times: the walk goes down every path again; "
        "skip a node that is already in the seen set before pushing it"
    )


def test_graph_size_of_small_graphs_counted_by_hand(device):
    x = torch.ones(3, device=device, requires_grad=True)
    sizes = [graph_size((x * 2).sum()), graph_size((x * 2 + 1).sum()), graph_size(x * x)]
    assert sizes == [3, 4, 2], (
        f"got {sizes}: (x*2).sum() has Sum, Mul and x's AccumulateGrad (3); (x*2+1).sum() "
        "adds an Add (4); x*x is one Mul whose two inputs are the same AccumulateGrad (2)"
    )


def test_graph_size_is_zero_without_a_graph(device):
    leaf = torch.ones(3, device=device, requires_grad=True)
    plain = torch.ones(3, device=device)
    with torch.no_grad():
        untracked = leaf * 2
    sizes = [graph_size(leaf), graph_size(plain * 2), graph_size(untracked)]
    assert sizes == [0, 0, 0], f"a tensor without grad_fn has an empty graph, got {sizes}"


def test_graph_size_grows_with_the_path_taken(device):
    layer = shrinking_layer(device)
    x = (3 * torch.randn(2, 4, device=device)).requires_grad_()
    sizes = []
    for steps in (1, 2, 3, 4):
        out, taken = apply_until_small(layer, x, threshold_for(layer, x, steps), max_steps=10)
        assert taken == steps, f"took {taken} steps, expected {steps}"
        sizes.append(graph_size(out))
    expected = [len(nodes_by_naive_walk(unrolled(layer, x, steps))) for steps in (1, 2, 3, 4)]
    assert sizes == expected, (
        f"graph sizes for 1 to 4 steps: got {sizes}, expected {expected}; each step the data "
        "asks for adds the layer's nodes, the shared parameters' AccumulateGrad nodes do not"
    )
    assert len(set(sizes)) == 4, "different paths through the data must give different graphs"


@pytest.mark.parametrize("preset", [False, True], ids=["grad-None", "grad-set"])
def test_graph_size_leaves_the_graph_and_the_leaves_alone(device, preset):
    x = torch.randn(4, device=device, requires_grad=True)
    if preset:
        x.grad = torch.full_like(x, 7.0)  # a gradient the caller has not used yet
    t = (x.sin() * x).sum()
    nodes = nodes_by_naive_walk(t)
    metadata = {node: dict(node.metadata) for node in nodes}
    size = graph_size(t)
    assert all(node.metadata == metadata[node] for node in nodes), (
        "graph_size wrote into the nodes' metadata; keep what you have visited in a set of your own"
    )
    assert size == len(nodes_by_naive_walk(t)), f"graph_size gave {size}"
    if preset:
        assert x.grad is not None and torch.equal(x.grad, torch.full_like(x, 7.0)), (
            "graph_size changed or cleared the x.grad the caller had: walk next_functions, "
            "do not run backward"
        )
    else:
        assert x.grad is None, "graph_size wrote x.grad: walk next_functions, do not run backward"
    (grad,) = torch.autograd.grad(t, x)  # the graph must still be there, saved tensors included
    assert_close(grad, x.cos() * x + x.sin(), "the graph of t changed")


# ---------------------------------------------------------------- facets


def halving(device):
    return facets.args(lambda h: h / 2, torch.tensor([8.0], device=device), 1.5, max_steps=10)


def module_layer(device):
    layer = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 4))
    return facets.args(layer.to(device), torch.randn(3, 4, device=device) * 5, 0.1, max_steps=3)


def halving_in(dtype, device):
    """Values float32 does not hold in float64 (halving keeps them exact)."""
    x = facets.past_float32(torch.tensor([8.0, -3.0], dtype=torch.float64)).to(dtype)
    return facets.args(lambda h: h / 2, x.to(device), 1.3, max_steps=10)


def until64(layer, x, threshold, max_steps):
    h, steps = x, 0
    while steps < max_steps and float(h.norm()) >= threshold:
        h, steps = layer(h), steps + 1
    return h


def layer_runs(arguments):
    """How many times the contract applies the layer to these arguments."""
    layer, x, threshold = arguments.args
    with torch.no_grad():
        h, steps = x, 0
        while steps < arguments.kwargs["max_steps"] and float(h.norm()) >= threshold:
            h, steps = layer(h), steps + 1
    return steps


def chain(device):
    x = torch.ones(3, device=device, requires_grad=True)
    return facets.args((x * 2).exp().sum())


FACETS = facets.declare(
    facets.of(
        apply_until_small,
        facets.Setting(halving, "max_steps", low=0, integer=True),
        facets.Unmodified(halving),
        facets.Modes(module_layer, module=lambda arguments: arguments.args[0]),
        facets.ForwardModes(
            module_layer, module=lambda arguments: arguments.args[0], grad=None, calls=layer_runs
        ),
        facets.Propagates(lambda device, fault: halving(device).at(0, fault)),
        # 8 halved to 4, 2, 1: below 1.5 after three layers, and no layer run ahead.
        facets.Runs(lambda device, wrap: halving(device).through(0, wrap), times=lambda a: 3),
    ),
    facets.of(
        apply_until_small,
        # The input's dtype kept (no x.float() for the norm), under either default dtype.
        facets.Dtypes(halving_in, oracle=until64, dtypes=(torch.float32, torch.float64)),
        name="apply_until_small, its result",
        call=lambda layer, x, threshold, max_steps: apply_until_small(
            layer, x, threshold, max_steps
        )[0],
    ),
    facets.of(graph_size, facets.Number(chain, int), facets.Unmodified(chain)),
)
test_facets = FACETS.test
