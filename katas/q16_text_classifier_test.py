import copy

import pytest
import torch
from torch import nn

from katas.q16_text_classifier import TextClassifier, masked_mean
from torch_katas import facets
from torch_katas.testing import (
    assert_close,
    assert_no_python_loops,
    check_tensor,
    raises,
    skip_unless_supported,
)

VOCAB, DIM, CLASSES = 20, 8, 3


def mean_by_loop(values, mask):
    rows = []
    for row, keep in zip(values, mask, strict=True):
        picked = [row[t] for t in range(len(keep)) if keep[t]]
        rows.append(torch.stack(picked).mean(0) if picked else torch.zeros_like(row[0]))
    return torch.stack(rows) if rows else values.new_zeros(0, values.shape[-1])


def logits_by_loop(model, tokens, padding_idx):
    """The classifier written out token by token from its embedding table and head."""
    table, weight, bias = model.embedding.weight, model.head.weight, model.head.bias
    rows = []
    for sequence in tokens.tolist():
        real = [table[t] for t in sequence if t != padding_idx]
        pooled = torch.stack(real).mean(0) if real else torch.zeros_like(table[0])
        rows.append(pooled @ weight.T + bias)
    return torch.stack(rows)


def random_tokens(device, batch, length, padding_idx, lengths=None):
    """Ids in [0, VOCAB) other than padding_idx, then padding after each row's length."""
    tokens = torch.randint(0, VOCAB - 1, (batch, length), device=device)
    tokens = tokens + (tokens >= padding_idx).long()  # skip the padding id
    lengths = torch.randint(0, length + 1, (batch,)) if lengths is None else torch.tensor(lengths)
    padded = torch.arange(length) >= lengths[:, None]
    return tokens.masked_fill(padded.to(device), padding_idx)


# the rule: no Python loops over the batch or the sequence


def test_masked_mean_has_no_python_loops(device):
    # Rows, steps and features grow with n; a loop over any of them (for, map,
    # functools.reduce, recursion, a helper) shows as more work for more data.
    def inputs(n):
        values = torch.randn(n, n, n, device=device)
        return values, torch.arange(n, device=device) < torch.arange(n, device=device)[:, None]

    assert_no_python_loops(masked_mean, inputs, over="rows, steps and features")


def test_classifier_has_no_python_loops(device):
    model = TextClassifier(VOCAB, DIM, CLASSES, padding_idx=0).to(device)
    assert_no_python_loops(
        model,
        lambda n: random_tokens(device, n, n, 0, lengths=[i % (n + 1) for i in range(n)]),
        over="sequences and tokens",
    )


# masked_mean


def test_masked_mean_matches_a_loop(device):
    values = torch.randn(5, 7, 4, device=device)
    mask = torch.rand(5, 7, device=device) > 0.4
    mask[0] = False  # all padding
    mask[1] = True  # no padding
    out = masked_mean(values, mask)
    check_tensor(out, shape=(5, 4), dtype=torch.float32, device=device, name="masked_mean")
    assert torch.isfinite(out).all(), "a row with no True in the mask must give zeros, not nan"
    assert_close(out, mean_by_loop(values, mask), "each row should average its True positions")


def test_masked_mean_of_rows_without_real_positions_is_zero(device):
    values = torch.randn(2, 3, 4, device=device)
    out = masked_mean(values, torch.zeros(2, 3, dtype=torch.bool, device=device))
    assert torch.equal(out, torch.zeros(2, 4, device=device)), (
        f"rows with no real position should give zeros, got {out}; "
        "clamp the count to at least 1 before dividing"
    )
    empty = masked_mean(
        torch.randn(2, 0, 4, device=device), torch.ones(2, 0, dtype=torch.bool, device=device)
    )
    check_tensor(empty, shape=(2, 4), device=device, name="masked_mean with T = 0")
    assert torch.equal(empty, torch.zeros(2, 4, device=device))


@pytest.mark.parametrize("shape", [(1, 1, 1), (3, 1, 5), (2, 6, 1), (0, 4, 3)], ids=str)
def test_masked_mean_edge_sizes(device, shape):
    values = torch.randn(shape, device=device)
    mask = torch.rand(shape[:2], device=device) > 0.3
    out = masked_mean(values, mask)
    check_tensor(out, shape=(shape[0], shape[2]), device=device, name="masked_mean")
    assert_close(out, mean_by_loop(values, mask), f"wrong for values of shape {shape}")


def test_masked_positions_neither_count_nor_get_gradient(device):
    values = torch.randn(3, 5, 2, device=device)
    mask = torch.tensor([[1, 1, 0, 0, 0], [1, 0, 1, 0, 1], [0, 0, 0, 0, 0]], device=device).bool()
    values.requires_grad_()
    out = masked_mean(values, mask)
    (grad,) = torch.autograd.grad(out.sum(), values)
    assert torch.equal(grad[~mask], torch.zeros_like(grad[~mask])), (
        "masked positions got a gradient; they must not take part in the mean"
    )
    counts = mask.sum(1, keepdim=True).clamp(min=1)
    assert_close(
        grad,
        (mask / counts)[..., None].expand_as(grad).float(),
        "each real position should get gradient 1 / (number of real positions in its row)",
    )
    changed = values.detach().masked_fill(~mask[..., None], 1e4)
    assert_close(
        masked_mean(changed, mask), out.detach(), "values at masked positions changed the result"
    )


def test_masked_mean_gradcheck_and_dtype(device):
    skip_unless_supported(device, torch.float64)
    values = torch.randn(3, 4, 2, dtype=torch.float64, device=device, requires_grad=True)
    mask = torch.tensor([[1, 0, 1, 1], [0, 0, 0, 0], [0, 1, 0, 0]], device=device).bool()
    out = masked_mean(values, mask)
    check_tensor(out, shape=(3, 2), dtype=torch.float64, device=device, name="masked_mean")
    assert torch.autograd.gradcheck(lambda v: masked_mean(v, mask), (values,))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_masked_mean_keeps_a_half_precision_dtype(device, dtype):
    values = torch.randn(3, 5, 4, device=device).to(dtype)
    mask = torch.rand(3, 5, device=device) > 0.4
    mask[0] = False
    out = masked_mean(values, mask)
    check_tensor(out, shape=(3, 4), dtype=dtype, device=device, name="masked_mean")
    assert_close(
        out.float(),
        mean_by_loop(values.float(), mask),
        f"wrong {dtype} mean; select with torch.where(mask, ...) or use a mask of values' dtype",
        rtol=1e-2,
        atol=1e-2,
    )


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_masked_mean_in_half_precision_does_not_overflow_where_the_mean_does_not(device, dtype):
    # 1000 real positions of 100: their sum, 1e5, is inf in float16 (max 65504); the mean is
    # 100. (In bfloat16 the sum fits but keeps 8 significant bits.)
    values = torch.full((2, 1000, 3), 100.0, device=device).to(dtype)
    values[1, :, 1] = 50.0
    mask = torch.ones(2, 1000, dtype=torch.bool, device=device)
    mask[1, 500:] = False
    out = masked_mean(values, mask)
    check_tensor(out, shape=(2, 3), dtype=dtype, device=device, name="masked_mean")
    expected = torch.tensor([[100.0, 100.0, 100.0], [100.0, 50.0, 100.0]])
    assert_close(
        out.float().cpu(),
        expected,
        f"a {dtype} masked mean of 1000 values of 100 must be 100: the sum overflows (or "
        "loses its low bits) where the mean would not; accumulate in float32 and convert "
        "back, or divide before summing",
        rtol=1e-2,
        atol=0.0,
    )


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_masked_mean_in_half_precision_is_the_float32_mean_rounded_once(device, dtype):
    # Small integers, exact in both dtypes, with float32 sums that are exact too: the right
    # answer is the exact mean rounded once. Row b has 1000 + 4321 b real positions, up to
    # 65815: more than float16 can count (65504), and a bfloat16 sum is already rounded
    # before the division. (No mean here lies near a rounding boundary of either dtype.)
    rows, length = 16, 70_000
    positions = torch.arange(length, device=device)
    ints = (positions * 37 + torch.arange(rows, device=device)[:, None] * 11) % 7
    mask = positions < (1000 + 4321 * torch.arange(rows, device=device))[:, None]
    out = masked_mean(ints.to(dtype)[..., None], mask)
    check_tensor(out, shape=(rows, 1), dtype=dtype, device=device, name="masked_mean")
    exact = (ints * mask).sum(1).double() / mask.sum(1).double()
    assert_close(
        out.cpu(),
        exact.to(dtype).cpu()[:, None],
        f"the {dtype} means are off: sum and count in float32 (or an integer count), divide "
        "there, and round to the dtype once at the end",
        rtol=0,
        atol=0,
    )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_masked_mean_leaves_non_contiguous_inputs_unmodified(device, dtype):
    values = torch.randn(4, 3, 5, device=device).to(dtype).transpose(0, 2)  # non-contiguous
    mask = torch.rand(3, 5, device=device).T > 0.5
    values_before, mask_before = values.clone(), mask.clone()
    out = masked_mean(values, mask)
    assert_close(
        out.float(),
        mean_by_loop(values_before.float(), mask_before),
        "wrong for non-contiguous inputs",
        rtol=1e-2,
        atol=1e-2,
    )
    assert torch.equal(values, values_before) and torch.equal(mask, mask_before), (
        "masked_mean modified its inputs; use out-of-place ops (torch.where, masked_fill)"
    )


@pytest.mark.parametrize(
    "mask_shape, dtype",
    [((2, 3), torch.float32), ((2, 3), torch.long), ((2, 3), torch.uint8), ((3, 2), torch.bool)],
    ids=["float-mask", "int-mask", "uint8-mask", "wrong-shape"],
)
def test_masked_mean_rejects_bad_masks(device, mask_shape, dtype):
    values = torch.randn(2, 3, 4, device=device)
    mask = torch.ones(mask_shape, dtype=dtype, device=device)
    with raises(ValueError):
        masked_mean(values, mask)


# TextClassifier


@pytest.mark.parametrize("padding_idx", [0, 3, VOCAB - 1])
def test_classifier_is_embedding_masked_mean_and_linear(device, padding_idx):
    model = TextClassifier(VOCAB, DIM, CLASSES, padding_idx=padding_idx).to(device)
    tokens = random_tokens(device, 6, 9, padding_idx, lengths=[9, 1, 0, 4, 7, 3])
    logits = model(tokens)
    check_tensor(logits, shape=(6, CLASSES), dtype=torch.float32, device=device, name="logits")
    assert_close(
        logits,
        logits_by_loop(model, tokens, padding_idx),
        "logits should be head(mean of the embeddings of non-padding tokens); "
        f"is the mask built from padding_idx={padding_idx}?",
    )


def test_padding_anywhere_in_a_row_is_masked(device):
    model = TextClassifier(VOCAB, DIM, CLASSES, padding_idx=0).to(device)
    # Left padding (as many tokenizers do) and padding between real tokens.
    tokens = torch.tensor([[0, 0, 0, 4, 7], [5, 0, 9, 0, 0], [0, 3, 0, 0, 8]], device=device)
    logits = model(tokens)
    check_tensor(logits, shape=(3, CLASSES), dtype=torch.float32, device=device, name="logits")
    assert_close(
        logits,
        logits_by_loop(model, tokens, 0),
        "with padding at the start or in the middle of a row the logits are wrong: mask each "
        "position by its own id (tokens != padding_idx), not the first `length` positions",
    )


def test_padding_idx_defaults_to_0(device):
    model = TextClassifier(VOCAB, DIM, CLASSES).to(device)
    tokens = random_tokens(device, 4, 6, 0, lengths=[6, 2, 0, 3])
    logits = model(tokens)
    assert model.embedding.padding_idx == 0, "padding_idx should default to 0"
    assert_close(
        logits, logits_by_loop(model, tokens, 0), "with no padding_idx given, id 0 is padding"
    )


def test_a_negative_padding_idx_counts_from_the_end(device):
    model = TextClassifier(VOCAB, DIM, CLASSES, padding_idx=-1).to(device)
    tokens = random_tokens(device, 5, 7, VOCAB - 1, lengths=[7, 3, 0, 5, 1])
    logits = model(tokens)
    check_tensor(logits, shape=(5, CLASSES), dtype=torch.float32, device=device, name="logits")
    assert_close(
        logits,
        logits_by_loop(model, tokens, VOCAB - 1),
        f"padding_idx=-1 means id {VOCAB - 1}, as in nn.Embedding: build the mask from "
        "self.embedding.padding_idx, which holds the id itself",
    )


def test_classifier_layers(device):
    model = TextClassifier(VOCAB, DIM, CLASSES, padding_idx=3).to(device)
    assert isinstance(model.embedding, nn.Embedding) and isinstance(model.head, nn.Linear)
    assert tuple(model.embedding.weight.shape) == (VOCAB, DIM)
    assert tuple(model.head.weight.shape) == (CLASSES, DIM)
    assert model.embedding.padding_idx == 3, "pass padding_idx to nn.Embedding"
    assert not model.embedding.weight[3].any(), "the padding row of a new nn.Embedding is zero"


@pytest.mark.parametrize("padding_idx", [0, 5])
def test_appending_padding_changes_nothing(device, padding_idx):
    model = TextClassifier(VOCAB, DIM, CLASSES, padding_idx=padding_idx).to(device)
    tokens = random_tokens(device, 4, 6, padding_idx, lengths=[6, 2, 5, 0])
    logits = model(tokens)
    for extra in (1, 7):
        padding = torch.full((4, extra), padding_idx, device=device)
        longer = model(torch.cat([tokens, padding], dim=1))
        assert_close(
            longer,
            logits,
            f"appending {extra} padding tokens changed the logits: "
            "average over the real tokens only, not over all T positions",
        )


def test_padding_row_values_do_not_matter(device):
    model = TextClassifier(VOCAB, DIM, CLASSES, padding_idx=2).to(device)
    tokens = random_tokens(device, 4, 6, 2, lengths=[6, 2, 5, 1])
    logits = model(tokens)
    with torch.no_grad():
        model.embedding.weight[2] = 50.0  # e.g. loaded from pretrained vectors
    assert_close(
        model(tokens),
        logits,
        "a non-zero padding row changed the logits: mask the padded positions instead of "
        "relying on their embedding being zero",
    )


def test_rows_of_padding_only_give_the_head_bias(device):
    model = TextClassifier(VOCAB, DIM, CLASSES, padding_idx=0).to(device)
    tokens = torch.tensor([[0, 0, 0], [4, 0, 0]], device=device)
    logits = model(tokens)
    assert torch.isfinite(logits).all(), "an all-padding row gave non-finite logits (0 / 0?)"
    assert_close(logits[0], model.head.bias.detach(), "all padding pools to 0")
    empty = model(torch.zeros(2, 0, dtype=torch.long, device=device))
    check_tensor(empty, shape=(2, CLASSES), device=device, name="logits for T = 0")
    assert_close(
        empty, model.head.bias.detach().expand(2, CLASSES), "with T = 0 the logits are head.bias"
    )


def test_padding_row_gets_no_gradient(device):
    model = TextClassifier(VOCAB, DIM, CLASSES, padding_idx=1).to(device)
    tokens = random_tokens(device, 8, 5, 1, lengths=[5, 3, 0, 1, 2, 4, 5, 2])
    logits = model(tokens)
    torch.nn.functional.cross_entropy(logits, torch.arange(8, device=device) % CLASSES).backward()
    grad = model.embedding.weight.grad
    assert grad is not None, "no gradient reached the embedding"
    assert not grad[1].any(), (
        "the padding row received a gradient; use nn.Embedding(padding_idx=...)"
    )
    used = torch.zeros(VOCAB, dtype=torch.bool)
    used[tokens.flatten().cpu()] = True
    used[1] = False
    assert grad[used].abs().sum(1).gt(0).all(), "every token that appears should get a gradient"
    assert not grad[~used].any(), "tokens that do not appear should get no gradient"


def test_classifier_batch_of_one_and_float64(device):
    skip_unless_supported(device, torch.float64)
    model = TextClassifier(VOCAB, DIM, CLASSES).to(device).to(torch.float64)
    tokens = torch.tensor([[7]], device=device)
    logits = model(tokens)
    check_tensor(logits, shape=(1, CLASSES), dtype=torch.float64, device=device, name="logits")
    assert_close(logits, logits_by_loop(model, tokens, 0), "wrong logits in float64")


def test_classifier_in_bfloat16(device):
    skip_unless_supported(device, torch.bfloat16)
    model = TextClassifier(VOCAB, DIM, CLASSES, padding_idx=0).to(device).to(torch.bfloat16)
    tokens = random_tokens(device, 3, 5, 0, lengths=[5, 2, 0])
    logits = model(tokens)
    check_tensor(logits, shape=(3, CLASSES), dtype=torch.bfloat16, device=device, name="logits")
    exact = copy.deepcopy(model).float()  # the same bfloat16 values, computed in float32
    assert_close(
        logits.float(),
        logits_by_loop(exact, tokens, 0),
        "wrong logits for a bfloat16 model: pool in the embeddings' dtype (a float32 mask "
        "would promote them to float32)",
        rtol=2e-2,
        atol=2e-2,
    )


def test_classifier_rejects_tokens_that_are_not_2d(device):
    model = TextClassifier(VOCAB, DIM, CLASSES).to(device)
    with raises(ValueError):
        model(torch.tensor([1, 2, 3], device=device))


# ---------------------------------------------------------------- facets


def padded(dtype, device, length=1000):
    """Values about 100 in rows long enough that a float16 sum of them overflows."""
    values = torch.linspace(90, 110, 2 * length * 2, dtype=torch.float64).reshape(2, length, 2)
    mask = torch.arange(length) < torch.tensor([[length - 3], [length // 2]])
    return facets.args(values.to(dtype=dtype, device=device), mask.to(device))


def mean64(values, mask):
    kept = values * mask[..., None]
    return kept.sum(1) / mask.sum(1, keepdim=True).clamp(min=1)


def classifier(dtype, device):
    model = TextClassifier(VOCAB, DIM, CLASSES, padding_idx=0).to(device=device, dtype=dtype)
    tokens = torch.tensor([[3, 5, 0, 7, 0], [0, 0, 0, 0, 0], [1, 2, 3, 4, 5]], device=device)
    return facets.args(model, tokens)


def classifier64(model, tokens):
    table = model.embedding.weight.detach().cpu().double()
    weight, bias = (p.detach().cpu().double() for p in (model.head.weight, model.head.bias))
    keep = (tokens != 0).double()
    pooled = (table[tokens] * keep[..., None]).sum(1) / keep.sum(1, keepdim=True).clamp(min=1)
    return pooled @ weight.T + bias


def forward(model, tokens):
    return model(tokens)


FACETS = facets.declare(
    facets.of(
        masked_mean,
        facets.Dtypes(
            padded,
            oracle=mean64,
            ulps=4,  # dividing before summing rounds more than once
        ),
        facets.Unmodified(lambda device: padded(torch.float32, device, length=5)),
        facets.Returns(lambda device: padded(torch.float32, device, length=5)),
    ),
    facets.of(
        TextClassifier,
        facets.Dtypes(classifier, oracle=classifier64, ulps=4),
        facets.DefaultDevice(lambda device: facets.args(VOCAB, DIM, CLASSES)),
        facets.Trains(
            lambda device: facets.args(VOCAB, DIM, CLASSES).replace(padding_idx=0),
            forward=lambda model, device: model.to(device)(
                torch.tensor([[3, 5, 0]], device=device)
            ),
        ),
        facets.Unmodified(lambda device: classifier(torch.float32, device)),
        call=lambda model_or_size, *rest, **options: (
            forward(model_or_size, *rest)
            if isinstance(model_or_size, nn.Module)
            else TextClassifier(model_or_size, *rest, **options)
        ),
    ),
)
test_facets = FACETS.test
