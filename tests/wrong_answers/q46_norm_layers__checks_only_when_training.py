"""Wrong: checks x and the running statistics only in training mode, so in eval a
mismatched running_mean is broadcast or fails with a RuntimeError."""

import torch

from solutions.q46_norm_layers import layer_norm


def batch_norm(
    x, running_mean, running_var, weight=None, bias=None, training=True, momentum=0.1, eps=1e-5
):
    channels = x.shape[1] if x.dim() > 1 else x.numel()
    dims = [0, *range(2, x.dim())]
    per_channel = (1, channels) + (1,) * (x.dim() - 2)
    if training:
        if x.dim() < 2:
            raise ValueError(f"x must be (N, C, ...), got shape {tuple(x.shape)}")
        if running_mean.shape != (channels,) or running_var.shape != (channels,):
            raise ValueError(f"running statistics must have shape ({channels},)")
        n = x.numel() // channels
        if n < 2:
            raise ValueError("batch norm needs more than one value per channel when training")
        var, mean = torch.var_mean(x, dim=dims, correction=0)
        with torch.no_grad():
            running_mean.lerp_(mean, momentum)
            running_var.lerp_(var * (n / (n - 1)), momentum)
    else:
        mean, var = running_mean, running_var
    y = (x - mean.reshape(per_channel)) * torch.rsqrt(var.reshape(per_channel) + eps)
    if weight is not None:
        y = y * weight.reshape(per_channel)
    if bias is not None:
        y = y + bias.reshape(per_channel)
    return y
