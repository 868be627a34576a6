import copy
from contextlib import contextmanager

import pytest
import torch
from torch import nn

from katas.q08_no_grad_detach import ema_update_, evaluate, round_ste
from torch_katas.testing import check_tensor, skip_without_float64


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
    torch.testing.assert_close(
        out,
        expected,
        msg=lambda m: f"the output differs from the model in eval mode; call model.eval()\n{m}",
    )


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
        torch.testing.assert_close(
            t.detach(),
            decay * t0 + (1 - decay) * s.detach(),
            msg=lambda m, name=name: (
                f"{name}: expected decay * target + (1 - decay) * source with decay={decay}\n{m}"
            ),
        )


def test_ema_updates_in_place_and_records_nothing(device):
    target, source = small_net(device), small_net(device)
    params = list(target.parameters())
    pointers = [p.data_ptr() for p in params]
    optimizer = torch.optim.SGD(target.parameters(), lr=0.1)
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
        assert p.grad is None, "target's .grad was written"
    assert not saved, f"autograd saved {len(saved)} tensors; do the update under torch.no_grad()"
    for p, g, v in zip(source.parameters(), source_grads, source_values, strict=True):
        assert torch.equal(p.grad, g) and torch.equal(p.detach(), v), "source must not change"
    assert optimizer.param_groups[0]["params"][0] is target[0].weight


def test_ema_leaves_buffers_and_frozen_flags_alone(device):
    target, source = small_net(device), small_net(device)
    target.requires_grad_(False)  # a frozen EMA copy is common
    buffers = {name: b.clone() for name, b in target.named_buffers()}
    ema_update_(target, source, 0.9)
    for name, b in target.named_buffers():
        assert torch.equal(b, buffers[name]), (
            f"buffer {name} changed; the EMA here is over parameters() only"
        )
    assert not any(p.requires_grad for p in target.parameters()), "requires_grad was changed"


@pytest.mark.parametrize("decay", [-0.1, 1.5])
def test_ema_rejects_a_decay_outside_0_1(device, decay):
    with pytest.raises(ValueError):
        ema_update_(small_net(device), small_net(device), decay)


def test_ema_rejects_modules_that_do_not_match(device):
    with pytest.raises(ValueError):
        ema_update_(nn.Linear(4, 3).to(device), nn.Linear(4, 2).to(device), 0.9)
    with pytest.raises(ValueError):
        ema_update_(nn.Linear(4, 3).to(device), nn.Linear(4, 3, bias=False).to(device), 0.9)


# ---- round_ste --------------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
def test_round_ste_rounds_half_to_even(device, dtype):
    if dtype == torch.float64:
        skip_without_float64(device)
    x = torch.tensor(
        [-2.5, -1.5, -0.7, -0.5, -0.2, 0.0, 0.4999, 0.5, 1.5, 2.5, 3.2, 1e6 + 0.7],
        dtype=dtype,
        device=device,
    )
    y = round_ste(x)
    check_tensor(y, shape=x.shape, dtype=dtype, device=device, name="round_ste(x)")
    torch.testing.assert_close(y, torch.round(x), atol=0, rtol=0)


def test_round_ste_gradient_is_exactly_one(device):
    x = (4 * torch.randn(3, 5, device=device)).requires_grad_()
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
    torch.testing.assert_close(grad, expected, msg=lambda m: f"gradient not passed through\n{m}")


def test_round_ste_without_grad_and_inputs_unchanged(device):
    x = torch.randn(4, device=device) * 3
    before = x.clone()
    y = round_ste(x)
    assert not y.requires_grad, "round_ste of a tensor without grad must not require grad"
    assert torch.equal(x, before), "x was modified"
    z = round_ste(torch.empty(0, 2, device=device))
    check_tensor(z, shape=(0, 2), dtype=torch.float32, device=device, name="round_ste(empty)")
