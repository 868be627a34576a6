"""Wrong: round_ste is plain torch.round, whose gradient is zero everywhere."""

import torch

from solutions.q08_no_grad_detach import ema_update_, evaluate  # the rest as in the reference


def round_ste(x):
    return torch.round(x)
