import copy
import math
import weakref

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from katas.q24_train_epoch import train_epoch
from torch_katas import facets
from torch_katas.testing import (
    assert_close,
    collect_garbage,
    marked_graph,
    raises,
    same_device,
    skip_unless_supported,
)


class Probe(nn.Module):
    """Passes its input through and notes, at every forward, the mode and the input's device."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def forward(self, x):
        self.seen.append((self.training, x.device))
        return x


def make_model(device, outputs):
    # Batch norm behaves differently in train and eval mode, so the mode shows in the results.
    return nn.Sequential(
        Probe(), nn.Linear(3, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, outputs)
    ).to(device)


def regression_data(samples=10, batch_size=4):
    """CPU tensors, as a DataLoader usually yields them; 10 samples: batches of 4, 4 and 2."""
    inputs = torch.randn(samples, 3)
    targets = torch.randn(samples, 2) * 3 + torch.arange(samples).unsqueeze(1)
    return DataLoader(TensorDataset(inputs, targets), batch_size=batch_size)


def classification_data(samples=10, batch_size=4):
    inputs = torch.randn(samples, 3)
    return DataLoader(TensorDataset(inputs, torch.randint(0, 4, (samples,))), batch_size=batch_size)


def squared_error_per_sample(outputs, targets):
    return ((outputs - targets) ** 2).mean(dim=1)


def cross_entropy_per_sample(outputs, targets):
    return F.cross_entropy(outputs, targets, reduction="none")


SETUPS = {
    "regression, SGD with momentum": (
        2, regression_data, nn.MSELoss(), squared_error_per_sample,
        lambda params: torch.optim.SGD(params, lr=0.05, momentum=0.9),
    ),
    "classification, Adam": (
        4, classification_data, nn.CrossEntropyLoss(), cross_entropy_per_sample,
        lambda params: torch.optim.Adam(params, lr=0.01),
    ),
}  # fmt: skip


def epoch_by_hand(model, loader, per_sample_loss, optimizer, device):
    """The epoch written out: losses per sample, summed over the whole epoch."""
    model.train()
    total, count = 0.0, 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        losses = per_sample_loss(model(inputs), targets)
        losses.mean().backward()
        optimizer.step()
        total, count = total + losses.sum().item(), count + len(losses)
    return total / count


def check_same_training(device, setup, prepare=lambda model: None):
    outputs, data, loss_fn, per_sample_loss, make_optimizer = SETUPS[setup]
    model = make_model(device, outputs)
    prepare(model)
    expected_model = copy.deepcopy(model)
    loader = data()
    loss = train_epoch(model, loader, loss_fn, make_optimizer(model.parameters()), device)
    optimizer = make_optimizer(expected_model.parameters())
    expected_loss = epoch_by_hand(expected_model, loader, per_sample_loss, optimizer, device)
    assert_close(
        model.state_dict(),
        expected_model.state_dict(),
        "after one epoch the model differs from the five-step loop (zero_grad, forward, "
        "loss, backward, step for every batch, in training mode)",
    )
    return loss, expected_loss


@pytest.mark.parametrize("setup", list(SETUPS))
def test_trains_like_the_five_step_loop_and_returns_the_mean_loss_per_sample(device, setup):
    loss, expected = check_same_training(device, setup)
    assert isinstance(loss, float), (
        f"return a Python float (loss.item()), got {type(loss).__name__}"
    )
    assert loss == pytest.approx(expected, rel=1e-5), (
        f"the epoch's mean loss per sample is {expected:.6f}, got {loss:.6f}; weight each batch's "
        "mean loss by its number of samples (the last batch is shorter), then divide by the total"
    )


LOADERS = {
    "drop_last": lambda data: DataLoader(data, batch_size=4, drop_last=True),
    "sampler over part of the data": lambda data: DataLoader(
        data, batch_size=2, sampler=[0, 3, 4, 7, 8, 9]
    ),
    "generator": lambda data: ((x, y) for x, y in DataLoader(data, batch_size=4)),
}


@pytest.mark.parametrize("loader", list(LOADERS))
def test_loaders_that_yield_part_of_the_dataset_or_iterate_once(device, loader):
    data = regression_data().dataset  # 10 samples
    model = make_model(device, 2)
    expected_model = copy.deepcopy(model)

    def optimizer(m):
        return torch.optim.SGD(m.parameters(), lr=0.05)

    loss = train_epoch(model, LOADERS[loader](data), nn.MSELoss(), optimizer(model), device)
    expected = epoch_by_hand(
        expected_model, LOADERS[loader](data), squared_error_per_sample, optimizer(expected_model),
        device,
    )  # fmt: skip
    assert_close(
        model.state_dict(),
        expected_model.state_dict(),
        f"with a {loader} loader the model differs from the five-step loop over the batches "
        "it yields; iterate the loader once",
    )
    assert loss == pytest.approx(expected, rel=1e-5), (
        f"with a {loader} loader the mean loss per sample is {expected:.6f}, got {loss:.6f}; "
        "divide by the number of samples the loader yielded, not by len(loader.dataset)"
    )


class _Marked(nn.Module):
    """The model's last layer: its output's graph node holds a new marker at every forward,
    so whatever keeps the outputs or the loss (whose graph holds them) keeps the marker."""

    def __init__(self, markers):
        super().__init__()
        self.markers = markers

    def forward(self, x):
        x, marker = marked_graph(x)
        self.markers.append(marker)
        return x


def test_no_batch_keeps_its_graph_alive(device):
    # Markers in the graph of the model's outputs and in the graph of the loss: an answer
    # that drops the model's marked output (a hook that hands a layer's input on) still
    # keeps the loss's.
    markers, loss_markers, kept = [], [], []

    def watched_mse(outputs, targets):
        # By now the graph of every batch but this one and the previous one must be gone.
        for batch, marker in [*enumerate(markers[:-2]), *enumerate(loss_markers[:-1])]:
            if marker() is not None:
                collect_garbage()
            if marker() is not None and batch not in kept:
                kept.append(batch)
        loss, marker = marked_graph(F.mse_loss(outputs, targets))
        loss_markers.append(marker)
        return loss

    model = nn.Sequential(make_model(device, 2), _Marked(markers))
    train_epoch(
        model, regression_data(), watched_mse, torch.optim.SGD(model.parameters(), lr=0.05), device
    )
    collect_garbage()
    kept += [batch for batch, marker in enumerate(markers) if marker() is not None]
    kept += [batch for batch, marker in enumerate(loss_markers) if marker() is not None]
    assert len(markers) == 3 and not kept, (
        f"the graphs of batches {sorted(set(kept))} were still alive later: keep each batch's "
        "loss as a number (loss.item()) and nothing that holds its graph (the outputs, the "
        "loss tensor) past its step"
    )


class _Saved:
    """A tensor autograd saved for backward, as the test's pack hook wraps it: it lives as long
    as the graph holds it. Backward frees it; backward(retain_graph=True) keeps it."""

    def __init__(self, tensor):
        self.tensor = tensor


def test_backward_frees_what_each_batch_saved(device):
    # The graph's nodes may live until the next batch's loss replaces the last one, but not
    # the activations they saved for backward: with retain_graph=True every batch's saved
    # tensors stay through the next batch's forward (twice the memory, for nothing).
    losses, saved, kept = [], [], []

    def pack(tensor):
        packed = _Saved(tensor)
        saved.append((len(losses), weakref.ref(packed)))  # saved during batch len(losses)
        return packed

    def watched_mse(outputs, targets):
        # Every batch before this one has had its backward: what it saved is freed.
        for batch, packed in saved:
            if batch < len(losses) and packed() is not None:
                collect_garbage()
            if batch < len(losses) and packed() is not None and batch not in kept:
                kept.append(batch)
        loss = F.mse_loss(outputs, targets)
        losses.append(loss.detach())
        return loss

    model = make_model(device, 2)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda packed: packed.tensor):
        train_epoch(
            model,
            regression_data(),
            watched_mse,
            torch.optim.SGD(model.parameters(), lr=0.05),
            device,
        )
    assert len(losses) == 3 and saved, "three batches, each saving tensors for backward"
    assert not kept, (
        f"what batches {sorted(kept)} saved for backward was still alive during the next "
        "batch: call loss.backward() as it is (retain_graph=True keeps every saved activation "
        "until the graph itself goes)"
    )


def test_ignores_gradients_left_from_before(device):
    def leave_gradients(model):
        model(torch.randn(5, 3, device=device)).pow(2).sum().mul(100).backward()

    check_same_training(device, "regression, SGD with momentum", prepare=leave_gradients)


def test_a_training_model_with_submodules_in_eval_trains_them_all(device):
    # model.train() sets every submodule's mode: a root already in training mode may hold
    # submodules in eval (left by an earlier evaluation of a part), and they train too.
    outputs, data, loss_fn, _, make_optimizer = SETUPS["regression, SGD with momentum"]
    model = make_model(device, outputs)
    model[0].eval()
    model[2].eval()
    train_epoch(model, data(), loss_fn, make_optimizer(model.parameters()), device)
    assert model[0].seen and all(training for training, _ in model[0].seen), (
        "a submodule in eval mode inside a model in training mode ran in eval mode: call "
        "model.train() whatever model.training says (it sets every submodule's mode)"
    )


@pytest.mark.parametrize("setup", list(SETUPS))
def test_switches_to_training_mode(device, setup):
    outputs, data, loss_fn, _, make_optimizer = SETUPS[setup]
    model = make_model(device, outputs).eval()
    train_epoch(model, data(), loss_fn, make_optimizer(model.parameters()), device)
    probe = model[0]
    assert probe.seen and all(training for training, _ in probe.seen), (
        "the forward passes ran in eval mode; call model.train() before the loop (the model "
        "may arrive in eval mode)"
    )
    assert model.training, "the model should be left in training mode"


def test_moves_each_batch_to_the_device(device):
    outputs, data, loss_fn, _, make_optimizer = SETUPS["classification, Adam"]
    model = make_model(device, outputs)
    train_epoch(model, data(), loss_fn, make_optimizer(model.parameters()), device)
    seen = [seen_device for _, seen_device in model[0].seen]
    assert seen and all(same_device(seen_device, device) for seen_device in seen), (
        f"the model saw inputs on {sorted(set(map(str, seen)))}; move inputs and targets "
        f"to `device` ({device})"
    )


def test_rejects_an_empty_loader(device):
    model = make_model(device, 2)
    dataset = TensorDataset(torch.randn(0, 3), torch.randn(0, 2))
    empties = {
        "an empty DataLoader": lambda: DataLoader(dataset, batch_size=4),
        "an empty generator": lambda: (batch for batch in DataLoader(dataset, batch_size=4)),
        "an empty list": list,
    }
    for empty in empties.values():
        with raises(ValueError):
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            train_epoch(model, empty(), nn.MSELoss(), optimizer, device)


def test_rejects_a_loader_of_empty_batches_only(device):
    # No sample at all: the mean per sample is 0 / 0, whatever number of batches gave it.
    model = nn.Linear(3, 2).to(device)
    batches = [(torch.randn(0, 3), torch.randn(0, 2))] * 2
    with raises(ValueError):
        train_epoch(
            model, batches, nn.MSELoss(), torch.optim.SGD(model.parameters(), lr=0.1), device
        )


def test_a_batch_counts_its_inputs_as_samples(device):
    # Each sample has several targets, as many as its batch's length T: [B, T] batches with T
    # varying between batches. The batch's samples are inputs.shape[0], not its targets.
    batches = [(torch.randn(4, 3), torch.randn(4, 5)), (torch.randn(2, 3), torch.randn(2, 1))]
    batches.append((torch.randn(3, 3), torch.randn(3, 2)))
    model = nn.Linear(3, 1).to(device)
    expected_model = copy.deepcopy(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    # One output per sample, compared with each of its targets.
    loss = train_epoch(model, batches, lambda out, y: ((out - y) ** 2).mean(), optimizer, device)
    expected = epoch_by_hand(
        expected_model, batches, lambda outputs, targets: ((outputs - targets) ** 2).mean(1),
        torch.optim.SGD(expected_model.parameters(), lr=0.05), device,
    )  # fmt: skip
    assert loss == pytest.approx(expected, rel=1e-5), (
        f"the mean loss per sample is {expected:.6f}, got {loss:.6f}: a batch's number of "
        "samples is inputs.shape[0], however many targets each sample has"
    )


def test_samples_are_inputs_shape_0_when_targets_are_flattened(device):
    # Per-token targets flattened to [B * T] against [B, T] inputs (T varies between batches):
    # len(targets) is B * T, the batch's samples are still B.
    batches = [(torch.randn(b, 3), torch.randn(b * t)) for b, t in [(4, 2), (2, 5), (3, 1)]]
    model = nn.Linear(3, 1).to(device)
    expected_model = copy.deepcopy(model)

    def flat_mse(outputs, targets):  # each sample's output against each of its T targets
        return ((outputs.repeat_interleave(len(targets) // len(outputs)) - targets) ** 2).mean()

    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    loss = train_epoch(model, batches, flat_mse, optimizer, device)
    expected = epoch_by_hand(
        expected_model, batches,
        lambda outputs, targets: ((outputs - targets.reshape(len(outputs), -1)) ** 2).mean(1),
        torch.optim.SGD(expected_model.parameters(), lr=0.05), device,
    )  # fmt: skip
    assert loss == pytest.approx(expected, rel=1e-5), (
        f"the mean loss per sample is {expected:.6f}, got {loss:.6f}: a batch's number of "
        "samples is inputs.shape[0], not len(targets)"
    )


def test_a_batch_of_no_samples_gets_its_step(device):
    model = nn.Linear(3, 2).to(device)
    sizes = [4, 0, 2]
    batches = [(torch.randn(n, 3), torch.randn(n, 2)) for n in sizes]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    steps = []
    optimizer.register_step_post_hook(lambda *_: steps.append(1))
    loss = train_epoch(model, batches, nn.MSELoss(), optimizer, device)
    assert len(steps) == 3, (
        f"{len(steps)} optimizer steps for batches of {sizes} samples: every batch gets its "
        "step, one of 0 samples too"
    )
    # Its loss (a mean over nothing) is nan: left out of the mean, or counted as nan * 0.
    assert math.isnan(loss) or math.isfinite(loss)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_the_mean_of_a_half_precision_model_is_summed_as_numbers(device, dtype):
    skip_unless_supported(device, dtype)
    # Losses near 1e4, where bfloat16 steps by 64 and float16 by 8: summed in the loss's
    # dtype, the epoch's total rounds at every batch.
    batches = [
        (torch.randn(n, 3, dtype=dtype), torch.full((n, 1), 100.0 + k, dtype=dtype))
        for k, n in enumerate([3, 5, 2, 7, 4])
    ]
    model = nn.Linear(3, 1).to(device, dtype)
    expected_model = copy.deepcopy(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-5)
    loss = train_epoch(model, batches, nn.MSELoss(), optimizer, device)
    expected_optimizer = torch.optim.SGD(expected_model.parameters(), lr=1e-5)
    total = count = 0
    for inputs, targets in batches:
        inputs, targets = inputs.to(device), targets.to(device)
        expected_optimizer.zero_grad()
        batch_loss = nn.MSELoss()(expected_model(inputs), targets)
        batch_loss.backward()
        expected_optimizer.step()
        total, count = total + batch_loss.item() * len(inputs), count + len(inputs)
    assert loss == pytest.approx(total / count, rel=1e-6), (
        f"the mean loss per sample is {total / count}, got {loss}: keep each batch's loss as "
        f"a Python number (loss.item()), not a sum of {dtype} tensors"
    )


def token_classifier():
    return nn.Sequential(nn.Embedding(10, 4), nn.Flatten(), nn.Linear(8, 3))


INPUTS = {
    "token ids": (token_classifier, lambda n: torch.randint(0, 10, (n, 2))),
    "float64": (lambda: nn.Linear(3, 3).double(), lambda n: torch.randn(n, 3).double()),
}


@pytest.mark.parametrize("kind", list(INPUTS))
def test_moves_inputs_without_changing_their_dtype(device, kind):
    make, inputs = INPUTS[kind]
    if kind == "float64":
        skip_unless_supported(device, torch.float64)
    model = make().to(device)
    expected_model = copy.deepcopy(model)
    batches = [(inputs(4), torch.randint(0, 3, (4,))), (inputs(2), torch.randint(0, 3, (2,)))]
    loss = train_epoch(
        model, batches, nn.CrossEntropyLoss(), torch.optim.SGD(model.parameters(), lr=0.1), device
    )
    expected = epoch_by_hand(
        expected_model, batches, cross_entropy_per_sample,
        torch.optim.SGD(expected_model.parameters(), lr=0.1), device,
    )  # fmt: skip
    assert_close(
        model.state_dict(),
        expected_model.state_dict(),
        f"with {kind} inputs the model differs from the five-step loop: move inputs to the "
        "device as they are (.to(device)), in their own dtype",
    )
    # A float64 loss is kept to float64's precision (loss.item()), not rounded to float32
    # (6e-8 off): far tighter than float32's 1e-5, far looser than another summation order.
    rel = 2.0**-40 if kind == "float64" else 1e-5
    assert loss == pytest.approx(expected, rel=rel), (
        f"the mean loss of {kind} batches: sum each batch's loss.item() as Python floats"
    )


def test_a_batch_with_a_non_finite_loss_still_gets_its_step(device):
    model = nn.Linear(3, 2).to(device)
    targets = torch.randn(10, 2)
    targets[5] = float("inf")  # the second batch's loss is inf, its gradients inf or nan
    loader = DataLoader(TensorDataset(torch.randn(10, 3), targets), batch_size=4)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    steps = []
    optimizer.register_step_post_hook(lambda *_: steps.append(1))
    loss = train_epoch(model, loader, nn.MSELoss(), optimizer, device)
    assert len(steps) == 3, (
        f"{len(steps)} optimizer steps for 3 batches: every batch gets its step, one whose loss "
        "is not finite too (skipping it hides a diverging run)"
    )
    assert not math.isfinite(loss), f"the epoch had a batch with an infinite loss, got {loss}"


# ---------------------------------------------------------------- facets


def epoch(device):
    model = nn.Linear(3, 2).to(device)
    data = TensorDataset(torch.randn(10, 3), torch.randn(10, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    return facets.args(model, DataLoader(data, batch_size=4), nn.MSELoss(), optimizer, device)


def deep_epoch(device):
    """As epoch, with submodules whose modes the Modes facet sets apart from the model's."""
    model = nn.Sequential(nn.Linear(3, 4), nn.Dropout(0.0), nn.Sequential(nn.Linear(4, 2)))
    model = model.to(device)
    data = TensorDataset(torch.randn(10, 3), torch.randn(10, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    return facets.args(model, DataLoader(data, batch_size=4), nn.MSELoss(), optimizer, device)


def batches_on_the_device(device):
    """As epoch, with the batches already on `device`: .to(device) returns the caller's own
    tensors, so whatever the loop does to them in place shows."""
    model = nn.Linear(3, 2).to(device)
    batches = [
        (torch.randn(4, 3, device=device), torch.randn(4, 2, device=device)) for _ in range(3)
    ]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    return facets.args(model, batches, nn.MSELoss(), optimizer, device)


FACETS = facets.declare(
    facets.of(
        train_epoch,
        facets.Number(epoch, float),
        facets.UpdatesAll(epoch, params=lambda arguments: list(arguments.args[0].parameters())),
        facets.Propagates(lambda device, fault: epoch(device).at(2, fault)),
        # loss_fn once per batch: the loss backpropagated is the one averaged.
        facets.Runs(
            lambda device, wrap: epoch(device).through(2, wrap),
            times=lambda arguments: len(arguments.args[1]),
        ),
        facets.FreshGrads(epoch, params=lambda arguments: list(arguments.args[0].parameters())),
        # "put it in training mode": model.train(), every submodule included.
        facets.Modes(deep_epoch, module=lambda arguments: arguments.args[0], sets=True),
        facets.ForwardModes(
            deep_epoch,
            module=lambda arguments: arguments.args[0],
            runs="train",
            grad=True,
            calls=lambda arguments: len(arguments.args[1]),  # once per batch
        ),
        # The loader's tensors are the caller's data: none changed, none set to require grad.
        facets.Unmodified(batches_on_the_device, inputs=lambda arguments: arguments.args[1]),
    ),
)
test_facets = FACETS.test
