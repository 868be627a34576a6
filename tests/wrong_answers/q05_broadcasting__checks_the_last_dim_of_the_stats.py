"""Wrong: checks only the last dim of mean and std, so stats of shape [1, C] pass as [C]."""

from solutions.q05_broadcasting import broadcast_shape


def normalize_channels(images, mean, std):
    if images.dim() != 4:
        raise ValueError(f"images must be [N, C, H, W], got shape {tuple(images.shape)}")
    channels = images.shape[1]
    if mean.shape[-1] != channels or std.shape[-1] != channels:
        raise ValueError(f"mean and std must have {channels} channels")
    return (images - mean.reshape(-1, 1, 1)) / std.reshape(-1, 1, 1)
