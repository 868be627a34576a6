import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.modules import module as module_internals

from katas.q21_dead_relus import dead_relu_fraction
from torch_katas import facets
from torch_katas.testing import raises

HOOK_DICTS = (
    "_forward_hooks",
    "_forward_hooks_with_kwargs",
    "_forward_pre_hooks",
    "_backward_hooks",
    "_backward_pre_hooks",
)
GLOBAL_HOOK_DICTS = (
    "_global_forward_hooks",
    "_global_forward_pre_hooks",
    "_global_backward_hooks",
    "_global_backward_pre_hooks",
)


def hooks_left(model):
    """Where hooks are registered on `model` (its modules) and globally."""
    left = [
        f"{name or 'the model'}.{attr}"
        for name, module in model.named_modules()
        for attr in HOOK_DICTS
        if getattr(module, attr, None)
    ]
    left += [attr for attr in GLOBAL_HOOK_DICTS if getattr(module_internals, attr, None)]
    return left


def linear_model(device, n):
    """A Linear(4, 8) + ReLU with 4 dead units out of 8 on the batch `linear_batch(n)`."""
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
    weight = torch.zeros(8, 4)
    bias = torch.zeros(8)
    weight[0:3] = -1.0  # inputs are positive: pre-activations negative for every example
    weight[3:6] = 1.0  # positive for every example
    weight[6, 0] = 1.0  # fires for the last example only: alive, though mostly zero
    bias[6] = -(n - 0.5) / n
    # unit 7: weight and bias 0, so exactly 0 everywhere: dead
    with torch.no_grad():
        model[0].weight.copy_(weight)
        model[0].bias.copy_(bias)
    return model.to(device)


def linear_batch(device, n):
    x = torch.rand(n, 4, device=device) + 0.1
    x[:, 0] = torch.arange(1, n + 1, device=device) / n  # the last example has the largest
    return x


def conv_model(device):
    """Conv2d(2, 4, 3, padding=1) + ReLU on 5×5 inputs: 100 units, 73 dead on `conv_batch`."""
    conv = nn.Conv2d(2, 4, 3, padding=1)
    with torch.no_grad():
        conv.weight.zero_()
        conv.bias.copy_(torch.tensor([-1.0, 1.0, 0.0, 0.0]))  # dead, alive, dead (exact 0)
        conv.weight[3, 0, 1, 1] = 1.0  # channel 3 copies input channel 0
    return nn.Sequential(conv, nn.ReLU()).to(device)


def conv_batch(device, n=6):
    x = -torch.rand(n, 2, 5, 5, device=device) - 0.1
    x[:, 0, 0, 0] = 1.0  # channel 3 fires here for every example,
    x[:, 0, 4, 4] = torch.linspace(-1, 1, n, device=device)  # here for the last one only,
    return x  # and nowhere else: 23 of its 25 units are dead


class Net(nn.Module):
    """Nested ReLUs, one in place, one never run, plus activations that do not count."""

    def __init__(self):
        super().__init__()
        self.block = nn.Sequential(nn.Linear(6, 16), nn.ReLU(inplace=True))
        self.head = nn.ModuleDict({"fc": nn.Linear(16, 16), "act": nn.ReLU()})
        self.leaky = nn.LeakyReLU()
        self.unused = nn.ReLU()
        self.out = nn.Linear(16, 3)
        with torch.no_grad():  # 4 head units surely dead, 4 surely alive, 8 left to chance
            self.head["fc"].weight[:8] = 0.0
            self.head["fc"].bias[:8] = torch.tensor([-1.0] * 4 + [1.0] * 4)

    def forward(self, x):
        h = self.block(x)
        h = self.head["act"](self.head["fc"](h))
        return self.out(F.relu(self.leaky(h)))


def dead_fraction_by_loop(output):
    """Dead units counted one by one: a unit is dead when no example makes it nonzero."""
    per_example = output.reshape(output.shape[0], -1).cpu().tolist()
    units = len(per_example[0])
    dead = sum(all(row[unit] == 0 for row in per_example) for unit in range(units))
    return dead / units


@pytest.mark.parametrize("n", [1, 16])
def test_known_fraction_after_a_linear_layer(device, n):
    model, x = linear_model(device, n), linear_batch(device, n)
    result = dead_relu_fraction(model, x)
    assert isinstance(result, dict), f"return a dict, got {type(result).__name__}"
    assert result == pytest.approx({"1": 0.5}, abs=1e-6), (
        "4 of the 8 units are zero for every example; the unit that fires for a single "
        "example is alive (count dead units, not zero outputs)"
    )
    assert all(type(value) is float for value in result.values()), (
        "the fractions should be Python floats (tensor.item())"
    )


def test_every_position_of_a_conv_output_is_a_unit(device):
    result = dead_relu_fraction(conv_model(device), conv_batch(device))
    assert result == pytest.approx({"1": 0.73}, abs=1e-6), (
        "a (N, C, H, W) output has C×H×W units: one per channel and position, not one per channel"
    )


def test_nested_relus_by_qualified_name(device):
    model = Net().to(device)
    x = torch.randn(32, 6, device=device)
    result = dead_relu_fraction(model, x)
    with torch.no_grad():
        block = model.block(x.clone())
        head = model.head["act"](model.head["fc"](block))
    expected = {"block.1": dead_fraction_by_loop(block), "head.act": dead_fraction_by_loop(head)}
    assert result.keys() == expected.keys(), (
        f"expected entries for {sorted(expected)}, got {sorted(result)}: one per nn.ReLU "
        "module that ran, named as in model.named_modules() (no LeakyReLU, no F.relu, "
        "nothing for a ReLU that never ran)"
    )
    assert result == pytest.approx(expected, abs=1e-6)


def test_removes_its_hooks(device):
    model = Net().to(device)
    seen = []
    own = model.head["act"].register_forward_hook(lambda *args: seen.append(1))
    dead_relu_fraction(model, torch.randn(4, 6, device=device))
    assert seen and own.id in model.head["act"]._forward_hooks, (
        "a hook that was on the model before was removed or bypassed; remove only your own "
        "hooks, through the handles that register_forward_hook returns"
    )
    own.remove()
    assert not hooks_left(model), (
        f"hooks left behind in {hooks_left(model)}: keep the handles that "
        "register_forward_hook returns and call .remove() on each"
    )


class ForwardFailed(Exception):
    """Raised by a test model on purpose (not a RuntimeError: NotImplementedError is one)."""


def test_removes_its_hooks_when_the_forward_pass_raises(device):
    class Broken(nn.Module):
        def __init__(self):
            super().__init__()
            self.act = nn.ReLU()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            self.fc(self.act(x))
            raise ForwardFailed("forward failed on purpose")

    model = Broken().to(device)
    with raises(ForwardFailed) as failure:
        dead_relu_fraction(model, torch.randn(3, 4, device=device))
    assert str(failure.value) == "forward failed on purpose", (
        f"the forward pass's error should propagate unchanged, got {failure.value!r}"
    )
    assert not hooks_left(model), (
        f"hooks left behind in {hooks_left(model)} after the forward pass raised; "
        "remove them in a `finally:` block"
    )


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
def test_leaves_the_model_and_input_as_they_were(device, training):
    model = Net().to(device).train(training)
    x = torch.randn(8, 6, device=device)
    x_before = x.clone()
    state_before = {key: value.clone() for key, value in model.state_dict().items()}
    for p in model.parameters():  # measured between a backward and the optimizer step
        p.grad = torch.randn_like(p)
    grads_before = {name: p.grad.clone() for name, p in model.named_parameters()}
    saved = []  # tensors autograd keeps for a backward: none when no graph is recorded
    with torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(1) or t, lambda t: t):
        dead_relu_fraction(model, x)
    assert all(module.training == training for module in model.modules()), (
        "the model's train/eval mode changed; leave it as it was"
    )
    assert torch.equal(x, x_before), "x was modified"
    for key, value in model.state_dict().items():
        assert torch.equal(value, state_before[key]), f"{key} changed"
    assert not saved, (
        "the forward pass recorded an autograd graph (it saved tensors for a backward); this "
        "is a measurement: run the model under torch.no_grad()"
    )
    for name, p in model.named_parameters():
        assert p.grad is not None and torch.equal(p.grad, grads_before[name]), (
            f"{name}.grad changed: leave the gradients the caller accumulated as they are "
            "(compute none, clear none)"
        )


def test_leaves_x_as_it_was_when_the_model_works_in_place_on_its_input(device):
    model = nn.Sequential(nn.ReLU(inplace=True), nn.Linear(4, 3)).to(device)
    x = torch.randn(5, 4, device=device)
    x[:, 0] = -1.0  # unit 0 of the first ReLU is dead
    x_before = x.clone()
    result = dead_relu_fraction(model, x)
    assert torch.equal(x, x_before), (
        "x was modified: the model's first layer is nn.ReLU(inplace=True), which overwrites "
        "its input; run the model on a copy of x (x.clone())"
    )
    assert result == pytest.approx({"0": dead_fraction_by_loop(x_before.clamp(min=0))})


def test_counts_inside_the_hook_before_later_in_place_ops(device):
    class AddOne(nn.Module):
        def forward(self, x):
            return x.add_(1.0)  # changes the ReLU's output tensor in place

    model = linear_model(device, 4).append(AddOne())
    result = dead_relu_fraction(model, linear_batch(device, 4))
    assert result == pytest.approx({"1": 0.5}, abs=1e-6), (
        f"got {result}: an in-place op after the ReLU changed its output before you counted; "
        "count the dead units inside the hook, right when the ReLU has run"
    )


def test_rejects_an_empty_batch(device):
    with raises(ValueError):
        dead_relu_fraction(linear_model(device, 1), torch.empty(0, 4, device=device))


def batchnorm_model(device):
    """BatchNorm1d(4) + ReLU, fresh running stats (mean 0, var 1), on all-negative inputs."""
    return nn.Sequential(nn.BatchNorm1d(4), nn.ReLU()).to(device)


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
def test_batchnorm_measures_in_the_models_mode_and_keeps_buffers(device, training):
    model = batchnorm_model(device).train(training)
    x = torch.randn(16, 4, device=device) - 10.0
    buffers_before = {name: b.clone() for name, b in model.named_buffers()}
    fractions = dead_relu_fraction(model, x)
    # Normalised by the batch's own statistics (training) every unit fires for some example;
    # with the running statistics (eval) all of them are dead.
    expected = {"1": 0.0} if training else {"1": 1.0}
    mode, how = ("training", "by the batch") if training else ("eval", "by its running stats")
    assert fractions == expected, (
        f"got {fractions}: run the forward pass in the mode the model is in (here {mode}, "
        f"where BatchNorm normalises {how}), do not switch it"
    )
    for name, buffer in model.named_buffers():
        assert torch.equal(buffer, buffers_before[name]), (
            f"{name} changed: the forward in training mode updated BatchNorm's running "
            "statistics; save the buffers and copy them back afterwards"
        )


def test_batchnorm_buffers_restored_when_the_forward_pass_raises(device):
    class Fails(nn.Module):
        def forward(self, x):
            raise ForwardFailed("forward failed on purpose")

    model = nn.Sequential(nn.BatchNorm1d(4), nn.ReLU(), Fails()).to(device).train()
    x = torch.randn(16, 4, device=device) + 3.0
    buffers_before = {name: b.clone() for name, b in model.named_buffers()}
    with raises(ForwardFailed):
        dead_relu_fraction(model, x)
    for name, buffer in model.named_buffers():
        assert torch.equal(buffer, buffers_before[name]), (
            f"{name} changed after a failed forward pass; put the buffers back in `finally:`"
        )


# ---------------------------------------------------------------- facets


def relu_model(device, first=nn.ReLU):
    model = nn.Sequential(first(), nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU()).to(device)
    return facets.args(model, torch.linspace(-1, 1, 20, device=device).reshape(5, 4))


def activation(cls, device):
    return facets.args(
        nn.Sequential(nn.Linear(3, 4), cls()).to(device), torch.randn(5, 3, device=device)
    )


FACETS = facets.declare(
    facets.of(
        dead_relu_fraction,
        facets.Modes(relu_model, module=lambda arguments: arguments.args[0]),
        facets.Unmodified(relu_model),
        facets.Unmodified(
            lambda device: relu_model(device, first=lambda: nn.ReLU(inplace=True)),
            label="in-place ReLU first",
        ),
        facets.Classes(
            activation,
            treated=lambda arguments, result: "1" in result,
            covered=(nn.ReLU,),
            others=(nn.ReLU6, nn.LeakyReLU, nn.Hardtanh),
        ),
    ),
)
test_facets = FACETS.test
