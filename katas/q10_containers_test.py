from itertools import pairwise

import pytest
import torch
from torch import nn

from katas.q10_containers import MultiHead, ResidualStack, make_mlp
from torch_katas import facets
from torch_katas.testing import (
    assert_close,
    check_tensor,
    computations_reading,
    raises,
    skip_unless_supported,
)

HEADS = {"label": 5, "box": 4, "score": 1}


def random_state(shapes, device, dtype=torch.float32):
    return {key: torch.randn(shape, dtype=dtype, device=device) for key, shape in shapes.items()}


def multihead_shapes(in_features, hidden, heads):
    shapes = {"trunk.0.weight": (hidden, in_features), "trunk.0.bias": (hidden,)}
    for name, n in heads.items():
        shapes |= {f"heads.{name}.weight": (n, hidden), f"heads.{name}.bias": (n,)}
    return shapes


def stack_shapes(dim, depth):
    shapes = {}
    for i in range(depth):
        shapes |= {f"blocks.{i}.weight": (dim, dim), f"blocks.{i}.bias": (dim,)}
    return shapes


def load(model, state):
    """Load `state` strictly; a missing or unexpected key means the layout is not the contract's."""
    model.load_state_dict(state, strict=True)


def assert_registered(model, modules, what):
    registered = {id(p) for p in model.parameters()}
    for name, module in modules:
        for parameter_name, parameter in module.named_parameters():
            assert id(parameter) in registered, (
                f"{what}: {name}.{parameter_name} is not among model.parameters(), so an "
                "optimizer, .to() and state_dict() never see it; hold the layers in an "
                "nn.ModuleList / nn.ModuleDict, not a plain list or dict"
            )


# make_mlp


@pytest.mark.parametrize("sizes", [[4, 8, 8, 3], [3, 2], [1, 5, 1]], ids=str)
def test_make_mlp_alternates_linear_and_relu(device, sizes):
    model = make_mlp(sizes).to(device)
    assert isinstance(model, nn.Sequential), f"return an nn.Sequential, got {type(model)}"
    kinds = [type(layer).__name__ for layer in model]
    expected = ["Linear", "ReLU"] * (len(sizes) - 2) + ["Linear"]
    assert kinds == expected, f"make_mlp({sizes}) should hold {expected}, got {kinds}"
    shapes = [tuple(layer.weight.shape) for layer in model[::2]]
    assert shapes == [(b, a) for a, b in pairwise(sizes)]


@pytest.mark.parametrize("sizes", [[4, 8, 8, 3], [3, 2]], ids=str)
def test_make_mlp_computes_like_the_same_sequential_built_by_hand(device, sizes):
    model = make_mlp(sizes).to(device)
    layers = []
    for a, b in pairwise(sizes):
        layers += [nn.Linear(a, b), nn.ReLU()]
    reference = nn.Sequential(*layers[:-1]).to(device)
    load(model, reference.state_dict())
    x = torch.randn(2, 3, sizes[0], device=device)
    out = model(x)
    check_tensor(out, shape=(2, 3, sizes[-1]), dtype=torch.float32, device=device)
    assert_close(out, reference(x), "the output differs from Linear-ReLU-...-Linear")


SIZES_GIVEN = {
    "list": lambda: [9, 6, 3],
    "tuple": lambda: (9, 6, 3),
    "range": lambda: range(9, 2, -3),
}


@pytest.mark.parametrize("kind", list(SIZES_GIVEN))
def test_make_mlp_takes_any_sequence_of_sizes(device, kind):
    sizes = SIZES_GIVEN[kind]()  # 9, 6, 3 each time, made afresh
    model = make_mlp(sizes)
    shapes = [tuple(layer.weight.shape) for layer in model[::2]]
    assert shapes == [(6, 9), (3, 6)], (
        f"make_mlp({sizes!r}) built Linear weights of shapes {shapes}, expected [(6, 9), (3, 6)]: "
        "sizes may be any sequence (index and slice it, or pair it with itertools.pairwise)"
    )
    assert list(sizes) == [9, 6, 3], f"make_mlp changed the caller's sizes to {list(sizes)}"


def test_every_layer_is_a_module_of_its_own(device):
    # A ReLU() in each position, made afresh for each model: one ReLU object shared between
    # positions (or models) computes the same numbers, but a hook on it fires everywhere.
    first, second = make_mlp([4, 8, 8, 3]).to(device), make_mlp([4, 8, 8, 3]).to(device)
    names = [name for name, _ in first.named_modules()][1:]
    assert names == [str(i) for i in range(len(first))], (
        f"named_modules() lists {names}: one module object sits in several positions; "
        "create a new nn.ReLU() for each"
    )
    heads = [MultiHead(4, 8, {"a": 2}).to(device) for _ in range(2)]
    for what, (a, b) in (("make_mlp", (first, second)), ("MultiHead", heads)):
        shared = {id(m) for m in a.modules()} & {id(m) for m in b.modules()}
        assert not shared, f"two models built by {what} share a module; build each afresh"


@pytest.mark.parametrize(
    "make",
    [lambda: make_mlp([4, 8, 8, 3]), lambda: MultiHead(4, 8, {"a": 2}).trunk],
    ids=["make_mlp", "MultiHead.trunk"],
)
def test_relus_leave_each_linear_output_as_it_was(device, make):
    model = make().to(device)
    seen = []
    for layer in model:
        if isinstance(layer, nn.Linear):
            layer.register_forward_hook(
                lambda module, args, output: seen.append((output, output.detach().clone()))
            )
    model(torch.randn(6, 4, device=device) * 3)
    assert seen, "the model should run its Linear layers as modules"
    for index, (output, original) in enumerate(seen):
        assert torch.equal(output.detach(), original), (
            f"the output of Linear {index} was overwritten after it was computed: the ReLUs "
            "are nn.ReLU(), out of place; nn.ReLU(inplace=True) changes the tensor a hook "
            "(or anything else holding the Linear's output) sees"
        )


def test_residual_stack_leaves_each_block_output_as_it_was(device):
    # A block called as a module runs its forward hooks; what a hook keeps must stay as the
    # block computed it (a stack that computes F.linear on a block's weight runs no hook).
    model = ResidualStack(4, 3).to(device)
    seen = []
    for block in model.blocks:
        block.register_forward_hook(
            lambda module, args, output: seen.append((output, output.detach().clone()))
        )
    model(torch.randn(6, 4, device=device) * 3)
    for index, (output, original) in enumerate(seen):
        assert torch.equal(output.detach(), original), (
            f"the output of block {index} was overwritten after it was computed: take the "
            "relu out of place (torch.relu(block(x))), not torch.relu_ or inplace=True, which "
            "change the tensor a hook (or anything else holding the block's output) sees"
        )


@pytest.mark.parametrize("sizes", [[4], []], ids=str)
def test_make_mlp_rejects_fewer_than_two_sizes(device, sizes):
    with raises(ValueError):
        make_mlp(sizes)


# MultiHead


def test_multihead_registers_trunk_and_every_head(device):
    model = MultiHead(6, 16, HEADS).to(device)
    keys = sorted(model.state_dict())
    expected = sorted(multihead_shapes(6, 16, HEADS))
    assert keys == expected, (
        f"state_dict keys should be {expected}, got {keys}; keep the heads in an "
        "nn.ModuleDict named self.heads and the trunk in self.trunk"
    )
    assert isinstance(model.heads, nn.ModuleDict), "self.heads should be an nn.ModuleDict"
    assert_registered(model, [(f"heads.{n}", h) for n, h in model.heads.items()], "MultiHead")
    count = sum(p.numel() for p in model.parameters())
    assert count == 6 * 16 + 16 + sum(16 * n + n for n in HEADS.values())


def test_multihead_trunk_is_a_linear_then_a_relu(device):
    # self.trunk is the contract's nn.Sequential(Linear, ReLU): the caller can run it alone
    # (features for another task, a probe) and get the activations the heads read.
    model = MultiHead(6, 16, HEADS).to(device)
    kinds = [type(layer).__name__ for layer in model.trunk]
    assert isinstance(model.trunk, nn.Sequential) and kinds == ["Linear", "ReLU"], (
        f"self.trunk should be nn.Sequential(nn.Linear(in_features, hidden), nn.ReLU()), got "
        f"{type(model.trunk).__name__} of {kinds}"
    )
    state = random_state(multihead_shapes(6, 16, HEADS), device)
    load(model, state)
    x = torch.randn(3, 6, device=device)
    assert_close(
        model.trunk(x),
        torch.relu(x @ state["trunk.0.weight"].T + state["trunk.0.bias"]),
        "model.trunk(x) should be relu(Linear(x)): the ReLU belongs to the trunk",
    )


def test_multihead_runs_the_trunk_then_each_head(device):
    model = MultiHead(6, 16, HEADS).to(device)
    state = random_state(multihead_shapes(6, 16, HEADS), device)
    load(model, state)
    x = torch.randn(3, 2, 6, device=device)
    x_before = x.clone()
    # Count the trunk's runs where its Linear's weight is computed with, however the trunk
    # is called (model.trunk(x), layer by layer, F.linear on its weight).
    with computations_reading(model.trunk[0].weight) as trunk_runs:
        out = model(x)
    assert isinstance(out, dict), f"forward should return a dict, got {type(out).__name__}"
    assert trunk_runs.count == 1, (
        f"the trunk's Linear computed {trunk_runs.count} times for {len(HEADS)} heads; run "
        "the trunk once and let every head read its result"
    )
    assert torch.equal(x, x_before), "x must not be modified"
    assert list(out) == list(HEADS), f"expected keys {list(HEADS)} in order, got {list(out)}"
    features = torch.relu(x @ state["trunk.0.weight"].T + state["trunk.0.bias"])
    for name, n in HEADS.items():
        check_tensor(out[name], shape=(3, 2, n), dtype=torch.float32, device=device, name=name)
        expected = features @ state[f"heads.{name}.weight"].T + state[f"heads.{name}.bias"]
        assert_close(out[name], expected, f"head {name!r} output is wrong")


def test_every_head_sends_gradients_into_the_trunk(device):
    model = MultiHead(6, 16, HEADS).to(device)
    state = random_state(multihead_shapes(6, 16, HEADS), device)
    load(model, state)
    x = torch.randn(5, 6, device=device)
    outputs = model(x)
    trunk = model.trunk[0].weight
    weight = state["trunk.0.weight"].clone().requires_grad_()
    features = torch.relu(x @ weight.T + state["trunk.0.bias"])
    for name in HEADS:
        (grad,) = torch.autograd.grad(
            outputs[name].square().sum(), trunk, retain_graph=True, allow_unused=True
        )
        assert grad is not None, (
            f"a loss on head {name!r} sends no gradient into the trunk: every head reads the "
            "trunk's result with its graph (not .detach()), so every head trains the trunk"
        )
        head = features @ state[f"heads.{name}.weight"].T + state[f"heads.{name}.bias"]
        (expected,) = torch.autograd.grad(head.square().sum(), weight, retain_graph=True)
        assert_close(grad, expected, f"the trunk's gradient from head {name!r}")


def test_each_forward_returns_a_dict_of_its_own(device):
    # Two batches through one model, the first result kept (as a training step keeps its
    # outputs for the loss while a second batch is looked at): the second forward must not
    # change the first dict or its tensors.
    model = MultiHead(6, 16, HEADS).to(device)
    first_x, second_x = torch.randn(3, 6, device=device), torch.randn(4, 6, device=device)
    first = model(first_x)
    kept = {name: out.detach().clone() for name, out in first.items()}
    second = model(second_x)
    assert second is not first, (
        "forward returned the same dict object twice: a dict kept on the model and refilled "
        "changes the caller's earlier result; build a new dict in each forward"
    )
    assert list(first) == list(HEADS), f"the first result now has keys {list(first)}"
    for name in HEADS:
        assert torch.equal(first[name].detach(), kept[name]), (
            f"the first forward's output for head {name!r} changed when the model ran again"
        )


def test_every_head_sends_gradients_into_x(device):
    # The layers before the model (an encoder, an embedding) train through x: the trunk
    # reads x with its graph.
    model = MultiHead(6, 16, HEADS).to(device)
    state = random_state(multihead_shapes(6, 16, HEADS), device)
    load(model, state)
    x = torch.randn(5, 6, device=device, requires_grad=True)
    outputs = model(x)
    features = torch.relu(x @ state["trunk.0.weight"].T + state["trunk.0.bias"])
    for name in HEADS:
        upstream = torch.randn(outputs[name].shape, device=device)
        (grad,) = torch.autograd.grad(
            (outputs[name] * upstream).sum(), x, retain_graph=True, allow_unused=True
        )
        assert grad is not None, (
            f"a loss on head {name!r} sends no gradient into x: run the trunk on x itself, "
            "with its graph (not x.detach()), so the layers before the model train too"
        )
        head = features @ state[f"heads.{name}.weight"].T + state[f"heads.{name}.bias"]
        (expected,) = torch.autograd.grad((head * upstream).sum(), x, retain_graph=True)
        assert_close(grad, expected, f"x's gradient from head {name!r}")


@pytest.mark.parametrize("name", ["a.b", "", "update", "keys", "type"])
def test_multihead_lets_the_module_dict_refuse_a_name(device, name):
    with raises(KeyError):
        MultiHead(6, 16, {"label": 5, name: 2})


def test_multihead_includes_a_head_added_later(device):
    model = MultiHead(6, 16, {"label": 5})
    model.heads["extra"] = nn.Linear(16, 2)
    model.to(device)
    out = model(torch.randn(4, 6, device=device))
    assert list(out) == ["label", "extra"], (
        f"forward should loop over self.heads (keys label, extra), got keys {list(out)}"
    )
    check_tensor(out["extra"], shape=(4, 2), device=device, name="extra head output")


def test_an_optimizer_over_parameters_trains_every_head(device):
    model = MultiHead(6, 16, HEADS).to(device)
    before = {name: head.weight.detach().clone() for name, head in model.heads.items()}
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    outputs = model(torch.randn(8, 6, device=device))
    sum(out.square().sum() for out in outputs.values()).backward()
    optimizer.step()
    for name, head in model.heads.items():
        assert not torch.equal(head.weight.detach(), before[name]), (
            f"the optimizer built from model.parameters() did not update head {name!r}; "
            "a head in a plain dict is invisible to it: use nn.ModuleDict"
        )


def test_multihead_to_float64_converts_the_heads(device):
    skip_unless_supported(device, torch.float64)
    model = MultiHead(6, 16, HEADS).to(device).to(torch.float64)
    for name, head in model.heads.items():
        check_tensor(head.weight, dtype=torch.float64, device=device, name=f"head {name} weight")
    out = model(torch.randn(2, 6, dtype=torch.float64, device=device))
    check_tensor(out["label"], shape=(2, 5), dtype=torch.float64, device=device)


# ResidualStack


@pytest.mark.parametrize("depth", [0, 1, 3])
def test_residual_stack_registers_separate_blocks(device, depth):
    model = ResidualStack(5, depth).to(device)
    assert isinstance(model.blocks, nn.ModuleList), "self.blocks should be an nn.ModuleList"
    assert len(model.blocks) == depth, f"expected {depth} blocks, got {len(model.blocks)}"
    assert_registered(model, [(f"blocks.{i}", b) for i, b in enumerate(model.blocks)], "stack")
    count = sum(p.numel() for p in model.parameters())
    assert count == depth * (5 * 5 + 5), (
        f"{depth} blocks of Linear(5, 5) have {depth * 30} parameters, model.parameters() "
        f"holds {count}: create a new nn.Linear for every block (`[layer] * depth` repeats one)"
    )
    assert sorted(model.state_dict()) == sorted(stack_shapes(5, depth))
    weights = [block.weight.detach() for block in model.blocks]
    equal = [(i, j) for i in range(depth) for j in range(i) if torch.equal(weights[i], weights[j])]
    assert not equal, (
        f"blocks {equal} start with the same weights: create each block as a new "
        "nn.Linear(dim, dim), initialised independently, not as copies of one layer"
    )


@pytest.mark.parametrize("depth", [1, 3])
def test_residual_stack_adds_each_block_to_its_input(device, depth):
    model = ResidualStack(5, depth).to(device)
    state = random_state(stack_shapes(5, depth), device)
    load(model, state)
    x = torch.randn(2, 4, 5, device=device)
    x_before = x.clone()
    out = model(x)
    assert torch.equal(x, x_before), (
        "forward changed the caller's x: write x = x + relu(block(x)), not x += ..."
    )
    expected = x
    for i in range(depth):
        block = expected @ state[f"blocks.{i}.weight"].T + state[f"blocks.{i}.bias"]
        expected = expected + torch.relu(block)
    check_tensor(out, shape=(2, 4, 5), dtype=torch.float32, device=device)
    assert_close(
        out, expected, "expected x = x + relu(block(x)) for each block, each with its weights"
    )


@pytest.mark.parametrize("depth", [0, 2])
def test_residual_stack_takes_an_input_that_requires_grad(device, depth):
    model = ResidualStack(4, depth).to(device)
    x = torch.randn(3, 4, device=device, requires_grad=True)
    out = model(x)
    check_tensor(out, shape=(3, 4), dtype=torch.float32, device=device)
    assert out.requires_grad, (
        f"with depth {depth} the output lost x's graph (.detach()?): gradients flow to x"
    )
    (grad,) = torch.autograd.grad(out.sum(), x)
    check_tensor(grad, shape=(3, 4), dtype=torch.float32, device=device, name="the gradient")
    assert x.is_leaf and x.grad is None, "x must be left as it was"


def test_residual_stack_of_width_one(device):
    model = ResidualStack(1, 2).to(device)
    out = model(torch.randn(5, 1, device=device))
    check_tensor(out, shape=(5, 1), dtype=torch.float32, device=device, name="output")


def test_residual_stack_of_depth_zero_is_the_identity(device):
    model = ResidualStack(3, 0).to(device)
    x = torch.randn(4, 3, device=device)
    out = model(x)
    assert_close(out, x, "with no blocks forward returns its input unchanged", rtol=0, atol=0)
    assert len(list(model.parameters())) == 0


@pytest.mark.parametrize("depth", [0, 2])
def test_residual_stack_applies_a_block_appended_later(device, depth):
    model = ResidualStack(3, depth)
    model.blocks.append(nn.Linear(3, 3))
    model.to(device)
    x = torch.randn(4, 3, device=device)
    expected = x
    for block in model.blocks:
        expected = expected + torch.relu(block(expected))
    assert_close(
        model(x),
        expected,
        f"a block appended to self.blocks (depth {depth}) joins the stack: forward goes over "
        "the blocks self.blocks holds, not over the depth it was built with",
    )


def test_residual_stack_to_float64_converts_every_block(device):
    skip_unless_supported(device, torch.float64)
    model = ResidualStack(4, 3).to(device).to(torch.float64)
    for i, block in enumerate(model.blocks):
        check_tensor(block.weight, dtype=torch.float64, device=device, name=f"blocks[{i}].weight")
    out = model(torch.randn(2, 4, dtype=torch.float64, device=device))
    check_tensor(out, shape=(2, 4), dtype=torch.float64, device=device)


@pytest.mark.parametrize("dim, depth", [(0, 2), (-1, 2), (0, 0), (-1, 0), (3, -1)])
def test_residual_stack_rejects_bad_sizes(device, dim, depth):
    # Checked for every depth: with depth 0 no nn.Linear is made that could refuse the dim.
    with raises(ValueError):
        ResidualStack(dim, depth)


# ---------------------------------------------------------------- facets


def heads_sum(model, device):
    return sum(out.sum() for out in model.to(device)(torch.randn(3, 5, device=device)).values())


def parameters_of(arguments, model):
    return list(model.parameters())


def linear64(layer, x):
    """A Linear's output in float64, from its own weights (x is the oracle's float64 copy)."""
    weight, bias = (p.detach().to("cpu", torch.float64) for p in (layer.weight, layer.bias))
    return x @ weight.T + bias


def stack_for_shape(shape, device):
    """A stack of two blocks for x of `shape` ([..., dim]: dim its last size)."""
    x = torch.randn(shape, device=device)
    return facets.args(ResidualStack(shape[-1], 2).to(device), x)


def stack_in(dtype, device):
    """A stack of two blocks cast to `dtype` (as `.to(dtype)` casts it) and an input of it."""
    x = torch.randn(3, 4, dtype=torch.float64).to(device, dtype)
    return facets.args(ResidualStack(4, 2).to(device, dtype), x)


def stack64(model, x):
    for block in model.blocks:
        x = x + torch.relu(linear64(block, x))
    return x


def multihead_for_shape(shape, device):
    """A MultiHead for x of `shape` ([..., in_features]: in_features its last size)."""
    x = torch.randn(shape, device=device)
    return facets.args(MultiHead(shape[-1], 8, {"a": 2, "b": 3}).to(device), x)


def multihead_in(dtype, device):
    x = torch.randn(3, 5, dtype=torch.float64).to(device, dtype)
    return facets.args(MultiHead(5, 8, {"a": 2, "b": 3}).to(device, dtype), x)


def heads_cat(model, x):
    """Every head's output, in the order of model.heads, side by side on the last dim."""
    return torch.cat(list(model(x).values()), dim=-1)


def multihead64(model, x):
    features = torch.relu(linear64(model.trunk[0], x))
    return torch.cat([linear64(head, features) for head in model.heads.values()], dim=-1)


# x is [..., features]: a single example without a batch dim, an empty batch, 3-D and strided
# inputs (where a view(-1, features) fails) give each example's own result in x's layout.
# The model cast with .to(dtype) computes in that dtype; sums of products near 0 cancel.
MODULE_DTYPES = (torch.float32, torch.float64)
CANCELLED = {torch.float32: 1e-5, torch.float64: 1e-12}
ANY_LEADING = (
    "1-D",
    "empty",
    "empty inside",
    "2-D",
    "size 1",
    "non-contiguous",
    "non-contiguous 3-D",
)


FACETS = facets.declare(
    facets.of(
        make_mlp,
        facets.DefaultDevice(lambda device: facets.args([4, 6, 2])),
        facets.Seeded(
            lambda device: facets.args([4, 6, 5, 2]),
            drawn=parameters_of,
            like=lambda: [nn.Linear(4, 6), nn.Linear(6, 5), nn.Linear(5, 2)],
        ),
        facets.Trains(
            lambda device: facets.args([4, 6, 5, 2]),
            forward=lambda model, device: model.to(device)(torch.randn(3, 4, device=device)),
        ),
        facets.Registered(
            lambda device: facets.args([4, 6, 5, 2]),
            forward=lambda model, device: model.to(device)(torch.randn(3, 4, device=device)),
        ),
    ),
    facets.of(
        MultiHead,
        facets.DefaultDevice(lambda device: facets.args(5, 8, {"a": 2, "b": 3})),
        facets.Trains(lambda device: facets.args(5, 8, {"a": 2, "b": 3}), forward=heads_sum),
        facets.Registered(lambda device: facets.args(5, 8, {"a": 2, "b": 3}), forward=heads_sum),
        # Heads given out of name order: created in the order of `heads`, not sorted.
        facets.Seeded(
            lambda device: facets.args(5, 8, {"b": 3, "a": 2}),
            drawn=parameters_of,
            like=lambda: [nn.Linear(5, 8), nn.Linear(8, 3), nn.Linear(8, 2)],
        ),
    ),
    facets.of(
        ResidualStack,
        facets.Setting(lambda device: facets.args(dim=4, depth=2), "dim", low=1, integer=True),
        facets.Setting(lambda device: facets.args(dim=4, depth=2), "depth", low=0, integer=True),
        facets.DefaultDevice(lambda device: facets.args(4, 2)),
        facets.Seeded(
            lambda device: facets.args(4, 3),
            drawn=parameters_of,
            like=lambda: [nn.Linear(4, 4) for _ in range(3)],
        ),
        facets.Trains(
            lambda device: facets.args(4, 3),
            forward=lambda model, device: model.to(device)(torch.randn(2, 4, device=device)),
        ),
        facets.Registered(
            lambda device: facets.args(4, 3),
            forward=lambda model, device: model.to(device)(torch.randn(2, 4, device=device)),
        ),
    ),
    facets.of(
        ResidualStack,
        facets.Unmodified(
            lambda device: facets.args(
                ResidualStack(4, 2).to(device), torch.randn(3, 4, device=device)
            ),
            module_grads=True,
        ),
        facets.Dtypes(stack_in, oracle=stack64, dtypes=MODULE_DTYPES, atol=CANCELLED),
        facets.Shapes(stack_for_shape, oracle=stack64, shapes=ANY_LEADING, atol=1e-5),
        name="ResidualStack.forward",
        call=lambda model, x: model(x),
    ),
    facets.of(
        MultiHead,
        facets.Dtypes(multihead_in, oracle=multihead64, dtypes=MODULE_DTYPES, atol=CANCELLED),
        facets.Shapes(multihead_for_shape, oracle=multihead64, shapes=ANY_LEADING, atol=1e-5),
        # The caller's x (and the model) as they were: no write into the batch.
        facets.Unmodified(lambda device: multihead_in(torch.float32, device), module_grads=True),
        name="MultiHead.forward",
        call=heads_cat,
    ),
    facets.of(
        MultiHead,
        # The dict and every head's output are new at each call, each one the caller's to
        # write into: no dict kept on the model, no views of one split output.
        facets.Returns(lambda device: multihead_in(torch.float32, device)),
        name="MultiHead.forward(its dict)",
        call=lambda model, x: model(x),
    ),
)
test_facets = FACETS.test
