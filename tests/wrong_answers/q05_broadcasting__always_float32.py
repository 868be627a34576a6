"""Wrong: normalize_channels converts the images to float32 first, so float64 and
float16 images come back as float32."""

import torch

from solutions.q05_broadcasting import broadcast_shape  # the rest as in the reference


def normalize_channels(images: torch.Tensor, mean: torch.Tensor, std: torch.Tensor) -> torch.Tensor:
    if images.dim() != 4:
        raise ValueError(f"images must be [N, C, H, W], got shape {tuple(images.shape)}")
    channels = images.shape[1]
    if mean.shape != (channels,) or std.shape != (channels,):
        raise ValueError("mean and std must have shape [C]")
    return (images.float() - mean[:, None, None].float()) / std[:, None, None].float()
