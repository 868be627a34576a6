"""Wrong: normalises the images in place with sub_/div_, changing the caller's tensor."""

from solutions.q05_broadcasting import broadcast_shape  # the rest as in the reference


def normalize_channels(images, mean, std):
    channels = images.shape[1] if images.dim() == 4 else None
    if channels is None or mean.shape != (channels,) or std.shape != (channels,):
        raise ValueError("images must be [N, C, H, W] and mean, std [C]")
    return images.sub_(mean.view(-1, 1, 1)).div_(std.view(-1, 1, 1))
