"""Kata 11: what the common layers compute, and the shapes they produce.

Using torch.nn's layers well means knowing the shapes going in and out. nn.Linear maps
[..., in_features] to [..., out_features] with y = x W^T + b, whatever the leading dims.
nn.Conv2d maps [N, C_in, H, W] to [N, C_out, H_out, W_out], where each spatial size
follows from the kernel size k, stride s, padding p and dilation d:

    out = floor((size + 2 p - d (k - 1) - 1) / s) + 1

Sequence layers have shapes of their own. nn.LSTM takes [T, B, features] unless built
with batch_first=True ([B, T, features]); it returns `output`, the last layer's hidden
state at every step ([B, T, H * directions] when batch_first), and `(h_n, c_n)`, every
layer's and direction's state after the last step, always laid out
[layers * directions, B, H] whatever batch_first says. A bidirectional LSTM's backward
direction reads the sequence from the end, so its final state sits at step 0 of `output`.
Attention (`F.scaled_dot_product_attention`) maps queries [B, heads, L, d] and keys and
values [B, heads, S, d] to [B, heads, L, d]; its boolean mask marks with True the
positions that *take part*, the opposite of `key_padding_mask` in nn.MultiheadAttention
and nn.Transformer, where True marks padding to ignore.

Pooling layers (nn.MaxPool2d, nn.AvgPool2d) have no parameters: each output is the max or
the mean of one window of the input, per channel. Their stride defaults to the kernel size,
so the windows sit side by side and a kernel of 2 halves the height and width (rows or
columns left over at the edge are dropped); max pooling keeps the strongest response of each
window, so a shift of a pixel or two changes little. nn.AdaptiveAvgPool2d(1) averages each
channel over the whole map, whatever its size: the usual step between a CNN's last
convolution and its Linear classifier.

Task: compute a Conv2d's output shape without running it, write a Linear layer's forward
from tensor operations, pool windows by hand, take an LSTM's final states, and call
attention with a padding mask and a causal mask.

Rule for the whole kata: torch's public API only. Private torch names (`torch._C`,
`torch.ops`, `torch._foreach_norm` and the like) and names looked up from strings
(`getattr(torch, name)`, `importlib`) are refused anywhere in the module: they reach
the code the rules forbid unseen.
"""

from collections.abc import Sequence

import torch
from torch import nn


def conv2d_output_shape(
    input_shape: Sequence[int],
    out_channels: int,
    kernel_size: int | tuple[int, int],
    stride: int | tuple[int, int] = 1,
    padding: int | tuple[int, int] | str = 0,
    dilation: int | tuple[int, int] = 1,
) -> tuple[int, ...]:
    """The shape `nn.Conv2d(C_in, out_channels, kernel_size, stride, padding, dilation)`
    gives for an input of shape `input_shape`, computed without running a convolution.

    - input_shape: (N, C_in, H, W), or (C_in, H, W) for an unbatched input; N may be 0.
    - kernel_size, stride, dilation: positive ints or (height, width) pairs; padding: a
      non-negative int, a pair, "valid" (no padding) or "same" (output H, W equal the
      input's; only with stride 1, as in nn.Conv2d), lower case exactly as nn.Conv2d wants.
    - Returns a plain tuple (not a torch.Size) of Python ints, as long as input_shape:
      (N, out_channels, H_out, W_out) or (out_channels, H_out, W_out).
    - Raises ValueError if input_shape does not have 3 or 4 entries, if padding is a string
      other than "valid"/"same", if padding="same" comes with a stride other than 1, or if
      the dilated kernel d (k - 1) + 1 is larger than the padded input, size + 2 p, in
      either dimension (nn.Conv2d fails there: the output would be empty).

    >>> conv2d_output_shape((8, 3, 224, 224), 64, kernel_size=7, stride=2, padding=3)
    (8, 64, 112, 112)
    >>> conv2d_output_shape((3, 32, 32), 16, kernel_size=3, padding="same")
    (16, 32, 32)
    """
    # TODO: apply the output-size formula to height and width.
    raise NotImplementedError


def linear_forward(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None
) -> torch.Tensor:
    """What `nn.Linear` computes: y = x W^T + b.

    - x: [..., in_features], any number of leading dims (none, several, or an empty batch).
    - weight: [out_features, in_features] (nn.Linear's layout); bias: [out_features] or None
      (no bias). All on one device, one floating dtype.
    - Returns [..., out_features] with x's dtype and device; gradients flow to x, weight and
      bias. Inputs are not modified.
    - Raises ValueError if weight is not 2-D, if x's last dim is not in_features (a 0-dim
      x has none), or if bias is given with a shape other than [out_features].

    Rules: do not call torch.nn.functional.linear (nor nn.Linear, which calls it); use
    matrix multiplication (never build the [..., out_features, in_features] products, for
    a 1-D x neither: nothing larger than x or the result).

    >>> layer = torch.nn.Linear(3, 2)
    >>> x = torch.randn(4, 3)
    >>> torch.allclose(linear_forward(x, layer.weight, layer.bias), layer(x))
    True
    """
    # TODO: check the shapes, then multiply by the transposed weight and add the bias.
    raise NotImplementedError


def pool2d(x: torch.Tensor, kernel: int, mode: str = "max") -> torch.Tensor:
    """What nn.MaxPool2d(kernel) (mode="max") and nn.AvgPool2d(kernel) (mode="avg") compute.

    - x: [N, C, H, W] floating, any layout; 1 <= kernel <= min(H, W).
    - Windows of kernel × kernel, side by side (stride = kernel, the layers' default); rows
      and columns left over at the bottom and right edge are dropped (ceil_mode=False).
    - Returns [N, C, H // kernel, W // kernel] in x's dtype on x's device:
      out[n, c, i, j] = max (or mean) of x[n, c, i*k:(i+1)*k, j*k:(j+1)*k], k = kernel.
      A float16 window's sum may pass 65504 where its mean fits: the mean must not overflow
      (torch's mean accumulates in float32).
    - Differentiable: "max" passes each window's gradient to its largest element (inputs
      whose windows hold ties are not asked about), "avg" spreads it evenly (1 / k²).
    - x is not modified. Raises ValueError if mode is neither "max" nor "avg".

    Rules: no Python loops; do not call the pooling functions or layers of any dimension
    (F.max_pool2d, F.avg_pool2d, F.max_pool3d on a view, the adaptive and Lp ones,
    nn.MaxPool2d, ...) nor F.unfold / Tensor.unfold. Hint:
    cut off the edge, reshape so that each window gets dimensions of its own, reduce them.

    >>> x = torch.arange(16.0).reshape(1, 1, 4, 4)
    >>> pool2d(x, 2)
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    >>> pool2d(x, 2, mode="avg")
    tensor([[[[ 2.5000,  4.5000],
              [10.5000, 12.5000]]]])
    """
    # TODO: crop to multiples of kernel, reshape to [N, C, H/k, k, W/k, k], reduce dims 3 and 5.
    raise NotImplementedError


def lstm_final_states(lstm: nn.LSTM, x: torch.Tensor) -> torch.Tensor:
    """Run `lstm` on `x` once; return the last layer's final hidden state, per sequence.

    - lstm: any nn.LSTM (any number of layers, uni- or bidirectional, batch_first True or
      False, with or without proj_size); x: a batched input laid out as the LSTM expects
      ([B, T, features] when batch_first, else [T, B, features]), T >= 1. The LSTM starts
      from zero states, its default (call it without an initial state, or pass zeros in
      x's dtype and device), and runs in whatever mode the caller left it (dropout
      between layers applies in training mode); leave its mode as it is.
    - Returns [B, H * directions] (H: proj_size if set, else hidden_size): the last
      layer's final state of the forward direction, then (bidirectional) that of the
      backward direction, which has read the sequence from its end back to step 0.
    - Gradients flow to x and the LSTM's parameters. The LSTM is not modified: its
      parameters and their .grad (what the caller has accumulated) stay as they are.

    >>> lstm = nn.LSTM(4, 6, num_layers=2, bidirectional=True, batch_first=True)
    >>> lstm_final_states(lstm, torch.randn(3, 5, 4)).shape
    torch.Size([3, 12])
    """
    # TODO: run the LSTM, then pick the last layer's directions out of h_n.
    raise NotImplementedError


def padded_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    key_padding_mask: torch.Tensor | None = None,
    causal: bool = False,
) -> torch.Tensor:
    """Scaled dot-product attention of q over k and v, ignoring padded keys.

    - q: [B, heads, L, d]; k, v: [B, heads, S, d] (v may have its own last size);
      key_padding_mask: bool [B, S], True where a key is padding (nn.Transformer's
      convention), or None. causal=True: query i sees keys 0..i only (L == S).
    - Returns softmax(q k^T / sqrt(d) + mask) v, shape [B, heads, L, v's last size],
      q's dtype and device. Every query sees at least one key (the caller's promise).
    - Both masks may be given together.

    Rule: compute it with `torch.nn.functional.scaled_dot_product_attention` and return
    its result (that is the point: its boolean mask is True where a key takes part). Padding
    may sit anywhere in a row, not only at its end.

    >>> q = k = v = torch.randn(2, 1, 3, 4)
    >>> pad = torch.tensor([[False, False, True], [False, False, False]])
    >>> padded_attention(q, k, v, pad).shape
    torch.Size([2, 1, 3, 4])
    """
    # TODO: turn the padding mask into SDPA's "True takes part" mask, add causality.
    raise NotImplementedError
