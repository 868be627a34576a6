import copy
import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import katas.q37_mixed_precision as kata
from katas.q37_mixed_precision import amp_dtype, amp_train_step, make_grad_scaler
from torch_katas import facets
from torch_katas.testing import assert_close, check_tensor, skip_unless_supported


def expected_dtype(device: torch.device) -> torch.dtype:
    if device.type == "cuda":
        with torch.cuda.device(device):
            if not torch.cuda.is_bf16_supported(including_emulation=False):
                return torch.float16  # a GPU older than Ampere
    return torch.bfloat16


def fake_gpus(monkeypatch, native, current=0, available=False):
    """torch.cuda as on a machine whose GPU i runs bfloat16 natively when native[i] (an A100)
    and only emulates it otherwise (a V100, where is_bf16_supported() says True by default),
    with GPU `current` the current one. Naming devices builds no tensor, so this runs on every
    machine. available: what torch.cuda.is_available() says (a GradScaler for "cuda" turns
    itself off where it is False)."""
    state = {"current": current}

    def is_bf16_supported(including_emulation=True):
        return native[state["current"]] or including_emulation

    class device:  # torch.cuda.device(d): d current inside the block
        def __init__(self, d):
            d = torch.device("cuda", d) if isinstance(d, int) else torch.device(d) if d else None
            self.index = d.index if d is not None and d.index is not None else state["current"]

        def __enter__(self):
            self.before, state["current"] = state["current"], self.index

        def __exit__(self, *exc):
            state["current"] = self.before

    monkeypatch.setattr(torch.cuda, "is_bf16_supported", is_bf16_supported)
    monkeypatch.setattr(torch.cuda, "device", device)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: state["current"])
    monkeypatch.setattr(torch.cuda, "device_count", lambda: len(native))
    monkeypatch.setattr(torch.cuda, "is_available", lambda: available)


def small_model(device):
    # Tanh, not ReLU: a smooth model keeps 16-bit round-off small next to the fp32 oracle
    # (a ReLU whose input rounds across zero changes a whole gradient row).
    return nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4)).to(device)


def a_batch(device, n=32):
    return torch.randn(n, 8, device=device), torch.randn(n, 4, device=device)


def scaler_for(device, enabled=True):
    # A small initial scale: float16 gradients times the default 65536 would overflow on the
    # first steps, and a correct step would be skipped.
    return torch.amp.GradScaler(device.type, enabled=enabled, init_scale=256.0)


def clipped(grads, max_norm):
    """clip_grad_norm_'s rule written out: every gradient times min(max_norm / (total 2-norm
    + 1e-6), 1)."""
    total = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))
    factor = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    return [g * factor for g in grads]


def sgd_by_hand_in_float32(model, batches, lr, max_grad_norm=None):
    """The oracle: plain float32 SGD on a copy of the model, gradients from autograd (clipped
    by hand when max_grad_norm is given)."""
    model = copy.deepcopy(model)
    params = list(model.parameters())
    for inputs, targets in batches:
        grads = torch.autograd.grad(F.mse_loss(model(inputs), targets), params)
        if max_grad_norm is not None:
            grads = clipped(grads, max_grad_norm)
        with torch.no_grad():
            for param, grad in zip(params, grads, strict=True):
                param -= lr * grad
    return [param.detach() for param in params]


def sgd_in_groups(model, lr):
    """Plain SGD at lr over the model's parameters in two param groups (the first
    parameter, then the rest), as an optimizer with settings per layer has them: the same
    steps as one group, yet code that reads param_groups[0] alone leaves the second out."""
    params = list(model.parameters())
    return torch.optim.SGD([{"params": params[:1]}, {"params": params[1:]}], lr=lr)


def test_amp_dtype_fits_the_device(device):
    got = amp_dtype(device)
    want = expected_dtype(device)
    assert got == want, f"amp_dtype({device}) returned {got}; use {want} on {device.type}"
    assert amp_dtype(str(device)) == want, f"amp_dtype({str(device)!r}) should accept a string"


@pytest.mark.parametrize("bf16", [True, False], ids=["ampere-or-later", "older-gpu"])
@pytest.mark.parametrize(
    "name",
    ["cuda", "cuda:1", torch.device("cuda", 1), "cpu", "mps", "xpu:0"],
    ids=["cuda", "cuda:1", "device(cuda,1)", "cpu", "mps", "xpu:0"],
)
def test_amp_dtype_reads_the_device_type_of_any_name(device, monkeypatch, name, bf16):
    # Every name is checked on every machine, for GPUs that run bfloat16 natively and for
    # GPUs that only emulate it.
    fake_gpus(monkeypatch, native=[bf16, bf16])
    on_cuda = torch.device(name).type == "cuda"
    want = torch.float16 if on_cuda and not bf16 else torch.bfloat16
    got = amp_dtype(name)
    gpu = f"on a GPU that {'runs' if bf16 else 'only emulates'} bfloat16" if on_cuda else ""
    assert got == want, (
        f"amp_dtype({name!r}) returned {got}, expected {want} {gpu}: "
        "decide on the device's type, torch.device(device).type (a CUDA device may have an "
        "index), and on CUDA on torch.cuda.is_bf16_supported(including_emulation=False): "
        "by default it says True where bfloat16 is only emulated, slowly"
    )


@pytest.mark.parametrize("current", [0, 1])
@pytest.mark.parametrize(
    "name",
    ["cuda", "cuda:0", "cuda:1", torch.device("cuda", 1)],
    ids=["cuda", "cuda:0", "cuda:1", "device(cuda,1)"],
)
def test_amp_dtype_asks_about_the_gpu_named(device, monkeypatch, name, current):
    # GPU 0 an A100, GPU 1 a V100: "cuda" is the current one, "cuda:1" GPU 1 whichever is
    # current.
    fake_gpus(monkeypatch, native=[True, False], current=current)
    index = torch.device(name).index
    want = torch.bfloat16 if (current if index is None else index) == 0 else torch.float16
    got = amp_dtype(name)
    assert got == want, (
        f"with GPU {current} current, amp_dtype({name!r}) returned {got}, expected {want}: ask "
        "is_bf16_supported(including_emulation=False) about the GPU named, with it current "
        "(with torch.cuda.device(device): ...)"
    )


@pytest.mark.parametrize("native", [True, False], ids=["ampere-or-later", "older-gpu"])
@pytest.mark.parametrize("name", ["cuda", "cuda:1", "cpu", "mps"])
def test_grad_scaler_for_any_name(device, monkeypatch, name, native):
    # The scaler's device type, `enabled` and settings, read without running it.
    fake_gpus(monkeypatch, native=[native, native], available=True)
    scaler = make_grad_scaler(name)
    kind = torch.device(name).type
    want = kind == "cuda" and not native
    assert scaler.is_enabled() == want, (
        f"the scaler for {name!r} should be {'enabled' if want else 'disabled'}: enabled "
        "exactly where amp_dtype gives float16"
    )
    assert scaler._device == kind, (
        f"the scaler for {name!r} was built for {scaler._device!r}: pass the device's type"
    )
    if not want:
        return  # a disabled scaler has no settings to read
    default = torch.amp.GradScaler(kind)
    got, expected = (
        [s.get_scale(), s.get_growth_factor(), s.get_backoff_factor(), s.get_growth_interval()]
        for s in (scaler, default)
    )
    assert got == expected, (
        f"(scale, growth factor, backoff factor, growth interval) is {got}, expected "
        f"GradScaler's defaults {expected}: pass only the device type and `enabled`"
    )


@pytest.mark.parametrize("current", [0, 1])
@pytest.mark.parametrize(
    "name",
    ["cuda", "cuda:0", "cuda:1", torch.device("cuda", 1)],
    ids=["cuda", "cuda:0", "cuda:1", "device(cuda,1)"],
)
def test_grad_scaler_asks_about_the_gpu_named(device, monkeypatch, name, current):
    # GPU 0 an A100, GPU 1 a V100: the scaler for "cuda:1" is on (float16 there) whichever
    # GPU is current, and for "cuda" it follows the current one; the device type alone
    # ("cuda") would ask the current GPU about another.
    fake_gpus(monkeypatch, native=[True, False], current=current, available=True)
    index = torch.device(name).index
    want = (current if index is None else index) == 1
    scaler = make_grad_scaler(name)
    assert scaler.is_enabled() == want, (
        f"with GPU {current} current, the scaler for {name!r} should be "
        f"{'enabled' if want else 'disabled'}: enabled exactly where amp_dtype(device) gives "
        "float16, asked about the GPU named (amp_dtype(device), not amp_dtype(device.type))"
    )


@pytest.mark.parametrize("as_string", [False, True], ids=["torch.device", "string"])
def test_grad_scaler_is_enabled_only_where_float16_is_used(device, as_string):
    given = str(device) if as_string else device
    scaler = make_grad_scaler(given)
    assert isinstance(scaler, torch.amp.GradScaler), (
        f"make_grad_scaler should return a torch.amp.GradScaler, got {type(scaler).__name__}"
    )
    want = expected_dtype(device) == torch.float16
    assert scaler.is_enabled() == want, (
        f"the scaler for {given!r} should be {'enabled' if want else 'disabled'}: float16 "
        "gradients need scaling, bfloat16 ones do not (accept a string too: torch.device(...))"
    )


def test_each_call_makes_a_new_grad_scaler(device):
    first, second = make_grad_scaler(device), make_grad_scaler(device)
    assert first is not second, (
        "make_grad_scaler returned the same GradScaler twice: a scaler keeps its scale as "
        "state, so each call makes a new one"
    )


@pytest.mark.cuda
def test_grad_scaler_keeps_gradscalers_default_settings(device):
    scaler, default = make_grad_scaler(device), torch.amp.GradScaler(device.type)
    got = (
        scaler.get_scale(),
        scaler.get_growth_factor(),
        scaler.get_backoff_factor(),
        scaler.get_growth_interval(),
    )
    want = (
        default.get_scale(),
        default.get_growth_factor(),
        default.get_backoff_factor(),
        default.get_growth_interval(),
    )
    assert got == want, (
        f"(scale, growth factor, backoff factor, growth interval) is {got}, expected "
        f"GradScaler's defaults {want}: pass only the device type and `enabled`"
    )


def test_forward_runs_under_autocast_in_the_devices_16_bit_dtype(device):
    model = small_model(device)
    seen = []
    for layer in (model[0], model[2]):
        layer.register_forward_hook(lambda module, args, output: seen.append(output.dtype))
    given = []
    model.register_forward_pre_hook(lambda module, args: given.append(args[0].detach().clone()))
    in_loss = []

    def mse_that_watches_autocast(output, target):
        kind = device.type
        in_loss.append((torch.is_autocast_enabled(kind), torch.get_autocast_dtype(kind)))
        return F.mse_loss(output, target)

    inputs, targets = a_batch(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = scaler_for(device, False)
    amp_train_step(model, inputs, targets, mse_that_watches_autocast, optimizer, scaler)
    want = expected_dtype(device)
    assert seen == [want, want], (
        f"the Linear layers produced {seen}, expected {want}: run the forward pass under "
        f"torch.autocast(device_type={device.type!r}, dtype=amp_dtype(inputs.device))"
    )
    assert len(given) == 1 and given[0].dtype == inputs.dtype, (
        f"the model was given {[x.dtype for x in given]}, expected [{inputs.dtype}]: pass "
        "inputs as they are; autocast casts per op (a matmul to 16 bits, a sum or a norm "
        "kept in float32), which a cast of the inputs beforehand would take away"
    )
    assert torch.equal(given[0], inputs), "the model must be given inputs' values unchanged"
    assert in_loss == [(True, want)], (
        f"loss_fn ran with (autocast enabled, autocast dtype) = {in_loss}, expected "
        f"[(True, {want})]: call loss_fn inside the autocast block too, where autocast runs "
        "the loss in float32; only backward comes after it"
    )


@pytest.mark.parametrize("kind", ["regression", "classes"])
def test_loss_fn_gets_the_targets_as_they_are(device, kind):
    # loss_fn(model(inputs), targets): the targets themselves, neither rounded to the 16-bit
    # dtype (float targets lose all but 8 or 11 bits) nor converted to the outputs' dtype
    # (class indices turned into floats are read as class probabilities, or refused).
    model = small_model(device)
    inputs, targets = a_batch(device)
    if kind == "classes":
        targets = torch.randint(0, 4, (inputs.shape[0],), device=device)
    given = []

    def recording_loss(output, target):
        given.append(target.detach().clone())
        if kind == "classes":
            return F.cross_entropy(output, target)
        return F.mse_loss(output, target)

    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    amp_train_step(model, inputs, targets, recording_loss, optimizer, scaler_for(device, False))
    assert len(given) == 1, f"loss_fn should run once per step, ran {len(given)} times"
    assert given[0].dtype == targets.dtype and torch.equal(given[0], targets), (
        f"loss_fn got targets of dtype {given[0].dtype}, not the {targets.dtype} targets as "
        "given: call loss_fn(model(inputs), targets), with targets unchanged (autocast "
        "chooses each op's dtype; do not cast the targets to the 16-bit dtype or the "
        "outputs' dtype yourself)"
    )


@pytest.mark.parametrize("enabled", [False, True], ids=["scaler-off", "scaler-on"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_autocast_takes_the_dtype_from_amp_dtype(device, monkeypatch, dtype, enabled):
    # amp_dtype as on a GPU with float16 only, or one with bfloat16, whatever this device:
    # the step must autocast to what amp_dtype says, not to a dtype of its own (nor one
    # guessed from the scaler, which may be enabled or disabled on any device).
    asked = []
    monkeypatch.setattr(kata, "amp_dtype", lambda device: asked.append(device) or dtype)
    model = small_model(device)
    seen = []
    model[0].register_forward_hook(lambda module, args, output: seen.append(output.dtype))
    inputs, targets = a_batch(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    amp_train_step(model, inputs, targets, F.mse_loss, optimizer, scaler_for(device, enabled))
    assert seen == [dtype], (
        f"with amp_dtype(inputs.device) giving {dtype} the Linear layer produced {seen} "
        f"(scaler {'enabled' if enabled else 'disabled'}): autocast with "
        "dtype=amp_dtype(inputs.device)"
    )
    # The device itself, index included: on a machine with mixed GPUs only the GPU the
    # inputs are on knows whether it runs bfloat16 (the device type asks the current one).
    named = [torch.device(one) for one in asked]
    assert named and all(one == inputs.device for one in named), (
        f"amp_dtype was asked about {asked}, not about inputs.device ({inputs.device}): call "
        "amp_dtype(inputs.device), not amp_dtype(inputs.device.type)"
    )


@pytest.mark.cuda
def test_an_older_gpu_runs_float16_under_autocast(device, monkeypatch):
    # This GPU as one that only emulates bfloat16: the step must use float16 (and a scaler).
    monkeypatch.setattr(
        torch.cuda, "is_bf16_supported", lambda including_emulation=True: including_emulation
    )
    model = small_model(device)
    seen = []
    model[0].register_forward_hook(lambda module, args, output: seen.append(output.dtype))
    inputs, targets = a_batch(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = make_grad_scaler(device)
    assert scaler.is_enabled(), "on a GPU without native bfloat16 the scaler is on"
    amp_train_step(model, inputs, targets, F.mse_loss, optimizer, scaler)
    assert seen == [torch.float16], (
        f"on a GPU without native bfloat16 the Linear layer produced {seen}: autocast with "
        "dtype=amp_dtype(inputs.device), float16 there"
    )


@pytest.mark.parametrize("enabled", [False, True], ids=["scaler-off", "scaler-on"])
def test_master_weights_and_gradients_stay_float32(device, enabled):
    model = small_model(device)
    inputs, targets = a_batch(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    amp_train_step(model, inputs, targets, F.mse_loss, optimizer, scaler_for(device, enabled))
    for name, param in model.named_parameters():
        check_tensor(param, dtype=torch.float32, device=device, name=f"parameter {name}")
        if param.grad is not None:
            check_tensor(param.grad, dtype=torch.float32, name=f"the gradient of {name}")


@pytest.mark.parametrize("mode", ["eval", "frozen-norm"])
def test_the_step_keeps_the_callers_train_and_eval_modes(device, mode):
    model = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.Tanh(), nn.Linear(16, 4))
    model.to(device)
    model.eval() if mode == "eval" else model[1].eval()
    modes = [module.training for module in model.modules()]
    inputs, targets = a_batch(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    amp_train_step(model, inputs, targets, F.mse_loss, optimizer, scaler_for(device, False))
    assert [module.training for module in model.modules()] == modes, (
        f"the step changed the train/eval modes ({mode}): leave them as the caller set them "
        "(no model.train() inside the step)"
    )


def test_backward_runs_after_the_autocast_block(device):
    model = small_model(device)
    during_backward = []

    def mse_that_watches_backward(output, target):
        loss = F.mse_loss(output, target)
        loss.register_hook(
            lambda grad: during_backward.append(torch.is_autocast_enabled(device.type))
        )
        return loss

    inputs, targets = a_batch(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = scaler_for(device, False)
    amp_train_step(model, inputs, targets, mse_that_watches_backward, optimizer, scaler)
    assert during_backward == [False], (
        f"autocast enabled during backward: {during_backward} (one entry per backward "
        "pass); leave the `with torch.autocast(...)` block before calling backward"
    )


def low_precision_mse(output, target):
    """A loss that stays in the output's dtype (autocast leaves these ops alone; on CUDA it
    would run pow in float32)."""
    error = output - target.to(output.dtype)
    return (error * error).mean()


def test_returns_the_loss_before_the_update_as_detached_float32(device):
    model = small_model(device)
    before = copy.deepcopy(model)
    inputs, targets = a_batch(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    loss = amp_train_step(model, inputs, targets, low_precision_mse, optimizer, scaler_for(device))
    check_tensor(loss, shape=(), dtype=torch.float32, device=device, name="the returned loss")
    assert loss.grad_fn is None and not loss.requires_grad, (
        "the returned loss is still attached to the graph; return loss.detach().float()"
    )
    with torch.no_grad():
        want = F.mse_loss(before(inputs), targets)
    assert_close(
        loss,
        want,
        "the returned loss is not this batch's loss before the step",
        rtol=2e-2,
        atol=1e-3,
    )


def test_returns_a_float64_loss_as_float32(device):
    skip_unless_supported(device, torch.float64)
    model = small_model(device)
    inputs, targets = a_batch(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def float64_mse(output, target):
        return F.mse_loss(output.double(), target.double())

    loss = amp_train_step(model, inputs, targets, float64_mse, optimizer, scaler_for(device))
    check_tensor(loss, shape=(), dtype=torch.float32, device=device, name="the returned loss")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
def test_returns_the_value_loss_fn_returned_rounded_once_to_float32(device, dtype):
    # The loss the step computed, not a value near it: a float32 loss comes back as it is, a
    # float64 one rounded once; a round trip through bfloat16 or float16 (1e-3 off) is not
    # the loss, whatever a tolerance for autocast's own rounding would let through.
    skip_unless_supported(device, dtype)
    model = small_model(device)
    inputs, targets = a_batch(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    returned = []

    def recorded_mse(output, target):
        loss = F.mse_loss(output.to(dtype), target.to(dtype))
        returned.append(loss.detach().clone())
        return loss

    loss = amp_train_step(model, inputs, targets, recorded_mse, optimizer, scaler_for(device))
    check_tensor(loss, shape=(), dtype=torch.float32, device=device, name="the returned loss")
    assert len(returned) == 1, f"loss_fn should run once per step, ran {len(returned)} times"
    assert_close(
        loss,
        returned[0].float(),
        f"the returned loss should be the {dtype} value loss_fn returned, converted once to "
        "float32 (loss.detach().float()), not rounded through a 16-bit dtype",
        rtol=torch.finfo(torch.float32).eps,
        atol=0,
    )


@pytest.mark.parametrize("enabled", [False, True], ids=["scaler-off", "scaler-on"])
def test_two_steps_match_float32_sgd_on_unscaled_fresh_gradients(device, enabled):
    model = small_model(device)
    start = [param.detach().clone() for param in model.parameters()]
    batches = [a_batch(device), a_batch(device)]
    want = sgd_by_hand_in_float32(model, batches, lr=0.1)
    for param in model.parameters():
        param.grad = torch.full_like(param, 100.0)  # stale gradients the step must discard
    optimizer = sgd_in_groups(model, lr=0.1)  # every group's gradients: fresh, clipped
    scaler = scaler_for(device, enabled)
    for inputs, targets in batches:
        amp_train_step(model, inputs, targets, F.mse_loss, optimizer, scaler)
    for (name, param), first, expected in zip(model.named_parameters(), start, want, strict=True):
        change, expected_change = param.detach() - first, expected - first
        assert_close(
            change,
            expected_change,
            f"the change of {name} after two steps differs from float32 SGD beyond 16-bit "
            "round-off; clear old gradients first, and step through scaler.step(optimizer) "
            "so the optimizer sees unscaled gradients",
            rtol=3e-2,
            atol=3e-2 * expected_change.abs().max().item(),
        )


@pytest.mark.parametrize("max_grad_norm", [None, 1.0], ids=["unclipped", "clipped"])
@pytest.mark.parametrize("where", ["gradient", "loss"])
@pytest.mark.parametrize("bad", [math.inf, math.nan], ids=["inf", "nan"])
def test_an_inf_gradient_skips_the_step_and_lowers_the_scale(device, bad, where, max_grad_norm):
    # The overflow in a gradient only, or already in the forward loss: either way the
    # scaler sees it in the gradients, skips the step and lowers the scale, also when the
    # gradients are clipped first (clipping an inf norm turns every gradient into NaN).
    model = small_model(device)
    if where == "gradient":
        model[0].weight.register_hook(lambda grad: torch.full_like(grad, bad))
    before = copy.deepcopy(model)
    inputs, targets = a_batch(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = scaler_for(device)

    def mse(output, target):
        return F.mse_loss(output, target) * (bad if where == "loss" else 1.0)

    loss = amp_train_step(
        model, inputs, targets, mse, optimizer, scaler, max_grad_norm=max_grad_norm
    )
    for (name, param), old in zip(model.named_parameters(), before.parameters(), strict=True):
        unchanged = torch.equal(param.detach(), old.detach())
        assert unchanged, (
            f"{name} changed although a gradient was {bad} (max_grad_norm={max_grad_norm}); "
            "let scaler.step(optimizer) make the step, so it is skipped when gradients "
            "contain inf or NaN (after scaler.unscale_ it still knows, whatever clipping did)"
        )
    assert scaler.get_scale() < 256.0, (
        f"the scale is still {scaler.get_scale()} after an overflow in the {where}; run "
        "backward, scaler.step(optimizer) and scaler.update() whatever the loss is: the "
        "scaler sees the overflow and lowers the scale"
    )
    check_tensor(loss, shape=(), dtype=torch.float32, device=device, name="the returned loss")
    if where == "loss":
        assert loss.isnan() if math.isnan(bad) else loss.isposinf(), f"the loss was {bad}"
        return
    with torch.no_grad():
        want = F.mse_loss(before(inputs), targets)
    assert_close(
        loss,
        want,
        "the returned loss is not this forward pass's loss: return the loss itself, not "
        "the scaled one divided by the scale (which update() has changed)",
        rtol=2e-2,
        atol=1e-3,
    )


@pytest.mark.parametrize("enabled", [False, True], ids=["scaler-off", "scaler-on"])
@pytest.mark.parametrize("max_grad_norm", [0.05, 1e6, math.inf])
def test_clipping_caps_the_unscaled_gradients(device, enabled, max_grad_norm):
    # 0.05 is far below the gradients' norm here, so it clips; 1e6 and inf are far above it,
    # so they leave the gradients as they are (clipping only ever scales down).
    model = small_model(device)
    start = [param.detach().clone() for param in model.parameters()]
    batches = [(inputs, 3 * targets) for inputs, targets in (a_batch(device), a_batch(device))]
    inputs, targets = batches[0]
    grads = torch.autograd.grad(F.mse_loss(model(inputs), targets), list(model.parameters()))
    norm = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))
    assert norm > 10 * 0.05, f"the test's gradients are too small to be clipped: {norm}"
    want = sgd_by_hand_in_float32(model, batches, lr=0.1, max_grad_norm=max_grad_norm)
    optimizer = sgd_in_groups(model, lr=0.1)  # every group's gradients: fresh, clipped
    scaler = scaler_for(device, enabled)
    for inputs, targets in batches:
        amp_train_step(
            model, inputs, targets, F.mse_loss, optimizer, scaler, max_grad_norm=max_grad_norm
        )
    for (name, param), first, expected in zip(model.named_parameters(), start, want, strict=True):
        change, expected_change = param.detach() - first, expected - first
        assert_close(
            change,
            expected_change,
            f"with max_grad_norm={max_grad_norm} and the scaler "
            f"{'on' if enabled else 'off'}, the change of {name} after two steps differs "
            "from float32 SGD on gradients clipped as clip_grad_norm_ clips them; clip the "
            "unscaled gradients: scaler.unscale_(optimizer), then clip_grad_norm_, then "
            "scaler.step(optimizer) (gradients clipped while scaled, or after the step, give "
            "another step)",
            rtol=3e-2,
            atol=3e-2 * expected_change.abs().max().item(),
        )


@pytest.mark.parametrize("max_grad_norm", [0.0, -1.0, math.nan, -math.inf])
def test_rejects_a_max_grad_norm_that_is_not_positive_before_changing_anything(
    device, max_grad_norm
):
    model = small_model(device)
    inputs, targets = a_batch(device)
    for param in model.parameters():
        param.grad = torch.ones_like(param)
    before = [(param.detach().clone(), param.grad.clone()) for param in model.parameters()]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(ValueError):
        amp_train_step(
            model,
            inputs,
            targets,
            F.mse_loss,
            optimizer,
            scaler_for(device, False),
            max_grad_norm=max_grad_norm,
        )
    for (name, param), (value, grad) in zip(model.named_parameters(), before, strict=True):
        assert torch.equal(param, value) and torch.equal(param.grad, grad), (
            f"amp_train_step(max_grad_norm={max_grad_norm}) changed {name} or its .grad "
            "before raising: check the setting first, before zeroing the gradients"
        )


@pytest.mark.cuda
def test_float16_gradients_too_small_for_float16_survive_through_the_scaler(device):
    # The loss's gradient, 2**-27, is below float16's smallest subnormal (2**-24): unscaled
    # it flushes to zero in the float16 backward pass; scaled by GradScaler's default 2**16
    # it survives, and unscaling in float32 restores the true value. On a GPU that runs
    # bfloat16 no scaler is needed: its range holds 2**-27 as float32's does.
    def tiny_loss(output, target):
        return (output.float() * target).sum() * 2.0**-27

    model = nn.Linear(8, 4).to(device)
    reference = copy.deepcopy(model)
    inputs, targets = torch.randn(16, 8, device=device), torch.ones(16, 4, device=device)
    lr = 2.0**20
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    amp_train_step(model, inputs, targets, tiny_loss, optimizer, make_grad_scaler(device))
    params = list(reference.parameters())
    grads = torch.autograd.grad(tiny_loss(reference(inputs), targets), params)
    for (name, param), first, grad in zip(model.named_parameters(), params, grads, strict=True):
        change, expected_change = (param - first).detach(), -lr * grad
        assert_close(
            change,
            expected_change,
            f"{name} did not get the float32 SGD update; tiny float16 gradients flushed "
            "to zero? On CUDA use an enabled torch.amp.GradScaler and scaler.scale(loss)"
            ".backward()",
            rtol=2e-2,
            atol=2e-2 * expected_change.abs().max().item(),
        )


# ---------------------------------------------------------------- facets


def step_inputs(device):
    model = nn.Linear(3, 2).to(device)
    optimizer = sgd_in_groups(model, lr=0.1)  # the weight, then the bias: two groups
    x = torch.randn(8, 3, device=device, requires_grad=True)
    y = torch.randn(8, 2, device=device)
    scaler = torch.amp.GradScaler(device.type if device.type == "cuda" else "cpu", enabled=False)
    return facets.args(model, x, y, F.mse_loss, optimizer, scaler)


def clipped_step_inputs(device):
    return facets.args(*step_inputs(device).args, max_grad_norm=1.0)


def large_gradient_step_inputs(device):
    model, x, y, *rest = step_inputs(device).args
    return facets.args(model, x, 100 * y, *rest)


FACETS = facets.declare(
    facets.none(
        amp_dtype,
        "a dtype chosen by device type and, on CUDA, the GPU's bfloat16 support: its own "
        "tests cover both kinds of GPU",
    ),
    facets.none(make_grad_scaler, "a GradScaler's settings: its own tests cover them"),
    facets.of(
        amp_train_step,
        facets.NoGraph(step_inputs, state=lambda arguments, result: result),
        facets.Returns(step_inputs),
        facets.UpdatesAll(
            step_inputs, params=lambda arguments: list(arguments.args[0].parameters())
        ),
        facets.FreshGrads(
            step_inputs, params=lambda arguments: list(arguments.args[0].parameters())
        ),
        # A training step's backward may fill the inputs' .grad: the contract leaves it open.
        facets.Unmodified(step_inputs, inputs=lambda arguments: arguments.args[1:3], grads=False),
        facets.Setting(clipped_step_inputs, "max_grad_norm", low=0, low_open=True),
        # Large gradients, so a default that clipped (1.0, say) would show in the weights.
        facets.Defaults(
            large_gradient_step_inputs,
            values={"max_grad_norm": None},
            key=lambda arguments, loss: list(arguments.args[0].parameters()),
        ),
        # The step runs each submodule in the caller's mode (no model.train(), even undone).
        facets.ForwardModes(
            step_inputs, module=lambda arguments: arguments.args[0], grad=True, calls=1
        ),
        facets.Propagates(lambda device, fault: step_inputs(device).at(3, fault)),
        # loss_fn once, under autocast: the loss scaled and backpropagated is the one returned.
        facets.Runs(lambda device, wrap: step_inputs(device).through(3, wrap), times=lambda a: 1),
    ),
)
test_facets = FACETS.test
