"""gather with a repeat()-built index and select(), a mask from torch.ge and masked_select
viewed back to rows, torch.stack of the rotated halves flattened, torch.scatter_add as a
function with an expanded ones source."""

import torch


def last_valid(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    feature_count = x.shape[2]
    index = (lengths - 1).unsqueeze(1).repeat(1, feature_count).unsqueeze(1)  # [B, 1, D]
    return torch.gather(x, 1, index).select(1, 0)


def valid_steps(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    steps = torch.arange(1, x.shape[1] + 1, device=x.device)
    mask = torch.ge(lengths[:, None], steps[None, :])  # [B, T]: step t valid when t < length
    picked = torch.masked_select(x, mask[:, :, None])
    return picked.view(int(lengths.sum()), x.shape[2])


def rotate_pairs(x: torch.Tensor) -> torch.Tensor:
    if x.size(-1) % 2 != 0:
        raise ValueError("rotate_pairs needs an even number of features")
    firsts, seconds = x[..., ::2], x[..., 1::2]
    return torch.stack((seconds.neg(), firsts), dim=-1).flatten(start_dim=-2)


def batch_histogram(labels: torch.Tensor, num_bins: int) -> torch.Tensor:
    base = labels.new_zeros((labels.size(0), num_bins))
    ones = labels.new_ones(()).expand_as(labels)
    return torch.scatter_add(base, 1, labels, ones)
