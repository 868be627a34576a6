import io
import math

import pytest
import torch
from torch import nn

from katas.q32_parameters_buffers import CenterAndScale
from torch_katas import facets
from torch_katas.testing import (
    assert_close,
    check_tensor,
    default_dtype,
    raises,
    skip_unless_supported,
)

F = 5


def taper(n, device="cpu", dtype=torch.float32):
    return torch.linspace(1.0, 0.5, n).to(device=device, dtype=dtype)


def test_parameters_hold_only_the_learnable_weight(device):
    layer = CenterAndScale(F).to(device)
    params = dict(layer.named_parameters())
    assert list(params) == ["weight"], (
        f"parameters are {list(params)}; only weight is learnable: make it an nn.Parameter "
        "and register running_mean and taper as buffers"
    )
    weight = params["weight"]
    assert isinstance(weight, nn.Parameter) and weight.requires_grad
    check_tensor(weight, shape=(F,), dtype=torch.float32, device=device, name="weight")
    assert torch.equal(weight.detach().cpu(), torch.ones(F)), "weight starts at ones"


def test_buffers_are_the_running_mean_and_the_taper(device):
    layer = CenterAndScale(F).to(device)
    buffers = dict(layer.named_buffers())
    assert set(buffers) == {"running_mean", "taper"}, (
        f"buffers are {sorted(buffers)}; register running_mean and taper with "
        "register_buffer (a plain tensor attribute is not a buffer)"
    )
    for name, buffer in buffers.items():
        check_tensor(buffer, shape=(F,), dtype=torch.float32, device=device, name=name)
        assert not isinstance(buffer, nn.Parameter) and not buffer.requires_grad, (
            f"{name} is state, not a learnable parameter: it must not require grad"
        )
    assert torch.equal(buffers["running_mean"].cpu(), torch.zeros(F))
    assert_close(
        buffers["taper"].cpu(), taper(F), "taper is torch.linspace(1.0, 0.5, num_features)"
    )


def test_built_on_the_default_device_as_torch_layers_are(device):
    # Like nn.Linear, the layer is built where torch's default device says (the test's
    # device, or "meta" when that is the CPU): nothing is created on the CPU and moved.
    # In torch's default dtype too, whichever it is: float64 set as the default gives float64.
    default = torch.device("meta" if device.type == "cpu" else device)
    for dtype in (torch.float32, torch.float64):
        if dtype == torch.float64 and device.type != "cpu":
            skip_unless_supported(device, dtype)
        with torch.device(default), default_dtype(dtype):
            layer = CenterAndScale(F)
        for name, tensor in [*layer.named_parameters(), *layer.named_buffers()]:
            check_tensor(
                tensor, shape=(F,), dtype=dtype, device=default, name=f"{name} ({dtype} default)"
            )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_taper_is_the_linspace_of_the_default_dtype(device, dtype):
    # Seven features: the steps 1 - k/12 are not held by float32, so a taper made in float32
    # and cast to a float64 default is off in the 8th digit (5 features, 1 - k/8, hide it).
    skip_unless_supported(device, dtype)
    with torch.device(device), default_dtype(dtype):
        layer = CenterAndScale(7)
    check_tensor(layer.taper, shape=(7,), dtype=dtype, device=device, name="taper")
    assert_close(
        layer.taper,
        torch.linspace(1.0, 0.5, 7, dtype=dtype, device=device),
        f"with {dtype} as torch's default dtype, taper is torch.linspace(1.0, 0.5, "
        "num_features) made in that dtype, not made in float32 and cast",
        rtol=4 * torch.finfo(dtype).eps,
        atol=0,
    )


def test_state_dict_saves_weight_and_running_mean_only(device):
    layer = CenterAndScale(F).to(device)
    keys = set(layer.state_dict())
    assert keys == {"weight", "running_mean"}, (
        f"state_dict has {sorted(keys)}: weight and the persistent buffer running_mean are "
        "saved; taper is rebuilt by __init__, so register it with persistent=False"
    )


def test_a_saved_state_restores_a_new_layer(device):
    layer = CenterAndScale(F).to(device)
    layer(torch.randn(8, F, device=device) + 3)  # moves the running mean
    with torch.no_grad():
        layer.weight.mul_(2)
    buffer = io.BytesIO()
    torch.save(layer.state_dict(), buffer)
    buffer.seek(0)
    restored = CenterAndScale(F).to(device)
    restored.load_state_dict(torch.load(buffer, weights_only=True))  # strict
    x = torch.randn(4, F, device=device)
    layer.eval()
    restored.eval()
    assert_close(restored(x), layer(x), "a layer restored from the state_dict computes the same")
    assert_close(restored.running_mean, layer.running_mean, "running_mean is saved and restored")


def tensors(layer):
    """The layer's parameter, buffer and plain tensor attribute, by name."""
    return [("weight", layer.weight), ("running_mean", layer.running_mean), ("taper", layer.taper)]


@pytest.mark.parametrize(
    "cast, dtype",
    [
        (lambda m: m.to(torch.float64), torch.float64),
        (lambda m: m.double(), torch.float64),
        (lambda m: m.half(), torch.float16),
    ],
    ids=["to-float64", "double", "half"],
)
def test_casting_the_module_casts_parameters_and_buffers(device, cast, dtype):
    skip_unless_supported(device, dtype)
    layer = cast(CenterAndScale(F).to(device))
    for name, tensor in tensors(layer):
        assert tensor.dtype == dtype, (
            f"after casting the module to {dtype}, {name} is {tensor.dtype}: only parameters "
            "and buffers are cast; a plain tensor attribute stays behind"
        )
    assert isinstance(layer.weight, nn.Parameter), "weight must still be a Parameter"
    out = layer(torch.randn(3, F, device=device, dtype=dtype))
    check_tensor(out, shape=(3, F), dtype=dtype, device=device, name="the output")


def test_moving_the_module_moves_every_tensor(device):
    layer = CenterAndScale(F)  # built on the CPU
    layer.to(device)
    for name, tensor in tensors(layer):
        check_tensor(tensor, device=device, name=f"{name} after .to(device)")
    out = layer(torch.randn(2, F, device=device))
    check_tensor(out, shape=(2, F), dtype=torch.float32, device=device, name="the output")


def test_training_forward_updates_the_running_mean_off_the_graph(device):
    layer = CenterAndScale(F, momentum=0.25).to(device)
    layer.train()
    x = torch.randn(6, F, device=device).requires_grad_()
    out = layer(x)
    expected_mean = 0.25 * x.detach().mean(dim=0)
    assert_close(
        layer.running_mean,
        expected_mean,
        "running_mean = (1 - momentum) * running_mean + momentum * batch mean",
    )
    assert layer.running_mean.grad_fn is None and not layer.running_mean.requires_grad, (
        "running_mean is attached to the autograd graph; update it in place under "
        "torch.no_grad() (or from x.detach())"
    )
    w_taper = (torch.ones(F) * taper(F)).to(device)
    assert_close(
        out, (x - expected_mean) * w_taper, "y = (x - updated running_mean) * weight * taper"
    )
    out.sum().backward()
    assert_close(
        layer.weight.grad,
        ((x - expected_mean) * taper(F, device)).sum(0),
        "the gradient reaches weight",
    )
    assert_close(x.grad, w_taper.expand(6, F), "the gradient reaches x")


def test_a_second_step_decays_the_old_running_mean(device):
    # From the second step on the running mean is not zero: the old value decays.
    layer = CenterAndScale(F, momentum=0.25).to(device).train()
    first, second = torch.randn(6, F, device=device) + 3, torch.randn(5, F, device=device) - 1
    layer(first)
    layer(second)
    want = 0.75 * (0.25 * first.mean(dim=0)) + 0.25 * second.mean(dim=0)
    assert_close(
        layer.running_mean,
        want,
        "after two steps, running_mean = (1 - momentum) * running_mean + momentum * batch "
        "mean at each: the old mean decays by (1 - momentum), neither kept whole nor dropped",
    )


def test_training_mode_updates_the_running_mean_under_no_grad(device):
    # The module's mode decides, not autograd's: BatchNorm in training mode updates its
    # statistics under torch.no_grad() too.
    layer = CenterAndScale(F, momentum=0.25).to(device).train()
    x = torch.randn(6, F, device=device) + 2
    with torch.no_grad():
        out = layer(x)
    assert_close(
        layer.running_mean,
        0.25 * x.mean(dim=0),
        "in training mode under torch.no_grad() the running mean is updated all the same: "
        "the module's mode decides (self.training), not whether autograd records",
    )
    assert_close(out, (x - 0.25 * x.mean(dim=0)) * taper(F, device), "y uses the updated mean")


def test_eval_mode_leaves_the_running_mean_under_no_grad(device):
    # The mode decides both ways: eval mode under torch.no_grad() changes nothing either.
    layer = CenterAndScale(F).to(device).eval()
    before = layer.running_mean.clone()
    with torch.no_grad():
        layer(torch.randn(6, F, device=device) + 2)
    assert_close(
        layer.running_mean,
        before,
        "in eval mode the running mean is not changed, under torch.no_grad() too: the "
        "module's mode decides (self.training), not whether autograd records",
    )


def test_running_mean_averages_over_all_leading_dimensions(device):
    layer = CenterAndScale(F).to(device).train()
    x = torch.randn(4, 3, F, device=device) + torch.arange(3, device=device).view(1, 3, 1)
    layer(x)
    check_tensor(layer.running_mean, shape=(F,), device=device, name="running_mean")
    assert_close(
        layer.running_mean,
        0.1 * x.mean(dim=(0, 1)),
        "for x of shape [4, 3, F] the batch mean runs over both leading dimensions "
        "(x.reshape(-1, F).mean(0)); the default momentum is 0.1",
    )


def test_training_steps_backward_one_after_another(device):
    layer = CenterAndScale(F).to(device)
    model = nn.Sequential(nn.Linear(F, F), layer).to(device)  # the layer's input needs grad
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(3):
        x = torch.randn(4, 2, F, device=device)  # the mean runs over all leading dimensions
        loss = model(x).pow(2).mean()
        optimizer.zero_grad()
        try:
            loss.backward()
        except RuntimeError as error:
            raise AssertionError(
                f"backward failed at step {step}: the running mean carries the graph of an "
                f"earlier batch; keep its update out of autograd\n{error}"
            ) from error
        optimizer.step()
    assert layer.running_mean.grad_fn is None


@pytest.mark.parametrize("requires_grad", [False, True], ids=["x", "x requiring grad"])
def test_eval_mode_uses_the_running_mean_and_keeps_it(device, requires_grad):
    # An input that requires grad (a layer in eval mode fine-tuned behind trainable layers)
    # is no reason to update either: the module's mode decides.
    layer = CenterAndScale(F).to(device)
    layer(torch.randn(8, F, device=device) + 1)
    layer.eval()
    before = layer.running_mean.clone()
    x = torch.randn(3, F, device=device).requires_grad_(requires_grad)
    out = layer(x)
    assert torch.equal(layer.running_mean, before), (
        "eval mode must not update running_mean, whether or not x requires grad: "
        "self.training decides"
    )
    assert_close(out, (x - before) * taper(F, device), "eval mode centers with the running mean")


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("shape", [(2, F + 1), (2, F - 1), (2, 1), (F, 2), (1,)], ids=str)
def test_rejects_the_wrong_number_of_features(device, training, shape):
    layer = CenterAndScale(F).to(device).train(training)
    with raises(ValueError):
        layer(torch.randn(shape, device=device))
        pytest.fail(
            f"an input of shape {shape} in {'training' if training else 'eval'} mode should "
            f"raise ValueError: its last dimension is not num_features = {F} (a size of 1 "
            "would broadcast silently); check it in both modes"
        )


def test_an_input_without_a_batch_dimension(device):
    layer = CenterAndScale(F).to(device).train()
    x = torch.randn(F, device=device)
    out = layer(x)
    assert_close(
        layer.running_mean,
        0.1 * x,
        "for a 1-D input the mean over all dimensions but the last is x itself; note that "
        "x.mean(dim=()) averages over every dimension",
    )
    check_tensor(out, shape=(F,), dtype=torch.float32, device=device, name="the output")
    assert_close(out, (x - 0.1 * x) * taper(F, device), "y = (x - running_mean) * weight * taper")


def test_running_mean_is_updated_in_place(device):
    layer = CenterAndScale(F).to(device).train()
    buffer = layer.running_mean
    saved = layer.state_dict()["running_mean"]  # shares the buffer's memory
    layer(torch.randn(4, F, device=device) + 2)
    assert torch.equal(saved, layer.running_mean), (
        "a state_dict() taken before the step does not see the update: write the new mean "
        "into the buffer's own memory (lerp_, mul_/add_ under torch.no_grad()), not into new "
        "memory behind the same tensor (running_mean.data = ...)"
    )
    assert layer.running_mean is buffer, (
        "running_mean is a new tensor after a training step: update the registered buffer in "
        "place (lerp_, mul_/add_ under torch.no_grad()) instead of assigning a new one"
    )
    assert buffer.abs().sum() > 0, "the buffer itself should hold the updated running mean"


def test_a_single_feature(device):
    layer = CenterAndScale(1).to(device)
    out = layer(torch.full((2, 1), 4.0, device=device))
    assert_close(out, torch.full((2, 1), 3.6, device=device), "one feature: (4 - 0.4) * 1 * 1")


# ---------------------------------------------------------------- facets


def layer_and_input(device):
    layer = CenterAndScale(3).to(device)
    return facets.args(layer, torch.randn(4, 3, device=device, requires_grad=True))


def layer_for_shape(shape, device):
    """A layer in training mode for inputs of `shape` (its last dimension the features)."""
    x = torch.linspace(-3, 5, math.prod(shape), device=device).reshape(shape)
    return facets.args(CenterAndScale(shape[-1]).to(device), x)


def forward64(layer, x):
    """The training-mode output of a fresh layer: the running mean is 0.1 * the batch mean."""
    mean = x.reshape(-1, x.shape[-1]).mean(dim=0)
    return (x - 0.1 * mean) * torch.linspace(1.0, 0.5, x.shape[-1], dtype=torch.float64)


def large_batch(dtype, device):
    """A layer in training mode and 96 rows near 1000: each column's sum passes float16's
    largest value (65504) while its mean fits (a native float16 sum / n is inf there)."""
    x = 1000 + torch.linspace(-3, 5, 96 * 3, dtype=torch.float64).reshape(96, 3)
    return facets.args(CenterAndScale(3).to(device, dtype), x.to(device, dtype))


def trained_once(arguments, layer):
    """What a fresh layer gives in a training step, and its running mean after it."""
    x = torch.arange(6.0).reshape(2, 3) - 1
    return layer(x).detach(), layer.running_mean.clone()


FACETS = facets.declare(
    facets.of(
        CenterAndScale,
        facets.DefaultDevice(
            lambda device: facets.args(3),
        ),
        facets.Trains(
            lambda device: facets.args(3),
            forward=lambda layer, device: layer.to(device)(torch.randn(4, 3, device=device)),
        ),
        facets.Registered(
            lambda device: facets.args(3),
            forward=lambda layer, device: layer.to(device)(torch.randn(4, 3, device=device)),
        ),
        facets.Defaults(lambda device: facets.args(3), values={"momentum": 0.1}, key=trained_once),
    ),
    facets.of(
        CenterAndScale,
        # .half() and .double() cast the layer: its output keeps the dtype, with the values
        # of the exact batch mean rounded to it (the update and the product round a few times).
        facets.Dtypes(large_batch, oracle=forward64, ulps=8),
        facets.NoGraph(
            layer_and_input, state=lambda arguments, result: arguments.args[0].running_mean
        ),
        # [..., num_features] in training mode: strided inputs of 2 and 3 dimensions too, and
        # 4-D, where the mean runs over three leading dims (not two merged, then one).
        facets.Shapes(
            layer_for_shape,
            oracle=forward64,
            shapes=("1-D", "2-D", "size 1", "non-contiguous", "non-contiguous 3-D", "4-D"),
            atol=1e-5,
        ),
        # A single feature broadcasts against running_mean: refused, the buffer untouched.
        facets.Refused(
            {
                "one feature": lambda device: facets.args(
                    CenterAndScale(3).to(device), torch.full((2, 1), 2.0, device=device)
                )
            }
        ),
        # x's last dim is num_features (a size of 1 would broadcast), in both modes.
        facets.BadShapes(layer_and_input, names=(1,), dims=(-1,), label="train"),
        facets.BadShapes(
            lambda device: facets.args(
                CenterAndScale(3).to(device).eval(), torch.ones(4, 3, device=device)
            ),
            names=(1,),
            dims=(-1,),
            label="eval",
        ),
        # The caller's x as it was, in both modes (the running mean is the layer's to update
        # in training), and the .grad of weight (None kept None, a .grad set kept, in
        # training too: a forward between a backward and the step, as in gradient
        # accumulation, clears nothing); in eval mode the whole layer.
        facets.Unmodified(
            lambda device: facets.args(
                CenterAndScale(3).to(device), torch.randn(4, 3, device=device)
            ),
            inputs=lambda arguments: {"x": arguments.args[1], "weight": arguments.args[0].weight},
            label="train",
        ),
        facets.Unmodified(
            lambda device: facets.args(
                CenterAndScale(3).to(device).eval(), torch.randn(4, 3, device=device)
            ),
            module_grads=True,
            label="eval",
        ),
        name="CenterAndScale.forward",
        call=lambda layer, x: layer(x),
    ),
)
test_facets = FACETS.test
