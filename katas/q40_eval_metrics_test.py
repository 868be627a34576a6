import copy
import math

import pytest
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from katas.q40_eval_metrics import confusion_matrix, evaluate, macro_f1
from torch_katas import facets
from torch_katas.testing import (
    assert_close,
    assert_no_python_loops,
    check_tensor,
    default_dtype,
    skip_unless_supported,
)

# Accuracy is a Python float: the count ratio to float64's precision (a few units of it for
# another order of operations), not a float32 ratio widened (0.6 is 0.6000000238 there).
EXACT = 4 * 2.0**-52


def confusion_by_loop(preds, targets, num_classes):
    counts = [[0] * num_classes for _ in range(num_classes)]
    for p, t in zip(preds.tolist(), targets.tolist(), strict=True):
        counts[t][p] += 1
    return counts


def macro_f1_by_loop(counts):
    """Per-class F1 from plain Python counts; classes that never appear are skipped."""
    scores = []
    for c in range(len(counts)):
        tp = counts[c][c]
        fp = sum(counts[r][c] for r in range(len(counts))) - tp
        fn = sum(counts[c]) - tp
        if 2 * tp + fp + fn > 0:
            scores.append(2 * tp / (2 * tp + fp + fn))
    return sum(scores) / len(scores)


def test_rule_no_python_loops(device):
    # Samples and classes grow with n: a loop over either, written as for, map,
    # functools.reduce, recursion, in a helper, or as Python counting values taken out
    # with tolist, shows as more work for more data.
    def labels(n):
        return torch.arange(3 * n, device=device) % n

    assert_no_python_loops(
        confusion_matrix,
        lambda n: (labels(n), labels(n).flip(0), n),
        over="samples and classes",
    )
    assert_no_python_loops(
        macro_f1,
        lambda n: torch.arange(n * n, device=device).reshape(n, n) % 3,
        over="classes",
    )


@pytest.mark.parametrize("samples, classes", [(0, 3), (1, 1), (1, 4), (7, 3), (50, 6)])
def test_confusion_matrix_counts_every_pair(device, samples, classes):
    preds = torch.randint(0, classes, (samples,), device=device)
    targets = torch.randint(0, classes, (samples,), device=device)
    confusion = confusion_matrix(preds, targets, classes)
    check_tensor(
        confusion, shape=(classes, classes), dtype=torch.int64, device=device, name="confusion"
    )
    want = torch.tensor(confusion_by_loop(preds, targets, classes), dtype=torch.int64)
    assert torch.equal(confusion.cpu(), want), (
        f"confusion[t, p] should count samples with target t and prediction p (rows are true "
        f"classes)\nexpected\n{want}\ngot\n{confusion.cpu()}"
    )


def test_confusion_matrix_takes_non_contiguous_inputs_and_leaves_them_alone(device):
    pairs = torch.randint(0, 4, (30, 2), device=device)
    before = pairs.clone()
    preds, targets = pairs[:, 0], pairs[:, 1]  # strided views
    confusion = confusion_matrix(preds, targets, 4)
    assert torch.equal(pairs, before), "preds and targets must not be modified"
    assert torch.equal(confusion.cpu(), torch.tensor(confusion_by_loop(preds, targets, 4))), (
        "wrong counts for non-contiguous (strided) inputs"
    )


@pytest.mark.parametrize("dtype", [torch.int32, torch.int16, torch.uint8], ids=str)
def test_confusion_matrix_of_other_integer_dtypes(device, dtype):
    preds = torch.tensor([0, 2, 2, 1, 0, 1], device=device, dtype=dtype)
    targets = torch.tensor([0, 1, 2, 1, 2, 1], device=device, dtype=dtype)
    confusion = confusion_matrix(preds, targets, 3)
    check_tensor(confusion, shape=(3, 3), dtype=torch.int64, device=device, name="confusion")
    assert confusion.cpu().tolist() == confusion_by_loop(preds.long(), targets.long(), 3), (
        f"wrong counts for {dtype} labels"
    )


@pytest.mark.parametrize("dtype", [torch.int8, torch.uint8, torch.int16], ids=str)
def test_confusion_matrix_counts_past_what_a_narrow_dtype_holds(device, dtype):
    # Enough classes that the flat index t * num_classes + p of the last pair does not fit in
    # the labels' own dtype: it has to be computed in int64.
    num_classes = math.isqrt(torch.iinfo(dtype).max + 1) + 1
    last = num_classes - 1
    preds = torch.tensor([last, 0, last, 1], device=device, dtype=dtype)
    targets = torch.tensor([last, last, 0, 1], device=device, dtype=dtype)
    confusion = confusion_matrix(preds, targets, num_classes)
    check_tensor(confusion, shape=(num_classes,) * 2, dtype=torch.int64, device=device)
    assert confusion.cpu().tolist() == confusion_by_loop(
        preds.long(), targets.long(), num_classes
    ), (
        f"wrong counts for {dtype} labels with {num_classes} classes: "
        f"{last} * {num_classes} + {last} does not fit in {dtype}; convert to int64 first"
    )


@pytest.mark.parametrize("dtype", [torch.int8, torch.uint8], ids=str)
def test_confusion_matrix_with_more_classes_than_the_labels_dtype_holds(device, dtype):
    # num_classes past the labels' dtype: a label compared with it in the labels' own dtype
    # meets it wrapped around (uint8: 300 is 44, int8: 172 is -84), so valid labels look out
    # of range; compare in int64.
    top = torch.iinfo(dtype).max
    num_classes = top + 45
    preds = torch.tensor([top, 0, 3, top], device=device, dtype=dtype)
    targets = torch.tensor([top, top, 0, 1], device=device, dtype=dtype)
    try:
        confusion = confusion_matrix(preds, targets, num_classes)
    except ValueError as error:
        raise AssertionError(
            f"{dtype} labels up to {top} lie in [0, {num_classes}), yet confusion_matrix raised "
            f"({error}): {num_classes} compared with a {dtype} tensor wraps around; convert the "
            "labels to int64 before checking them"
        ) from error
    check_tensor(confusion, shape=(num_classes,) * 2, dtype=torch.int64, device=device)
    assert confusion.cpu().tolist() == confusion_by_loop(
        preds.long(), targets.long(), num_classes
    ), f"wrong counts for {dtype} labels with {num_classes} classes"


# Both sides of the range for preds and targets; some bad values give a flat index t * C + p
# that still lies in [0, C * C).
@pytest.mark.parametrize(
    "preds, targets",
    [
        ([0, 1, 3], [0, 1, 2]),
        ([3, 1, 2], [0, 1, 2]),
        ([0, -1, 2], [0, 1, 2]),
        ([0, 1, 2], [0, -1, 2]),
        ([0, 1, 2], [0, 1, 3]),
        ([0, 1], [0, 1, 2]),
        ([[0, 1]], [[0, 1]]),
        ([0, 1, 2], [[0], [1], [2]]),
        (1, 1),
        (1, [1]),
        ([1], 1),
    ],
    ids=[
        "prediction = num_classes",
        "prediction = num_classes for target 0",
        "negative prediction",
        "negative target",
        "target = num_classes",
        "lengths differ",
        "2-D",
        "targets (N, 1)",
        "0-dim",
        "0-dim preds",
        "0-dim targets",
    ],
)
def test_confusion_matrix_rejects_bad_labels(device, preds, targets):
    preds = torch.tensor(preds, device=device)
    targets = torch.tensor(targets, device=device)
    try:
        confusion_matrix(preds, targets, 3)
    except ValueError:
        return
    pytest.fail(
        f"confusion_matrix({preds.tolist()}, {targets.tolist()}, num_classes=3) should raise "
        "ValueError: check that both are 1-D (a 0-dim tensor is not a batch of one) of one "
        "length, and every value of each, on both sides, lies in [0, num_classes) (a valid "
        "flat index t * C + p proves nothing)"
    )


@pytest.mark.parametrize("samples, classes", [(1, 1), (5, 3), (40, 5), (200, 7)])
def test_macro_f1_matches_a_loop(device, samples, classes):
    preds = torch.randint(0, classes, (samples,))
    targets = torch.randint(0, classes, (samples,))
    counts = confusion_by_loop(preds, targets, classes)
    f1 = macro_f1(torch.tensor(counts, device=device))
    check_tensor(f1, shape=(), dtype=torch.float32, device=device, name="macro_f1")
    assert_close(
        f1.cpu(),
        torch.tensor(macro_f1_by_loop(counts)),
        "F1_c = 2 TP / (2 TP + FP + FN), averaged over the classes that appear",
    )


@pytest.mark.parametrize(
    "counts",
    [[[3 * 2**29, 2**31], [0, 0]], [[2**40, 3], [2**33 + 1, 7]], [[2**53 + 1, 5], [2**58, 2**55]]],
    ids=["past 2**31", "past 2**32", "past 2**53"],
)
def test_macro_f1_of_large_int64_counts(device, counts):
    # Any int64 counts: 2 TP + FP + FN in int32 (or another narrow type) overflows.
    f1 = macro_f1(torch.tensor(counts, dtype=torch.int64, device=device))
    check_tensor(f1, shape=(), dtype=torch.float32, device=device, name="macro_f1")
    want = macro_f1_by_loop(counts)
    assert f1.item() == pytest.approx(want, rel=1e-5), (
        f"macro-F1 of {counts} is {want:.6f}, got {f1.item()}; the counts may be any int64: "
        "compute in a type that holds them (float32 or float64), not int32"
    )


@pytest.mark.parametrize("dtype", facets.INTEGER, ids=str)
def test_macro_f1_of_counts_near_what_their_dtype_holds(device, dtype):
    # A count near its dtype's largest value: 2 TP (or 2 TP + FP + FN) computed in that
    # dtype wraps around (int8: 2 * 100 is -56); torch's sum widens to int64, 2 * TP does not.
    skip_unless_supported(device, dtype)
    top = min(torch.iinfo(dtype).max, 2**40)
    counts = [[top, top // 3, 0], [top // 2, top - 1, 0], [0, 0, 0]]
    f1 = macro_f1(torch.tensor(counts).to(device=device, dtype=dtype))
    check_tensor(f1, shape=(), dtype=torch.float32, device=device, name="macro_f1")
    want = macro_f1_by_loop(counts)
    assert f1.item() == pytest.approx(want, rel=1e-5), (
        f"macro-F1 of {dtype} counts {counts} is {want:.6f}, got {f1.item()}: 2 TP + FP + FN "
        f"does not fit in {dtype}; convert the counts (to float32, float64 or int64) first"
    )


def test_macro_f1_is_float32_whatever_the_default_dtype(device):
    skip_unless_supported(device, torch.float64)
    with default_dtype(torch.float64):
        f1 = macro_f1(torch.tensor([[2, 1], [0, 3]], device=device))
    check_tensor(f1, shape=(), dtype=torch.float32, device=device, name="macro_f1")


def test_macro_f1_leaves_out_classes_that_never_appear(device):
    # Class 2: never a target, never predicted -> left out. Class 3: predicted, never a target.
    counts = [[1, 1, 0, 0], [0, 1, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0]]
    f1 = macro_f1(torch.tensor(counts, device=device))
    want = (2 / 3 + 2 / 4 + 0.0) / 3
    assert f1.item() == pytest.approx(want, rel=1e-6), (
        f"macro-F1 should be {want:.4f} (the mean over classes 0, 1 and 3), got {f1.item():.4f}; "
        "leave out only classes with 2 TP + FP + FN == 0, and count a class that is only "
        "predicted with F1 = 0"
    )


def test_macro_f1_rejects_an_empty_matrix(device):
    with pytest.raises(ValueError):
        macro_f1(torch.zeros(3, 3, dtype=torch.int64, device=device))


class Probe(nn.Module):
    """Passes its input through and notes, at every forward, the mode and the grad mode."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def forward(self, x):
        self.seen.append((self.training, torch.is_grad_enabled()))
        return x


def crafted_loader():
    """10 samples, batches of 4, 4 and 2, whose logits are the inputs themselves.

    Batch accuracies are 4/4, 2/4 and 0/2: their mean is 0.5, the accuracy over samples 0.6.
    """
    targets = torch.tensor([0, 1, 2, 0, 1, 1, 2, 2, 0, 1])
    preds = torch.tensor([0, 1, 2, 0, 1, 0, 2, 1, 2, 2])
    logits = torch.nn.functional.one_hot(preds, 4).float() * 5 + 0.1 * torch.randn(10, 4)
    return DataLoader(TensorDataset(logits, targets), batch_size=4), preds, targets


def logits_model(device):
    # Dropout changes the logits in training mode, so evaluating in that mode shows.
    return nn.Sequential(Probe(), nn.Dropout(0.5)).to(device)


def test_evaluate_weights_every_sample_equally(device):
    loader, preds, targets = crafted_loader()
    accuracy, confusion, f1 = evaluate(logits_model(device), loader, 4, device)
    assert isinstance(accuracy, float) and isinstance(f1, float), (
        "accuracy and macro-F1 should be Python floats (.item())"
    )
    check_tensor(confusion, shape=(4, 4), dtype=torch.int64, device=device, name="confusion")
    counts = confusion_by_loop(preds, targets, 4)
    assert confusion.cpu().tolist() == counts, "the confusion matrix should sum all batches"
    assert accuracy == pytest.approx(6 / 10, rel=EXACT, abs=0), (
        f"6 of 10 samples are right, so accuracy is 0.6, got {accuracy!r} (a float32 ratio "
        "widened is off in the 8th digit: divide the counts as Python ints or float64); "
        "averaging per-batch "
        "accuracies gives the short last batch too much weight: count correct samples instead"
    )
    assert f1 == pytest.approx(macro_f1_by_loop(counts), rel=1e-6)


def test_evaluate_matches_a_loop_over_all_samples(device):
    model = nn.Sequential(nn.Linear(5, 4), nn.Dropout(0.3)).to(device)
    inputs, targets = torch.randn(23, 5), torch.randint(0, 4, (23,))
    loader = DataLoader(TensorDataset(inputs, targets), batch_size=5)  # the last batch has 3
    accuracy, confusion, f1 = evaluate(model, loader, 4, device)
    model.eval()
    with torch.no_grad():
        preds = torch.cat([model(x.to(device)).argmax(dim=1).cpu() for x, _ in loader])
    counts = confusion_by_loop(preds, targets, 4)
    assert confusion.cpu().tolist() == counts, (
        "the confusion matrix differs from the model's predictions in eval mode"
    )
    correct = int((preds == targets).sum())
    assert accuracy == pytest.approx(correct / len(targets), rel=EXACT, abs=0), (
        f"accuracy is {correct} / {len(targets)} as a Python float, got {accuracy!r}"
    )
    assert f1 == pytest.approx(macro_f1_by_loop(counts), rel=1e-6)


@pytest.mark.parametrize("arrives_training", [True, False], ids=["arrives in train", "in eval"])
def test_evaluate_runs_in_eval_mode_without_grad_and_restores_the_mode(device, arrives_training):
    model = logits_model(device).train(arrives_training)
    loader, _, _ = crafted_loader()
    evaluate(model, loader, 4, device)
    seen = model[0].seen
    assert seen and not any(training for training, _ in seen), (
        "the forward passes ran in training mode; call model.eval() before the loop"
    )
    assert not any(grad for _, grad in seen), (
        "the forward passes recorded autograd graphs; wrap the loop in torch.no_grad()"
    )
    assert model.training == arrives_training and model[1].training == arrives_training, (
        f"the model arrived with training={arrives_training} and must leave the same way; "
        "remember model.training first and call model.train(that) at the end"
    )
    assert torch.is_grad_enabled(), (
        "autograd is still off after evaluate: switch it off for the loop only (with "
        "torch.no_grad():), not with torch.set_grad_enabled(False) for the rest of the program"
    )


class FailsOnTheSecondBatch(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        if self.calls == 2:
            raise BatchFailed("this batch cannot be evaluated")
        return x


class BatchFailed(Exception):
    """Not a RuntimeError: an unimplemented stub's NotImplementedError must not match it."""


def test_evaluate_restores_the_modes_when_the_model_raises(device):
    model = nn.Sequential(Probe(), nn.Dropout(0.5), FailsOnTheSecondBatch()).to(device)
    model.train()
    model[1].eval()
    modes = [module.training for module in model.modules()]
    loader, _, _ = crafted_loader()
    with pytest.raises(BatchFailed):
        evaluate(model, loader, 4, device)
    assert [module.training for module in model.modules()] == modes, (
        f"after the model raised, the modes are {[m.training for m in model.modules()]}, not "
        f"{modes} as they arrived: restore them in a finally block, so an error on the way "
        "does not leave the model in eval mode"
    )


def test_evaluate_reads_the_loader_once(device):
    loader, preds, targets = crafted_loader()
    batches = (batch for batch in loader)  # a generator: one pass only
    accuracy, confusion, _ = evaluate(logits_model(device), batches, 4, device)
    assert confusion.cpu().tolist() == confusion_by_loop(preds, targets, 4), (
        "loader may be any iterable, a generator included, which yields its batches once: "
        "go over it in one pass, counting the samples as you go"
    )
    assert accuracy == pytest.approx(6 / 10, rel=EXACT, abs=0)


def test_evaluate_keeps_each_submodules_own_mode(device):
    model = nn.Sequential(Probe(), nn.Dropout(0.5), nn.Sequential(nn.Dropout(0.5))).to(device)
    model.train()
    model[1].eval()  # a frozen part of a model in training
    model[2].training = False  # a container in eval holding a child in training:
    # model[2].eval() would switch the child too
    loader, _, _ = crafted_loader()
    evaluate(model, loader, 4, device)
    modes = [module.training for module in model.modules()]
    assert modes == [True, True, False, False, True], (
        f"the submodules' training flags are {modes}, expected [True, True, False, False, True]"
        " as they arrived: remember each module's own flag (model.modules()) and put back "
        "each flag (module.training = was): .eval() and .train() also set the children's"
    )


@pytest.mark.parametrize("grad", [True, False], ids=["grad on", "under no_grad"])
def test_evaluate_leaves_autograd_as_it_was(device, grad):
    loader, _, _ = crafted_loader()
    with torch.set_grad_enabled(grad):
        evaluate(logits_model(device), loader, 4, device)
        after = torch.is_grad_enabled()
    assert after == grad, (
        f"autograd arrived {'on' if grad else 'off'} and is {'on' if after else 'off'} after "
        "evaluate: switch it off for the loop only (with torch.no_grad():), which puts back "
        "whatever the caller had, rather than setting it on or off yourself"
    )


# ---------------------------------------------------------------- facets


def pairs(dtype, device):
    preds = torch.tensor([0, 2, 2, 1, 3, 3, 0], dtype=dtype, device=device)
    targets = torch.tensor([0, 1, 2, 1, 3, 0, 0], dtype=dtype, device=device)
    return facets.args(preds, targets, 4)


def counted(preds, targets, num_classes):
    table = torch.zeros(num_classes, num_classes, dtype=torch.int64)
    for t, p in zip(targets.tolist(), preds.tolist(), strict=True):
        table[t, p] += 1
    return table


def f1_by_loop(confusion):
    scores = []
    for c in range(len(confusion)):
        tp = int(confusion[c, c])
        fp, fn = int(confusion[:, c].sum()) - tp, int(confusion[c].sum()) - tp
        if 2 * tp + fp + fn:
            scores.append(2 * tp / (2 * tp + fp + fn))
    return torch.tensor(sum(scores) / len(scores), dtype=torch.float64)


def matrix(dtype, device):
    table = torch.tensor([[3, 0, 1], [1, 2, 0], [0, 0, 0]])
    return facets.args(table.to(device=device, dtype=dtype))


def eval_run(device, n=10, batch_size=4):
    model = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3), nn.Dropout(0.5)).to(device)
    model[1].eval()  # a frozen part stays in eval mode
    data = TensorDataset(torch.randn(n, 4), torch.randint(0, 3, (n,)))
    return facets.args(model, DataLoader(data, batch_size=batch_size), 3, device)


def empty_batches(device):
    arguments = eval_run(device)
    batches = [(torch.randn(0, 4), torch.zeros(0, dtype=torch.int64))] * 2
    return facets.args(arguments.args[0], batches, 3, device)


def tied_batches(device):
    """Logits that tie for the largest value (a ReLU head that outputs zeros, a saturated
    one), passed through as they are: the first of the tied classes is the prediction."""
    logits = torch.tensor(
        [[1.0, 1.0, 0.0], [0.0, 2.0, 2.0], [3.0, 3.0, 3.0], [0.0, 0.0, 0.0], [5.0, 0.0, 5.0]]
    )
    targets = torch.tensor([1, 2, 2, 0, 2])
    return facets.args(
        nn.Identity(), [(logits[:3], targets[:3]), (logits[3:], targets[3:])], 3, device
    )


def fewer_than_the_dataset(sampled):
    """A DataLoader that yields fewer samples than its dataset holds: the short last batch
    dropped (8 of 10), or a sampler over part of it (7 of 10, a validation split). Logits
    passed through as they are; 6 of the 8 first samples are right, 4 of the 7 last."""
    preds = torch.tensor([0, 1, 2, 0, 1, 0, 2, 1, 2, 2])
    targets = torch.tensor([0, 1, 2, 0, 1, 1, 2, 2, 0, 1])
    data = TensorDataset(nn.functional.one_hot(preds, 3).float(), targets)
    if sampled:
        loader = DataLoader(data, batch_size=4, sampler=range(3, 10))
    else:
        loader = DataLoader(data, batch_size=4, drop_last=True)
    return lambda device: facets.args(nn.Identity(), loader, 3, device)


def float64_batches(device):
    """A float64 model and float64 inputs: moved to the device, not cast."""
    model = nn.Linear(4, 3).to(device, torch.float64)
    inputs = torch.linspace(-2, 2, 24, dtype=torch.float64).reshape(6, 4)
    targets = torch.tensor([0, 1, 2, 2, 1, 0])
    return facets.args(model, [(inputs[:4], targets[:4]), (inputs[4:], targets[4:])], 3, device)


def token_batches(device):
    """Token ids (int64) into an embedding: moved to the device, not cast to float."""
    model = nn.EmbeddingBag(10, 3, mode="mean").to(device)
    tokens = torch.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9], [0, 0, 1], [9, 9, 2]])
    targets = torch.tensor([0, 1, 2, 2, 1])
    return facets.args(model, [(tokens[:3], targets[:3]), (tokens[3:], targets[3:])], 3, device)


class Runs(nn.Module):
    """A layer that hands its input to the caller's code."""

    def __init__(self, code):
        super().__init__()
        self.code = code

    def forward(self, x):
        return self.code(x)


def failing_run(device, fault):
    """eval_run's model, ending in a layer whose forward raises (Ctrl-C among the cases)."""
    arguments = eval_run(device)
    model = nn.Sequential(*arguments.args[0], Runs(fault))
    return arguments.at(0, model)


def edge_batches(model, device):
    """Inputs that a model with no parameters passes through as logits (a ReLU makes the
    third row a three-way tie)."""
    inputs = torch.tensor([[0.5, -1.0, 2.0], [3.0, 0.1, -2.0], [-1.0, -0.5, -3.0], [0.2, 0.9, 0.4]])
    targets = torch.tensor([2, 0, 1, 1])
    return facets.args(model, [(inputs[:3], targets[:3]), (inputs[3:], targets[3:])], 3, device)


def evaluated_by_loop(model, batches, num_classes, device):
    """(accuracy, confusion, macro-F1) with each prediction the first largest logit of a copy
    of `model` in eval mode."""
    model = copy.deepcopy(model).cpu().double().eval()
    preds, targets = [], []
    for inputs, labels in batches:
        with torch.no_grad():
            logits = model(inputs.cpu().double() if inputs.is_floating_point() else inputs.cpu())
        preds += [row.index(max(row)) for row in logits.tolist()]
        targets += labels.tolist()
    confusion = torch.tensor(
        confusion_by_loop(torch.tensor(preds), torch.tensor(targets), num_classes)
    )
    correct = sum(p == t for p, t in zip(preds, targets, strict=True))
    return correct / len(preds), confusion, macro_f1_by_loop(confusion.tolist())


FACETS = facets.declare(
    facets.of(
        confusion_matrix,
        facets.Dtypes(
            pairs,
            oracle=counted,
            dtypes=facets.INTEGER,
            result=lambda dtype: torch.int64,
        ),
        facets.DefaultDevice(lambda device: pairs(torch.int64, device), where="input"),
        facets.Unmodified(lambda device: pairs(torch.int64, device)),
        facets.BadShapes(lambda device: pairs(torch.int64, device), names=(0, 1)),
        facets.Edges(
            {
                "an empty batch": lambda device: facets.args(
                    torch.zeros(0, dtype=torch.int64, device=device),
                    torch.zeros(0, dtype=torch.int64, device=device),
                    3,
                )
            },
            oracle=counted,
        ),
    ),
    facets.of(
        macro_f1,
        facets.Dtypes(
            matrix, oracle=f1_by_loop, dtypes=facets.INTEGER, result=lambda dtype: torch.float32
        ),
        facets.DefaultDevice(lambda device: matrix(torch.int64, device), where="input"),
        facets.Unmodified(lambda device: matrix(torch.int64, device)),
        facets.Edges(
            {
                "one class": lambda device: facets.args(torch.tensor([[5]], device=device)),
                "a class never present": lambda device: facets.args(
                    torch.tensor([[3, 0, 0], [1, 2, 0], [0, 0, 0]], device=device)
                ),
            },
            oracle=lambda confusion: f1_by_loop(confusion).float(),
        ),
    ),
    facets.of(
        evaluate,
        facets.Modes(eval_run, module=lambda arguments: arguments.args[0]),
        facets.ForwardModes(
            eval_run,
            module=lambda arguments: arguments.args[0],
            runs="eval",
            grad=False,
            calls=lambda arguments: len(arguments.args[1]),  # once per batch
        ),
        # The model's .grad too: an evaluation amid gradient accumulation clears none of it.
        facets.Unmodified(eval_run, inputs=lambda arguments: arguments.args[0], module_grads=True),
        facets.Returns(eval_run),
        # The model's error propagates, and the model comes back in its modes after it, after
        # a KeyboardInterrupt too (Unmodified holds every call to that): a finally block.
        facets.Propagates(failing_run),
        # Called again after the model changed: read anew, nothing kept from the last call.
        # (every sample predicted as class 0)
        facets.Changed(
            eval_run,
            lambda arguments: arguments.args[0][1].bias.data.copy_(torch.tensor([9, 0, 0])),
        ),
        # No sample: refused, the model handed back in the modes it came in.
        facets.Refused(
            {
                "an empty loader": lambda device: eval_run(device, n=0),
                "empty batches": empty_batches,
            }
        ),
        facets.Edges(
            {
                "tied logits": tied_batches,
                # Accuracy over the samples the loader yields, not len(loader.dataset).
                "a short last batch dropped": fewer_than_the_dataset(sampled=False),
                "a sampler over part of the dataset": fewer_than_the_dataset(sampled=True),
                # The inputs as the loader yields them, whatever their dtype.
                "a float64 model": float64_batches,
                "token ids": token_batches,
                **facets.edge_models(edge_batches),
            },
            oracle=evaluated_by_loop,
        ),
    ),
)
test_facets = FACETS.test
