import copy
import functools
import math
import random
import warnings

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from katas.q11_layer_shapes import (
    conv2d_output_shape,
    linear_forward,
    lstm_final_states,
    padded_attention,
    pool2d,
)
from torch_katas import facets
from torch_katas.op_families import LINEAR, POOLING
from torch_katas.testing import (
    assert_close,
    assert_no_python_loops,
    assert_no_torch_internals,
    check_tensor,
    forbidden_ops,
    largest_result,
    raises,
    seed_for,
    skip_unless_supported,
)

# conv2d_output_shape


def real_conv_shape(input_shape, out_channels, **options):
    """The shape a real convolution produces, or ValueError where nn.Conv2d refuses the
    configuration. F.conv2d with an all-zero weight is nn.Conv2d's forward without the
    cost of initialising a layer."""
    kernel = options["kernel_size"]
    kernel = (kernel, kernel) if isinstance(kernel, int) else kernel
    weight = torch.zeros(out_channels, input_shape[-3], *kernel)
    arguments = {key: options[key] for key in ("stride", "padding", "dilation")}
    try:
        with warnings.catch_warnings():  # 'same' with an even kernel warns about a padded copy
            warnings.simplefilter("ignore")
            return tuple(F.conv2d(torch.zeros(input_shape), weight, **arguments).shape)
    except (RuntimeError, ValueError):
        return ValueError


def conv_configurations(seed, count=150):
    """A fixed sample of small configurations: every option as an int or an (h, w) pair."""
    rng = random.Random(seed)

    def size(low, high):
        one = (rng.randint(low, high), rng.randint(low, high))
        return one[0] if rng.random() < 0.5 else one

    for _ in range(count):
        padding = rng.choice(["valid", "same"]) if rng.random() < 0.2 else size(0, 2)
        batch = rng.choice([(), (0,), (1,), (2,)])
        input_shape = (*batch, rng.randint(1, 2), rng.randint(1, 9), rng.randint(1, 9))
        options = dict(
            kernel_size=size(1, 4), stride=size(1, 3), padding=padding, dilation=size(1, 3)
        )
        yield input_shape, rng.randint(1, 3), options


@functools.cache  # the shapes are the same on every device: convolve once, on the CPU
def configurations_and_real_shapes():
    return [
        (*config, real_conv_shape(*config[:2], **config[2]))
        for config in conv_configurations(seed_for(0))
    ]


def shape_or_error(input_shape, out_channels, options):
    try:
        return conv2d_output_shape(input_shape, out_channels, **options)
    except ValueError:
        return ValueError


def describe(result):
    return "ValueError" if result is ValueError else str(result)


def test_output_shape_agrees_with_a_real_conv2d(device):
    cases = configurations_and_real_shapes()
    results = [shape_or_error(*case[:3]) for case in cases]
    for (input_shape, out_channels, options, expected), got in zip(cases, results, strict=True):
        assert got == expected, (
            f"for an input of shape {input_shape} and nn.Conv2d(C_in, {out_channels}, "
            f"**{options}) expected {describe(expected)}, got {describe(got)}"
        )


@pytest.mark.parametrize(
    "input_shape, args, expected",
    [
        (
            (8, 3, 224, 224),
            dict(out_channels=64, kernel_size=7, stride=2, padding=3),
            (8, 64, 112, 112),
        ),
        ((1, 16, 56, 56), dict(out_channels=32, kernel_size=1, stride=2), (1, 32, 28, 28)),
        ((3, 32, 32), dict(out_channels=16, kernel_size=3, padding="same"), (16, 32, 32)),
        ((2, 1, 28, 28), dict(out_channels=4, kernel_size=5, padding="valid"), (2, 4, 24, 24)),
        ((1, 1, 10, 20), dict(out_channels=1, kernel_size=3, dilation=(2, 4)), (1, 1, 6, 12)),
        ((1, 1, 5, 5), dict(out_channels=2, kernel_size=(5, 1), stride=(1, 2)), (1, 2, 1, 3)),
    ],
    ids=["resnet-stem", "1x1-stride-2", "same", "valid", "dilation-pair", "kernel-equals-input"],
)
def test_known_shapes(device, input_shape, args, expected):
    got = conv2d_output_shape(input_shape, **args)
    assert got == expected, f"expected {expected}, got {got}"
    assert isinstance(got, tuple) and all(type(size) is int for size in got), (
        f"return a tuple of Python ints, got {got!r}"
    )
    # input_shape is any sequence of ints: a list too (unhashable, so no cache keyed on it).
    from_list = conv2d_output_shape(list(input_shape), **args)
    assert from_list == expected, (
        f"for input_shape given as the list {list(input_shape)} expected {expected}, got "
        f"{from_list!r}: input_shape may be any sequence (a tuple, a torch.Size, a list)"
    )


@pytest.mark.parametrize(
    "input_shape, args",
    [
        ((1, 1, 4, 4), dict(kernel_size=5)),
        ((1, 1, 4, 9), dict(kernel_size=3, dilation=(2, 1))),
        ((1, 1, 8, 8), dict(kernel_size=3, stride=2, padding="same")),
        ((1, 1, 8, 8), dict(kernel_size=3, padding="full")),
        ((1, 1, 8, 8), dict(kernel_size=3, padding="Same")),
        ((8, 8), dict(kernel_size=3)),
        ((1, 1, 1, 8, 8), dict(kernel_size=3)),
    ],
    ids=[
        "kernel-too-big",
        "dilated-too-big",
        "same-strided",
        "bad-padding",
        "capitalised-padding",
        "2-d",
        "5-d",
    ],
)
def test_rejects_configurations_nn_conv2d_rejects(device, input_shape, args):
    with raises(ValueError):
        conv2d_output_shape(input_shape, 2, **args)


# linear_forward

FORBIDDEN = LINEAR.ops
REASON = "write y = x W^T + b with matrix multiplication"


def call_linear(*args):
    assert_no_torch_internals(linear_forward, reason=REASON)
    with forbidden_ops(*FORBIDDEN, reason=REASON, aten=LINEAR.aten):
        return linear_forward(*args)


@pytest.mark.parametrize(
    "batch", [(5,), (2, 3), (), (0,), (1, 1, 4)], ids=["2-d", "3-d", "1-d", "empty", "4-d"]
)
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no-bias"])
def test_linear_forward_equals_nn_linear(device, batch, bias):
    layer = nn.Linear(6, 4, bias=bias).to(device)
    x = torch.randn(*batch, 6, device=device)
    out = call_linear(x, layer.weight, layer.bias)
    check_tensor(out, shape=(*batch, 4), dtype=torch.float32, device=device, name="output")
    assert_close(out, layer(x), "expected x @ weight.T (+ bias), as nn.Linear does")


@pytest.mark.parametrize("batch", [(16,), (), (2, 4)], ids=["2-d", "1-d", "3-d"])
def test_linear_forward_multiplies_matrices(device, batch):
    # Broadcasting x against the weight and summing builds [..., out, in] (for a 1-D x
    # [out, in], as large as the weight); matrix multiplication holds no more than x or
    # the result.
    out_features, in_features = 8, 32
    x = torch.randn(*batch, in_features, device=device)
    weight = torch.randn(out_features, in_features, device=device)
    with largest_result() as record:
        out = call_linear(x, weight)
    assert_close(out, x @ weight.T, "expected x @ weight.T")
    assert record.largest <= max(x.numel(), out.numel()), (
        f"a tensor of {record.largest} elements was built for x {tuple(x.shape)}: that is "
        "every product x_j W_ij; use matrix multiplication"
    )


def test_linear_forward_with_a_square_weight(device):
    layer = nn.Linear(5, 5).to(device)
    x = torch.randn(3, 5, device=device)
    out = call_linear(x, layer.weight, layer.bias)
    assert_close(out, layer(x), "nn.Linear's weight is [out, in]: multiply by its transpose")


def test_linear_forward_on_non_contiguous_inputs(device):
    x = torch.randn(6, 4, device=device).T  # [4, 6], transposed
    weight = torch.randn(6, 3, device=device).T  # [3, 6], transposed
    bias = torch.randn(3, 2, device=device)[:, 0]  # strided
    out = call_linear(x, weight, bias)
    expected = nn.Linear(6, 3).to(device)
    with torch.no_grad():
        expected.weight.copy_(weight)
        expected.bias.copy_(bias)
        assert_close(out, expected(x), "wrong for non-contiguous inputs")


def test_linear_forward_gradients(device):
    skip_unless_supported(device, torch.float64)
    options = dict(dtype=torch.float64, device=device, requires_grad=True)
    x, weight, bias = (
        torch.randn(3, 2, 2, **options),  # two leading dims, each summed into the bias grad
        torch.randn(4, 2, **options),  # not square: a missing transpose shows
        torch.randn(4, **options),
    )
    out = call_linear(x, weight, bias)
    check_tensor(out, shape=(3, 2, 4), dtype=torch.float64, device=device)
    with forbidden_ops(*FORBIDDEN, reason=REASON):
        assert torch.autograd.gradcheck(linear_forward, (x, weight, bias))
        assert torch.autograd.gradcheck(lambda a, w: linear_forward(a, w), (x, weight))


def test_linear_forward_does_not_modify_its_inputs(device):
    x, weight, bias = (
        torch.randn(3, 4, device=device),
        torch.randn(2, 4, device=device),
        torch.randn(2, device=device),
    )
    before = [t.clone() for t in (x, weight, bias)]
    call_linear(x, weight, bias)
    for name, tensor, old in zip(("x", "weight", "bias"), (x, weight, bias), before, strict=True):
        assert torch.equal(tensor, old), f"linear_forward changed {name}; leave inputs as they are"


@pytest.mark.parametrize(
    "x_shape, weight_shape, bias_shape",
    [
        ((3, 4), (2, 5), (2,)),
        ((3, 4), (4,), None),
        ((3, 4), (2, 2, 4), None),
        ((3, 4), (2, 4), (4,)),
        ((3, 4), (2, 4), (1, 2)),
        ((2, 4), (2, 4), (2, 1)),
        ((), (2, 4), None),
        ((3, 4), (1, 4), ()),
    ],
    ids=[
        "in-features-differ",
        "1-d-weight",
        "3-d-weight",
        "bias-size",
        "2-d-bias",
        "column-bias",
        "0-d-x",  # no last dim at all: a ValueError, not the IndexError of x.shape[-1]
        "0-d-bias",  # one value for one output, yet not [out_features]
    ],
)
def test_linear_forward_rejects_shapes_that_do_not_fit(device, x_shape, weight_shape, bias_shape):
    x, weight = torch.randn(x_shape, device=device), torch.randn(weight_shape, device=device)
    bias = None if bias_shape is None else torch.randn(bias_shape, device=device)
    with raises(ValueError):
        call_linear(x, weight, bias)


# --- lstm_final_states -------------------------------------------------------------------

LSTMS = {
    "one-layer": dict(num_layers=1, bidirectional=False, batch_first=True, proj_size=0),
    "seq-first": dict(num_layers=1, bidirectional=False, batch_first=False, proj_size=0),
    "bidirectional": dict(num_layers=1, bidirectional=True, batch_first=True, proj_size=0),
    "deep-seq-first": dict(num_layers=3, bidirectional=False, batch_first=False, proj_size=0),
    "deep-bidirectional-seq-first": dict(
        num_layers=2, bidirectional=True, batch_first=False, proj_size=0
    ),
    "deep-projected": dict(num_layers=2, bidirectional=True, batch_first=True, proj_size=3),
}


# torch's CPU kernel says it runs projected LSTMs without oneDNN: nothing to change in the
# learner's code.
@pytest.mark.filterwarnings("ignore:LSTM with projections is not supported:UserWarning")
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("name", list(LSTMS))
def test_lstm_final_states_are_the_last_layers_in_each_direction(device, name, dtype):
    skip_unless_supported(device, dtype)
    settings = LSTMS[name]
    lstm = nn.LSTM(4, 5, **settings).to(device=device, dtype=dtype)
    batch, steps = 3, 6
    shape = (batch, steps, 4) if settings["batch_first"] else (steps, batch, 4)
    x = torch.randn(*shape, device=device, dtype=dtype, requires_grad=True)
    got = lstm_final_states(lstm, x)
    # The oracle reads `output`, the last layer's state at every step: the forward
    # direction ends at the last step, the backward one at step 0.
    output, _ = lstm(x)
    if not settings["batch_first"]:
        output = output.transpose(0, 1)
    size = settings["proj_size"] or 5
    parts = [output[:, -1, :size]]
    if settings["bidirectional"]:
        parts.append(output[:, 0, size:])
    expected = torch.cat(parts, dim=-1)
    check_tensor(got, shape=expected.shape, dtype=x.dtype, device=device, name="final states")
    assert_close(
        got,
        expected,
        msg=f"{name}: the last layer's final hidden state, forward direction then backward "
        "(h_n is [layers * directions, B, H] whatever batch_first says)",
    )
    got.sum().backward()
    assert x.grad is not None, "gradients should flow back to x"


def test_lstm_final_states_keep_the_lstms_mode(device):
    # Dropout between layers is the caller's choice: in training mode it applies.
    lstm = nn.LSTM(4, 5, num_layers=2, dropout=0.5).to(device)
    x = torch.randn(6, 3, 4, device=device)
    for training in (True, False):
        lstm.train(training)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed_for(0))
            got = lstm_final_states(lstm, x)
            torch.manual_seed(seed_for(0))
            expected = lstm(x)[1][0][-1]
        assert lstm.training is training and lstm.dropout == 0.5, (
            "leave the LSTM as it came: its mode is the caller's to set"
        )
        if x.device.type == "cpu" or not training:  # CPU dropout follows the seed
            assert_close(got, expected, msg="run the LSTM in the mode the caller set")


# --- padded_attention --------------------------------------------------------------------


def attention_by_hand(q, k, v, padding=None, causal=False):
    """The oracle: the formula written out, masked scores set to -inf before the softmax."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if padding is not None:
        scores = scores.masked_fill(padding[:, None, None, :], float("-inf"))
    if causal:
        future = torch.ones(scores.shape[-2:], dtype=torch.bool, device=q.device).triu(1)
        scores = scores.masked_fill(future, float("-inf"))
    return scores.softmax(dim=-1) @ v


def leaves(value):
    """The objects nested in tuples, lists and dicts' values (what torch functions take)."""
    if isinstance(value, tuple | list):
        return [leaf for item in value for leaf in leaves(item)]
    if isinstance(value, dict):
        return leaves(list(value.values()))
    return [value]


class SdpaDerived(torch.overrides.TorchFunctionMode):
    """Tracks SDPA's results and what is computed from them alone (views, casts, copies)."""

    def __init__(self):
        super().__init__()
        self.derived = []

    def is_derived(self, tensor):
        return any(tensor is seen for seen in self.derived)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        inputs = [
            value for value in leaves((args, kwargs or {})) if isinstance(value, torch.Tensor)
        ]
        sdpa = func is F.scaled_dot_product_attention
        if sdpa or (inputs and all(map(self.is_derived, inputs))):
            self.derived += [value for value in leaves(out) if isinstance(value, torch.Tensor)]
        else:
            # Written in place from something else (out.copy_(by_hand), out[:] = ...,
            # out.data = ...): SDPA's values are gone from it.
            name = getattr(func, "__name__", "")
            # out[:] = ... is __setitem__; out.data = ... the descriptor's setter, "__set" too.
            in_place = name.startswith("__set") or (
                name.endswith("_") and not name.startswith("__")
            )
            written = [*(args[:1] if in_place else ()), (kwargs or {}).get("out")]
            self.derived = [
                seen for seen in self.derived if not any(seen is one for one in written)
            ]
        return out


def padding_of(lengths, size, device, left=False):
    padding = torch.arange(size, device=device) >= torch.tensor(lengths, device=device)[:, None]
    return padding.flip(-1) if left else padding


ATTENTION_CASES = {
    "plain": dict(lengths=None, causal=False, query_len=4),
    "padded": dict(lengths=[5, 2], causal=False, query_len=3),
    "left-padded": dict(lengths=[3, 5], causal=False, query_len=3, left=True),
    "causal": dict(lengths=None, causal=True, query_len=5),
    "padded-and-causal": dict(lengths=[5, 3], causal=True, query_len=5),
    "large-scores": dict(lengths=[4, 2], causal=False, query_len=3, scale=1e3),
    # Padded keys whose scores beat the others by far more than a finite stand-in for -inf
    # (-1e4) could take away.
    "padded-keys-score-highest": dict(lengths=[3, 2], causal=False, query_len=3, padded=1e6),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("name", list(ATTENTION_CASES))
def test_padded_attention_matches_the_formula(device, name, dtype):
    skip_unless_supported(device, dtype)
    case = ATTENTION_CASES[name]
    batch, heads, keys = 2, 3, 5
    q = torch.randn(batch, heads, case["query_len"], 8, device=device, dtype=dtype)
    q = q * case.get("scale", 1)  # scores of thousands: exp overflows without max-subtraction
    k = torch.randn(batch, heads, keys, 8, device=device, dtype=dtype)
    v = torch.randn(batch, heads, keys, 6, device=device, dtype=dtype)
    padding = None
    if case["lengths"] is not None:
        padding = padding_of(case["lengths"], keys, device, case.get("left", False))
    if "padded" in case:  # each padded key along the first query, scaled up
        k = torch.where(padding[:, None, :, None], case["padded"] * q[..., :1, :], k)
    seen = SdpaDerived()
    with seen:
        got = padded_attention(q, k, v, padding, causal=case["causal"])
    expected = attention_by_hand(q, k, v, padding, case["causal"])
    check_tensor(got, shape=expected.shape, dtype=dtype, device=device, name="attention")
    assert_close(
        got,
        expected,
        msg=f"{name}: True in key_padding_mask marks padding to ignore; SDPA's boolean "
        "attn_mask marks with True the keys that take part",
    )
    assert seen.is_derived(got), (
        "compute it with torch.nn.functional.scaled_dot_product_attention and return its "
        "result, not attention computed another way"
    )


# --- pool2d ------------------------------------------------------------------------------

POOLS = {"max": F.max_pool2d, "avg": F.avg_pool2d}


def pooled(x, kernel, mode):
    # Every pooling builtin, of any dimension: a 3-D max pool with kernel (1, k, k) over
    # x.unsqueeze(1) is the 2-D one.
    with forbidden_ops(*POOLING.ops, reason="pool the windows yourself", aten=POOLING.aten):
        return pool2d(x, kernel, mode=mode)


def distinct_values(shape, device):
    """Values without ties in any window, in a scrambled order: each max is one element."""
    count = math.prod(shape)
    return torch.randperm(count, device=device).to(torch.get_default_dtype()).reshape(shape) / count


@pytest.mark.parametrize("mode", ["max", "avg"])
@pytest.mark.parametrize(
    "shape, kernel",
    [((2, 3, 4, 6), 2), ((1, 2, 7, 5), 2), ((2, 1, 6, 6), 3), ((1, 1, 5, 5), 5), ((1, 2, 3, 3), 1)],
)
def test_pool2d_equals_torch_pooling(device, mode, shape, kernel):
    x = distinct_values(shape, device).contiguous(memory_format=torch.channels_last)
    out = pooled(x, kernel, mode)
    n, c, h, w = shape
    check_tensor(
        out,
        shape=(n, c, h // kernel, w // kernel),
        dtype=x.dtype,
        device=device,
        name=f"pool2d(x, {kernel}, {mode!r})",
    )
    assert_close(
        out,
        POOLS[mode](x, kernel),
        msg=f"each output is the {mode} of one {kernel} x {kernel} window; windows side by side "
        "(stride = kernel), the leftover rows and columns at the edge dropped",
    )


@pytest.mark.parametrize("mode", ["max", "avg"])
def test_pool2d_gradient(device, mode):
    x = distinct_values((1, 2, 5, 4), device).requires_grad_()
    weights = torch.randn(1, 2, 2, 2, device=device)
    (grad,) = torch.autograd.grad((pooled(x, 2, mode) * weights).sum(), x)
    (expected,) = torch.autograd.grad((POOLS[mode](x, 2) * weights).sum(), x)
    assert_close(
        grad,
        expected,
        msg="max passes each window's gradient to its largest element, avg spreads it as 1 / k²; "
        "the dropped edge gets 0",
    )


@pytest.mark.parametrize("mode", ["min", "MAX"])
def test_pool2d_rejects_other_modes(device, mode):
    with raises(ValueError):
        pool2d(torch.randn(1, 1, 4, 4, device=device), 2, mode=mode)
        pytest.fail(f"mode is exactly 'max' or 'avg': ValueError for {mode!r}")


def test_pool2d_without_python_loops(device):
    assert_no_python_loops(
        pool2d,
        lambda n: (torch.randn(n, n, 2 * n, 2 * n, device=device), 2),
        over="images, channels and windows",
    )


# ---------------------------------------------------------------- facets


def layer_inputs(dtype, device, shape=(2, 3, 4)):
    count = torch.Size(shape).numel()
    x = torch.linspace(-2, 2, max(count, 1), dtype=torch.float64)[:count].reshape(shape)
    weight = torch.linspace(-1, 1, 5 * shape[-1], dtype=torch.float64).reshape(5, shape[-1])
    bias = torch.linspace(0, 1, 5, dtype=torch.float64)
    return facets.args(*(t.to(dtype=dtype, device=device) for t in (x, weight, bias)))


def linear64(x, weight, bias=None):
    return x @ weight.T if bias is None else x @ weight.T + bias


def unbiased_layer_inputs(dtype, device):
    """x and weight alone: a zero bias made in the default dtype in its place shows."""
    x, weight, _ = layer_inputs(dtype, device).args
    return facets.args(x, weight)


def lstm_and_input(device):
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True)
    return facets.args(lstm.to(device), torch.randn(2, 5, 3, device=device))


def seq_first_lstm_and_input(device):
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True)  # batch_first=False: [T, B, features]
    return facets.args(lstm.to(device), torch.randn(5, 2, 3, device=device))


def lstm_forward(lstm, device):
    return lstm_final_states(lstm, torch.randn(2, 5, 3, device=device))


def attention_inputs(dtype, device, causal=False):
    def values(*shape, start):
        count = torch.Size(shape).numel()
        return torch.linspace(start, -start, count, dtype=torch.float64).reshape(shape)

    q, k, v = (
        values(2, 2, 3, 4, start=-1),
        values(2, 2, 3, 4, start=1),
        values(2, 2, 3, 5, start=-2),
    )
    pad = torch.tensor([[False, False, True], [False, False, False]], device=device)
    return facets.args(*(t.to(dtype=dtype, device=device) for t in (q, k, v)), pad, causal)


def attention64(q, k, v, pad, causal):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    hidden = pad[:, None, None, :]
    if causal:
        hidden = hidden | torch.ones(3, 3, dtype=torch.bool).triu(1)
    return scores.masked_fill(hidden, -math.inf).softmax(-1) @ v


def pool_input(dtype, device):
    """Distinct values (no ties) whose float64 means float32 does not hold, in float16 as
    large as a native sum or square would overflow, with a row and a column left over."""
    ramp = torch.linspace(-1, 1, 2 * 3 * 7 * 7, dtype=torch.float64).reshape(2, 3, 7, 7)
    values = ramp.flip(-1) * 0.3 + ramp.mT + 1 / 3
    return (values * facets.past_square_overflow(dtype)).to(device, dtype)


def near_half_max(dtype, device):
    """float16 values whose 2 x 2 window sums pass 65504 where their means do not."""
    ramp = torch.linspace(-1, 1, 2 * 3 * 4 * 4, dtype=torch.float64).reshape(2, 3, 4, 4)
    return (40000 + 15000 * ramp.mT).to(device, dtype)


FACETS = facets.declare(
    facets.of(
        conv2d_output_shape,
        facets.Number(lambda device: facets.args(torch.Size([1, 3, 8, 8]), 4, 3), tuple),
        # A 3x3 kernel on 9x9: another stride, padding or dilation gives another shape.
        facets.Defaults(
            lambda device: facets.args((1, 3, 9, 9), 4, 3),
            values={"stride": 1, "padding": 0, "dilation": 1},
        ),
    ),
    facets.of(
        linear_forward,
        facets.Dtypes(
            layer_inputs, oracle=linear64, ulps=4, atol={torch.bfloat16: 0.03, torch.float16: 4e-3}
        ),
        facets.Dtypes(
            unbiased_layer_inputs,
            oracle=linear64,
            ulps=4,
            atol={torch.bfloat16: 0.03, torch.float16: 4e-3},
            label="no bias",
        ),
        facets.Gradients(
            layer_inputs, oracle=linear64, atol={torch.bfloat16: 0.06, torch.float16: 8e-3}
        ),
        facets.Shapes(
            lambda shape, device: layer_inputs(torch.float32, device, shape=shape or (3,)),
            oracle=linear64,
            shapes=("1-D", "empty", "empty inside", "2-D", "size 1", "non-contiguous"),
        ),
        facets.Unmodified(lambda device: layer_inputs(torch.float32, device)),
        facets.Defaults(values={"bias": None}),
        # weight [out, in] and bias [out] fix each other; x's last dim is in_features.
        facets.BadShapes(lambda device: layer_inputs(torch.float32, device), names=(1, 2)),
        facets.BadShapes(
            lambda device: layer_inputs(torch.float32, device), names=(0,), dims=(-1,), label="x"
        ),
    ),
    facets.of(
        pool2d,
        facets.Dtypes(
            lambda dtype, device: facets.args(pool_input(dtype, device), 2, "avg"),
            oracle=lambda x, k, mode: F.avg_pool2d(x, k),
            label="avg",
            once=True,
        ),
        facets.Dtypes(
            lambda dtype, device: facets.args(pool_input(dtype, device), 2, "max"),
            oracle=lambda x, k, mode: F.max_pool2d(x, k),
            label="max",
            once=True,
        ),
        facets.Dtypes(
            lambda dtype, device: facets.args(near_half_max(dtype, device), 2, "avg"),
            oracle=lambda x, k, mode: F.avg_pool2d(x, k),
            dtypes=(torch.float16,),
            label="avg-window-sum-past-max",
            once=True,
        ),
        facets.Gradients(
            lambda dtype, device: facets.args(pool_input(dtype, device), 2, "avg"),
            oracle=lambda x, k, mode: F.avg_pool2d(x, k),
        ),
        facets.Edges(
            {
                "an empty batch (N = 0)": lambda device: facets.args(
                    torch.randn((0, 2, 4, 4), device=device), 2, "avg"
                ),
                "a single window (kernel = H = W)": lambda device: facets.args(
                    torch.randn((2, 3, 3, 3), device=device), 3, "avg"
                ),
            },
            oracle=lambda x, k, mode: F.avg_pool2d(x, k),
            wrt=0,
        ),
        facets.Unmodified(lambda device: facets.args(pool_input(torch.float32, device), 2)),
        facets.Defaults(values={"mode": "max"}),
    ),
    facets.of(
        lstm_final_states,
        facets.Trains(
            lstm_and_input, forward=lstm_forward, module=lambda arguments, result: arguments.args[0]
        ),
        facets.Unmodified(seq_first_lstm_and_input, module_grads=True),
        facets.Returns(lstm_and_input),
        facets.ForwardModes(
            lstm_and_input, module=lambda arguments: arguments.args[0], grad=None, calls=1
        ),
        # One layer, one direction, a batch of one: h_n is [1, 1, H], and .squeeze() drops B.
        facets.Edges(
            {
                "one layer, one direction, a batch of one (size 1)": lambda device: facets.args(
                    nn.LSTM(3, 1, batch_first=True).to(device), torch.randn(1, 2, 3, device=device)
                ),
            },
            oracle=lambda lstm, x: copy.deepcopy(lstm).cpu().double()(x)[1][0][-1],
        ),
    ),
    facets.of(
        padded_attention,
        # SDPA's kernels may round its steps in the dtype: a few units of it.
        facets.Dtypes(attention_inputs, oracle=attention64, ulps=4),
        facets.Dtypes(
            lambda dtype, device: attention_inputs(dtype, device, causal=True),
            oracle=attention64,
            ulps=4,
            label="causal",
        ),
        facets.Unmodified(lambda device: attention_inputs(torch.float32, device)),
        # L == S here, so a causal default would run, and give other values.
        facets.Defaults(
            lambda device: facets.args(*attention_inputs(torch.float32, device).args[:3]),
            values={"key_padding_mask": None, "causal": False},
        ),
    ),
)
test_facets = FACETS.test
