"""Wrong: zeros the gradients at the start of each group only, so an empty list of
micro-batches leaves the gradients from before the call in place."""

import torch.nn.functional as F

from solutions.q36_grad_accumulation import train_accumulated as _reference


def train_accumulated(model, batches, optimizer, accum_steps, loss_fn=F.mse_loss):
    if not batches and accum_steps >= 1:
        return []
    return _reference(model, batches, optimizer, accum_steps, loss_fn)
