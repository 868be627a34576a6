"""Wrong: normalises one channel at a time, mapping over the channels (a loop by another name)."""

import torch

from solutions.q05_broadcasting import broadcast_shape


def normalize_channels(images, mean, std):
    if images.dim() != 4:
        raise ValueError(f"images must be [N, C, H, W], got shape {tuple(images.shape)}")
    channels = images.shape[1]
    if mean.shape != (channels,) or std.shape != (channels,):
        raise ValueError(f"mean and std must have shape ({channels},)")
    if channels == 0:
        return images.clone()
    planes = map(lambda c: (images[:, c] - mean[c]) / std[c], range(channels))
    return torch.stack(list(planes), dim=1)
