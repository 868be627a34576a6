"""Kata 11: what the common layers compute, and the shapes they produce.

Using torch.nn's layers well means knowing the shapes going in and out. nn.Linear maps
[..., in_features] to [..., out_features] with y = x W^T + b, whatever the leading dims.
nn.Conv2d maps [N, C_in, H, W] to [N, C_out, H_out, W_out], where each spatial size
follows from the kernel size k, stride s, padding p and dilation d:

    out = floor((size + 2 p - d (k - 1) - 1) / s) + 1

Task: compute a Conv2d's output shape without running it, and write a Linear layer's
forward from tensor operations.
"""

from collections.abc import Sequence

import torch


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
      input's; only with stride 1, as in nn.Conv2d).
    - Returns a tuple of Python ints of the same length as input_shape:
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
    - Raises ValueError if weight is not 2-D, if x's last dim is not in_features, or if
      bias is given with a shape other than [out_features].

    Rules: do not call torch.nn.functional.linear (nor nn.Linear, which calls it); use
    matrix multiplication.

    >>> layer = torch.nn.Linear(3, 2)
    >>> x = torch.randn(4, 3)
    >>> torch.allclose(linear_forward(x, layer.weight, layer.bias), layer(x))
    True
    """
    # TODO: check the shapes, then multiply by the transposed weight and add the bias.
    raise NotImplementedError
