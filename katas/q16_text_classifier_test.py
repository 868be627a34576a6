import copy
import itertools
import math

import pytest
import torch
from torch import nn
from torch.nn.attention import SDPBackend, sdpa_kernel

from katas.q16_text_classifier import TextClassifier, encode, masked_mean
from torch_katas import facets
from torch_katas.testing import (
    assert_close,
    assert_no_python_loops,
    check_tensor,
    raises,
    settings_kept,
    skip_unless_supported,
)

VOCAB, DIM, CLASSES = 20, 8, 3
# Batched and per-sequence attention may run different kernels (on a GPU, on the fast path).
APPROX = {"rtol": 1e-4, "atol": 1e-5}
MODES = ["train", "eval", "eval without autograd"]  # the last takes the layer's fast path


def mean_by_loop(values, mask):
    rows = []
    for row, keep in zip(values, mask, strict=True):
        picked = [row[t] for t in range(len(keep)) if keep[t]]
        rows.append(torch.stack(picked).mean(0) if picked else torch.zeros_like(row[0]))
    return torch.stack(rows) if rows else values.new_zeros(0, values.shape[-1])


def each_sequence_alone(layer, embedded, mask):
    """The layer run on each row's real tokens alone, unbatched (no padding, no mask);
    zeros at padded positions."""
    out = torch.zeros_like(embedded)
    for b in range(embedded.shape[0]):
        real = mask[b].nonzero().flatten().tolist()
        if real:
            out[b, real] = layer(embedded[b, real])
    return out


def contract_layer(model, num_heads=2, dropout=0.0):
    """The encoder layer the contract spells out, built here with the model's weights (not
    the model's own layer, whose other settings the contract fixes too), in the model's
    mode, dtype and device."""
    dim = model.embedding.weight.shape[1]
    layer = nn.TransformerEncoderLayer(
        dim, num_heads, dim_feedforward=4 * dim, dropout=dropout, batch_first=True
    )
    layer.load_state_dict(model.encoder.state_dict())
    weight = model.embedding.weight
    return layer.to(device=weight.device, dtype=weight.dtype).train(model.training)


def logits_by_loop(model, tokens, padding_idx, encoder=None, **layer_options):
    """The classifier written out sequence by sequence from its embedding table, the
    contract's encoder layer and its head: each sequence's real tokens alone through the
    encoder, then their mean."""
    encoder = encoder or contract_layer(model, **layer_options)
    table, weight, bias = model.embedding.weight, model.head.weight, model.head.bias
    rows = []
    for sequence in tokens.tolist():
        real = [table[t] for t in sequence if t != padding_idx]
        pooled = encoder(torch.stack(real)).mean(0) if real else torch.zeros_like(table[0])
        rows.append(pooled @ weight.T + bias)
    return torch.stack(rows)


def in_mode(module, mode):
    """Put module in the mode named in MODES; returns the grad mode to run it under."""
    module.train(mode == "train")
    return torch.set_grad_enabled(mode != "eval without autograd")


def encoder_layer(device, dtype=torch.float32, **options):
    """A small batch-first encoder layer without dropout, so train and eval agree."""
    options = {"dim_feedforward": 16, "dropout": 0.0, "batch_first": True, **options}
    return nn.TransformerEncoderLayer(DIM, 2, **options).to(device=device, dtype=dtype)


def rows_with_padding(device, batch, length, lengths):
    """A [batch, length] mask of real tokens: lengths[b] of them, scattered over the row."""
    order = torch.rand(batch, length).argsort(dim=1)
    mask = order < torch.tensor(lengths)[:, None]
    return mask.to(device)


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


def warm_up(layer, device):
    """torch's first check of a key padding mask imports sympy: a second or so, many times
    that under the loop check's tracing. Done here, with torch's own call, it is paid once."""
    layer(
        torch.zeros(1, 1, DIM, device=device),
        src_key_padding_mask=torch.zeros(1, 1, dtype=torch.bool, device=device),
    )


def test_encode_has_no_python_loops(device):
    layer = encoder_layer(device)
    warm_up(layer, device)
    assert_no_python_loops(
        lambda embedded, mask: encode(layer, embedded, mask),
        lambda n: (
            torch.randn(n, n, DIM, device=device),
            torch.arange(n, device=device) <= torch.arange(n, device=device)[:, None],
        ),
        over="sequences and tokens",
    )


def test_classifier_has_no_python_loops(device):
    model = TextClassifier(VOCAB, DIM, CLASSES, padding_idx=0).to(device)
    warm_up(encoder_layer(device), device)
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
    for junk in (1e4, float("nan"), float("inf")):
        changed = values.detach().masked_fill(~mask[..., None], junk)
        assert_close(
            masked_mean(changed, mask),
            out.detach(),
            f"{junk} at masked positions changed the result: select the real positions "
            "(torch.where) rather than multiply by the mask, since nan * 0 is nan",
        )


def test_masked_mean_keeps_nan_and_inf_at_real_positions(device):
    values = torch.randn(3, 4, 2, device=device)
    mask = torch.tensor([[1, 1, 0, 1], [0, 1, 1, 0], [1, 0, 1, 1]], device=device).bool()
    values[0, 1, 0] = float("nan")
    values[1, 2, 1] = float("inf")
    values[2, 1] = float("nan")  # padding: ignored
    out = masked_mean(values, mask)
    assert out[0, 0].isnan() and out[1, 1] == float("inf"), (
        f"a nan or inf at a real position must show in the mean, as in torch.mean; got "
        f"{out[0, 0].item()} and {out[1, 1].item()}: do not replace non-finite values, select "
        "the real positions with torch.where"
    )
    finite = torch.tensor([[False, True], [True, False], [True, True]], device=device)
    assert_close(out[finite], mean_by_loop(values, mask)[finite], "wrong finite means")


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
    advice = (
        f"a {dtype} masked mean of 1000 values of 100 must be 100: the sum overflows (or "
        "loses its low bits) where the mean would not; accumulate in float32 and convert "
        "back, or divide before summing"
    )
    assert_close(out.float().cpu(), expected, advice, rtol=1e-2, atol=0.0)
    # No padding anywhere in the batch: the same rule, whatever path that case takes.
    mask[1] = True
    out = masked_mean(values, mask)
    check_tensor(out, shape=(2, 3), dtype=dtype, device=device, name="masked_mean")
    expected[1, 1] = 50.0
    assert_close(out.float().cpu(), expected, f"{advice} (no padding at all)", rtol=1e-2, atol=0)


def test_masked_mean_of_short_float16_rows_does_not_overflow(device):
    # Two or three values near float16's max (65504): their sum overflows, their mean does
    # not, however short the row.
    values = torch.tensor(
        [[[40000.0], [40000.0], [9.0]], [[60000.0], [50000.0], [30000.0]], [[5.0], [7.0], [1.0]]]
    )
    mask = torch.tensor([[True, True, False], [True, True, True], [False, True, True]])
    for kept in (mask, torch.ones_like(mask)):  # with padding and without
        out = masked_mean(values.to(device, torch.float16), kept.to(device))
        check_tensor(out, shape=(3, 1), dtype=torch.float16, device=device, name="masked_mean")
        assert_close(
            out.cpu(),
            mean64(values.double(), kept).to(torch.float16),
            "a float16 mean of two values of 40000 must be 40000: their float16 sum overflows "
            "however short the row; accumulate in float32 and round once",
            rtol=1e-3,
            atol=0,
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


# Every dtype but bool, and every shape but [B, T] = (2, 3), those that broadcast included.
BAD_MASKS = [
    *[
        ((2, 3), dtype)
        for dtype in (
            *(torch.float32, torch.float64, torch.float16, torch.bfloat16),
            *(torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8),
        )
    ],
    *[(shape, torch.bool) for shape in [(3, 2), (2, 1), (1, 3), (3,), (2, 3, 1), (1, 2, 3)]],
]


def bad_masks(device):
    for shape, dtype in BAD_MASKS:
        yield f"a {dtype} mask of shape {shape}", torch.ones(shape, dtype=dtype, device=device)


def test_masked_mean_rejects_bad_masks(device):
    values = torch.randn(2, 3, 4, device=device)
    for what, mask in bad_masks(device):
        with raises(ValueError):
            masked_mean(values, mask)
            pytest.fail(f"masked_mean accepted {what}: only a bool mask of shape [B, T] is one")


# encode


@pytest.mark.parametrize(
    "batch, length, lengths",
    [(3, 5, [5, 0, 4]), (4, 4, [4, 1, 3, 2]), (2, 7, [1, 6])],
    ids=["3x5", "4x4", "2x7"],
)
def test_encode_runs_each_sequence_as_if_alone(device, batch, length, lengths):
    # Padding scattered over each row, and a row of padding only, whose outputs the
    # contract leaves open (nan on the fast path). 4x4 has as many rows as steps, so a
    # [T, B, D] layout with a transposed mask runs without an error, attending across the
    # batch.
    layer = encoder_layer(device)
    embedded = torch.randn(batch, length, DIM, device=device)
    mask = rows_with_padding(device, batch, length, lengths)
    for mode in MODES:
        with in_mode(layer, mode):
            out = encode(layer, embedded, mask)
            expected = each_sequence_alone(layer, embedded, mask)
        check_tensor(out, shape=(batch, length, DIM), device=device, name="encode")
        assert_close(
            out[mask],
            expected[mask],
            f"in {mode} mode, real positions differ from each sequence run alone: pass "
            "src_key_padding_mask=True at PADDING (the opposite of mask), as a bool tensor, "
            "and keep the [B, T, D] layout the batch_first layer expects",
        )
        assert layer.training == (mode == "train"), "encode changed the layer's mode; leave it"


def test_padding_values_do_not_reach_real_tokens(device):
    layer = encoder_layer(device)
    embedded = torch.randn(4, 6, DIM, device=device)
    mask = rows_with_padding(device, 4, 6, [6, 1, 3, 4])
    # Large padding too: its attention scores outgrow any finite penalty (-10000).
    for scale, mode in itertools.product((30, 1e5), MODES):
        junk = torch.randn(4, 6, DIM, device=device) * scale
        with in_mode(layer, mode):
            out = encode(layer, embedded, mask)
            changed = encode(layer, torch.where(mask[..., None], embedded, junk), mask)
        assert_close(
            changed[mask],
            out[mask],
            f"in {mode} mode, changing the embeddings at padded positions (to values about "
            f"{scale:g}) changed the outputs at real ones: real tokens attend to padding. "
            "src_key_padding_mask is True where a key is padding (~mask); a float mask is added "
            "to the scores, so a 0/1 float mask hides nothing and a finite penalty hides "
            "padding only from small scores",
            **APPROX,
        )


def test_padding_gets_no_gradient_from_real_tokens(device):
    layer = encoder_layer(device, norm_first=True, activation="gelu")
    embedded = torch.randn(3, 5, DIM, device=device, requires_grad=True)
    mask = rows_with_padding(device, 3, 5, [5, 2, 3])
    out = encode(layer, embedded, mask)
    (grad,) = torch.autograd.grad(out[mask].sum(), embedded)
    assert not grad[~mask].any(), (
        "real outputs depend on padded positions: they get a gradient through attention; "
        "hide padded keys with src_key_padding_mask (True at padding)"
    )
    assert grad[mask].abs().sum(-1).gt(0).all(), "every real position should get a gradient"
    assert all(p.grad is None for p in layer.parameters()), "encode should not call backward"


def test_encode_in_float64(device):
    skip_unless_supported(device, torch.float64)
    layer = encoder_layer(device, torch.float64)
    embedded = torch.randn(2, 5, DIM, dtype=torch.float64, device=device)
    mask = rows_with_padding(device, 2, 5, [3, 5])
    out = encode(layer, embedded, mask)
    check_tensor(out, shape=(2, 5, DIM), dtype=torch.float64, device=device, name="encode")
    assert_close(
        out[mask], each_sequence_alone(layer, embedded, mask)[mask], "wrong in float64", **APPROX
    )


def test_encode_rejects_bad_masks(device):
    layer = encoder_layer(device)
    embedded = torch.randn(2, 3, DIM, device=device)
    for what, mask in bad_masks(device):
        with raises(ValueError):
            encode(layer, embedded, mask)
            pytest.fail(f"encode accepted {what}: only a bool mask of shape [B, T] is one")


def dropping_everything():
    """Attention by its reference kernel: there dropout 1.0 gives exact zeros (a fused
    accelerator kernel scales what it keeps by 1 / (1 - p), which is inf). Entered inside
    the test, not as its decorator: grading holds each test to the code of its own file."""
    return sdpa_kernel(SDPBackend.MATH)


def test_encode_runs_the_layer_in_the_mode_the_caller_left_it(device):
    with dropping_everything():
        # With dropout 1.0 a training layer drops every attention weight and every residual
        # branch: it gives norm2(norm1(x)), every time. So training and eval give other values,
        # and running the layer in another mode than the caller's shows, without randomness.
        layer = encoder_layer(device, dropout=1.0)
        embedded = torch.randn(3, 5, DIM, device=device)
        mask = rows_with_padding(device, 3, 5, [5, 2, 3])
        results = {}
        for mode in MODES:
            with in_mode(layer, mode):
                results[mode] = encode(layer, embedded, mask)
                expected = each_sequence_alone(layer, embedded, mask)
            assert layer.training == (mode == "train"), "encode changed the layer's mode; leave it"
            assert_close(
                results[mode][mask],
                expected[mask],
                f"in {mode} mode the layer ran as in another mode (dropout on in training, off in "
                "eval): call it as the caller left it, without switching it for the call",
                **APPROX,
            )
        assert not torch.allclose(results["train"][mask], results["eval"][mask])  # the test's own


def test_encode_keeps_the_callers_grad_mode_and_global_settings(device):
    layer = encoder_layer(device)
    embedded = torch.randn(3, 4, DIM, device=device, requires_grad=True)
    mask = rows_with_padding(device, 3, 4, [4, 1, 2])
    for mode in MODES:
        with in_mode(layer, mode), settings_kept("encode"):
            out = encode(layer, embedded, mask)
        recorded = out.grad_fn is not None
        assert recorded == (mode != "eval without autograd"), (
            f"in {mode} mode encode recorded a graph: {recorded}; follow the caller's grad "
            "mode (torch.enable_grad() inside records one under the caller's no_grad)"
        )


# TextClassifier


@pytest.mark.parametrize("padding_idx", [0, 3, VOCAB - 1])
def test_classifier_is_embedding_encoder_masked_mean_and_linear(device, padding_idx):
    model = TextClassifier(VOCAB, DIM, CLASSES, padding_idx=padding_idx).to(device)
    tokens = random_tokens(device, 6, 9, padding_idx, lengths=[9, 1, 0, 4, 7, 3])
    logits = model(tokens)
    check_tensor(logits, shape=(6, CLASSES), dtype=torch.float32, device=device, name="logits")
    assert_close(
        logits,
        logits_by_loop(model, tokens, padding_idx),
        "logits should be head(mean of the encoder's outputs at non-padding tokens); "
        f"is the mask built from padding_idx={padding_idx}?",
        **APPROX,
    )


def test_classifier_in_training_and_eval_mode(device):
    model = TextClassifier(VOCAB, DIM, CLASSES, padding_idx=0).to(device)
    # B == T: a [B, T, D] batch read as [T, B, D] would run without an error.
    tokens = random_tokens(device, 5, 5, 0, lengths=[5, 2, 0, 4, 1])
    for mode in MODES:
        with in_mode(model, mode):
            logits = model(tokens)
            expected = logits_by_loop(model, tokens, 0)
        check_tensor(logits, shape=(5, CLASSES), dtype=torch.float32, device=device, name="logits")
        assert torch.isfinite(logits).all(), (
            f"non-finite logits in {mode} mode: the encoder's fast path leaves nan at every "
            "position of a row of padding only; pool by selecting real positions, not "
            "multiplying by the mask"
        )
        assert_close(
            logits,
            expected,
            f"wrong logits in {mode} mode: build the encoder with batch_first=True and give it "
            "src_key_padding_mask=True at padding",
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
        **APPROX,
    )


def test_padding_idx_defaults_to_0(device):
    model = TextClassifier(VOCAB, DIM, CLASSES).to(device)
    tokens = random_tokens(device, 4, 6, 0, lengths=[6, 2, 0, 3])
    logits = model(tokens)
    assert model.embedding.padding_idx == 0, "padding_idx should default to 0"
    assert_close(
        logits,
        logits_by_loop(model, tokens, 0),
        "with no padding_idx given, id 0 is padding",
        **APPROX,
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
        **APPROX,
    )


def test_classifier_layers(device):
    model = TextClassifier(VOCAB, DIM, CLASSES, padding_idx=3).to(device)
    assert isinstance(model.embedding, nn.Embedding) and isinstance(model.head, nn.Linear)
    assert isinstance(model.encoder, nn.TransformerEncoderLayer), (
        "self.encoder should be an nn.TransformerEncoderLayer"
    )
    assert model.encoder.self_attn.batch_first, (
        "build the encoder with batch_first=True: it takes [B, T, D], as the embedding gives"
    )
    assert model.encoder.self_attn.embed_dim == DIM and model.encoder.self_attn.num_heads == 2
    assert model.encoder.linear1.out_features == 4 * DIM, "dim_feedforward is 4 * embed_dim"
    assert model.encoder.dropout.p == 0.0, "dropout defaults to 0.0"
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
            **APPROX,
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
        **APPROX,
    )


def test_large_embedding_rows_are_left_as_they_are(device):
    model = TextClassifier(VOCAB, DIM, CLASSES, padding_idx=0).to(device)
    with torch.no_grad():
        model.embedding.weight[1:] *= 1e4  # vectors far larger than an initialised layer's
    tokens = random_tokens(device, 3, 5, 0, lengths=[5, 3, 4])
    before = {name: p.detach().clone() for name, p in model.named_parameters()}
    model(tokens)
    changed = [name for name, p in model.named_parameters() if not torch.equal(p, before[name])]
    assert not changed, (
        f"the forward pass changed {changed}: the model is not modified (an nn.Embedding with "
        "max_norm renormalises the rows it looks up, in place: keep its defaults)"
    )


def test_classifier_options(device):
    model = TextClassifier(VOCAB, 12, CLASSES, padding_idx=1, num_heads=4, dropout=0.25)
    assert model.encoder.self_attn.num_heads == 4, "pass num_heads to the encoder layer"
    assert model.encoder.dropout.p == 0.25, "pass dropout to the encoder layer"
    assert model.encoder.linear1.out_features == 48, "dim_feedforward is 4 * embed_dim"
    model.to(device).eval()
    tokens = random_tokens(device, 3, 4, 1, lengths=[4, 2, 3])
    expected = logits_by_loop(model, tokens, 1, num_heads=4, dropout=0.25)
    assert_close(model(tokens), expected, "wrong logits", **APPROX)


def test_classifier_with_dropout_in_every_mode(device):
    with dropping_everything():
        # dropout 1.0: in training the encoder gives norm2(norm1(x)) at every call (see
        # test_encode_runs_the_layer_in_the_mode_the_caller_left_it), so the logits are fixed.
        model = TextClassifier(VOCAB, DIM, CLASSES, padding_idx=0, dropout=1.0).to(device)
        tokens = random_tokens(device, 4, 5, 0, lengths=[5, 2, 3, 1])
        for mode in MODES:
            with in_mode(model, mode):
                logits = model(tokens)
                expected = logits_by_loop(model, tokens, 0, dropout=1.0)
            assert_close(
                logits,
                expected,
                f"wrong logits with dropout in {mode} mode: dropout is the encoder layer's alone, "
                "and the layer runs in the model's mode",
                **APPROX,
            )


def test_rows_of_padding_only_give_the_head_bias(device):
    model = TextClassifier(VOCAB, DIM, CLASSES, padding_idx=0).to(device)
    tokens = torch.tensor([[0, 0, 0], [4, 0, 0]], device=device)
    for mode in MODES:
        with in_mode(model, mode):
            logits = model(tokens)
        assert torch.isfinite(logits).all(), (
            f"an all-padding row gave non-finite logits in {mode} mode: 0 / 0, or the nan the "
            "encoder's fast path leaves there multiplied by a 0 of the mask"
        )
        assert_close(logits[0], model.head.bias.detach(), f"all padding pools to 0 ({mode})")


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


def test_gradients_match_the_loop(device):
    model = TextClassifier(VOCAB, DIM, CLASSES, padding_idx=1).to(device)
    # Ids repeat within and across rows: each occurrence adds its own gradient.
    tokens = random_tokens(device, 8, 6, 1, lengths=[6, 3, 0, 1, 2, 4, 6, 5])
    target = torch.arange(8, device=device) % CLASSES
    torch.nn.functional.cross_entropy(model(tokens), target).backward()
    encoder = contract_layer(model)
    loss = torch.nn.functional.cross_entropy(logits_by_loop(model, tokens, 1, encoder), target)
    found = {
        "embedding.weight": model.embedding.weight,
        "head.weight": model.head.weight,
        "head.bias": model.head.bias,
        **{f"encoder.{name}": p for name, p in model.encoder.named_parameters()},
    }
    wanted = [model.embedding.weight, model.head.weight, model.head.bias]
    wanted += [p for _, p in encoder.named_parameters()]
    expected = torch.autograd.grad(loss, wanted)
    for (name, parameter), grad in zip(found.items(), expected, strict=True):
        assert parameter.grad is not None, f"no gradient reached {name}"
        assert_close(
            parameter.grad,
            grad,
            f"wrong gradient for {name}: each occurrence of a token adds its own gradient "
            "(nn.Embedding's defaults, no scale_grad_by_freq)",
            **APPROX,
        )


def test_classifier_batch_of_one_and_float64(device):
    skip_unless_supported(device, torch.float64)
    model = TextClassifier(VOCAB, DIM, CLASSES).to(device).to(torch.float64)
    tokens = torch.tensor([[7]], device=device)
    logits = model(tokens)
    check_tensor(logits, shape=(1, CLASSES), dtype=torch.float64, device=device, name="logits")
    assert_close(logits, logits_by_loop(model, tokens, 0), "wrong logits in float64", **APPROX)


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
    for shape in [(3,), (), (2, 3, 5), (1, 1, 1, 4)]:
        with raises(ValueError):
            model(torch.ones(shape, dtype=torch.long, device=device))


def test_layers_keep_their_default_initialisation(device):
    # nn.Embedding draws N(0, 1) (the padding row zero), the encoder layer and nn.Linear their
    # own defaults: each parameter's spread is compared with a layer the test builds.
    vocab, dim, classes = 400, 32, 64
    model = TextClassifier(vocab, dim, classes, padding_idx=0).to(device)
    fresh = {
        "embedding": nn.Embedding(vocab, dim, padding_idx=0),
        "encoder": nn.TransformerEncoderLayer(dim, 2, dim_feedforward=4 * dim, batch_first=True),
        "head": nn.Linear(dim, classes),
    }
    for name, layer in fresh.items():
        for key, expected in layer.named_parameters():
            found = model.get_parameter(f"{name}.{key}").detach().cpu()
            where = f"{name}.{key}: keep the layer's own initialisation (no init of your own)"
            if expected.std() == 0:  # ones or zeros
                assert torch.equal(found, expected.detach()), where
            elif expected.numel() >= 256:  # enough values for a stable spread
                ratio = found.std() / expected.std()
                assert 0.7 < ratio < 1.4, f"{where}: spread {ratio:.2f} times the default"


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
    exact = facets.copy_module(model).to("cpu", torch.float64)
    with torch.no_grad():
        return logits_by_loop(exact, tokens, 0)


def layer_and_batch(device):
    embedded = torch.randn(3, 5, DIM, device=device)
    return facets.args(encoder_layer(device), embedded, rows_with_padding(device, 3, 5, [5, 2, 1]))


def integer_mask(arguments):
    layer, embedded, mask = arguments.args
    return facets.args(layer, embedded, mask.long())


def forward(model, tokens):
    return model(tokens)


def pretrained(device):
    """A classifier whose padding row holds vectors (loaded from elsewhere), not zeros."""
    arguments = classifier(torch.float32, device)
    with torch.no_grad():
        arguments.args[0].embedding.weight[0] = torch.linspace(-1, 1, DIM)
    return arguments


def mean_or_zeros(values, mask):
    """Each row's mean over its real positions; for a row without one, the sum of none:
    zeros that still hang on the graph (with a zero gradient)."""
    rows = [v[m].mean(0) if m.any() else v[m].sum(0) for v, m in zip(values, mask, strict=True)]
    return torch.stack(rows)


FACETS = facets.declare(
    facets.of(
        masked_mean,
        facets.Dtypes(
            padded,
            oracle=mean64,
            ulps=4,  # dividing before summing rounds more than once
            once=True,  # in float32: once for float16 and bfloat16 (the contract)
        ),
        facets.Unmodified(lambda device: padded(torch.float32, device, length=5)),
        facets.Returns(lambda device: padded(torch.float32, device, length=5)),
        facets.BadShapes(lambda device: padded(torch.float32, device, length=5), names=(1,)),
        # A row with no real position (nan at its padding), and no time step at all: zeros,
        # with a zero gradient.
        facets.Edges(
            {
                "a row all padding": lambda device: facets.args(
                    torch.tensor(
                        [[[1.0, 2.0], [3.0, 4.0]], [[math.nan, math.inf], [5.0, 6.0]]],
                        device=device,
                    ),
                    torch.tensor([[True, False], [False, False]], device=device),
                ),
                "no time step (empty rows)": lambda device: facets.args(
                    torch.zeros(2, 0, 3, device=device),
                    torch.zeros(2, 0, dtype=torch.bool, device=device),
                ),
                "one row, one step, one feature (size 1)": lambda device: facets.args(
                    torch.full((1, 1, 1), 2.5, device=device),
                    torch.ones(1, 1, dtype=torch.bool, device=device),
                ),
            },
            oracle=mean_or_zeros,
            wrt=0,
        ),
    ),
    facets.of(
        encode,
        facets.Modes(layer_and_batch, module=lambda arguments: arguments.args[0]),
        # One call of the layer for the whole batch: not a second one to check the first.
        facets.ForwardModes(
            layer_and_batch, module=lambda arguments: arguments.args[0], grad=None, calls=1
        ),
        facets.Unmodified(layer_and_batch, module_grads=True),
        facets.Returns(layer_and_batch),
        # An integer mask: refused, the layer and the inputs as they were.
        facets.Refused({"an integer mask": lambda device: integer_mask(layer_and_batch(device))}),
        facets.BadShapes(layer_and_batch, names=(2,)),
        facets.Trains(
            layer_and_batch,
            forward=lambda layer, device: encode(
                layer,
                torch.randn(2, 3, DIM, device=device),
                torch.tensor([[True, True, False], [True, True, True]], device=device),
            ).sum(),
            module=lambda arguments, result: arguments.args[0],
        ),
    ),
    facets.of(
        TextClassifier,
        facets.Dtypes(
            classifier,
            oracle=classifier64,
            # A transformer layer rounds many times in float16 and bfloat16.
            ulps=8,
            atol={torch.float32: 1e-6, torch.float16: 2e-3, torch.bfloat16: 1e-2},
        ),
        facets.DefaultDevice(lambda device: facets.args(VOCAB, DIM, CLASSES)),
        facets.Trains(
            lambda device: facets.args(VOCAB, DIM, CLASSES).replace(padding_idx=0),
            forward=lambda model, device: model.to(device)(
                torch.tensor([[3, 5, 0]], device=device)
            ),
        ),
        facets.Registered(
            lambda device: facets.args(VOCAB, DIM, CLASSES).replace(dropout=0.1),
            forward=lambda model, device: model.to(device)(
                torch.tensor([[3, 5, 0], [1, 2, 3]], device=device)
            ),
        ),
        facets.Seeded(
            lambda device: facets.args(VOCAB, DIM, CLASSES),
            drawn=lambda arguments, model: list(model.parameters()),
            like=lambda: [
                nn.Embedding(VOCAB, DIM, padding_idx=0),
                nn.TransformerEncoderLayer(
                    DIM, 2, dim_feedforward=4 * DIM, dropout=0.0, batch_first=True
                ),
                nn.Linear(DIM, CLASSES),
            ],
        ),
        facets.Unmodified(pretrained),
        facets.Modes(pretrained, module=lambda arguments: arguments.args[0]),
        # One forward: each layer runs once, the encoder not a second time.
        facets.ForwardModes(
            pretrained, module=lambda arguments: arguments.args[0], grad=None, calls=1
        ),
        facets.Refused(
            {
                "1-D tokens": lambda device: facets.args(
                    pretrained(device).args[0], torch.tensor([3, 5, 0], device=device)
                )
            }
        ),
        facets.BadShapes(
            lambda device: classifier(torch.float32, device), names=(1,), dims=(), label="2-D"
        ),
        # Each shows in the logits of a new model in training mode, padded rows among them.
        facets.Defaults(
            lambda device: facets.args(VOCAB, DIM, CLASSES),
            values={"padding_idx": 0, "num_heads": 2, "dropout": 0.0},
            key=lambda arguments, model: model(torch.tensor([[3, 5, 0, 7, 0], [1, 2, 3, 4, 5]])),
        ),
        call=lambda model_or_size, *rest, **options: (
            forward(model_or_size, *rest)
            if isinstance(model_or_size, nn.Module)
            else TextClassifier(model_or_size, *rest, **options)
        ),
    ),
)
test_facets = FACETS.test
