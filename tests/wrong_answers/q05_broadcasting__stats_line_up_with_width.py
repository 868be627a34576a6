"""Wrong: subtracts the [C] stats as they are, so they line up with W, not with C."""

from solutions.q05_broadcasting import broadcast_shape  # the rest as in the reference


def normalize_channels(images, mean, std):
    if images.dim() != 4:
        raise ValueError("images must be 4-D")
    return (images - mean) / std
