"""Kata 5: broadcasting.

Elementwise operations accept tensors of different shapes when their shapes broadcast:
line the shapes up from the right, treat missing leading dimensions as size 1, and in each
position the sizes must be equal or one of them 1 (which is stretched to the other, 0
included). `[N, C, H, W] - [C]` lines C up with W, not with C; to act per channel the
statistics need the shape `[C, 1, 1]`. When W happens to equal C, the wrong version runs
without error and gives wrong numbers.

Task: implement the broadcasting rule on shapes yourself, then use broadcasting to
normalise a batch of images channel by channel.
"""

import torch


def broadcast_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """The shape that broadcasting tensors of shapes `a` and `b` together gives.

    - a, b: tuples of non-negative ints (a torch.Size is fine), possibly empty ().
    - Align from the right; a missing leading dimension counts as size 1. In each position
      the sizes must be equal, or one of them 1, and the result takes the other one
      (so 1 with 0 gives 0, but 2 with 0 does not broadcast).
    - Returns a plain tuple of ints.
    - Raises ValueError when the shapes do not broadcast; the message contains both shapes
      written as Python tuples, e.g. "(2, 3)" and "(4,)".

    Rules: plain Python on the shapes. Do not call torch.broadcast_shapes,
    torch.broadcast_tensors, np.broadcast_shapes or any other torch function.

    >>> broadcast_shape((5, 1, 4), (3, 1))
    (5, 3, 4)
    """
    # TODO: walk both shapes from the right; pad the shorter one with 1s.
    raise NotImplementedError


def normalize_channels(images: torch.Tensor, mean: torch.Tensor, std: torch.Tensor) -> torch.Tensor:
    """Normalise each channel of a batch of images with its own mean and std.

    - images: [N, C, H, W] floating, any layout (e.g. channels_last); N may be 0.
    - mean, std: [C] (1-D, C elements: a 0-dim tensor is not one, even for C = 1), same
      dtype and device as images; std > 0, however small (no eps added or clamped in).
    - Returns [N, C, H, W], same dtype and device, with
      out[n, c, h, w] = (images[n, c, h, w] - mean[c]) / std[c],
      differentiable with respect to images, mean and std (a preprocessing step inside a
      model, or an attack on its inputs, backpropagates through it).
      images, mean and std are not modified.
    - Raises ValueError if images is not 4-D or mean or std does not have shape [C],
      for an empty batch (N = 0, or any size 0) too. An empty batch itself is valid: it
      gives an empty result of its shape, not an error.

    Rules: no Python loops: give the statistics a shape that broadcasts per channel.

    >>> mean, std = torch.tensor([1.0, 0.0, 0.5]), torch.tensor([1.0, 2.0, 0.5])
    >>> out = normalize_channels(torch.ones(2, 3, 4, 4), mean, std)
    >>> out[0, :, 0, 0]
    tensor([0.0000, 0.5000, 1.0000])
    """
    # TODO: check the shapes, reshape mean and std to [C, 1, 1], then broadcast.
    raise NotImplementedError
