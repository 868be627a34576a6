import copy
import functools
import math
import weakref

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from katas.q36_grad_accumulation import train_accumulated
from torch_katas import facets
from torch_katas.testing import (
    assert_close,
    collect_garbage,
    marked_graph,
    raises,
    skip_unless_supported,
)


def regression_setup(device, sizes, classes=None, scale=1.0):
    out = classes or 2
    model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, out)).to(device)
    batches = []
    for n in sizes:
        x = torch.randn(n, 3, device=device)
        y = (
            torch.randint(0, classes, (n,), device=device)
            if classes
            else scale * torch.randn(n, 2, device=device)
        )
        batches.append((x, y))
    return model, batches


def make_sgd(model):
    # Momentum and weight decay make every step count: a missing or extra step shows.
    return torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.9, weight_decay=0.01)


def big_batch_training(model, batches, accum_steps, loss_fn=F.mse_loss, optimizer=None):
    """The oracle: one ordinary step per group, on the group concatenated."""
    optimizer = optimizer or make_sgd(model)
    losses = []
    for start in range(0, len(batches), accum_steps):
        group = batches[start : start + accum_steps]
        inputs = torch.cat([x for x, _ in group])
        targets = torch.cat([y for _, y in group])
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def assert_same_parameters(model, expected_model, advice):
    for (name, p), q in zip(model.named_parameters(), expected_model.parameters(), strict=True):
        assert_close(
            p, q, f"{name} differs from big-batch training: {advice}", rtol=1e-5, atol=1e-5
        )


class Saved:
    """What autograd keeps for backward, wrapped so the wrapper lives exactly as long as the
    graph holds it (whatever else refers to the tensor itself)."""

    def __init__(self, tensor):
        self.tensor = tensor


def test_frees_each_graph_before_the_next_forward(device):
    model, batches = regression_setup(device, [3, 2, 4, 1, 5])
    kept = []  # (micro-batch number, weak reference to what its graph saved)
    alive_before_forward = []

    def pack(tensor):
        saved = Saved(tensor)
        kept.append((len(alive_before_forward), weakref.ref(saved)))
        return saved

    def before_forward(module, args):
        alive_before_forward.append(sorted({n for n, ref in kept if ref() is not None}))

    model.register_forward_pre_hook(before_forward)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda saved: saved.tensor):
        train_accumulated(model, batches, make_sgd(model), 2)
    assert kept, "the micro-batches' forward passes should build graphs"
    alive = [(i, n) for i, earlier in enumerate(alive_before_forward) for n in earlier]
    assert not alive, (
        "when a micro-batch went forward, the graphs of earlier micro-batches were still "
        f"alive ((forward, graph of micro-batch) = {alive}): call backward without "
        "retain_graph=True, and keep only detached losses (loss.detach() or loss.item()), "
        "so that each graph is freed before the next forward"
    )


def test_no_earlier_micro_batch_keeps_its_graph(device):
    # Backward frees a graph's saved tensors, not its nodes: a running loss summed without
    # detach keeps every node of its group alive. Each output's node holds a marker; when a
    # micro-batch goes forward, only the previous one's may still be alive (the variable that
    # held its loss is rebound after the forward).
    model, batches = regression_setup(device, [3, 2, 4, 1, 5, 2, 3])
    markers, alive = [], []

    def before_forward(module, args):
        if any(marker() is not None for marker in markers[:-1]):
            collect_garbage()
        alive.extend((len(markers), n) for n, m in enumerate(markers[:-1]) if m() is not None)

    def mark_output(module, args, output):
        output, marker = marked_graph(output)
        markers.append(marker)
        return output

    model.register_forward_pre_hook(before_forward)
    model.register_forward_hook(mark_output)
    train_accumulated(model, batches, make_sgd(model), 3)
    assert markers, "the micro-batches should go through the model"
    assert not alive, (
        "when a micro-batch went forward, the graphs of earlier micro-batches (not only the "
        f"previous one) were still alive ((forward, graph of micro-batch) = {alive}): keep only "
        "detached losses (loss.detach() or loss.item()) for the group's total"
    )


@pytest.mark.parametrize(
    "sizes, accum_steps, scale",
    [
        ([4] * 6, 3, 1.0),
        ([4] * 7, 3, 1.0),
        ([5, 3, 2, 4, 1], 2, 1.0),
        ([6, 6, 6, 2], 2, 1.0),
        ([4, 4, 4], 1, 1.0),
        ([4, 4, 4], 10, 1.0),
        # Targets far from the outputs: gradients of norm in the hundreds, unchanged too.
        ([3, 5, 4], 2, 100.0),
    ],
    ids=[
        "full-groups",
        "remainder-group",
        "uneven-sizes",
        "short-last-batch",
        "k=1",
        "one-group",
        "large-gradients",
    ],
)
def test_equals_one_big_batch_step_per_group(device, sizes, accum_steps, scale):
    model, batches = regression_setup(device, sizes, scale=scale)
    expected_model = copy.deepcopy(model)
    losses = train_accumulated(model, batches, make_sgd(model), accum_steps)
    expected_losses = big_batch_training(expected_model, batches, accum_steps)
    assert isinstance(losses, list) and all(isinstance(v, float) for v in losses), (
        "return a list of Python floats, one per optimizer step"
    )
    assert len(losses) == len(expected_losses), (
        f"{len(losses)} losses for {len(sizes)} micro-batches in groups of {accum_steps}; "
        f"expected {len(expected_losses)} optimizer steps (the last group may be shorter)"
    )
    advice = (
        "weight each micro-batch's mean loss by its share of the group's samples (n_i / N), "
        "step once per group, including a shorter last group, and zero the gradients after "
        "each step"
    )
    assert_same_parameters(model, expected_model, advice)
    assert_close(
        losses,
        expected_losses,
        "the returned losses should be each group's loss as one batch",
        rtol=1e-5,
        atol=1e-6,
    )


def test_float64_losses_keep_their_precision(device):
    # A float64 model's group loss as a Python float to float64's precision, not rounded to
    # float32 on the way (6e-8 off): far tighter than float32's 1e-5, far looser than
    # another order of the weighted sum (the big batch's mean). Groups of 3 + 4 samples:
    # the weights 3/7 and 4/7 are not float32 numbers, so a weight rounded to float32
    # shows in the losses and in the parameters.
    skip_unless_supported(device, torch.float64)
    model, batches = regression_setup(device, [3, 4, 5])
    model = model.double()
    batches = [(x.double(), y.double()) for x, y in batches]
    expected_model = copy.deepcopy(model)
    losses = train_accumulated(model, batches, make_sgd(model), 2)
    expected = big_batch_training(expected_model, batches, 2)
    assert losses == pytest.approx(expected, rel=2.0**-40), (
        f"float64 group losses {losses} should be {expected} to float64's precision: "
        "float() of the float64 loss, not of a float32 copy"
    )
    for (name, p), q in zip(model.named_parameters(), expected_model.parameters(), strict=True):
        assert_close(
            p,
            q,
            f"float64 {name} differs from big-batch training beyond float64's rounding: "
            "weight each loss by n_i / N in float64 (a Python float), not a float32 tensor",
            rtol=1e-12,
            atol=1e-12,
        )


def test_classification_with_cross_entropy(device):
    model, batches = regression_setup(device, [3, 5, 4, 2, 6], classes=4)
    expected_model = copy.deepcopy(model)
    losses = train_accumulated(model, batches, make_sgd(model), 3, loss_fn=F.cross_entropy)
    expected = big_batch_training(expected_model, batches, 3, loss_fn=F.cross_entropy)
    assert_same_parameters(model, expected_model, "use the loss_fn you are given")
    assert_close(losses, expected, "return each group's loss_fn loss", rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("stale", [100.0, math.nan, -math.inf])
def test_discards_gradients_from_before_the_call(device, stale):
    model, batches = regression_setup(device, [4, 4, 4, 4])
    expected_model = copy.deepcopy(model)
    give_stale_gradients(model, stale)
    train_accumulated(model, batches, make_sgd(model), 2)
    big_batch_training(expected_model, batches, 2)
    assert_same_parameters(model, expected_model, "zero the gradients before the first group")


@pytest.mark.parametrize("count, accum_steps", [(7, 3), (6, 3), (2, 5)])
def test_steps_once_per_group(device, count, accum_steps):
    model, batches = regression_setup(device, [2] * count)
    optimizer = make_sgd(model)
    steps = []
    optimizer.register_step_post_hook(lambda *args: steps.append(1))
    train_accumulated(model, batches, optimizer, accum_steps)
    expected = math.ceil(count / accum_steps)
    assert len(steps) == expected, (
        f"{len(steps)} optimizer steps for {count} micro-batches with accum_steps="
        f"{accum_steps}; expected {expected}: one per group, the last group too"
    )


@pytest.mark.parametrize("bad", [math.inf, math.nan], ids=["inf", "nan"])
def test_steps_also_when_a_loss_is_not_finite(device, bad):
    # Skipping a step on non-finite gradients (as GradScaler does) is the caller's choice;
    # here every group takes its step, as big-batch training would.
    model, batches = regression_setup(device, [2, 3, 2, 2])
    batches[2][1][0, 0] = bad  # one target of the second group
    expected_model = copy.deepcopy(model)
    optimizer = make_sgd(model)
    steps = []
    optimizer.register_step_post_hook(lambda *args: steps.append(1))
    losses = train_accumulated(model, batches, optimizer, 2)
    expected_losses = big_batch_training(expected_model, batches, 2)
    assert len(steps) == 2, (
        f"{len(steps)} optimizer steps for 2 groups, one of them with a {bad} loss: call "
        "optimizer.step() once for every group, whatever its gradients hold"
    )
    for (name, p), q in zip(model.named_parameters(), expected_model.parameters(), strict=True):
        assert_close(
            p, q, f"{name} differs from big-batch training", rtol=1e-5, atol=1e-5, equal_nan=True
        )
    assert_close(losses, expected_losses, "each group's loss, as it is", equal_nan=True)


# Any callable of (outputs, targets) that returns the mean loss: a module, a lambda, a partial.
LOSS_FNS = {
    "nn.MSELoss()": nn.MSELoss(),
    "lambda": lambda outputs, targets: (outputs - targets).abs().mean(),
    "partial": functools.partial(F.smooth_l1_loss, beta=0.5),
}


@pytest.mark.parametrize("loss_fn", LOSS_FNS)
def test_calls_loss_fn_with_outputs_and_targets_only(device, loss_fn):
    model, batches = regression_setup(device, [3, 5, 2, 4, 1])
    expected_model = copy.deepcopy(model)
    losses = train_accumulated(model, batches, make_sgd(model), 2, loss_fn=LOSS_FNS[loss_fn])
    expected = big_batch_training(expected_model, batches, 2, loss_fn=LOSS_FNS[loss_fn])
    assert_same_parameters(
        model, expected_model, f"call loss_fn(outputs, targets) as given ({loss_fn} here)"
    )
    assert_close(losses, expected, "return each group's loss_fn loss", rtol=1e-5, atol=1e-6)


def test_each_micro_batch_goes_forward_on_its_own(device):
    # Where the gradients wait between backward and step is the answer's choice (.grad, or
    # tensors of its own from torch.autograd.grad), and so is when a group's are cleared
    # (after the step, or just before the group's first backward): that each graph is freed
    # before the next forward is test_frees_each_graph_before_the_next_forward's to check.
    model, batches = regression_setup(device, [3, 2, 4, 1, 5])
    seen = []

    def before_forward(module, args):
        seen.append(args[0].shape[0])

    model.register_forward_pre_hook(before_forward)
    train_accumulated(model, batches, make_sgd(model), 2)
    assert seen == [3, 2, 4, 1, 5], (
        f"the model saw batches of sizes {seen}; run every micro-batch "
        "through the model on its own, once (do not concatenate a group)"
    )


def give_stale_gradients(model, value=100.0):
    for p in model.parameters():
        p.grad = torch.full_like(p, value)  # left over from some earlier work


@pytest.mark.parametrize("accum_steps", [0, -1, 0.5])
@pytest.mark.parametrize("sizes", [[2, 2], []], ids=["batches", "no-batches"])
def test_rejects_accum_steps_below_one_before_changing_anything(device, accum_steps, sizes):
    model, batches = regression_setup(device, sizes)
    give_stale_gradients(model)
    with raises(ValueError):
        train_accumulated(model, batches, make_sgd(model), accum_steps)
    for name, p in model.named_parameters():
        assert p.grad is not None and bool((p.grad == 100.0).all()), (
            f"{name}.grad changed although accum_steps={accum_steps} was refused: check the "
            "arguments first, before zeroing gradients or running the model"
        )


@pytest.mark.parametrize("stale", [False, True], ids=["no-grad", "stale-grad"])
def test_a_layer_the_caller_froze_stays_frozen(device, stale):
    # Fine-tuning: the first layer frozen (requires_grad=False), the optimizer over all
    # parameters, as big-batch training runs it: the frozen layer gets no gradient and
    # does not move (momentum and weight decay would move it). stale: every parameter,
    # the frozen ones too, holds a .grad from work before it was frozen; a zeroed .grad
    # (zero_grad(set_to_none=False)) is still a gradient the optimizer steps with.
    model, batches = regression_setup(device, [3, 2, 4, 1, 5])
    model[0].requires_grad_(False)
    expected_model = copy.deepcopy(model)
    if stale:
        give_stale_gradients(model)
    losses = train_accumulated(model, batches, make_sgd(model), 2)
    expected_losses = big_batch_training(expected_model, batches, 2)
    flags = {name: p.requires_grad for name, p in model.named_parameters()}
    assert flags == {name: not name.startswith("0.") for name in flags}, (
        f"requires_grad of the parameters after the call: {flags}; the caller froze layer 0: "
        "leave requires_grad as the caller set it"
    )
    assert_same_parameters(model, expected_model, "a frozen layer gets no gradient")
    assert_close(losses, expected_losses, "each group's loss", rtol=1e-5, atol=1e-6)


def test_a_second_call_goes_on_with_the_optimizers_state(device):
    # Two passes with one optimizer (two epochs): the second goes on from the momentum the
    # first left, as big-batch training with one optimizer over both passes does; the
    # optimizer's state is the caller's, neither cleared nor replaced.
    model, batches = regression_setup(device, [3, 2, 4, 1, 5])
    expected_model = copy.deepcopy(model)
    optimizer = make_sgd(model)
    losses = [train_accumulated(model, batches, optimizer, 2) for _ in range(2)]
    expected_optimizer = make_sgd(expected_model)
    expected_losses = [
        big_batch_training(expected_model, batches, 2, optimizer=expected_optimizer)
        for _ in range(2)
    ]
    assert_same_parameters(
        model, expected_model, "the second pass steps with the momentum the first one left"
    )
    assert_close(losses, expected_losses, "each group's loss", rtol=1e-5, atol=1e-6)


def test_no_batches_no_step(device):
    model, _ = regression_setup(device, [])
    before = [p.detach().clone() for p in model.parameters()]
    losses = train_accumulated(model, [], make_sgd(model), 3)
    assert losses == [], "no micro-batches: no steps and no losses"
    for p, b in zip(model.parameters(), before, strict=True):
        assert torch.equal(p.detach(), b), "no micro-batches: the parameters must not change"


@pytest.mark.parametrize("stale", [100.0, math.nan])
def test_no_batches_still_discards_old_gradients(device, stale):
    model, _ = regression_setup(device, [])
    give_stale_gradients(model, stale)
    optimizer = make_sgd(model)
    steps = []
    optimizer.register_step_post_hook(lambda *args: steps.append(1))
    losses = train_accumulated(model, [], optimizer, 2)
    assert losses == [] and not steps, "no micro-batches: no steps and no losses"
    for name, p in model.named_parameters():
        assert p.grad is None or not p.grad.any(), (
            f"{name}.grad still holds gradients from before the call: discard them "
            "(optimizer.zero_grad()) even when there are no micro-batches"
        )


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("sizes", [[3, 2, 4], []], ids=["batches", "no-batches"])
def test_leaves_the_models_mode_as_it_was(device, training, sizes):
    model, batches = regression_setup(device, sizes)
    model.train(training)
    model[1].train(not training)  # one submodule in the other mode
    train_accumulated(model, batches, make_sgd(model), 2)
    modes = [module.training for module in model.modules()]
    expected = [training, training, not training, training]
    assert modes == expected, (
        f"the modules' training flags were {expected} before the call and {modes} after: "
        "train in the mode the caller chose, without calling model.train() or model.eval()"
    )


@pytest.mark.parametrize("mode", ["train", "eval", "mixed"])
def test_runs_the_model_in_the_mode_it_was_left_in(device, mode):
    # Each forward runs in the caller's modes (dropout off in eval), not in modes set for
    # the call and put back afterwards.
    model, batches = regression_setup(device, [3, 2, 4])
    model.train(mode != "eval")
    if mode == "mixed":
        model[1].eval()
    flags = {name: module.training for name, module in model.named_modules()}
    seen = []
    for name, module in model.named_modules():
        module.register_forward_pre_hook(
            lambda module, args, name=name: seen.append((name, module.training))
        )
    train_accumulated(model, batches, make_sgd(model), 2)
    changed = sorted({name or "the model" for name, training in seen if training != flags[name]})
    assert seen and not changed, (
        f"{changed} ran forward in another mode than the caller left ({mode}): train in the "
        "mode the caller chose, without calling model.train() or model.eval()"
    )


# ---------------------------------------------------------------- facets


def micro_batches(device, accum_steps=2):
    model = nn.Linear(3, 2).to(device)
    batches = [
        (torch.randn(n, 3, device=device), torch.randn(n, 2, device=device)) for n in (2, 3, 1)
    ]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    return facets.args(model, batches, optimizer, accum_steps=accum_steps)


FACETS = facets.declare(
    facets.of(
        train_accumulated,
        facets.Setting(micro_batches, "accum_steps", low=1, integer=True),
        facets.ForwardModes(
            micro_batches,
            module=lambda arguments: arguments.args[0],
            grad=True,
            calls=lambda arguments: len(arguments.args[1]),  # once per micro-batch
        ),
        facets.Propagates(lambda device, fault: micro_batches(device).replace(loss_fn=fault)),
        # loss_fn once per micro-batch: the losses backpropagated are the ones returned.
        facets.Runs(
            lambda device, wrap: micro_batches(device).replace(loss_fn=wrap(F.mse_loss)),
            times=lambda arguments: len(arguments.args[1]),
        ),
        facets.UpdatesAll(  # loss_fn given: the facet watches the order of its arguments
            lambda device: micro_batches(device).replace(loss_fn=F.mse_loss),
            params=lambda arguments: list(arguments.args[0].parameters()),
        ),
        # The caller's data is read only: the list and its tensors (requires_grad included).
        facets.Unmodified(micro_batches, inputs=lambda arguments: arguments.args[1]),
        facets.FreshGrads(
            micro_batches, params=lambda arguments: list(arguments.args[0].parameters())
        ),
        facets.Defaults(
            micro_batches,
            values={"loss_fn": F.mse_loss},
            key=lambda arguments, losses: (losses, list(arguments.args[0].parameters())),
        ),
    ),
)
test_facets = FACETS.test
